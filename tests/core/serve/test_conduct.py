"""The served session in time, without a process: each fault's effect on what the twin sends and when, intercept
rules on both ways, and a capture's server request sent before the answer it led to."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lines_capture import write_messages

from inspector.core.intercept.rules import parse_rules
from inspector.core.serve.conduct import Conductor, Item
from inspector.core.serve.faults import Faults
from inspector.core.serve.index import ServeIndex
from inspector.core.serve.twin import Twin
from inspector.core.wire.events import Direction
from inspector.core.wire.framing import LineDecoder

C, S = Direction.C2S, Direction.S2C
INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "recorded", "version": "1"}}
CALL = {"name": "add", "arguments": {"a": 2, "b": 3}}
SAMPLING = {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 9}


def write_capture(path: Path, messages: list[tuple[str, dict[str, Any]]]) -> Path:
    return write_messages(path, [(direction, {"jsonrpc": "2.0", **message}) for direction, message in messages],
                          cwd=None, env={}, redacted=True)


def write_recorded(path: Path) -> Path:
    """initialize; add(2, 3); tools/list; ask, whose answer came after a sampling request the client answered."""
    return write_capture(path, [
        (C, {"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}}}),
        (S, {"id": 1, "result": INIT}),
        (C, {"id": 2, "method": "tools/call", "params": CALL}),
        (S, {"id": 2, "result": {"content": [{"type": "text", "text": "5"}]}}),
        (C, {"id": 3, "method": "tools/list"}),
        (S, {"id": 3, "result": {"tools": [{"name": "add"}]}}),
        (C, {"id": 4, "method": "tools/call", "params": {"name": "ask", "arguments": {}}}),
        (S, {"id": 1, "method": "sampling/createMessage", "params": SAMPLING}),
        (C, {"id": 1, "result": {"role": "assistant", "content": {"type": "text", "text": "recorded model"}}}),
        (S, {"id": 4, "result": {"content": [{"type": "text", "text": "the model said: recorded model"}]}}),
    ])


@pytest.fixture
def capture(tmp_path: Path) -> Path:
    return write_recorded(tmp_path / "recorded.jsonl")


@pytest.fixture
def opened(capture):
    index = ServeIndex(capture)
    yield index
    index.close()


def conductor(index: ServeIndex, *specs: str, rules: dict[str, Any] | None = None) -> Conductor:
    return Conductor(Twin(index), Faults(list(specs), seed=1), parse_rules(rules) if rules else None)


def feed(played: Conductor, now: float, *messages: dict[str, Any]) -> None:
    decoder = LineDecoder(C)
    for event in decoder.feed(b"".join(json.dumps({"jsonrpc": "2.0", **m}).encode() + b"\n" for m in messages)):
        played.receive(event, now=now)


def sent(items: list[Item]) -> list[Any]:
    """What the client read: each message parsed, ``junk`` for a junk item."""
    return ["junk" if item.junk else json.loads(item.line) for item in items if item.dir == S and item.write]


def init(msg_id: int = 1) -> dict[str, Any]:
    return {"id": msg_id, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}}}


def call(msg_id: int) -> dict[str, Any]:
    return {"id": msg_id, "method": "tools/call", "params": CALL}


def test_latency_holds_each_answer_its_own_time_while_the_others_go_on(opened):
    played = conductor(opened, "latency=100")
    feed(played, 0.0, call(1))
    feed(played, 0.05, {"id": 2, "method": "tools/list"})
    assert sent(played.due(0.099)) == [] and played.next_at() == pytest.approx(0.1)
    assert [m["id"] for m in sent(played.due(0.1))] == [1]
    assert not played.settled()
    assert [m["id"] for m in sent(played.due(0.16))] == [2]
    assert played.settled()


def test_error_rate_answers_with_an_internal_error_outside_the_handshake(opened):
    played = conductor(opened, "error-rate=1")
    feed(played, 0.0, init(), call(2))
    answers = sent(played.due(0.0))
    assert answers[0]["result"] == INIT
    assert answers[1]["error"]["code"] == -32603 and "--fault error-rate=1" in answers[1]["error"]["message"]


def test_junk_comes_before_each_answer(opened):
    played = conductor(opened, "junk")
    feed(played, 0.0, init(), call(2))
    items = played.due(0.0)
    assert [a if a == "junk" else a["id"] for a in sent(items)] == ["junk", 1, "junk", 2]
    assert [i.request for i in items if i.dir == S] == [1, 1, 2, 2]  # each on its request's stream over HTTP


def test_a_dropped_method_is_never_answered_and_the_request_is_marked(opened):
    played = conductor(opened, "drop=tools/call")
    feed(played, 0.0, call(1), {"id": 2, "method": "tools/list"})
    items = played.due(10.0)
    assert [m["id"] for m in sent(items)] == [2]
    assert [item.fault for item in items if item.dir == C] == ["drop", None]


def test_close_after_ends_the_session_once_the_nth_answer_went_out(opened):
    played = conductor(opened, "close-after=2", "latency=10")
    feed(played, 0.0, init(), call(2), {"id": 3, "method": "tools/list"})
    assert played.closing == "the twin ended after 2 requests, as --fault close-after=2 asked"
    assert not played.finished  # its answers are still due
    assert [m["id"] for m in sent(played.due(0.01))] == [1, 2]
    assert played.finished


def test_oversize_pads_the_next_answer_outside_the_handshake_once(opened):
    played = conductor(opened, "oversize=4K")
    feed(played, 0.0, init(), call(2), call(3))
    items = [i for i in played.due(0.0) if i.dir == S]
    assert [len(i.line) > 4096 for i in items] == [False, True, False]
    assert items[1].fault == "oversize"
    assert json.loads(items[1].line)["result"]["content"] == [{"type": "text", "text": "5"}]


def test_list_changed_ticks_after_the_handshake_and_stops_when_cleared(opened):
    played = conductor(opened, "list-changed=2")
    played.due(0.0)
    assert played.next_at() is None  # no handshake yet
    feed(played, 1.0, init())
    played.due(1.0)
    assert sent(played.due(3.0)) == [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}]
    assert len(sent(played.due(5.0))) == 1 and played.settled()  # ticks hold nothing up
    played.faults.clear("list-changed")
    assert sent(played.due(7.0)) == [] and played.next_at() is None


def test_a_recorded_sampling_request_goes_out_before_the_answer_which_waits_for_the_clients(opened):
    played = conductor(opened)
    feed(played, 0.0, {"id": 9, "method": "tools/call", "params": {"name": "ask", "arguments": {}}})
    items = played.due(0.0)
    assert sent(items) == [{"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage", "params": SAMPLING}]
    assert [i.request for i in items if i.dir == S] == [9]  # it comes with the client's request 9
    feed(played, 1.0, {"id": 1, "result": {"role": "assistant", "content": {"type": "text", "text": "mine"}}})
    items = played.due(1.0)
    assert [i.dir for i in items] == [C, S]  # the client's answer recorded, then the recorded answer sent
    assert json.loads(items[1].line) == {"jsonrpc": "2.0", "id": 9, "result": {
        "content": [{"type": "text", "text": "the model said: recorded model"}]}}
    assert played.summary() == ["1 request of the server's (sampling, elicitation, roots) sent to the client, "
                                "1 answered"]


def test_rules_rewrite_what_the_twin_gets_and_what_it_sends_and_the_marks_are_kept(opened):
    played = conductor(opened, rules={"rules": [
        {"when": {"dir": "c2s", "method": "tools/call"}, "do": "rewrite", "set": {"/params/arguments/b": 3}},
        {"when": {"dir": "s2c", "method": "tools/list"}, "do": "error", "code": -32000, "message": "injected"}]})
    feed(played, 0.0, {"id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 99}}},
         {"id": 2, "method": "tools/list"})
    items = played.due(0.0)
    assert [(i.dir, i.mark and i.mark["role"], i.write) for i in items] == [
        (C, "original", False), (C, "changed", False), (S, None, True),
        (C, None, False), (S, "original", False), (S, "changed", True)]
    answers = sent(items)
    assert answers[0]["result"]["content"][0]["text"] == "5"  # the rewritten call matched the recorded one
    assert answers[1] == {"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "injected"}}


def test_a_c2s_error_rule_answers_in_the_twins_place_and_a_delay_holds_the_request(opened):
    played = conductor(opened, rules={"rules": [
        {"when": {"dir": "c2s", "method": "tools/list"}, "do": "error", "code": -32001, "message": "no lists"},
        {"when": {"dir": "c2s", "method": "tools/call"}, "do": "delay", "ms": 500}]})
    feed(played, 0.0, {"id": 1, "method": "tools/list"}, call(2))
    items = played.due(0.0)
    assert [(i.dir, i.mark and i.mark["role"]) for i in items] == [(C, "held"), (S, "answer")]
    assert sent(items)[0]["error"]["message"] == "no lists"
    later = played.due(0.5)
    assert [(i.dir, i.mark and i.mark["role"]) for i in later] == [(C, "delayed"), (S, None)]


def test_a_roots_request_recorded_after_initialized_follows_the_clients_initialized(tmp_path):
    recorded = write_capture(tmp_path / "roots.jsonl", [
        (C, {"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}}}),
        (S, {"id": 1, "result": INIT}),
        (C, {"method": "notifications/initialized"}),
        (S, {"id": 0, "method": "roots/list"}),
        (C, {"id": 0, "result": {"roots": []}}),
        (C, {"id": 2, "method": "tools/list"}),
        (S, {"id": 2, "result": {"tools": []}}),
    ])
    index = ServeIndex(recorded)
    try:
        played = conductor(index)
        feed(played, 0.0, init(), {"method": "notifications/initialized"})
        assert [m.get("method") or m["id"] for m in sent(played.due(0.0))] == [1, "roots/list"]
        feed(played, 0.0, {"id": 1, "result": {"roots": [{"uri": "file:///mine"}]}}, {"id": 5, "method": "tools/list"})
        assert sent(played.due(0.0)) == [{"jsonrpc": "2.0", "id": 5, "result": {"tools": []}}]
        assert played.answered_server_requests == 1
        feed(played, 0.0, {"method": "notifications/initialized"})  # recorded once: nothing more
        assert sent(played.due(0.0)) == []
    finally:
        index.close()
