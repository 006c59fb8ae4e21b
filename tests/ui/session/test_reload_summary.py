"""The status line's words after a reload (issue 45): what the lists before and after, and the pinned calls'
answers, came to, counted by kind and change."""

from __future__ import annotations

from inspector.core.compare.differ import compare
from inspector.core.compare.sessions import Exchange, ServerRecord
from inspector.ui.session.reload import summary


def record(tools: dict, answer: str) -> ServerRecord:
    call = Exchange(1, "tools/call", {"name": "forecast", "arguments": {}},
                    {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": answer}]}})
    return ServerRecord("x", interface={"tools": tools, "prompts": {}}, exchanges=[call])


def test_one_tool_added_and_one_answer_changed_are_said_as_such():
    before = record({"forecast": {"name": "forecast"}}, "sunny")
    after = record({"forecast": {"name": "forecast"}, "humidity": {"name": "humidity"}}, "rain")
    assert summary(compare(before, after)) == "1 tool added, 1 pinned call answered differently"


def test_changes_of_several_kinds_are_counted_apart_and_nothing_is_said_as_nothing():
    before = record({"a": {"name": "a"}, "b": {"name": "b", "description": "old"}}, "same")
    after = record({"b": {"name": "b", "description": "new"}, "c": {"name": "c"}, "d": {"name": "d"}}, "same")
    assert summary(compare(before, after)) == "1 tool removed, 2 tools added, 1 tool changed"
    assert summary(compare(before, before)) == "nothing changed"
