"""Multi-round calls and tasks served as one conversation (:mod:`inspector.core.serve.rounds`): a 2026-07-28
call answered with input_required gets its recorded rounds in order whatever input the client's retries carry
(the difference a finding of the served capture), and tasks/get polls get the recorded statuses in order, then
the final one, in strict mode too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_twin import request, result, twin_of, write_capture

from inspector.core.serve.conduct import Conductor
from inspector.core.serve.paced import _event as recorded_event
from inspector.core.serve.rounds import ROUND_DIFFERS
from inspector.core.serve.stdio import ServedCapture
from inspector.core.serve.twin import Twin
from inspector.core.wire.events import Direction
from inspector.core.wire.framing import decode_line

C, S = Direction.C2S, Direction.S2C
LOGIN = {"name": "login", "arguments": {}}
ASK_NAME = {"gh": {"method": "elicitation/create", "params": {"mode": "form", "message": "GitHub username?",
                                                              "requestedSchema": {"type": "object"}}}}
ASK_CODE = {"otp": {"method": "elicitation/create", "params": {"mode": "form", "message": "One-time code?",
                                                               "requestedSchema": {"type": "object"}}}}


def accepted(**content: Any) -> dict[str, Any]:
    return {"action": "accept", "content": content}


def rounds_capture(path: Path) -> Path:
    """A login call in three rounds (a name asked, then a code), then a task polled three times."""
    return write_capture(path, [
        request(1, "tools/call", {**LOGIN, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
        result(1, {"resultType": "input_required", "inputRequests": ASK_NAME, "requestState": "s1"}),
        request(2, "tools/call", {**LOGIN, "inputResponses": {"gh": accepted(name="octocat")},
                                  "requestState": "s1"}),
        result(2, {"resultType": "input_required", "inputRequests": ASK_CODE, "requestState": "s2"}),
        request(3, "tools/call", {**LOGIN, "inputResponses": {"otp": accepted(code="123")}, "requestState": "s2"}),
        result(3, {"content": [{"type": "text", "text": "welcome octocat"}]}),
        request(4, "tools/call", {"name": "slow", "arguments": {}, "task": {"ttl": 60000}}),
        result(4, {"task": {"taskId": "t1", "status": "working"}}),
        request(5, "tasks/get", {"taskId": "t1"}), result(5, {"taskId": "t1", "status": "working"}),
        request(6, "tasks/get", {"taskId": "t1"}), result(6, {"taskId": "t1", "status": "working",
                                                                "statusMessage": "halfway"}),
        request(7, "tasks/get", {"taskId": "t1"}), result(7, {"taskId": "t1", "status": "completed"}),
        request(8, "tasks/result", {"taskId": "t1"}), result(8, {"content": [{"type": "text", "text": "slow done"}]}),
    ])


def call(twin: Twin, msg_id: int, params: dict[str, Any], method: str = "tools/call") -> tuple[dict[str, Any], Any]:
    """The twin's answer to one request, and the ``differs`` sentence on it."""
    line = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode()
    out = twin.receive(decode_line(line, C))
    assert len(out) == 1
    return json.loads(out[0].line), out[0].differs


@pytest.mark.parametrize("mode", ["auto", "strict"])
def test_a_multi_round_call_gets_its_recorded_rounds_in_order_whatever_input_the_client_gives(tmp_path, mode):
    twin = twin_of(rounds_capture(tmp_path / "c.jsonl"), mode)
    first, differs = call(twin, 10, LOGIN)
    assert first["result"]["requestState"] == "s1" and differs is None
    second, differs = call(twin, 11, {**LOGIN, "inputResponses": {"gh": accepted(name="someone")},
                                      "requestState": "s1"})
    assert second["id"] == 11 and second["result"]["inputRequests"] == ASK_CODE
    assert 'params.inputResponses.gh.content.name (recorded "octocat", here "someone")' in differs
    final, differs = call(twin, 12, {**LOGIN, "inputResponses": {"otp": accepted(code="999")}, "requestState": "s2"})
    assert final["result"]["content"][0]["text"] == "welcome octocat" and "otp.content.code" in differs
    assert twin.missed == 0


def test_a_retry_that_repeats_the_recorded_input_has_no_difference_and_a_retry_of_no_call_under_way_misses(tmp_path):
    twin = twin_of(rounds_capture(tmp_path / "c.jsonl"))
    stray, _ = call(twin, 9, {**LOGIN, "inputResponses": {"otp": accepted(code="0")}, "requestState": "s2"})
    assert "error" in stray and twin.missed == 1  # no call answered with input_required yet
    call(twin, 10, LOGIN)
    second, differs = call(twin, 11, {**LOGIN, "inputResponses": {"gh": accepted(name="octocat")},
                                      "requestState": "s1"})
    assert second["result"]["requestState"] == "s2" and differs is None


def test_the_served_capture_notes_the_differing_input_as_a_finding_not_an_error(tmp_path):
    conductor = Conductor(twin_of(rounds_capture(tmp_path / "c.jsonl")))
    for msg_id, params in [(10, LOGIN), (11, {**LOGIN, "inputResponses": {"gh": accepted(name="x")},
                                              "requestState": "s1"})]:
        line = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": params}).encode()
        conductor.receive(decode_line(line, C))
    items = conductor.due(0.0)
    retry = [recorded_event(item) for item in items if item.dir == C][1]
    assert [(f.code, f.severity) for f in retry.findings] == [(ROUND_DIFFERS, "info")]
    answers = [json.loads(item.line) for item in items if item.dir == S]
    assert "error" not in answers[1] and answers[1]["result"]["requestState"] == "s2"


