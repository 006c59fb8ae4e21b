"""The judge's client-side rules, on event streams built here (a real client does not break them): the
initialize request cancelled, requests before the handshake, a 2026-07-28 request naming another revision,
and capabilities the client uses that the server never declared. The judge never writes into events."""

from __future__ import annotations

import json

from inspector.core.protocol.judge import ProtocolJudge, judge_events
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind


def message(seq: int, direction: str, obj: dict, **data) -> Event:
    info, findings = jsonrpc.classify(obj)
    return Event(Kind.MESSAGE, json.dumps(obj).encode(), direction, rpc=info, findings=findings, seq=seq,
                 data=data)


def handshake(caps: dict | None = None) -> list[Event]:
    return [
        message(1, Direction.C2S, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"}}}),
        message(2, Direction.S2C, {"jsonrpc": "2.0", "id": 1, "result": {
            "protocolVersion": "2025-11-25", "capabilities": caps or {},
            "serverInfo": {"name": "s", "version": "1"}}}, request_method="initialize", reply_to=1),
        message(3, Direction.C2S, {"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]


def rules(judge: ProtocolJudge) -> list[tuple[int, str]]:
    return [(f.seq, f.rule) for found in judge.findings.values() for f in found]


def test_a_well_behaved_handshake_and_call_raise_nothing():
    events = [*handshake({"tools": {}}),
              message(4, Direction.C2S, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
              message(5, Direction.S2C, {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}},
                      request_method="tools/list")]
    judge = judge_events(events)
    assert (judge.revision, rules(judge)) == ("2025-11-25", [])


def test_cancelling_initialize_is_cancel_initialize():
    events = [*handshake()[:1],
              message(2, Direction.C2S, {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                         "params": {"requestId": 1}})]
    assert rules(judge_events(events)) == [(2, "cancel-initialize")]


def test_a_client_request_before_the_initialize_answer_is_request_before_handshake():
    events = [handshake()[0], message(2, Direction.C2S, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})]
    assert rules(judge_events(events)) == [(2, "request-before-handshake")]


def test_a_client_using_a_capability_the_server_did_not_declare_is_server_capability_undeclared():
    events = [*handshake({"tools": {}}),
              message(4, Direction.C2S, {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe",
                                         "params": {"uri": "file:///a"}})]
    assert rules(judge_events(events)) == [(4, "server-capability-undeclared")]


def test_a_2026_request_naming_another_revision_is_meta_revision_mismatch():
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}
    old = dict(meta, **{"io.modelcontextprotocol/protocolVersion": "2025-11-25"})
    events = [message(1, Direction.C2S, {"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                                         "params": {"_meta": meta}}),
              message(2, Direction.S2C, {"jsonrpc": "2.0", "id": 1, "result": {
                  "resultType": "complete", "cacheScope": "public", "ttlMs": 0, "supportedVersions": ["2026-07-28"],
                  "capabilities": {"tools": {}}}}, request_method="server/discover"),
              message(3, Direction.C2S, {"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                                         "params": {"_meta": old}})]
    assert rules(judge_events(events)) == [(3, "meta-revision-mismatch")]


def test_the_header_and_meta_disagreeing_is_meta_revision_mismatch_on_the_request():
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}
    request = message(1, Direction.C2S, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}},
                      exchange=7)
    http = Event(Kind.HTTP, seq=2, data={"exchange": 7, "method": "POST", "status": 200,
                                         "request_headers": {"mcp-protocol-version": "2025-11-25"}})
    assert rules(judge_events([request, http])) == [(1, "meta-revision-mismatch")]


def test_judging_leaves_the_events_as_they_were():
    # copies, not the events' own containers: a finding appended to an event's list in place would be in both
    events = [handshake()[0], message(2, Direction.C2S, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})]
    before = [(list(e.findings), dict(e.data)) for e in events]
    judge = judge_events(events)
    assert judge.findings, "the judge found something: the test would say nothing about a judge that found nothing"
    assert [(list(e.findings), dict(e.data)) for e in events] == before


def test_a_message_over_the_deferral_size_is_schema_judged_only_when_asked():
    judge = ProtocolJudge("2025-11-25", defer_bytes=100)
    big = message(1, Direction.S2C, {"jsonrpc": "2.0", "method": "notifications/progress",
                                     "params": {"progressToken": "t" * 200}})
    assert judge.feed([big]) == [] or all(f.rule != "schema" for f in judge.of(1))
    assert len(judge.deferred) == 1
    assert [f.rule for f in judge.judge_deferred()] == ["schema"]
