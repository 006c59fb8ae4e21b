"""The check report includes the protocol judge's findings on what the server sent, never on the broken
messages the check itself sends on purpose."""

from __future__ import annotations

import json

from inspector.core.capture.pipeline import EventPipeline
from inspector.core.check.checks import MUST
from inspector.core.check.judging import judge_server_messages
from inspector.core.wire.events import Direction
from inspector.core.wire.framing import decode_line


def events_of(messages: list[tuple[str, dict]]):
    kept: list = []
    pipeline = EventPipeline(keep=kept)
    for number, (direction, message) in enumerate(messages):
        pipeline.push([decode_line(json.dumps(message).encode(), direction)], number * 0.01, number * 0.01)
    return kept


def test_a_server_result_that_breaks_the_schema_is_a_must_finding_and_a_deliberately_bad_request_is_not():
    events = events_of([
        (Direction.C2S, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "t", "version": "1"}}}),
        (Direction.S2C, {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {
            "tools": {}}, "serverInfo": {"name": "s", "version": "1"}}}),
        (Direction.C2S, {"jsonrpc": "2.0", "method": "notifications/initialized"}),
        (Direction.C2S, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"nme": 3}}),  # on purpose
        (Direction.S2C, {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "bad params"}}),
        (Direction.C2S, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
        (Direction.S2C, {"jsonrpc": "2.0", "id": 3, "result": {"tools": [{"name": "x"}]}}),
    ])
    found = judge_server_messages(events, "2025-11-25")
    assert [f.seq for f in found] == [events[6].seq], found
    assert found[0].level == MUST and "inputSchema" in found[0].sentence