@pytest.mark.parametrize("mode", ["auto", "strict"])
def test_tasks_get_polls_get_the_recorded_statuses_in_order_then_the_final_one(tmp_path, mode):
    twin = twin_of(rounds_capture(tmp_path / "c.jsonl"), mode)
    if mode == "strict":  # the order: the login's rounds come first
        call(twin, 1, LOGIN)
        call(twin, 2, {**LOGIN, "inputResponses": {"gh": accepted(name="a")}, "requestState": "s1"})
        call(twin, 3, {**LOGIN, "inputResponses": {"otp": accepted(code="b")}, "requestState": "s2"})
    created, _ = call(twin, 20, {"name": "slow", "arguments": {}, "task": {"ttl": 60000}})
    assert created["result"]["task"]["taskId"] == "t1"
    statuses = [call(twin, 21 + n, {"taskId": "t1"}, "tasks/get")[0]["result"] for n in range(5)]
    assert [(s["status"], s.get("statusMessage")) for s in statuses] == [
        ("working", None), ("working", "halfway"), ("completed", None), ("completed", None), ("completed", None)]
    done, _ = call(twin, 30, {"taskId": "t1"}, "tasks/result")
    assert done["result"]["content"][0]["text"] == "slow done" and twin.missed == 0


def test_strict_mode_takes_fewer_polls_than_recorded_without_losing_its_place(tmp_path):
    twin = twin_of(rounds_capture(tmp_path / "c.jsonl"), "strict")
    call(twin, 1, LOGIN)
    call(twin, 2, {**LOGIN, "inputResponses": {"gh": accepted(name="a")}, "requestState": "s1"})
    call(twin, 3, {**LOGIN, "inputResponses": {"otp": accepted(code="b")}, "requestState": "s2"})
    call(twin, 4, {"name": "slow", "arguments": {}, "task": {"ttl": 60000}})
    assert call(twin, 5, {"taskId": "t1"}, "tasks/get")[0]["result"]["status"] == "working"
    done, _ = call(twin, 6, {"taskId": "t1"}, "tasks/result")
    assert done["result"]["content"][0]["text"] == "slow done" and twin.missed == 0


def test_the_stdio_loops_out_file_carries_the_finding_on_the_clients_retry(tmp_path):
    capture = rounds_capture(tmp_path / "c.jsonl")
    twin = twin_of(capture)
    record = ServedCapture(tmp_path / "out.jsonl", capture, {}, "auto")
    for msg_id, params in [(10, LOGIN), (11, {**LOGIN, "inputResponses": {"gh": accepted(name="x")},
                                              "requestState": "s1"})]:
        event = decode_line(json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "tools/call",
                                        "params": params}).encode(), C)
        record.exchange(event, twin.receive(event))
    record.close()
    lines = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()[1:]]
    retry = next(line for line in lines if line["dir"] == "c2s" and '"id": 11' in line["raw"])
    assert [f["code"] for f in retry["findings"]] == [ROUND_DIFFERS]


def task_input_capture(path: Path) -> Path:
    """A task (the tasks extension) that asked for input mid-flight: polled, updated, polled to its end."""
    return write_capture(path, [
        request(1, "tools/call", {"name": "deploy", "arguments": {}}),
        result(1, {"resultType": "task", "task": {"taskId": "t9", "status": "working"}}),
        request(2, "tasks/get", {"taskId": "t9"}),
        result(2, {"taskId": "t9", "status": "input_required", "inputRequests": ASK_NAME}),
        request(3, "tasks/update", {"taskId": "t9", "inputResponses": {"gh": accepted(name="octocat")}}),
        result(3, {}),
        request(4, "tasks/get", {"taskId": "t9"}), result(4, {"taskId": "t9", "status": "working"}),
        request(5, "tasks/get", {"taskId": "t9"}),
        result(5, {"taskId": "t9", "status": "completed", "result": {"content": [{"type": "text", "text": "up"}]}}),
    ])


@pytest.mark.parametrize("mode", ["auto", "strict"])
def test_a_tasks_input_given_with_tasks_update_is_taken_whatever_it_is_and_the_task_goes_on_as_recorded(tmp_path,
                                                                                                         mode):
    twin = twin_of(task_input_capture(tmp_path / "c.jsonl"), mode)
    call(twin, 10, {"name": "deploy", "arguments": {}})
    asked, _ = call(twin, 11, {"taskId": "t9"}, "tasks/get")
    assert asked["result"]["status"] == "input_required"
    ack, differs = call(twin, 12, {"taskId": "t9", "inputResponses": {"gh": accepted(name="someone")}}, "tasks/update")
    assert ack == {"jsonrpc": "2.0", "id": 12, "result": {}}
    assert 'params.inputResponses.gh.content.name (recorded "octocat", here "someone")' in differs
    statuses = [call(twin, 13 + n, {"taskId": "t9"}, "tasks/get")[0]["result"]["status"] for n in range(3)]
    assert statuses == ["working", "completed", "completed"] and twin.missed == 0
