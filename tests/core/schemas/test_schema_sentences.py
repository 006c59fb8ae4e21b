"""inspector.core.schemas.validate: violations as sentences with paths; no network $ref; bad schemas said."""

from __future__ import annotations

from inspector.core.schemas.validate import first_violation, schema_problem, validator_for, violations

SCHEMA = {
    "type": "object",
    "properties": {
        "a": {"type": "number"},
        "b": {"type": "string", "enum": ["x", "y"]},
        "c": {"$ref": "#/$defs/C"},
        "remote": {"$ref": "https://example.com/never.json"},
    },
    "required": ["a"],
    "additionalProperties": False,
    "$defs": {"C": {"type": "integer", "minimum": 3}},
}


def test_a_valid_value_has_no_violations() -> None:
    assert violations(SCHEMA, {"a": 1, "b": "x", "c": 4}, root="arguments") == []


def test_each_violation_names_its_path_and_rule_in_a_sentence() -> None:
    found = {v.path: v for v in violations(SCHEMA, {"a": "2", "b": "q", "c": 1, "extra": 0}, root="arguments")}
    assert found["arguments.a"].sentence == 'arguments.a must be a number, it is the string "2"'
    assert found["arguments.b"].keyword == "enum"
    assert found["arguments.c"].sentence == "arguments.c must be at least 3, it is 1"
    assert "extra" in found["arguments"].sentence


def test_array_items_are_addressed_by_index() -> None:
    schema = {"type": "object", "properties": {"tools": {"type": "array", "items": {"type": "object",
              "properties": {"inputSchema": {"type": "object", "properties": {"type": {"const": "object"}}}}}}}}
    v = first_violation(schema, {"tools": [{}, {}, {"inputSchema": {"type": "array"}}]}, root="result")
    assert v is not None
    assert v.path == "result.tools[2].inputSchema.type"
    assert v.sentence == 'result.tools[2].inputSchema.type must be "object", it is the string "array"'


def test_a_network_ref_is_reported_and_never_fetched() -> None:
    v = first_violation(SCHEMA, {"a": 1, "remote": 3}, root="arguments")
    assert v is not None and v.keyword == "$ref"
    assert "https://example.com/never.json" in v.sentence and "never fetched" in v.sentence


def test_a_broken_schema_is_a_sentence_not_an_exception() -> None:
    assert schema_problem({"type": "frob"}) is not None
    assert schema_problem([1]) == "a JSON Schema is an object or a boolean, this is an array of 1 item"
    assert schema_problem({"type": "object"}) is None
    assert violations({"type": 5}, {}, root="x")[0].keyword == "schema"


def test_a_draft_07_schema_keeps_draft_07_rules() -> None:
    # In draft-07 an array-valued "items" is a tuple; 2020-12 would reject that schema outright.
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "array",
              "items": [{"type": "string"}, {"type": "integer"}]}
    assert schema_problem(schema) is None
    assert violations(schema, ["a", 1]) == []
    assert violations(schema, ["a", "b"])[0].path == "[1]"


def test_validators_are_compiled_once_per_schema() -> None:
    assert validator_for({"type": "string"}) is validator_for({"type": "string"})


def test_a_broken_schema_is_named_on_every_call_and_a_sound_one_still_judges_each_instance_once_checked():
    from inspector.core.schemas.validate import violations

    broken = {"type": "object", "properties": {"a": {"type": "strnig"}}}
    for _ in range(2):  # the metaschema's verdict is kept, not forgotten
        [found] = violations(broken, {"a": 1})
        assert found.keyword == "schema" and "breaks the JSON Schema rules" in found.sentence
    sound = {"type": "object", "properties": {"a": {"type": "integer"}}}
    assert violations(sound, {"a": 1}) == []
    assert [v.keyword for v in violations(sound, {"a": "x"})] == ["type"]
