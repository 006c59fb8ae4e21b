"""Spans made from a session's events (inspector.core.otel.spans): one per request with its status and latency,
a _meta traceparent honoured, notifications as events of the span they belong to."""

from __future__ import annotations

import json
from typing import Any

from inspector.core.otel.spans import (
    KIND_CLIENT,
    KIND_SERVER,
    STATUS_ERROR,
    STATUS_UNSET,
    SpanBuilder,
    parse_traceparent,
)
from inspector.core.wire.events import Event, Kind
from inspector.core.wire.jsonrpc import classify

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"


class Wire:
    """Events as a session's pipeline leaves them: numbered, timed, answers paired with latency."""

    def __init__(self) -> None:
        self.seq = 0
        self.sent: dict[Any, int] = {}

    def message(self, direction: str, obj: dict[str, Any], wall: float, latency: float | None = None) -> Event:
        self.seq += 1
        rpc, _ = classify(obj)
        data: dict[str, Any] = {}
        if "method" in obj and "id" in obj:
            self.sent[(direction, json.dumps(obj["id"]))] = self.seq
        elif "id" in obj:
            asked = "c2s" if direction == "s2c" else "s2c"
            data = {"reply_to": self.sent[(asked, json.dumps(obj["id"]))], "latency": latency}
        return Event(Kind.MESSAGE, json.dumps(obj).encode(), direction, b"\n", rpc=rpc, data=data, seq=self.seq,
                     wall=wall)


def run(*events: Event) -> list[Any]:
    builder = SpanBuilder("key")
    spans = builder.feed(list(events))
    return spans + builder.finish()


def test_a_tool_call_is_a_client_span_named_after_the_tool_with_its_latency_and_the_server() -> None:
    wire = Wire()
    spans = run(
        wire.message("c2s", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}, 100.0),
        wire.message("s2c", {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25",
                                                                   "serverInfo": {"name": "srv", "version": "2"}}},
                     100.01, latency=0.01),
        wire.message("c2s", {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                             "params": {"name": "add", "arguments": {"a": 1}}}, 101.0),
        wire.message("s2c", {"jsonrpc": "2.0", "id": 2, "result": {"content": []}}, 101.3, latency=0.25),
    )
    call = next(s for s in spans if s.name == "tools/call add")
    assert call.kind == KIND_CLIENT and call.status_code == STATUS_UNSET
    assert call.end_ns - call.start_ns == 250_000_000
    assert call.attributes["gen_ai.tool.name"] == "add"
    assert call.attributes["mcp.server.name"] == "srv" and call.attributes["mcp.protocol.version"] == "2025-11-25"
    session = spans[-1]
    assert session.name == "mcp session srv" and call.parent_span_id == session.span_id
    assert call.trace_id == session.trace_id


def test_a_traceparent_in_meta_puts_the_span_in_that_trace_under_that_span() -> None:
    wire = Wire()
    spans = run(wire.message("c2s", {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "x", "_meta": {"traceparent": f"00-{TRACE}-{PARENT}-01", "tracestate": "k=v"}}}, 1.0),
        wire.message("s2c", {"jsonrpc": "2.0", "id": 7, "result": {}}, 1.1, latency=0.1))
    call = spans[0]
    assert (call.trace_id.hex(), call.parent_span_id.hex(), call.trace_state) == (TRACE, PARENT, "k=v")


def test_errors_tool_errors_and_unanswered_requests_are_error_spans() -> None:
    wire = Wire()
    spans = run(
        wire.message("c2s", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a"}}, 1.0),
        wire.message("s2c", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad"}}, 1.1, 0.1),
        wire.message("c2s", {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "b"}}, 2.0),
        wire.message("s2c", {"jsonrpc": "2.0", "id": 2, "result": {"isError": True, "content": [
            {"type": "text", "text": "disk full"}]}}, 2.1, 0.1),
        wire.message("c2s", {"jsonrpc": "2.0", "id": 3, "method": "ping"}, 3.0),
    )
    by_name = {s.name: s for s in spans}
    assert (by_name["tools/call a"].status_code, by_name["tools/call a"].status_message) == (STATUS_ERROR, "bad")
    assert by_name["tools/call a"].attributes["rpc.jsonrpc.error_code"] == -32602
    assert (by_name["tools/call b"].status_message, by_name["tools/call b"].attributes["error.type"]) == (
        "disk full", "tool_error")
    assert by_name["ping"].attributes["error.type"] == "no_answer"


def test_notifications_become_events_of_the_span_they_belong_to() -> None:
    wire = Wire()
    spans = run(
        wire.message("c2s", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                             "params": {"name": "slow", "_meta": {"progressToken": "p"}}}, 1.0),
        wire.message("s2c", {"jsonrpc": "2.0", "method": "notifications/progress",
                             "params": {"progressToken": "p", "progress": 1}}, 1.1),
        wire.message("s2c", {"jsonrpc": "2.0", "method": "notifications/message",
                             "params": {"level": "info", "data": "working"}}, 1.2),
        wire.message("s2c", {"jsonrpc": "2.0", "id": 1, "result": {}}, 1.3, latency=0.3),
        wire.message("s2c", {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}, 2.0),
    )
    call, session = spans
    assert [e.name for e in call.events] == ["notifications/progress", "notifications/message"]
    assert [e.name for e in session.events] == ["notifications/tools/list_changed"]


def test_a_server_request_is_a_server_span() -> None:
    wire = Wire()
    spans = run(wire.message("s2c", {"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage"}, 1.0),
                wire.message("c2s", {"jsonrpc": "2.0", "id": "s1", "result": {}}, 1.5, latency=0.5))
    assert (spans[0].name, spans[0].kind) == ("sampling/createMessage", KIND_SERVER)


def test_only_a_well_formed_traceparent_counts() -> None:
    assert parse_traceparent(f"00-{TRACE}-{PARENT}-01") is not None
    assert parse_traceparent(f"00-{'0' * 32}-{PARENT}-01") is None
    assert parse_traceparent(f"ff-{TRACE}-{PARENT}-01") is None
    assert parse_traceparent("00-abc") is None and parse_traceparent(3) is None


def test_the_same_events_give_the_same_ids() -> None:
    wire = Wire()
    events = [wire.message("c2s", {"jsonrpc": "2.0", "id": 1, "method": "ping"}, 1.0)]
    first, second = run(*events), run(*events)
    assert [(s.trace_id, s.span_id) for s in first] == [(s.trace_id, s.span_id) for s in second]
