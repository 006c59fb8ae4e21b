"""The pipeline and intercepted messages (inspector/core/capture/pipeline.py): what its peer never got (an
``original`` a rule changed, a ``dropped`` message) is recorded but never paired; a ``held`` request is paired with
the inspector's answer and asks the session for no reaction."""

from __future__ import annotations

import json
from typing import Any

from inspector.core.capture.pipeline import EventPipeline
from inspector.core.wire.events import Direction, Event
from inspector.core.wire.framing import decode_line
from inspector.core.wire.intercepted import MARK, mark

C2S, S2C = Direction.C2S, Direction.S2C


def message(direction: str, obj: dict[str, Any], role: str | None = None, action: str = "rewrite") -> Event:
    event = decode_line(json.dumps(obj).encode(), direction)
    if role is not None:
        event.put(**{MARK: mark(1, action, role)})
    return event


def request(msg_id: int, role: str | None = None, action: str = "rewrite") -> Event:
    return message(C2S, {"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": {"name": "add"}}, role,
                   action)


def result(msg_id: int, role: str | None = None, action: str = "rewrite", direction: str = S2C) -> Event:
    return message(direction, {"jsonrpc": "2.0", "id": msg_id, "result": {}}, role, action)


def test_an_original_response_a_rule_changed_is_not_paired_and_the_changed_one_is():
    pipeline = EventPipeline(keep=[])
    sent = request(1)
    pipeline.push([sent], 0.0, 0.0)
    original, changed = result(1, "original"), result(1, "changed")
    reactions = pipeline.push([original, changed], 0.5, 0.5)
    assert "reply_to" not in original.data
    assert changed.data["reply_to"] == sent.seq
    assert reactions == [(changed, sent)]
    assert pipeline.correlator.pending(C2S) == []


def test_an_original_request_is_not_paired_and_the_answer_pairs_with_the_changed_one():
    pipeline = EventPipeline(keep=[])
    original, changed = request(1, "original"), request(1, "changed")
    reactions = pipeline.push([original, changed], 0.0, 0.0)
    assert reactions == [(changed, None)]
    assert [f.code for f in changed.findings] == [], "the same id twice: the original counted as sent"
    answer = result(1)
    pipeline.push([answer], 0.2, 0.2)
    assert answer.data["reply_to"] == changed.seq


def test_a_dropped_answer_leaves_its_request_waiting():
    pipeline = EventPipeline(keep=[])
    sent = request(1)
    pipeline.push([sent], 0.0, 0.0)
    dropped = result(1, "dropped", "drop")
    assert pipeline.push([dropped], 0.1, 0.1) == []
    assert "reply_to" not in dropped.data
    assert [p.seq for p in pipeline.correlator.pending(C2S)] == [sent.seq]


def test_a_held_request_pairs_with_the_inspectors_answer_and_asks_for_no_reaction():
    pipeline = EventPipeline(keep=[])
    held = request(4, "held", "error")
    assert pipeline.push([held], 0.0, 0.0) == []
    answer = message(S2C, {"jsonrpc": "2.0", "id": 4, "error": {"code": -1, "message": "m"}}, "answer", "error")
    assert pipeline.push([answer], 0.0, 0.0) == [(answer, held)]
    assert answer.data["reply_to"] == held.seq


def test_a_held_server_request_asks_the_session_to_answer_nothing():
    pipeline = EventPipeline(keep=[])
    held = message(S2C, {"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage"}, "held", "error")
    assert pipeline.push([held], 0.0, 0.0) == []
    answer = message(C2S, {"jsonrpc": "2.0", "id": "s1", "error": {"code": -1, "message": "m"}}, "answer", "error")
    pipeline.push([answer], 0.0, 0.0)
    assert answer.data["reply_to"] == held.seq
