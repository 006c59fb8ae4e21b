"""Fuzzing the stdio framing decoder (inspector/core/wire/framing.py): whatever a server writes to stdout, in
whatever pieces the pipe hands it over, the decoder never raises and every byte comes back exactly once.

The contract under test (framing.py's docstring): concatenating ``event.raw + event.eol`` over every event of
``feed`` and ``close``, in order, reproduces the input, however it was chunked; chunking never changes the
events. With a small line limit, over-long lines become one framing error each that keeps its size (its head
is 64 KiB, more than these inputs, so reassembly stays exact there too).
"""

from __future__ import annotations

import json

import pytest
from fuzz_support import Examples, chunked, pieces_and_bytes, run_property
from hypothesis import given
from hypothesis import strategies as st

from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import BOM, DEFAULT_MAX_LINE_BYTES, LineDecoder

PRETTY = json.dumps({"jsonrpc": "2.0", "id": 3, "result": {"content": []}}, indent=2).encode()
PIECES = [
    b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}', b'{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}',
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}', b'[{"jsonrpc":"2.0","id":2,"method":"ping"}]',
    b'{"jsonrpc":"2.0","id":"2","error":{"code":-32601,"message":"no"}}', PRETTY, PRETTY.replace(b"\n", b"\r\n"),
    b"\n", b"\r\n", b"\r", b"\n\n", BOM, b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\x00", b"\x1b[31m",
    "\u2028".encode(), b"{", b"}", b"[", b"]", b'"', b"\\", b",", b":", b" ", b"\t", b'"jsonrpc": "2.0",',
    b"Server started on stdio", b"42", b"null", b"true", b"NaN", b"-Infinity", b"1e999", b"[" * 50, b"{\"a\":" * 20,
]
LIMITS = st.sampled_from([DEFAULT_MAX_LINE_BYTES, 1, 2, 7, 16, 64])


def decode(chunks: list[bytes], max_line_bytes: int) -> list[Event]:
    decoder = LineDecoder(Direction.S2C, max_line_bytes=max_line_bytes)
    events: list[Event] = []
    for chunk in chunks:
        events.extend(decoder.feed(chunk))
    events.extend(decoder.close())
    return events


@pytest.mark.report("fuzz", "stdio framing decoder: arbitrary bytes in arbitrary chunks come back byte for byte, "
                            "chunking never changes the events, nothing raises", surface="core")
def test_arbitrary_stdout_bytes_in_arbitrary_chunks_reassemble_exactly_and_never_raise(report):
    examples = Examples()

    @given(case=chunked(pieces_and_bytes(PIECES)), limit=LIMITS)
    def prop(case: tuple[bytes, list[bytes]], limit: int) -> None:
        examples()
        data, chunks = case
        events = decode(chunks, limit)
        assert b"".join(e.raw + e.eol for e in events) == data
        assert events == decode([data], limit), "the chunking changed the events"
        for event in events:
            assert event.kind in (Kind.MESSAGE, Kind.FRAMING_ERROR)
            assert event.dir == Direction.S2C
            assert event.eol in (b"\n", b"\r\n", b"")
            assert (event.reason is None) == (event.kind == Kind.MESSAGE)
            assert "incomplete_json" not in event.data
            oversize = event.data.get("oversize")
            if oversize is not None:
                assert oversize["total_bytes"] > limit and oversize["total_bytes"] == len(event.raw)
            elif event.kind == Kind.MESSAGE:
                assert len(event.raw) <= limit and event.rpc is not None

    run_property(report, examples, prop)
