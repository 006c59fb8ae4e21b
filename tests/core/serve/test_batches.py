"""A client's JSON-RPC batch served (:mod:`inspector.core.serve.batches`): answered with a batch in a 2025-03-26
session (the recorded batch when the capture has the same one, else member by member), refused as the spec's
other revisions refuse it, on stdio (the twin, the conductor, the stdio loop) and over Streamable HTTP."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_serve_http import ACCEPT, TIMEOUT, rpc, run, served
from test_twin import notification, request, result, send, twin_of, write_capture

from inspector.core.serve.conduct import Conductor
from inspector.core.serve.faults import Faults, fault_error
from inspector.core.serve.stdio import serve_stdio
from inspector.core.wire.events import Direction
from inspector.core.wire.framing import decode_line

C, S = Direction.C2S, Direction.S2C
INIT_0326 = {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
RESULT_0326 = {"protocolVersion": "2025-03-26", "capabilities": {"tools": {}},
               "serverInfo": {"name": "recorded", "version": "1"}}
CALL = {"name": "add", "arguments": {"a": 2, "b": 3}}


def capture_of(path: Path, revision: str = "2025-03-26", recorded_batch: bool = False) -> Path:
    """initialize at ``revision``; a tools/list and a tools/call recorded one by one, progress before the call's
    answer; with ``recorded_batch``, a batch of the client's (a call and a notification) and the server's batch."""
    messages: list[tuple[str, Any]] = [
        request(0, "initialize", {**INIT_0326, "protocolVersion": revision}),
        result(0, {**RESULT_0326, "protocolVersion": revision}),
        notification(C, "notifications/initialized"),
        request(1, "tools/list"), result(1, {"tools": [{"name": "add"}]}),
        request(2, "tools/call", {**CALL, "_meta": {"progressToken": 9}}),
        notification(S, "notifications/progress", {"progressToken": 9, "progress": 1}),
        result(2, {"content": [{"type": "text", "text": "5"}]}),
    ]
    if recorded_batch:
        messages += [
            (C, [{"jsonrpc": "2.0", "id": 30, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1}}},
                 {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}]),
            (S, [{"jsonrpc": "2.0", "id": 30, "result": {"content": [{"type": "text", "text": "batched"}]}}]),
        ]
    return write_capture(path, messages)


def initialized(twin: Any, revision: str = "2025-03-26") -> None:
    answer = send(twin, rpc(0, "initialize", {**INIT_0326, "protocolVersion": revision}))
    assert answer[0]["result"]["protocolVersion"] == revision


def test_a_2025_03_26_batch_gets_its_responses_in_one_array_and_notifications_get_no_member(tmp_path):
    twin = twin_of(capture_of(tmp_path / "c.jsonl"))
    initialized(twin)
    out = send(twin, [rpc(None, "notifications/initialized"), rpc("a", "tools/list"),
                      rpc(7, "tools/call", {**CALL, "_meta": {"progressToken": "mine"}}),
                      rpc(8, "tools/call", {"name": "add", "arguments": {"a": 9}})])
    progress, answers = out
    assert progress["method"] == "notifications/progress" and progress["params"]["progressToken"] == "mine"
    assert [a["id"] for a in answers] == ["a", 7, 8]
    assert answers[0]["result"]["tools"] == [{"name": "add"}]
    assert answers[1]["result"]["content"][0]["text"] == "5"
    assert "params.arguments.a (recorded 2, here 9)" in answers[2]["error"]["message"]
    assert twin.missed == 1 and twin.unmatched[0].id == 8
    # a batch of notifications and responses only gets nothing
    assert send(twin, [rpc(None, "notifications/cancelled", {"requestId": 3}),
                       {"jsonrpc": "2.0", "id": 1, "result": {}}]) == []


def test_a_batch_the_capture_recorded_is_answered_with_the_recorded_batch_and_the_clients_ids(tmp_path):
    twin = twin_of(capture_of(tmp_path / "c.jsonl", recorded_batch=True))
    initialized(twin)
    line = json.dumps([rpc("x", "tools/call", {"name": "add", "arguments": {"a": 1}, "_meta": {"trace": 1}}),
                       rpc(None, "notifications/roots/list_changed")]).encode()
    out = twin.receive(decode_line(line, C))
    assert [json.loads(o.line) for o in out] == [
        [{"jsonrpc": "2.0", "id": "x", "result": {"content": [{"type": "text", "text": "batched"}]}}]]
    assert out[0].served_from == 10  # the recorded batch's answer


def test_a_batch_in_a_revision_without_batches_gets_one_invalid_request_error(tmp_path):
    twin = twin_of(capture_of(tmp_path / "c.jsonl", revision="2025-06-18"))
    initialized(twin, "2025-06-18")
    out = send(twin, [rpc(1, "tools/list")])
    assert len(out) == 1 and out[0]["id"] is None and out[0]["error"]["code"] == -32600
    assert "2025-06-18 takes no JSON-RPC batches" in out[0]["error"]["message"]
    assert twin.answered == 1  # the handshake only


def test_initialize_and_a_member_that_is_no_message_get_invalid_request_members(tmp_path):
    twin = twin_of(capture_of(tmp_path / "c.jsonl"))
    out = send(twin, [rpc(5, "initialize", INIT_0326), 42, rpc(6, "tools/list")])
    errors, listed = out[0][:2], out[0][2]
    assert [(e["id"], e["error"]["code"]) for e in errors] == [(5, -32600), (None, -32600)]
    assert "must not be part of a JSON-RPC batch" in errors[0]["error"]["message"]
    assert listed["id"] == 6 and "tools" in listed["result"]


def test_the_conductor_and_the_stdio_loop_answer_a_batch_with_one_line(tmp_path):
    capture = capture_of(tmp_path / "c.jsonl")
    conductor = Conductor(twin_of(capture))
    conductor.receive(decode_line(json.dumps(rpc(0, "initialize", INIT_0326)).encode(), C))
    conductor.receive(decode_line(json.dumps([rpc(1, "tools/list"), rpc(2, "tools/call", CALL)]).encode(), C))
    sent = [json.loads(item.line) for item in conductor.due(0.0) if item.dir == S]
    assert [a["id"] for a in sent[1]] == [1, 2]

    twin = twin_of(capture)
    read_end, write_end = os.pipe()
    writes: list[bytes] = []
    feeder = threading.Thread(target=lambda: (os.write(write_end, b"".join(json.dumps(m).encode() + b"\n" for m in [
        rpc(0, "initialize", INIT_0326), [rpc(1, "tools/list"), rpc(None, "notifications/initialized")]])),
        os.close(write_end)))
    feeder.start()
    serve_stdio(twin, max_message=1 << 20, stdin_fd=read_end, write=lambda data: writes.append(data) or True)
    feeder.join()
    os.close(read_end)
    lines = b"".join(writes).splitlines()
    assert [a["id"] for a in json.loads(lines[1])] == [1] and len(lines) == 2


def test_streamable_http_answers_a_batch_with_an_array_and_refuses_one_outside_2025_03_26(tmp_path):
    capture = capture_of(tmp_path / "c.jsonl")
    legacy = capture_of(tmp_path / "legacy.jsonl", revision="2025-06-18")

    async def test() -> None:
        async with served(capture) as (_, url), httpx.AsyncClient(timeout=TIMEOUT) as client:
            init = await client.post(url, json=rpc(0, "initialize", INIT_0326), headers=ACCEPT)
            session = {"Accept": "application/json", "Mcp-Session-Id": init.headers["mcp-session-id"]}
            answer = await client.post(url, json=[rpc(1, "tools/list"), rpc(2, "tools/call", CALL)],
                                       headers=session)
            assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
            assert [a["id"] for a in answer.json()] == [1, 2]
            notes = await client.post(url, json=[rpc(None, "notifications/initialized")], headers=session)
            assert (notes.status_code, notes.content) == (202, b"")
        async with served(legacy) as (_, url), httpx.AsyncClient(timeout=TIMEOUT) as client:
            init = await client.post(url, json=rpc(0, "initialize", {**INIT_0326, "protocolVersion": "2025-06-18"}),
                                     headers=ACCEPT)
            session = {**ACCEPT, "Mcp-Session-Id": init.headers["mcp-session-id"],
                       "MCP-Protocol-Version": "2025-06-18"}
            refused = await client.post(url, json=[rpc(1, "tools/list")], headers=session)
            assert refused.status_code == 400 and refused.json()["error"]["code"] == -32600

    run(test)


@pytest.mark.parametrize("mode", ["auto", "sequential", "strict"])
def test_a_recorded_batch_is_no_single_requests_answer_in_any_mode(tmp_path, mode):
    capture = write_capture(tmp_path / "c.jsonl", [
        request(0, "initialize", INIT_0326), result(0, RESULT_0326),
        (C, [rpc(1, "tools/call", CALL)]), (S, [{"jsonrpc": "2.0", "id": 1, "result": {"content": []}}]),
        request(2, "tools/list"), result(2, {"tools": [{"name": "add"}]}),
    ])
    twin = twin_of(capture, mode)
    initialized(twin)
    listed = send(twin, rpc(5, "tools/list"))[0]  # strict and sequential pass over the recorded batch
    assert listed["result"]["tools"] == [{"name": "add"}]
    if mode == "auto":
        near = send(twin, rpc(6, "tools/lisst"))[0]["error"]
        assert "the closest recorded request is tools/list" in near["message"] and "data" in near
        empty = send(twin, rpc(7, ""))[0]["error"]
        assert empty["code"] == -32601 and "method is empty" in empty["message"]


def test_faults_act_on_a_batch_drop_and_error_rate_on_its_members_latency_and_junk_on_its_answer(tmp_path):
    conductor = Conductor(twin_of(capture_of(tmp_path / "c.jsonl")),
                          Faults(["drop=tools/list", "error-rate=1", "latency=100", "junk", "close-after=3"]))
    conductor.receive(decode_line(json.dumps(rpc(0, "initialize", INIT_0326)).encode(), C), now=0.0)
    conductor.due(0.1)
    batch = [rpc(1, "tools/list"), rpc(2, "tools/call", CALL), rpc(None, "notifications/initialized")]
    conductor.receive(decode_line(json.dumps(batch).encode(), C), now=1.0)
    assert [item for item in conductor.due(1.05) if item.dir == S] == []  # held by latency
    sent = [item for item in conductor.due(1.2) if item.dir == S]
    assert [item.junk for item in sent] == [True, False]
    assert json.loads(sent[1].line) == [fault_error(2, "error-rate=1")]
    # initialize and the batch's two requests: close-after=3 ends the session
    assert conductor.faulted == {"drop": 1, "error-rate": 1, "latency": 2, "junk": 2, "close-after": 1}
    assert conductor.closing is not None


def test_a_batch_answer_with_a_recorded_internal_error_is_marked_dropped_when_only_drop_acted(tmp_path):
    recorded_error = {"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": "the server broke, as recorded"}}
    capture = write_capture(tmp_path / "c.jsonl", [
        request(0, "initialize", INIT_0326), result(0, RESULT_0326), notification(C, "notifications/initialized"),
        request(1, "tools/list"), result(1, {"tools": [{"name": "add"}]}),
        request(2, "tools/call", CALL), (S, recorded_error)])
    conductor = Conductor(twin_of(capture), Faults(["drop=tools/list"]))
    conductor.receive(decode_line(json.dumps(rpc(0, "initialize", INIT_0326)).encode(), C), now=0.0)
    conductor.due(0.1)
    conductor.receive(decode_line(json.dumps([rpc(1, "tools/list"), rpc(2, "tools/call", CALL)]).encode(), C), now=1.0)
    [answer] = [item for item in conductor.due(2.0) if item.dir == S]
    assert json.loads(answer.line) == [recorded_error]
    assert answer.fault == "drop", "named by the fault that acted, not by the -32603 the server recorded"
    assert conductor.faulted == {"drop": 1}
