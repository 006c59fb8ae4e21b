"""Each message judged against its revision's schema: by method, results by the request they answer, errors by
shape; the compiled yes/no check agrees with jsonschema on every definition of the five revisions."""

from __future__ import annotations

import pytest

from inspector.core.protocol import revisions
from inspector.core.protocol.messages import for_revision
from inspector.core.schemas.validate import definition_validator

GOOD_TOOL = {"name": "add", "inputSchema": {"type": "object"}}


def _result(revision: str, extra: dict) -> dict:
    base = {"resultType": "complete", "cacheScope": "public", "ttlMs": 0} if revision == "2026-07-28" else {}
    return {**base, **extra}


@pytest.mark.parametrize("revision", revisions.REVISIONS)
def test_a_tools_list_result_without_input_schema_is_a_schema_violation_in_every_revision(revision):
    schema = for_revision(revision)
    good = {"jsonrpc": "2.0", "id": 1, "result": _result(revision, {"tools": [GOOD_TOOL]})}
    bad = {"jsonrpc": "2.0", "id": 1, "result": _result(revision, {"tools": [GOOD_TOOL, {"name": "x"}]})}
    assert schema.check(good, "response", None, "tools/list") == []
    found = schema.check(bad, "response", None, "tools/list")
    assert [v.path for v in found] == ["result.tools[1]"]
    assert found[0].sentence == ('result.tools[1] is missing the required field "inputSchema" '
                                 f"(schema {revision}, ListToolsResult)")


def test_the_sentence_says_the_path_the_rule_the_value_and_the_revision():
    schema = for_revision("2025-11-25")
    tools = [GOOD_TOOL, GOOD_TOOL, {"name": "c", "inputSchema": {"type": "array"}}]
    found = schema.check({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}, "response", None, "tools/list")
    assert [v.sentence for v in found] == [
        'result.tools[2].inputSchema.type must be "object", it is the string "array" (schema 2025-11-25, '
        "ListToolsResult)"]


@pytest.mark.parametrize("revision", revisions.REVISIONS)
def test_a_notification_is_judged_by_its_method(revision):
    schema = for_revision(revision)
    bad = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1}}
    found = schema.check(bad, "notification", "notifications/progress", None)
    assert found and found[0].definition == "ProgressNotification"
    assert "progress" in found[0].sentence


def test_a_request_is_judged_by_its_method_and_an_unknown_method_is_not_judged():
    schema = for_revision("2025-06-18")
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": {}}}
    assert [v.path for v in schema.check(call, "request", "tools/call", None)] == ["params"]
    assert schema.check({"jsonrpc": "2.0", "id": 1, "method": "x/y"}, "request", "x/y", None) == []


def test_an_error_is_judged_by_its_shape_and_in_2026_by_its_code():
    old = for_revision("2024-11-05")
    assert old.check({"jsonrpc": "2.0", "id": 1, "error": {"code": "x", "message": "m"}}, "error", None, None)
    new = for_revision("2026-07-28")
    unsupported = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "no"}}
    found = new.check(unsupported, "error", None, None)
    assert found and found[0].definition == "UnsupportedProtocolVersionError"
    assert new.check({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}}, "error", None,
                     None) == []


def test_a_2026_result_asking_for_input_is_judged_as_input_required():
    schema = for_revision("2026-07-28")
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "requestState": "s"}}
    assert schema.check(answer, "response", None, "tools/call") == []


