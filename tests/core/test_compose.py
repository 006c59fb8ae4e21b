"""Composer templates, checks and prefilled answers (inspector.core.session.compose): no Qt here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.core.session import compose
from inspector.core.session.outcomes import client_info

#: The spec extract lives in shared/ beside the checkout (reference data, never needed at run time).
SPEC = Path(__file__).resolve().parents[2].parent / "shared" / "mcp-spec"


def _spec_dir() -> Path | None:
    return SPEC if (SPEC / "2024-11-05" / "schema.json").is_file() else None


def _schema(revision: str) -> tuple[dict[str, Any], dict[str, Any]]:
    spec = _spec_dir()
    if spec is None:
        pytest.skip("the MCP schema files (shared/mcp-spec) are not beside this checkout")
    schema = json.loads((spec / revision / "schema.json").read_text())
    return schema, schema.get("$defs") or schema["definitions"]


def _union_members(defs: dict[str, Any], name: str) -> dict[str, str]:
    """method -> definition name, for a union such as ClientRequest (a single definition counts as a union of one)."""
    union = defs[name]
    names = [ref["$ref"].split("/")[-1] for ref in union["anyOf"]] if "anyOf" in union else [name]
    return {defs[n]["properties"]["method"]["const"]: n for n in names}


def _as_sent(message: dict[str, Any], revision: str) -> dict[str, Any]:
    """What the session puts on the wire: an id for requests and, in the modern era, ``_meta`` on requests."""
    message = json.loads(json.dumps(message))
    if compose.is_request(message):
        message["id"] = 7
        if "initialize" not in compose.CLIENT_REQUESTS[revision]:
            meta = message.setdefault("params", {}).setdefault("_meta", {})
            meta.setdefault("io.modelcontextprotocol/protocolVersion", revision)
            meta.setdefault("io.modelcontextprotocol/clientCapabilities", {})
            meta.setdefault("io.modelcontextprotocol/clientInfo", client_info())
    return message


TOOLS = [
    {"name": "add", "inputSchema": {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "integer", "default": 2},
                       "note": {"type": "string"}, "mode": {"type": "string", "enum": ["fast", "slow"]},
                       "tags": {"type": "array", "items": {"type": "string"}},
                       "opts": {"$ref": "#/$defs/Opts"}},
        "required": ["a", "mode", "tags", "opts"],
        "$defs": {"Opts": {"type": "object", "properties": {"loud": {"type": "boolean"}}, "required": ["loud"]}},
    }},
    {"name": "second", "inputSchema": {"type": "object"}},
]
RESOURCES = [{"uri": "file:///etc/hosts", "name": "hosts"}, {"uriTemplate": "db://{table}/{row}", "name": "rows"}]
PROMPTS = [{"name": "greet", "arguments": [{"name": "who", "required": True}, {"name": "tone"}]}]


# -- client_methods ------------------------------------------------------------------------------------


@pytest.mark.parametrize("revision", compose.REVISIONS)
def test_the_hard_coded_client_methods_match_the_schema_unions_of_each_revision(revision):
    _, defs = _schema(revision)
    assert list(_union_members(defs, "ClientRequest")) == compose.client_requests(revision)
    assert list(_union_members(defs, "ClientNotification")) == compose.client_notifications(revision)
    assert compose.client_methods(revision) == compose.client_requests(revision) + compose.client_notifications(
        revision)


def test_the_modern_revision_offers_discover_and_listen_but_no_handshake_ping_or_log_level():
    methods = compose.client_methods("2026-07-28")
    assert "server/discover" in methods and "subscriptions/listen" in methods
    assert not {"initialize", "ping", "logging/setLevel", "notifications/initialized"} & set(methods)
    assert "initialize" in compose.client_methods("2024-11-05")
    assert "tasks/get" in compose.client_methods("2025-11-25")
    assert "tasks/get" not in compose.client_methods("2025-06-18")


def test_an_unknown_revision_offers_every_method_of_every_revision_once():
    methods = compose.client_methods("2099-01-01")
    assert len(methods) == len(set(methods))
    for revision in compose.REVISIONS:
        assert set(compose.client_methods(revision)) <= set(methods)
    assert compose.client_methods(None) == methods


def test_notifications_are_told_apart_from_requests_by_method():
    assert compose.is_notification("notifications/cancelled")
    assert not compose.is_notification("tools/call")
    assert compose.is_request({"jsonrpc": "2.0", "method": "tools/list"})
    assert not compose.is_request({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert not compose.is_request({"jsonrpc": "2.0", "id": 1, "result": {}})
    assert not compose.is_request([{"jsonrpc": "2.0", "method": "tools/list"}])


# -- templates -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("revision", compose.REVISIONS)
def test_every_template_of_a_revision_is_a_json_rpc_message_without_an_id(revision):
    for method in compose.client_methods(revision):
        message = compose.template(method, revision, tools=TOOLS, resources=RESOURCES, prompts=PROMPTS)
        assert message["jsonrpc"] == "2.0" and message["method"] == method
        assert "id" not in message, method
        assert set(message) <= {"jsonrpc", "method", "params"}
        assert isinstance(message.get("params", {}), dict)
        json.dumps(message)  # plain JSON values only
        assert compose.validate(json.dumps(message, indent=2)).severity == "ok", method


@pytest.mark.parametrize("revision", compose.REVISIONS)
@pytest.mark.parametrize("catalog", [True, False], ids=["with a catalog", "without a catalog"])
def test_every_template_as_the_session_sends_it_satisfies_the_revisions_schema(revision, catalog):
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema comes with the test extra (mcp)")
    schema, defs = _schema(revision)
    members = {**_union_members(defs, "ClientRequest"), **_union_members(defs, "ClientNotification")}
    key = "$defs" if "$defs" in schema else "definitions"
    kwargs = {"tools": TOOLS, "resources": RESOURCES, "prompts": PROMPTS} if catalog else {}
    for method, definition in members.items():
        message = _as_sent(compose.template(method, revision, **kwargs), revision)
        check = {"$schema": schema["$schema"], key: defs, "$ref": f"#/{key}/{definition}"}
        validator = jsonschema.validators.validator_for(check)(check)
        errors = [e.message for e in validator.iter_errors(message)]
        assert errors == [], (method, message)


def test_initialize_asks_for_the_chosen_revision_and_names_the_inspector():
    params = compose.template("initialize", "2025-06-18")["params"]
    assert params["protocolVersion"] == "2025-06-18"
    assert params["clientInfo"] == client_info()
    assert "elicitation" in params["capabilities"]
    assert "elicitation" not in compose.template("initialize", "2024-11-05")["params"]["capabilities"]


def test_tools_call_is_prefilled_from_the_first_tool_and_its_input_schema():
    params = compose.template("tools/call", "2025-11-25", tools=TOOLS)["params"]
    assert params == {"name": "add", "arguments": {"a": 0, "b": 2, "mode": "fast", "tags": [],
                                                   "opts": {"loud": False}}}


def test_tools_call_without_a_catalog_names_a_placeholder_tool():
    assert compose.template("tools/call", "2025-11-25")["params"] == {"name": "tool-name", "arguments": {}}


def test_a_tool_with_an_unusable_schema_still_gets_a_call_template():
    tools = [{"name": 3}, {"name": "odd", "inputSchema": {"type": "object", "properties": {"x": "nonsense"},
                                                          "required": ["x", "y"]}}]
    assert compose.template("tools/call", "2025-11-25", tools=tools)["params"] == {
        "name": "odd", "arguments": {"x": "", "y": ""}}


def test_a_self_referencing_tool_schema_does_not_recurse_forever():
    node = {"type": "object", "properties": {"child": {"$ref": "#"}}, "required": ["child"]}
    params = compose.template("tools/call", "2025-11-25", tools=[{"name": "tree", "inputSchema": node}])["params"]
    depth, value = 0, params["arguments"]
    while isinstance(value, dict) and "child" in value:
        value, depth = value["child"], depth + 1
    assert 0 < depth <= compose.MAX_SCHEMA_DEPTH + 1


def test_resources_read_and_prompts_get_use_the_first_resource_and_prompt():
    assert compose.template("resources/read", "2025-06-18", resources=RESOURCES)["params"] == {
        "uri": "file:///etc/hosts"}
    assert compose.template("prompts/get", "2025-06-18", prompts=PROMPTS)["params"] == {
        "name": "greet", "arguments": {"who": ""}}


def test_completion_refers_to_a_prompt_argument_or_else_a_resource_template():
    assert compose.template("completion/complete", "2025-06-18", prompts=PROMPTS)["params"] == {
        "ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "who", "value": ""}}
    assert compose.template("completion/complete", "2025-06-18", resources=RESOURCES)["params"] == {
        "ref": {"type": "ref/resource", "uri": "db://{table}/{row}"}, "argument": {"name": "table", "value": ""}}


def test_small_templates_have_the_obvious_params():
    assert compose.template("logging/setLevel", "2025-03-26")["params"] == {"level": "info"}
    assert "requestId" in compose.template("notifications/cancelled", "2025-03-26")["params"]
    assert "params" not in compose.template("ping", "2025-03-26")
    assert "params" not in compose.template("notifications/initialized", "2025-03-26")
    listen = compose.template("subscriptions/listen", "2026-07-28", resources=RESOURCES)["params"]
    assert listen["notifications"]["resourceSubscriptions"] == ["file:///etc/hosts"]
    assert compose.template("x/unknown", "2025-03-26") == {"jsonrpc": "2.0", "method": "x/unknown", "params": {}}


def test_modern_templates_leave_meta_to_the_session_except_discover():
    assert "params" not in compose.template("tools/list", "2026-07-28")
    meta = compose.template("server/discover", "2026-07-28")["params"]["_meta"]
    assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    assert meta["io.modelcontextprotocol/clientInfo"] == client_info()


# -- validate ------------------------------------------------------------------------------------------


def test_a_json_syntax_error_is_reported_with_its_line_and_column():
    result = compose.validate('{\n  "jsonrpc": "2.0",\n  "method": "x" "params": {}\n}')
    assert not result.ok and result.severity == "error"
    assert result.message == "line 3, column 17: Expecting ',' delimiter"
    assert (result.line, result.column) == (3, 17)


def test_nan_is_refused_as_json_with_its_position():
    result = compose.validate('{"jsonrpc": "2.0",\n "method": "x", "params": {"v": NaN}}')
    assert not result.ok
    assert result.message.startswith("line 2, column 33: NaN is not JSON")


def test_empty_text_and_bare_values_are_not_sendable_messages():
    assert not compose.validate("  \n").ok
    scalar = compose.validate("42")
    assert not scalar.ok and "Raw" in scalar.message


def test_a_request_without_an_id_is_valid_and_says_the_id_comes_at_send_time():
    result = compose.validate('{"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "add"}}')
    assert result.ok and result.severity == "ok" and result.kind == "request"
    assert result.message == "valid request tools/call add (id added at send)"
    assert result.obj == {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "add"}}


def test_missing_jsonrpc_or_method_are_warnings_that_can_still_be_sent():
    no_version = compose.validate('{"method": "tools/list"}')
    assert no_version.ok and no_version.warning and '"jsonrpc"' in no_version.message
    no_method = compose.validate('{"jsonrpc": "2.0", "params": {}}')
    assert no_method.ok and no_method.warning and '"method"' in no_method.message


def test_a_notification_carrying_an_id_is_a_warning():
    result = compose.validate('{"jsonrpc": "2.0", "id": 4, "method": "notifications/initialized"}')
    assert result.ok and result.warning and result.kind == "notification"
    assert "notification" in result.message and "id" in result.message


def test_responses_and_batches_are_recognised():
    assert compose.validate('{"jsonrpc": "2.0", "id": 3, "result": {}}').message == "valid response to id 3"
    batch = compose.validate('[{"jsonrpc": "2.0", "id": 1, "method": "ping"}, '
                             '{"jsonrpc": "2.0", "method": "notifications/initialized"}]')
    assert batch.ok and batch.kind == "batch" and "2 messages" in batch.message


def test_a_huge_server_provided_name_is_shortened_in_the_message():
    result = compose.validate(json.dumps({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "n" * 5000}}))
    assert len(result.message) < 200


# -- server_request_reply ------------------------------------------------------------------------------


def test_a_sampling_request_is_answered_with_an_empty_assistant_message():
    assert compose.server_request_reply("sampling/createMessage", {"messages": [], "maxTokens": 10}) == {
        "role": "assistant", "content": {"type": "text", "text": ""}, "model": "mcp-inspector",
        "stopReason": "endTurn"}


def test_an_elicitation_is_accepted_with_every_field_prefilled():
    schema = {"type": "object", "properties": {
        "name": {"type": "string"}, "age": {"type": "integer", "minimum": 18}, "agree": {"type": "boolean"},
        "colour": {"type": "string", "enum": ["red", "green"]}, "city": {"type": "string", "default": "Oslo"},
        "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
        "pets": {"type": "array", "items": {"type": "string", "enum": ["cat", "dog"]}},
    }, "required": ["name"]}
    reply = compose.server_request_reply("elicitation/create", {"message": "Who?", "requestedSchema": schema})
    assert reply == {"action": "accept", "content": {"name": "", "age": 18, "agree": False, "colour": "red",
                                                     "city": "Oslo", "size": "s", "pets": []}}


def test_a_url_elicitation_is_accepted_without_content():
    params = {"mode": "url", "message": "Sign in", "url": "https://example.com/x", "elicitationId": "e1"}
    assert compose.server_request_reply("elicitation/create", params) == {"action": "accept"}


def test_roots_and_unknown_server_requests_get_simple_answers():
    assert compose.server_request_reply("roots/list", None) == {"roots": []}
    assert compose.server_request_reply("x/other", {"a": 1}) == {}


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25", "2026-07-28"])
def test_prefilled_answers_satisfy_the_schema_results(revision):
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema comes with the test extra (mcp)")
    schema, defs = _schema(revision)
    key = "$defs" if "$defs" in schema else "definitions"
    cases = {
        "CreateMessageResult": compose.server_request_reply("sampling/createMessage", {}),
        "ElicitResult": compose.server_request_reply("elicitation/create", {"requestedSchema": {
            "type": "object", "properties": {"n": {"type": "number"}, "b": {"type": "boolean"}}}}),
        "ListRootsResult": compose.server_request_reply("roots/list", {}),
    }
    for definition, result in cases.items():
        check = {"$schema": schema["$schema"], key: defs, "$ref": f"#/{key}/{definition}"}
        validator = jsonschema.validators.validator_for(check)(check)
        assert [e.message for e in validator.iter_errors(result)] == [], definition


# -- check_reply ---------------------------------------------------------------------------------------


def test_a_well_formed_reply_is_valid_for_its_method():
    text = json.dumps(compose.server_request_reply("sampling/createMessage", {}))
    result = compose.check_reply("sampling/createMessage", text)
    assert result.ok and result.severity == "ok" and result.message == "valid sampling/createMessage result"


def test_a_reply_with_broken_json_names_line_and_column_and_cannot_be_sent():
    result = compose.check_reply("roots/list", '{\n  "roots": [}\n')
    assert not result.ok and (result.line, result.column) == (2, 13)
    assert result.message.startswith("line 2, column 13: ")


def test_a_reply_of_the_wrong_shape_is_a_sendable_warning():
    assert compose.check_reply("elicitation/create", '{"action": "maybe"}').warning
    assert compose.check_reply("roots/list", '{"roots": [{"name": "no uri"}]}').warning
    assert compose.check_reply("x/y", "[]").warning
    sampling = compose.check_reply("sampling/createMessage", '{"role": "assistant"}')
    assert sampling.ok and '"content", "model"' in sampling.message and "CreateMessageResult" in sampling.message
