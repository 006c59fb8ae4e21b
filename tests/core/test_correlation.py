"""Correlator: pairing responses with requests per direction, latency, and the id problems it must flag."""

from __future__ import annotations

import json
from itertools import count
from typing import Any

import pytest

from inspector.core.wire.correlation import Correlator
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import decode_line

C2S, S2C = Direction.C2S, Direction.S2C


class Wire:
    """Builds message events the way a session would: decoded, numbered, timed, then observed."""

    def __init__(self, protocol_version: str | None = None) -> None:
        self.correlator = Correlator()
        self.correlator.protocol_version = protocol_version
        self._seq = count(1)

    def send(self, direction: str, message: Any, t: float = 0.0) -> Event:
        event = decode_line(json.dumps(message).encode(), direction)
        assert event.kind == Kind.MESSAGE, event.reason
        event.seq = next(self._seq)
        event.t = t
        self.last_paired = self.correlator.observe(event)
        return event


def request(msg_id: Any, method: str = "tools/list") -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": method}


def result(msg_id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "result": {}}


def codes(event: Event) -> list[str]:
    return [f.code for f in event.findings]


def test_a_response_pairs_with_its_request_and_records_latency_both_ways():
    wire = Wire()
    req = wire.send(C2S, request(1, "tools/call"), t=1.25)
    assert wire.last_paired is None
    resp = wire.send(S2C, result(1), t=1.75)
    assert wire.last_paired is req
    assert resp.data == {"reply_to": req.seq, "latency": 0.5, "request_method": "tools/call"}
    assert req.data == {}, "the request was saved when it was sent: pairing never changes it"
    assert list(resp.findings) == [] and list(req.findings) == []
    assert wire.correlator.pending(C2S) == []


def test_an_error_response_pairs_too():
    wire = Wire()
    req = wire.send(C2S, request("a"), t=0.0)
    resp = wire.send(S2C, {"jsonrpc": "2.0", "id": "a", "error": {"code": -32601, "message": "nope"}}, t=0.002)
    assert wire.last_paired is req
    assert resp.data["reply_to"] == req.seq
    assert resp.data["latency"] == 0.002


def test_latency_is_rounded_to_microseconds():
    wire = Wire()
    wire.send(C2S, request(1), t=0.1)
    resp = wire.send(S2C, result(1), t=0.3)
    assert resp.data["latency"] == 0.2  # not 0.19999999999999998


def test_responses_may_come_in_any_order():
    wire = Wire()
    first = wire.send(C2S, request(1), t=0.0)
    second = wire.send(C2S, request(2), t=0.1)
    assert wire.correlator.pending(C2S) == [first, second]
    resp2 = wire.send(S2C, result(2), t=0.2)
    resp1 = wire.send(S2C, result(1), t=0.5)
    assert (resp2.data["reply_to"], resp1.data["reply_to"]) == (second.seq, first.seq)
    assert (resp2.data["latency"], resp1.data["latency"]) == (0.1, 0.5)


def test_a_response_to_an_unknown_id_is_flagged():
    wire = Wire()
    wire.send(C2S, request(1))
    resp = wire.send(S2C, result(99))
    assert wire.last_paired is None
    assert codes(resp) == ["unknown-id"]
    assert "99 (a number)" in resp.findings[0].text
    assert "reply_to" not in resp.data
    assert len(wire.correlator.pending(C2S)) == 1


def test_a_second_answer_to_the_same_id_is_flagged_with_the_first_answer():
    wire = Wire()
    wire.send(C2S, request(5))
    first = wire.send(S2C, result(5))
    again = wire.send(S2C, result(5))
    assert wire.last_paired is None
    assert codes(again) == ["already-answered"]
    assert f"already answered by #{first.seq}" in again.findings[0].text
    assert "reply_to" not in again.data


def test_a_string_id_answering_a_number_id_is_an_id_type_mismatch():
    wire = Wire()
    req = wire.send(C2S, request(2))
    resp = wire.send(S2C, result("2"))
    assert wire.last_paired is None
    assert codes(resp) == ["id-type-mismatch"]
    text = resp.findings[0].text
    assert '"2" (a string)' in text
    assert f"request #{req.seq} has id 2 (a number)" in text
    assert wire.correlator.pending(C2S) == [req]  # still waiting for a real answer


def test_a_number_id_answering_a_string_id_is_an_id_type_mismatch():
    wire = Wire()
    wire.send(C2S, request("7"))
    resp = wire.send(S2C, result(7))
    assert codes(resp) == ["id-type-mismatch"]


def test_an_id_reused_while_its_request_is_pending_is_flagged_on_the_new_request():
    wire = Wire()
    first = wire.send(C2S, request(3))
    second = wire.send(C2S, request(3))
    assert list(first.findings) == []
    assert codes(second) == ["id-reused"]
    assert f"request #{first.seq}" in second.findings[0].text
    resp = wire.send(S2C, result(3))
    assert resp.data["reply_to"] == second.seq


def test_an_id_may_be_reused_once_answered():
    wire = Wire()
    wire.send(C2S, request(1))
    wire.send(S2C, result(1))
    again = wire.send(C2S, request(1))
    assert list(again.findings) == []
    resp = wire.send(S2C, result(1))
    assert resp.data["reply_to"] == again.seq
    assert list(resp.findings) == []


