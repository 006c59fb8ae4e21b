"""The comparison itself (inspector.core.compare.differ): interface changes with the fields inside them, and
answers to the same request compared by status, isError, content and latency."""

from __future__ import annotations

from typing import Any

from inspector.core.compare.differ import compare, diff_interface
from inspector.core.compare.sessions import Exchange, ServerRecord
from inspector.core.replay.diff import JsonPath


def call(seq: int, name: str, answer: dict[str, Any] | None, latency: float | None = 0.01,
         **arguments: Any) -> Exchange:
    response = None if answer is None else {"jsonrpc": "2.0", "id": seq, **answer}
    return Exchange(seq, "tools/call", {"name": name, "arguments": arguments}, response, latency)


def text(value: str, is_error: bool = False) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": value}]}
    if is_error:
        result["isError"] = True
    return {"result": result}


def record(*exchanges: Exchange, tools: dict[str, dict[str, Any]] | None = None) -> ServerRecord:
    return ServerRecord("x", interface={} if tools is None else {"tools": tools}, exchanges=list(exchanges))


def test_a_changed_tool_names_each_field_that_changed() -> None:
    old = {"t": {"name": "t", "description": "d", "inputSchema": {"type": "object"},
                 "annotations": {"readOnlyHint": True}}}
    new = {"t": {"name": "t", "description": "d2", "inputSchema": {"type": "object", "required": ["x"]},
                 "annotations": {"readOnlyHint": False}}}
    [change] = diff_interface("tools", old, new)
    assert change.change == "changed"
    assert change.fields == ["description", "inputSchema", "annotations"]
    assert [d.path for d in change.diffs] == ["description", "inputSchema.required", "annotations.readOnlyHint"]


def test_the_same_request_is_matched_whatever_meta_the_client_added() -> None:
    a = record(call(3, "echo", text("hi"), message="hi"))
    b_exchange = call(9, "echo", text("hi"), message="hi")
    b_exchange.params = {**b_exchange.params, "_meta": {"progressToken": "p-9"}}
    result = compare(a, record(b_exchange))
    assert result.same and result.compared_requests == 1


def test_is_error_and_content_changes_are_told_apart() -> None:
    a = record(call(2, "f", text("fine")))
    b = record(call(2, "f", text("broke", is_error=True)))
    changes = [(c.change, c.detail) for c in compare(a, b).behaviour]
    assert changes == [("isError", "isError false -> true"), ("content", "")]


def test_a_result_that_became_an_error_is_a_status_change() -> None:
    a = record(call(2, "f", text("ok")))
    b = record(call(2, "f", {"error": {"code": -32000, "message": "no"}}))
    [change] = compare(a, b).behaviour
    assert (change.change, change.detail) == ("status", "result -> error")


def test_latency_counts_only_beyond_the_threshold() -> None:
    a = record(call(2, "f", text("ok"), latency=0.010), call(4, "g", text("ok"), latency=0.010))
    b = record(call(2, "f", text("ok"), latency=0.300), call(4, "g", text("ok"), latency=0.015))
    assert compare(a, b).same  # latency is not compared unless asked
    result = compare(a, b, latency_threshold=0.1)
    assert [(c.label, c.change) for c in result.behaviour] == [("tools/call f", "latency")]
    assert "+290.0 ms, beyond 100 ms" in result.behaviour[0].detail


def test_requests_one_side_only_sent_are_listed_but_are_no_difference() -> None:
    a = record(call(2, "f", text("ok")), call(4, "only-old", text("ok")))
    b = record(call(2, "f", text("ok")), call(4, "only-new", text("ok")))
    result = compare(a, b)
    assert [(c.label, c.change) for c in result.behaviour] == [("tools/call only-old", "only in A"),
                                                               ("tools/call only-new", "only in B")]
    assert result.same


def test_ignored_paths_drop_their_differences() -> None:
    a = record(call(2, "clock", text("10:00")))
    b = record(call(2, "clock", text("10:01")))
    assert not compare(a, b).same
    assert compare(a, b, ignore=[JsonPath.parse("$.result.content[*].text")]).same


def test_a_kind_listed_on_one_side_only_is_a_note_not_a_change() -> None:
    result = compare(record(tools={"t": {"name": "t"}}), record())
    assert result.interface == [] and result.compared_kinds == []
    assert result.notes == ["tools: not compared, B never listed them completely"]
