"""The replay plan of a capture recorded with intercept rules (issue 40): the server's side of the wire is
replayed (what a rule changed goes as changed, what it held back is not sent) and compared with the server's own
answers, not with what a rule made of them."""

from __future__ import annotations

import json
from typing import Any

from inspector.core.capture import Capture
from inspector.core.capture.pipeline import EventPipeline
from inspector.core.replay.engine import REQUEST, ReplayPlan
from inspector.core.wire.events import Direction, Event
from inspector.core.wire.framing import decode_line
from inspector.core.wire.intercepted import MARK, mark

C2S, S2C = Direction.C2S, Direction.S2C
STDIO = {"transport": "stdio", "argv": ["server"], "cwd": None, "env": {}, "redacted": True}


def event(direction: str, obj: dict[str, Any], role: str | None = None, action: str = "rewrite") -> Event:
    made = decode_line(json.dumps(obj).encode(), direction)
    if role is not None:
        made.put(**{MARK: mark(1, action, role)})
    return made


def capture(*events: Event) -> Capture:
    """Numbered and paired by the pipeline, as a recording session leaves them."""
    pipeline = EventPipeline(keep=[])
    for t, each in enumerate(events):
        pipeline.push([each], float(t), float(t))
    return Capture({"format": "mcp-inspector-capture", "version": 1, "created": "then", "target": STDIO},
                   list(events))


def call(msg_id: int, a: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": {"name": "add", "arguments": {"a": a}}}


def result(msg_id: int, text: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "result": {"content": [{"type": "text", "text": text}]}}


def test_the_server_side_of_the_wire_is_replayed_and_compared():
    plan = ReplayPlan.from_capture(capture(
        event(C2S, call(1, 1), "original"),
        event(C2S, call(1, 40), "changed"),
        event(S2C, result(1, "41"), "original"),  # the server's answer
        event(S2C, result(1, "forty-two"), "changed"),  # what the session got
        event(C2S, {"jsonrpc": "2.0", "id": 2, "method": "prompts/list"}, "held", "error"),
        event(S2C, {"jsonrpc": "2.0", "id": 2, "error": {"code": -1, "message": "no"}}, "answer", "error"),
        event(C2S, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
        event(S2C, {"jsonrpc": "2.0", "id": 3, "result": {"tools": []}}),
    ))
    assert [(s.action, s.method, s.event.seq) for s in plan.steps] == [(REQUEST, "tools/call", 2),
                                                                      (REQUEST, "tools/list", 7)]
    changed, listing = plan.steps
    assert json.loads(changed.event.raw)["params"]["arguments"] == {"a": 40}
    assert changed.response.seq == 3  # the server's own answer, not the rule's "forty-two"
    assert listing.response.seq == 8
    assert sum(changed.window.values()) == 0, changed.window  # the server's answer a rule changed answers its request


def test_a_dropped_answer_is_still_the_servers_answer():
    plan = ReplayPlan.from_capture(capture(
        event(C2S, call(1, 1)),
        event(S2C, result(1, "2"), "dropped", "drop"),
    ))
    [step] = plan.steps
    assert step.response.seq == 2 and sum(step.window.values()) == 0
