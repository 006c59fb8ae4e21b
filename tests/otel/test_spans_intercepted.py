"""Spans of a session with intercepted messages (issue 40): what its peer never got makes no span (it would end
as "no answer came"), and what a rule changed carries the mark's sentence."""

from __future__ import annotations

import json
from typing import Any

from inspector.core.otel.spans import STATUS_ERROR, STATUS_UNSET, SpanBuilder
from inspector.core.wire.events import Event, Kind
from inspector.core.wire.intercepted import MARK, mark
from inspector.core.wire.jsonrpc import classify


def message(seq: int, direction: str, obj: dict[str, Any], found: dict | None = None, **data: Any) -> Event:
    rpc, _ = classify(obj)
    if found is not None:
        data[MARK] = found
    return Event(Kind.MESSAGE, json.dumps(obj).encode(), direction, b"\n", rpc=rpc, data=data, seq=seq,
                 wall=100.0 + seq)


CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1}}}


def spans(*events: Event) -> list[Any]:
    builder = SpanBuilder("key")
    return builder.feed(list(events)) + builder.finish()


def test_an_original_request_makes_no_span_and_the_changed_one_carries_the_mark():
    done = spans(
        message(1, "c2s", CALL, mark(1, "rewrite", "original")),
        message(2, "c2s", {**CALL, "params": {"name": "add", "arguments": {"a": 40}}}, mark(1, "rewrite", "changed")),
        message(3, "s2c", {"jsonrpc": "2.0", "id": 2, "result": {"content": []}}, mark(2, "delay", "delayed", ms=5),
                reply_to=2, latency=1.0),
    )
    call, session = done
    assert call.name == "tools/call add" and call.status_code == STATUS_UNSET
    assert call.attributes["mcp.inspector.seq"] == 2
    assert call.attributes["mcp.inspector.intercept.request"] == "changed by rule 1 (rewrite)"
    assert call.attributes["mcp.inspector.intercept.answer"] == "delayed 5 ms by rule 2 (delay)"
    [event] = session.events
    assert (event.name, event.attributes) == ("intercepted", {
        "mcp.inspector.intercept": "original, never delivered: rule 1 (rewrite) changed it (the next message went "
                                   "instead)", "mcp.method.name": "tools/call", "mcp.inspector.seq": 1})


def test_a_held_request_is_a_span_answered_by_the_inspectors_error():
    call, _ = spans(
        message(1, "c2s", CALL, mark(1, "error", "held")),
        message(2, "s2c", {"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "injected"}},
                mark(1, "error", "answer"), reply_to=1, latency=0.001),
    )
    assert call.status_code == STATUS_ERROR and call.status_message == "injected"
    assert call.attributes["mcp.inspector.intercept.request"] == ("held by rule 1 (error): never reached its peer, "
                                                                  "the inspector answered it")
    assert call.attributes["mcp.inspector.intercept.answer"] == "the inspector's answer, by rule 1 (error)"
