"""The capture writer writes only JSON (RFC 8259): a time or a value that is not a finite number, whatever its
source (an imported HAR's Infinity timing, a NaN in a server's data), must never make a line that our own
reader skips (issue 26, point 2)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from inspector.core.capture import CaptureWriter, read_capture
from inspector.core.capture.writer import make_header
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import decode_line

ANSWER = b'{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}'


def strict_json(line: str) -> Any:
    """Parse as any strict JSON reader would: NaN, Infinity and -Infinity are not JSON."""
    def refuse(token: str) -> Any:
        raise ValueError(f"{token} is not JSON")
    return json.loads(line, parse_constant=refuse)


def events_with_numbers_json_cannot_hold() -> list[Event]:
    fast = decode_line(ANSWER, Direction.S2C)  # the writer's hot path: a plain message
    fast.t, fast.wall = math.inf, math.inf
    noted = decode_line(ANSWER, Direction.S2C)  # the path with extras
    noted.put(latency=math.nan)
    noted.t, noted.wall = -math.inf, math.nan
    http = Event(Kind.HTTP, data={"status": 200, "timing": {"first_byte": math.inf, "total": -math.inf},
                                  "list": [1.5, math.nan]})
    http.t, http.wall = math.nan, math.inf
    big = decode_line(b'{"jsonrpc":"2.0","id":2,"result":{"text":"' + b"x" * (2 << 20) + b'"}}', Direction.S2C)
    big.put(latency=math.inf)  # over BIG_EVENT_BYTES: written a piece at a time
    big.t, big.wall = math.inf, 1.0
    return [fast, noted, http, big]


def test_no_line_the_capture_writer_writes_holds_a_number_json_cannot_hold(tmp_path: Path):
    path = tmp_path / "numbers.jsonl"
    writer = CaptureWriter(path, make_header({"transport": "stdio", "argv": ["x"], "weight": math.nan}))
    events = events_with_numbers_json_cannot_hold()
    for seq, event in enumerate(events, start=1):
        event.seq = seq
    writer.write_many(events)
    writer.close()
    lines = path.read_text().splitlines()
    parsed = [strict_json(line) for line in lines]  # raises on "inf", "Infinity" or "NaN"
    assert parsed[0]["target"]["weight"] is None
    assert [(p["t"], p["wall"]) for p in parsed[1:]] == [(0, 0), (0, 0), (0, 0), (0, 1.0)]
    assert parsed[3]["data"]["timing"] == {"first_byte": None, "total": None}
    assert parsed[3]["data"]["list"] == [1.5, None]


def test_our_reader_reads_every_line_the_writer_wrote_from_non_finite_numbers(tmp_path: Path):
    path = tmp_path / "numbers.jsonl"
    writer = CaptureWriter(path, make_header({"transport": "stdio", "argv": ["x"]}))
    events = events_with_numbers_json_cannot_hold()
    for seq, event in enumerate(events, start=1):
        event.seq = seq
    writer.write_many(events)
    writer.close()
    capture = read_capture(path)
    assert capture.warnings == []
    assert [e.seq for e in capture.events] == [1, 2, 3, 4]


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_a_non_finite_time_is_written_as_the_unknown_time_zero(tmp_path: Path, value: float):
    path = tmp_path / "t.jsonl"
    writer = CaptureWriter(path, make_header({}))
    event = Event(Kind.NOTE, data={"text": "hello"}, seq=1)
    event.t = event.wall = value
    writer.write(event)
    writer.close()
    line = strict_json(path.read_text().splitlines()[1])
    assert (line["t"], line["wall"]) == (0, 0)