def test_a_server_request_is_answered_by_the_client_in_the_other_direction():
    wire = Wire()
    client_req = wire.send(C2S, request(0, "tools/call"), t=0.0)
    server_req = wire.send(S2C, request(0, "sampling/createMessage"), t=0.1)  # same id, other direction: fine
    assert list(server_req.findings) == []
    assert wire.correlator.pending(S2C) == [server_req]
    client_answer = wire.send(C2S, result(0), t=0.4)
    assert wire.last_paired is server_req
    assert client_answer.data["reply_to"] == server_req.seq
    assert client_answer.data["request_method"] == "sampling/createMessage"
    assert client_answer.data["latency"] == 0.3
    assert wire.correlator.pending(C2S) == [client_req]
    server_answer = wire.send(S2C, result(0), t=0.5)
    assert server_answer.data["reply_to"] == client_req.seq


def test_a_response_travelling_the_same_way_as_its_request_does_not_pair():
    wire = Wire()
    wire.send(C2S, request(1))
    resp = wire.send(C2S, result(1))
    assert codes(resp) == ["unknown-id"]


def test_notifications_and_null_id_errors_are_not_paired_or_flagged():
    wire = Wire()
    note = wire.send(S2C, {"jsonrpc": "2.0", "method": "notifications/message", "params": {}})
    err = wire.send(S2C, {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
    assert note.data == {} and codes(note) == []
    assert err.data == {}
    assert codes(err) == ["id-null"]  # from classification; the correlator adds nothing


def test_non_message_events_are_ignored():
    correlator = Correlator()
    for event in (Event(Kind.FRAMING_ERROR, raw=b"junk", dir=S2C), Event(Kind.STDERR, raw=b"log", dir=S2C),
                  Event(Kind.LIFECYCLE, data={"what": "spawned"})):
        assert correlator.observe(event) is None
        assert list(event.findings) == [] and event.data.get("reply_to") is None


BATCH = [request(1, "ping"), {"jsonrpc": "2.0", "method": "notifications/initialized"}]


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25", "2024-11-05"])
def test_a_batch_is_flagged_when_the_revision_does_not_allow_batches(version):
    wire = Wire(protocol_version=version)
    batch = wire.send(C2S, BATCH)
    assert codes(batch) == ["batch-not-allowed"]
    assert version in batch.findings[0].text


@pytest.mark.parametrize("version", ["2025-03-26", None])
def test_a_batch_is_not_flagged_under_2025_03_26_or_before_negotiation(version):
    wire = Wire(protocol_version=version)
    batch = wire.send(C2S, BATCH)
    assert list(batch.findings) == []


def test_requests_inside_a_batch_are_answered_individually():
    wire = Wire(protocol_version="2025-03-26")
    batch = wire.send(C2S, [request(1), request(2)])
    assert wire.correlator.pending(C2S) == [batch, batch]
    first = wire.send(S2C, result(1))
    assert first.data["reply_to"] == batch.seq
    assert wire.correlator.pending(C2S) == [batch]


def test_a_batch_of_responses_flags_its_unknown_ids_by_element():
    wire = Wire(protocol_version="2025-03-26")
    wire.send(S2C, request(1))
    answers = wire.send(C2S, [result(1), result(42)])
    assert codes(answers) == ["unknown-id"]
    assert answers.findings[0].text.startswith("batch element 1: ")
    assert wire.correlator.pending(S2C) == []


@pytest.mark.parametrize("bad_id", [{"n": 1}, [1]])
def test_an_object_or_array_id_does_not_crash_the_correlator(bad_id):
    # classify() flags these ids ("id-type") and still reports a request/response with that id; the correlator
    # must not crash the session on them. Today: TypeError: unhashable type: 'dict' / 'list'.
    wire = Wire()
    req = wire.send(S2C, request(bad_id))
    assert "id-type" in codes(req)
    resp = wire.send(C2S, result(bad_id))
    assert "id-type" in codes(resp)
    stray = wire.send(S2C, result(bad_id))
    assert "id-type" in codes(stray)


def tool_result(msg_id: Any, **result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "result": {"content": [{"type": "text", "text": "boom"}], **result}}


def test_a_tool_result_with_is_error_true_is_a_tool_error_warning_not_a_protocol_problem():
    wire = Wire()
    wire.send(C2S, request(1, "tools/call"))
    failed = wire.send(S2C, tool_result(1, isError=True))
    assert codes(failed) == ["tool-error"]
    assert failed.findings[0].severity == "warning"
    assert failed.findings[0].text == 'the tool failed: its result says "isError": true'
    assert failed.data["reply_to"] == 1, "the tool error is still paired with its call"


@pytest.mark.parametrize("answer", [tool_result(1), tool_result(1, isError=False),
                                    tool_result(1, structuredContent={"isError": True}),
                                    {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "isError"}}])
def test_a_successful_tool_result_or_a_nested_is_error_or_a_json_rpc_error_is_not_a_tool_error(answer):
    wire = Wire()
    wire.send(C2S, request(1, "tools/call"))
    assert "tool-error" not in codes(wire.send(S2C, answer))


def test_is_error_on_an_answer_to_anything_but_a_tool_call_is_not_a_tool_error():
    wire = Wire()
    wire.send(C2S, request(1, "resources/read"))
    assert codes(wire.send(S2C, tool_result(1, isError=True))) == []