#: Values that exercise the keywords: each definition is judged on each by both checks, which must agree.
SAMPLES = [None, True, 1, 1.5, -3, "x", "2.0", [], [1, "a"], {}, {"name": "n"}, {"name": "n", "inputSchema": {}},
           {"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"type": "text", "text": "t"},
           {"role": "user", "content": {"type": "text", "text": "t"}}, {"uri": "file:///a", "name": "a"},
           {"level": "info", "data": 1}, {"progressToken": 1, "progress": 2}, {"code": -32700, "message": "m"},
           {"type": "object", "properties": {"a": {"type": "string"}}}, {"tools": [GOOD_TOOL]}]


@pytest.mark.parametrize("revision", revisions.REVISIONS)
def test_the_compiled_check_agrees_with_jsonschema_on_every_definition(revision):
    schema = for_revision(revision)
    disagree = []
    for name in revisions.definitions(revision):
        fast = schema.fast(name)
        assert fast is not None, f"{name} uses a keyword the compiled check does not know"
        slow = definition_validator(schema.document, name)
        for sample in SAMPLES:
            if fast(sample) != slow.is_valid(sample):
                disagree.append((name, sample))
    assert disagree == []


def _example(document: dict, schema, depth: int = 0):
    """A value built from ``schema`` that is usually valid (required and optional properties filled, the first
    const/enum value, the first anyOf branch): the starting point of the mutations below."""
    if not isinstance(schema, dict) or depth > 8:
        return None
    if "$ref" in schema:
        return _example(document, document[schema["$ref"].split("/")[1]][schema["$ref"].split("/")[2]], depth + 1)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return _example(document, schema["anyOf"][0], depth + 1)
    if "allOf" in schema:
        merged: dict = {}
        for part in schema["allOf"]:
            value = _example(document, part, depth + 1)
            if isinstance(value, dict):
                merged.update(value)
        return merged
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "object" or "properties" in schema:
        return {name: _example(document, sub, depth + 1) for name, sub in schema.get("properties", {}).items()}
    if kind == "array":
        return [_example(document, schema.get("items", {}), depth + 1)]
    return {"string": "s", "integer": 2, "number": 1.5, "boolean": True, "null": None}.get(kind, "any")


_WRONG = [None, True, 0, -1, 2.5, "x", "2.0", [], [None], {}, {"type": "object"}]


def _mutations(value, depth: int = 0):
    """``value`` with one thing changed: a property dropped, a property added, a value swapped for each of
    :data:`_WRONG`, recursively (at most a few levels down)."""
    yield from _WRONG
    if depth > 3:
        return
    if isinstance(value, dict):
        yield {**value, "unexpectedExtra": 1}
        for key in value:
            yield {k: v for k, v in value.items() if k != key}
            for changed in _mutations(value[key], depth + 1):
                yield {**value, key: changed}
    elif isinstance(value, list) and value:
        yield value * 3
        for changed in _mutations(value[0], depth + 1):
            yield [changed, *value[1:]]


#: jsonschema (the inspector's own validator, for the sentences of a refusal) answers every SPOT-th value too: all of
#: them would cost 9 s of CPU, a tenth of the suite's in-process work (issue 17); jsonschema-rs answers each.
SPOT = 16


@pytest.mark.parametrize("revision", revisions.REVISIONS)
def test_the_generated_check_agrees_with_jsonschema_and_the_closures_on_mutations_of_every_definition(revision):
    """The generated code (what the judge runs) answers as a reference implementation of JSON Schema
    (jsonschema-rs) and as the closure compiler do, on thousands of near-valid values: each definition's built
    example and every one-step mutation. jsonschema answers the examples and every :data:`SPOT`-th value."""
    import jsonschema_rs
    from closure_check import Compiler

    from inspector.core.protocol.compiled import CodeCompiler

    document = revisions.schema_document(revision)
    key = "$defs" if "$defs" in document else "definitions"
    generated, closures = CodeCompiler(document), Compiler(document)
    disagree = []
    checked = valid = spot_checked = 0
    for name in revisions.definitions(revision):
        fast = generated.definition(f"#/{key}/{name}")
        closure = closures.definition(f"#/{key}/{name}")
        reference = jsonschema_rs.validator_for({**{k: document[k] for k in ("$schema",) if k in document},
                                                 "$ref": f"#/{key}/{name}", key: document[key]},
                                                validate_formats=False)
        slow = definition_validator(document, name)
        example = _example(document, revisions.definitions(revision)[name])
        for index, sample in enumerate([example, *_mutations(example)]):
            want = reference.is_valid(sample)
            checked += 1
            valid += want
            if fast(sample) != want or closure(sample) != want:
                disagree.append((name, sample))
            if index % SPOT == 0:
                spot_checked += 1
                if slow.is_valid(sample) != want:
                    disagree.append(("jsonschema", name, sample))
    assert disagree[:5] == []
    assert checked > 5_000 and valid > checked // 20, (checked, valid)  # the examples reach valid values too
    assert spot_checked > checked // (SPOT + 1)


@pytest.mark.parametrize("value", [
    {}, {"s": "x"}, {"n": 5}, {"n": 5, "s": "x"}, {"n": 1, "s": "x"}, {"n": "any", "s": "x"}, {"n": 5, "s": None},
    {"n": 5, "s": "y"}, {"n": 5, "s": ["x"]}, {"n": None, "s": "x", "extra": 1},
])
def test_a_required_property_whose_schema_would_accept_anything_absent_is_still_required(value):
    # required keys are read once (dict.get) and their absence answered there: a schema such as {"minimum": 3}
    # accepts a missing-marker as it accepts any non-number, so the read itself must say "missing"
    from jsonschema import Draft202012Validator

    from inspector.core.protocol.compiled import CodeCompiler

    document = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"T": {
        "type": "object", "required": ["n", "s"],
        "properties": {"n": {"minimum": 3}, "s": {"const": "x"}}}}}
    want = Draft202012Validator({**document, "$ref": "#/$defs/T"}).is_valid(value)
    assert CodeCompiler(document).definition("#/$defs/T")(value) is want


def test_a_violation_the_schema_asks_for_twice_is_said_once():
    # 2026-07-28's ListToolsResult requires cacheScope and ttlMs in both schemas it combines: jsonschema reports
    # the same missing fields twice, and `show` printed the same sentence twice under the message
    response = {"jsonrpc": "2.0", "id": 5, "result": {"resultType": "complete", "tools": []}}
    found = for_revision("2026-07-28").check(response, "response", "tools/list", "tools/list")
    assert [v.sentence for v in found] == [
        'result is missing the required fields "cacheScope", "ttlMs" (schema 2026-07-28, ListToolsResult)']
