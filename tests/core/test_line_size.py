"""event_line_size: the byte length of a capture line known before a big line is written a piece at a time,
so a live window's offsets stay exact (issue 17: big messages written in slices, rows read back by offset)."""

from __future__ import annotations

import random

import pytest

from inspector.core.capture.format import event_line_pieces, event_line_size
from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.wire.events import Event, Finding, Kind

BIG = 300 << 10


#: Random bytes mapped onto the characters a capture line must escape (and a few it need not).
_ALPHABET = b'abc"\\\n\t\x01\x1f\x7f'
_TO_ALPHABET = bytes(_ALPHABET[i % len(_ALPHABET)] for i in range(256))


def _events() -> list[Event]:
    rng = random.Random(7)
    out = []
    for k in range(24):
        if k % 3:  # (made with translate: a byte at a time cost 1.5 s at every collection, in every worker)
            body = rng.randbytes(BIG).translate(_TO_ALPHABET)
        else:
            body = "é€😀x".encode() * (BIG // 9)
        kind = Kind.FRAMING_ERROR if k % 2 == 0 else Kind.MESSAGE
        if kind == Kind.FRAMING_ERROR and k % 4 == 0:
            body = b"\xff\xfe" + body  # not UTF-8: the line holds raw_b64
        out.append(Event(kind, raw=body, dir="s2c", eol=b"\n" if k % 5 else b"",
                         data={"reply_to": 3} if k % 7 == 0 else {},
                         findings=[Finding("x", "y")] if k % 6 == 0 else [], seq=k + 1, t=1.5, wall=2.5))
    return out


@pytest.mark.parametrize("event", _events(), ids=lambda e: f"seq{e.seq}")
def test_the_size_of_a_big_line_is_known_without_building_it(event):
    line = "".join(event_line_pieces(event)).encode("utf-8", errors="surrogatepass")
    assert event_line_size(event) == len(line)


def test_offsets_noted_for_big_lines_point_at_their_lines_in_the_file(tmp_path):
    path = tmp_path / "c.jsonl"
    writer = CaptureWriter(path, make_header({"transport": "stdio", "argv": ["x"]}), track_offsets=True)
    small = Event(Kind.STDERR, raw=b"small line", dir="s2c", seq=0, t=0.0, wall=0.0)
    events = _events()[:6]
    for event in events:
        writer.write_many([small, event, small])
    writer.close()
    data = path.read_bytes()
    assert writer.offsets is not None and len(writer.offsets) == 3 * len(events)
    starts = list(writer.offsets)
    for index, start in enumerate(starts):
        assert data[start - 1:start] == b"\n", f"line {index} starts after a newline"
        expected = events[index // 3].seq if index % 3 == 1 else 0
        assert data[start:start + 20].startswith(b'{"seq":%d,' % expected), (index, data[start:start + 20])
    assert writer.position == len(data)


@pytest.mark.parametrize("data", [{}, {"request_method": "tools/call", "latency": 0.25}])
def test_the_size_of_a_big_parsed_message_with_whitespace_escapes_and_non_ascii_is_exact(data):
    # a parsed message takes the one-pass count: its raw control bytes are JSON whitespace only
    from inspector.core.wire.framing import _decode

    pieces = ["a", "é", '\\"', "\\\\", "\\n", "\\u0001", "€", " "]  # escapes as JSON text writes them
    text = "".join(random.Random(3).choices(pieces, k=100_000))
    raw = ('{"jsonrpc":"2.0",\t"id":7,\r\n"result":\t{"content":[{"type":"text","text":"' + text + '"}]}}').encode()
    event = _decode(raw, b"\n", "s2c")
    assert event.kind == Kind.MESSAGE and event.rpc is not None
    event.put(**data)
    assert event_line_size(event, piece=4096) == len("".join(event_line_pieces(event, piece=4096)).encode())
