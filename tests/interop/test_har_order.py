"""HAR keeps the order of messages that cross the wire within one millisecond (issue 12's HAR round trip met
this as a flaky test: a request sent less than a millisecond after its predecessor's answer began came back
before that answer once times were cut to milliseconds)."""

from __future__ import annotations

import json

from inspector.core.interop.har import events_from_har, to_har
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import decode_document

URL = "http://127.0.0.1:9/mcp"
T0 = 1_800_000_000.0001  # the whole exchange below happens within this millisecond


def _message(obj: dict, direction: str, exchange: int, wall: float) -> Event:
    event = decode_document(json.dumps(obj).encode(), direction)
    event.put(exchange=exchange)
    event.wall = wall
    return event


def _head(exchange: int, wall: float, first_byte: float) -> Event:
    return Event(Kind.HTTP, wall=wall, data={
        "exchange": exchange, "method": "POST", "url": URL, "status": 200, "reason": "OK",
        "response_headers": {"content-type": "text/event-stream"}, "timing": {"first_byte": first_byte}})


def test_a_request_sent_within_the_millisecond_its_predecessor_was_answered_comes_back_after_that_answer():
    listed = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    answer = {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "x"}}
    events = [
        _message(listed, Direction.C2S, 1, T0),
        _head(1, T0 + 0.0003, 0.0003),
        _message(answer, Direction.S2C, 1, T0 + 0.0004),
        _message(call, Direction.C2S, 2, T0 + 0.0006),
        _head(2, T0 + 0.0009, 0.0003),
    ]
    har = to_har({"target": {"transport": "streamable-http", "url": URL}}, events)
    _, batches = events_from_har(json.loads(json.dumps(har)))
    order = [json.loads(e.raw)["id"] if "method" not in json.loads(e.raw) else json.loads(e.raw)["method"]
             for batch, _ in batches for e in batch if e.kind == Kind.MESSAGE]
    assert order == ["tools/list", 2, "tools/call"]
