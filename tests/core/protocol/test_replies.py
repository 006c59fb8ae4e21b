"""A client's answer to an elicitation is judged one way: the answer form's footer (compose.check_reply) and the
timeline's judge (rule elicitation-content and the schema rule) say the same of the same answer, the server's own
defaults are never flagged, and the schema's integer-only reading of ElicitResult.content is the erratum."""

from __future__ import annotations

import json

import jsonschema
import pytest

from inspector.core.protocol import errata, revisions
from inspector.core.protocol.judge import judge_events
from inspector.core.protocol.replies import elicitation_content_problems, reply_problems
from inspector.core.session import compose
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind

#: what the demo and server-everything ask: a decimal default, a bounded number, an email, a choice
REQUESTED = {
    "type": "object",
    "properties": {
        "ratio": {"type": "number", "default": 3.14},
        "count": {"type": "integer", "minimum": 0, "maximum": 1000},
        "email": {"type": "string", "format": "email"},
        "colour": {"type": "string", "enum": ["red", "green"], "default": "red"},
        "greedy": {"type": "integer", "maximum": 10, "default": 50},  # a default that breaks its own maximum
    },
    "required": ["count"],
}
PARAMS = {"message": "tell me", "requestedSchema": REQUESTED}
ELICIT_REVISIONS = ("2025-06-18", "2025-11-25", "2026-07-28")


def message(seq: int, direction: str, obj: dict, **data) -> Event:
    info, findings = jsonrpc.classify(obj)
    return Event(Kind.MESSAGE, json.dumps(obj).encode(), direction, rpc=info, findings=findings, seq=seq,
                 data=data)


def session_answering(revision: str, content: dict) -> list[Event]:
    """A handshake at ``revision`` declaring elicitation, the server's elicitation/create, the client's accept."""
    return [
        message(1, Direction.C2S, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": revision, "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "c", "version": "1"}}}),
        message(2, Direction.S2C, {"jsonrpc": "2.0", "id": 1, "result": {
            "protocolVersion": revision, "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}},
            request_method="initialize", reply_to=1),
        message(3, Direction.C2S, {"jsonrpc": "2.0", "method": "notifications/initialized"}),
        message(4, Direction.S2C, {"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": PARAMS}),
        message(5, Direction.C2S, {"jsonrpc": "2.0", "id": 7, "result": {"action": "accept", "content": content}},
                request_method="elicitation/create", reply_to=4),
    ]


def judged(revision: str, content: dict) -> list[tuple[str, str]]:
    judge = judge_events(session_answering(revision, content))
    return [(f.rule, f.text) for f in judge.of(5)]


def footer(revision: str, content: dict) -> compose.Validation:
    return compose.check_reply("elicitation/create", json.dumps({"action": "accept", "content": content}),
                               revision=revision, params=PARAMS)


@pytest.mark.parametrize("revision", ELICIT_REVISIONS)
def test_sending_back_the_servers_decimal_default_is_valid_in_the_form_and_on_the_timeline(revision):
    content = {"ratio": 3.14, "count": 3, "colour": "red"}
    assert footer(revision, content).severity == "ok"
    assert judged(revision, content) == []


@pytest.mark.parametrize("revision", ELICIT_REVISIONS)
def test_the_published_schema_alone_would_flag_the_decimal_the_erratum_reads_as_a_number(revision):
    raw = json.loads(revisions.schema_bytes(revision))
    key = "$defs" if "$defs" in raw else "definitions"
    check = {"$schema": raw.get("$schema", ""), key: raw[key], "$ref": f"#/{key}/ElicitResult"}
    answer = {"action": "accept", "content": {"ratio": 3.14}}
    assert list(jsonschema.validators.validator_for(check)(check).iter_errors(answer)), \
        "the file as published refuses 3.14: without the erratum the judge would flag the server's own default"
    fixed = errata.apply(revision, raw)
    assert not list(jsonschema.validators.validator_for(check)({**check, key: fixed[key]}).iter_errors(answer))


@pytest.mark.parametrize("content, where", [
    ({"count": 5000}, "content.count must be at most 1000, it is 5000"),
    ({"count": 1, "email": "not-an-address"}, 'content.email must be in the format email'),
    ({"count": 1, "colour": "blue"}, "content.colour"),
    ({"ratio": 1.5}, '"count"'),
])
def test_an_answer_that_breaks_the_requested_schema_is_flagged_alike_by_the_form_and_the_judge(content, where):
    said = footer("2025-11-25", content)
    assert said.severity == "warning" and said.ok, "flagged, and still sendable on purpose"
    assert any(where.replace("content.", "result.content.") in w or where in w for w in said.warnings), said
    found = judged("2025-11-25", content)
    assert [rule for rule, _ in found] == ["elicitation-content"]
    assert where in found[0][1]


def test_a_default_that_breaks_the_servers_own_schema_is_not_ours_to_flag():
    assert elicitation_content_problems(REQUESTED, {"count": 1, "greedy": 50}) == []
    assert judged("2025-11-25", {"count": 1, "greedy": 50}) == []
    assert [v.sentence for v in elicitation_content_problems(REQUESTED, {"count": 1, "greedy": 51})] == \
        ["content.greedy must be at most 10, it is 51"], "the user's own value is held to the schema"


def test_a_declined_elicitation_and_a_url_elicitation_have_no_content_to_judge():
    assert reply_problems("elicitation/create", {"action": "decline"}, revision="2025-11-25", params=PARAMS) == []
    url = {"mode": "url", "url": "https://example.com", "message": "m", "elicitationId": "e"}
    assert reply_problems("elicitation/create", {"action": "accept"}, revision="2025-11-25", params=url) == []
