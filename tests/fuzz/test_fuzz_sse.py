"""Fuzzing the Server-Sent Events decoder (inspector/core/wire/sse.py): whatever bytes an HTTP server streams, in
whatever pieces they arrive, the decoder never raises (it documents no error at all) and each dispatched
event keeps the exact bytes of its lines.

The expected events come from a whole-stream reading of the HTML standard's rules
(https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream) written here in a
few lines: strip one leading BOM, split lines at CRLF, LF or CR, a line starting with ``:`` is a comment, an
empty line dispatches the lines gathered so far, what is left at the end is incomplete. Every input byte is
therefore accounted for: in an event's raw bytes, a comment, a blank line, the BOM, or ``incomplete_bytes``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from fuzz_support import Examples, chunked, pieces_and_bytes, run_property
from hypothesis import given

from inspector.core.wire.sse import RawSSE, SSEDecoder

BOM = b"\xef\xbb\xbf"
PIECES = [
    b"data:", b"data: ", b"data", b"event:", b"event: message", b"id:", b"id: 7", b"retry:", b"retry: 1500",
    b"retry: \xd9\xa3", b":", b": keep-alive", b"\n", b"\r", b"\r\n", b"\n\n", b"\r\n\r\n", b"\r\r", BOM,
    b"\x00", b"\xff", b"\xc3", b" ", b'{"jsonrpc":"2.0","id":1,"result":{}}', b"endpoint", b"x-field: y",
]
_LINE = re.compile(rb"([^\r\n]*)(\r\n|\r|\n)")


def expected(stream: bytes) -> tuple[list[dict[str, Any]], int, int, str]:
    """The events, total comments, incomplete bytes and last event id of the whole stream, by the rules."""
    if stream.startswith(BOM):
        stream = stream[3:]
    events: list[dict[str, Any]] = []
    block: list[bytes] = []
    fields: dict[str, Any] = {"event": "", "data": [], "id": None, "retry": None}
    comments = total = 0
    last_id = ""
    ending_of_last = b""
    pos = 0
    for match in _LINE.finditer(stream):
        pos = match.end()
        line, ending = match.group(1), match.group(2)
        if not line:
            if block:
                if fields["id"] is not None:
                    last_id = fields["id"]
                events.append({"raw": b"".join(block), "event": fields["event"] or "message",
                               "data": "\n".join(fields["data"]), "has_data": bool(fields["data"]),
                               "id": fields["id"] or "", "retry": fields["retry"], "comments": comments,
                               "crlf": ending_of_last == b"\r\n"})
                block, comments = [], 0
                fields = {"event": "", "data": [], "id": None, "retry": None}
            continue
        if line.startswith(b":"):
            comments += 1
            total += 1
            continue
        block.append(line + ending)
        ending_of_last = ending
        name, colon, value = line.decode("utf-8", errors="replace").partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            fields["data"].append(value)
        elif name == "event":
            fields["event"] = value
        elif name == "id" and "\0" not in value:
            fields["id"] = value
        elif name == "retry" and value.isascii() and value.isdigit():
            fields["retry"] = int(value)
    incomplete = len(stream) - pos + sum(len(line) for line in block)
    return events, total, incomplete, last_id


def seen(event: RawSSE) -> dict[str, Any]:
    return {"raw": event.raw, "event": event.sse.event, "data": event.sse.data, "has_data": event.has_data,
            "id": event.sse.id, "retry": event.sse.retry, "comments": event.comments, "crlf": event.crlf}


@pytest.mark.report("fuzz", "SSE decoder: arbitrary bytes in arbitrary chunks give the standard's events with "
                            "their exact bytes, every byte accounted for, nothing raises", surface="core")
def test_arbitrary_event_stream_bytes_in_arbitrary_chunks_keep_exact_event_bytes_and_never_raise(report):
    examples = Examples()

    @given(case=chunked(pieces_and_bytes(PIECES)))
    def prop(case: tuple[bytes, list[bytes]]) -> None:
        examples()
        stream, chunks = case
        decoder = SSEDecoder()
        events: list[RawSSE] = []
        for chunk in chunks:
            events += decoder.feed(chunk)
        events += decoder.close()
        want, comments, incomplete, last_id = expected(stream)
        assert [seen(e) for e in events] == want
        assert (decoder.total_comments, decoder.incomplete_bytes, decoder.last_event_id) == \
            (comments, incomplete, last_id)

    run_property(report, examples, prop)
