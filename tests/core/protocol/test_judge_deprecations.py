"""The judge's information on features 2026-07-28 deprecates (roots, sampling, logging, HTTP+SSE, Dynamic Client
Registration, sampling's includeContext thisServer/allServers): said once per feature in a 2026-07-28 session,
never in an older one, never a problem. Against the Python SDK's 2026-07-28 server (its ``summarize`` asks for
sampling with includeContext and for roots, in input_required rounds), and on event streams built here for the
transport-level ones."""

from __future__ import annotations

import json
from pathlib import Path

import warm_python
from helpers import cli

from inspector.core.capture import read_capture
from inspector.core.protocol.judge import judge_events
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.problems import is_problem_finding

SDK_SERVER = Path(__file__).resolve().parents[1] / "servers" / "sdk_modern_server.py"
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def infos(events: list[Event]) -> list[tuple[int, str]]:
    judge = judge_events(events)
    found = [f for fs in judge.findings.values() for f in fs if f.rule == "deprecated-feature"]
    assert all(f.severity == "info" and not is_problem_finding(f.rule, f.severity) for f in found)
    return [(f.seq, f.text.split(" ")[0]) for f in found]


def test_an_sdk_tool_that_asks_for_sampling_and_roots_in_a_2026_session_gets_one_information_each(tmp_path):
    out = tmp_path / "summarize.jsonl"
    done = cli("call", "summarize", "--answer", "sampling=text:short", "--root", str(tmp_path), "--out", str(out),
               "--", *warm_python.command(SDK_SERVER))
    assert done.returncode == 0, done.stderr
    events = read_capture(out).events
    asked = next(e for e in events if e.rpc and e.rpc.kind == "response" and "input_required" in e.raw.decode())
    found = judge_events(events).of(asked.seq)
    texts = sorted(f.text for f in found if f.rule == "deprecated-feature")
    assert [t.split(" ")[0] for t in texts] == ["roots", "sampling", "sampling's"]
    assert "SEP-2577" in texts[1] and 'includeContext "thisServer"' in texts[2]
    linted = cli("lint", str(out))
    assert linted.returncode == 0 and "0 MUST broken, 3 other findings" in linted.stdout  # information only


def message(seq: int, direction: str, obj: dict, **data) -> Event:
    info, findings = jsonrpc.classify(obj)
    return Event(Kind.MESSAGE, json.dumps(obj).encode(), direction, rpc=info, findings=findings, seq=seq,
                 data=data)


def discover(seq: int, caps: dict | None = None) -> list[Event]:
    return [message(seq, Direction.C2S, {"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                                         "params": {"_meta": META}}),
            message(seq + 1, Direction.S2C, {"jsonrpc": "2.0", "id": 1, "result": {
                "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": caps or {},
                "ttlMs": 0, "cacheScope": "private"}}, request_method="server/discover", reply_to=seq)]


def log(seq: int) -> Event:
    return message(seq, Direction.S2C, {"jsonrpc": "2.0", "method": "notifications/message",
                                        "params": {"level": "info", "data": "hi"}})


def test_logging_in_a_2026_session_is_said_once_and_never_in_an_older_one():
    assert infos([*discover(1, {"logging": {}}), log(3), log(4)]) == [(3, "logging")]
    legacy = [message(1, Direction.C2S, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                  "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}),
              message(2, Direction.S2C, {"jsonrpc": "2.0", "id": 1, "result": {
                  "protocolVersion": "2025-11-25", "capabilities": {"logging": {}},
                  "serverInfo": {"name": "s", "version": "1"}}}, request_method="initialize", reply_to=1),
              log(3)]
    assert infos(legacy) == []


def test_the_http_sse_transport_and_dynamic_client_registration_seen_before_the_revision_are_said_once_it_is():
    endpoint = Event(Kind.SSE, b"event: endpoint\ndata: /messages?s=1", data={"event": "endpoint"}, seq=1)
    register = Event(Kind.HTTP, data={"method": "POST", "url": "https://as/register", "status": 201,
                                      "auth_step": "registration", "exchange": 1}, seq=2)
    assert infos([endpoint, register, *discover(3)]) == [(1, "the"), (2, "Dynamic")]
