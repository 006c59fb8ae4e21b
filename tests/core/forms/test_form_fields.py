"""inspector.core.forms: a field tree for every schema (server-everything's tools, the spec's own definitions,
draft-07 and 2020-12 tool schemas), arguments that survive a round trip, violations on their fields, and a
network $ref that is never fetched."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path
from typing import Any

import pytest
from form_schemas import DRAFT_07, DRAFT_2020, ELICITATION, EVERYTHING

from inspector.core.forms import build
from inspector.core.forms import values as V

SPEC = Path(__file__).resolve().parents[3] / ".." / "shared" / "mcp-spec"
#: bound on waiting for a connection that must not come (the schema's $ref points at it)
NO_CONNECTION_WAIT = 0.5


def _spec_schema() -> dict[str, Any]:
    for base in (SPEC, Path("/work/shared/mcp-spec")):
        path = base / "2025-11-25" / "schema.json"
        if path.exists():
            return json.loads(path.read_text(encoding="utf-8"))
    pytest.fail("the 2025-11-25 schema.json is not in ../shared/mcp-spec")


def _kinds(schema: Any) -> dict[str, str]:
    return {c.name or "": c.kind for c in build(schema).children}


def _round_trip(schema: Any, args: dict[str, Any]) -> dict[str, Any]:
    root = build(schema)
    value, misfits = V.from_arguments(root, args)
    assert misfits == []
    return V.arguments(root, value)


# -- server-everything -----------------------------------------------------------------------------------

def test_the_tools_list_was_recorded_from_the_real_server() -> None:
    names = {t["name"] for t in EVERYTHING}
    assert {"echo", "get-sum", "trigger-elicitation-request", "gzip-file-as-resource"} <= names


@pytest.mark.parametrize("tool", EVERYTHING, ids=[t["name"] for t in EVERYTHING])
def test_every_tool_of_server_everything_gets_a_form_whose_fields_match_its_properties(tool: dict) -> None:
    schema = tool["inputSchema"]
    root = build(schema)
    assert root.kind == "object"
    assert [c.name for c in root.children] == list(schema.get("properties", {}))
    assert {c.name for c in root.children if c.required} == set(schema.get("required", []))
    assert all(c.kind != "json" for c in root.children), "server-everything uses only plain shapes"
    start = V.initial(root)
    args = V.arguments(root, start)
    defaults = {k: p["default"] for k, p in schema.get("properties", {}).items() if "default" in p}
    assert args == defaults, "defaults are prefilled, empty optional fields are omitted"
    assert _round_trip(schema, args) == args
    missing = set(schema.get("required", [])) - set(args)
    placed = V.assign(V.problems(root, schema, start), root, start)
    assert set(placed) == {f"arguments.{name}" for name in missing}


def test_get_sum_typed_as_text_sends_numbers_and_says_what_is_wrong() -> None:
    schema = next(t["inputSchema"] for t in EVERYTHING if t["name"] == "get-sum")
    root = build(schema)
    assert _kinds(schema) == {"a": "number", "b": "number"}
    value = V.Obj({"a": "2", "b": "3.5"})
    assert V.arguments(root, value) == {"a": 2, "b": 3.5}
    assert V.problems(root, schema, value) == []
    bad = V.Obj({"a": "two", "b": V.UNSET})
    placed = V.assign(V.problems(root, schema, bad), root, bad)
    assert placed == {"arguments.a": ['arguments.a must be a number, it is the string "two"'],
                      "arguments.b": ["arguments.b is required"]}


def test_server_everythings_elicitation_schema_gets_every_kind_of_field() -> None:
    root = build(ELICITATION)
    kinds = {c.name: c.kind for c in root.children}
    assert kinds["name"] == "string" and kinds["check"] == "boolean" and kinds["integer"] == "integer"
    assert kinds["untitledSingleSelectEnum"] == "choice" and kinds["untitledMultipleSelectEnum"] == "multi"
    assert kinds["titledMultipleSelectEnum"] == "multi"
    hero = root.child("titledSingleSelectEnum")
    assert hero is not None and [o.label for o in hero.options] == ["Superman", "Green Lantern", "Wonder Woman"]
    pets = root.child("legacyTitledEnum")
    assert pets is not None and pets.options[1].label == "Dogs" and pets.options[1].value == "pet-2"
    email = root.child("email")
    assert email is not None and email.format == "email"
    args = {"name": "Ada", "check": True, "email": "ada@example.com", "birthdate": "1815-12-10", "integer": 7,
            "titledMultipleSelectEnum": ["fish-3", "fish-1"], "titledSingleSelectEnum": "hero-2"}
    assert _round_trip(ELICITATION, args) == args


def test_a_value_the_form_cannot_show_is_named_not_dropped_silently() -> None:
    root = build(ELICITATION)
    _value, misfits = V.from_arguments(root, {"integer": "many", "untitledSingleSelectEnum": "Gunther"})
    assert misfits == ['arguments.integer is the string "many", which the form\'s integer field cannot show',
                       'arguments.untitledSingleSelectEnum is the string "Gunther", which the form\'s choice field '
                       "cannot show"]


# -- the spec's own schema.json --------------------------------------------------------------------------

def test_every_definition_of_the_2025_11_25_schema_gets_a_form_that_round_trips_its_start() -> None:
    spec = _spec_schema()
    defs = spec["$defs"]
    for name in defs:
        schema = {"$schema": spec["$schema"], "$ref": f"#/$defs/{name}", "$defs": defs}
        root = build(schema)
        start = V.initial(root)
        args = V.to_json(root, start)
        if isinstance(args, dict):
            back, misfits = V.from_arguments(root, args)
            assert misfits == [], name
            assert V.to_json(root, back) == args, name


def test_the_spec_says_what_an_elicitation_may_ask_and_the_form_follows_it() -> None:
    spec = _spec_schema()
    defs = spec["$defs"]
    requested = defs["ElicitRequestFormParams"]["properties"]["requestedSchema"]
    root = build({"$ref": "#/$defs/ElicitRequestFormParams", "$defs": defs})
    assert root.kind == "object" and root.child("requestedSchema") is not None
    assert requested["properties"]["type"]["const"] == "object"
    primitive = build({"$ref": "#/$defs/PrimitiveSchemaDefinition", "$defs": defs})
    assert primitive.kind == "union"
    labels = [b.label for b in primitive.branches]
    assert len(labels) == 8 and all(labels)
    # A requested schema built from each primitive definition is a one-field form of the expected kind.
    samples = {"StringSchema": ({"type": "string", "format": "date"}, "string"),
               "NumberSchema": ({"type": "integer", "minimum": 1}, "integer"),
               "BooleanSchema": ({"type": "boolean", "default": True}, "boolean"),
               "UntitledSingleSelectEnumSchema": ({"type": "string", "enum": ["a", "b"]}, "choice"),
               "TitledSingleSelectEnumSchema": ({"type": "string", "oneOf": [{"const": "a", "title": "A"}]},
                                                "choice"),
               "UntitledMultiSelectEnumSchema": ({"type": "array", "items": {"type": "string", "enum": ["a"]}},
                                                 "multi"),
               "TitledMultiSelectEnumSchema": ({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}},
                                               "multi"),
               "LegacyTitledEnumSchema": ({"type": "string", "enum": ["a"], "enumNames": ["A"]}, "choice")}
    from inspector.core.schemas.validate import definition_validator, violations

    for definition, (prop, kind) in samples.items():
        # the spec's own document is trusted: compiled without checking it against the metaschema each time
        assert list(definition_validator(spec, definition).iter_errors(prop)) == [], definition
        form = {"type": "object", "properties": {"x": prop}}
        assert violations({**requested, "$defs": defs}, form) == [], definition
        assert _kinds(form) == {"x": kind}, definition


# -- draft-07 and 2020-12 tool schemas --------------------------------------------------------------------

def test_a_draft_07_tool_schema_resolves_definitions_tuples_and_nullable_types() -> None:
    root = build(DRAFT_07)
    origin = root.child("origin")
    assert origin is not None and origin.kind == "object" and [c.name for c in origin.children] == ["x", "y"]
    pair = root.child("pair")
    assert pair is not None and pair.kind == "array" and [p.kind for p in pair.prefix] == ["string", "integer"]
    ratio = root.child("ratio")
    assert ratio is not None and (ratio.minimum, ratio.exclusive_maximum) == (0, 1)
    when = root.child("when")
    assert when is not None and when.kind == "string" and when.nullable and when.format == "date-time"
    args = {"origin": {"x": 1, "y": 2.5}, "pair": ["a", 1], "when": None, "tags": ["t"]}
    assert _round_trip(DRAFT_07, args) == args
    value, _ = V.from_arguments(root, {"origin": {"x": 1}, "ratio": 1, "tags": ["", "b", "c", "d"]})
    placed = V.assign(V.problems(root, DRAFT_07, value), root, value)
    assert placed["arguments.origin.y"] == ["arguments.origin.y is required"]
    assert placed["arguments.ratio"] == ["arguments.ratio must be less than 1, it is 1"]
    assert "arguments.tags" in placed and "arguments.tags[0]" in placed


def test_a_2020_12_tool_schema_keeps_its_keywords_and_lays_out_what_it_can() -> None:
    root = build(DRAFT_2020)
    shape = root.child("shape")
    assert shape is not None and shape.kind == "union"
    assert [b.label for b in shape.branches] == ["Circle", "kind: square"]
    point = root.child("point")
    assert point is not None and point.kind == "array" and len(point.prefix) == 2 and point.item is None
    for name in ("labels", "pattern", "when"):
        field = root.child(name)
        assert field is not None and field.kind == "json" and field.note, name
    maybe = root.child("maybe")
    assert maybe is not None and maybe.kind == "integer" and maybe.nullable
    mode = root.child("mode")
    assert mode is not None and mode.kind == "const" and not mode.required
    level = root.child("level")
    assert level is not None and level.kind == "choice" and V.to_json(level, V.initial(level)) == 2
    assert root.schema["unevaluatedProperties"] is False and "$defs" in root.schema
    args = {"shape": {"kind": "square", "side": 2}, "point": [1, 2], "labels": {"a": "b"}, "maybe": None,
            "mode": "fast", "when": {"a": 1, "b": "x"}, "level": 3, "settings": {"verbose": False}}
    assert _round_trip(DRAFT_2020, args) == args
    value, _ = V.from_arguments(root, args)
    assert isinstance(value.values["shape"], V.Branch) and value.values["shape"].index == 1
    assert V.problems(root, DRAFT_2020, value) == []
    assert V.arguments(root, V.initial(root)) == {"level": 2, "shape": {"kind": "circle"}}, \
        "a required union starts on its first branch, whose const is sent; the default is prefilled"


def test_a_json_field_whose_text_is_not_json_is_a_problem_on_that_field() -> None:
    root = build(DRAFT_2020)
    value = V.initial(root)
    value.values["labels"] = '{"a": '
    placed = V.assign(V.problems(root, DRAFT_2020, value), root, value)
    assert placed["arguments.labels"] == ["arguments.labels is not JSON: line 1, column 7: Expecting value"]


def test_an_optional_object_left_empty_is_omitted_but_one_from_the_json_view_is_kept() -> None:
    root = build(DRAFT_2020)
    assert "settings" not in V.arguments(root, V.initial(root))
    assert _round_trip(DRAFT_2020, {"shape": {"kind": "circle", "r": 1}, "settings": {}}) == \
        {"shape": {"kind": "circle", "r": 1}, "settings": {}}


def test_a_schema_that_refers_to_itself_becomes_json_below_the_first_level() -> None:
    tree = {"type": "object", "$defs": {"node": {"type": "object", "properties": {
        "name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
        "properties": {"root": {"$ref": "#/$defs/node"}}}
    root = build(tree)
    node = root.child("root")
    assert node is not None and node.kind == "object"
    children = node.child("children")
    assert children is not None and children.item is not None and children.item.kind == "json"
    assert "refers to itself" in children.item.note


def test_shapes_that_are_not_schemas_still_give_a_form() -> None:
    for schema in ({}, True, False, [], {"type": "frob"}, {"properties": "x"}, {"type": "object", "required": 3},
                   {"allOf": [{"$ref": "#/nowhere"}]}):
        root = build(schema)
        assert root.kind in ("object", "json")
        V.arguments(root, V.initial(root))


# -- a network $ref is never fetched -------------------------------------------------------------------------

def test_a_network_ref_becomes_raw_json_with_a_note_and_no_connection_is_made() -> None:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(NO_CONNECTION_WAIT)
    port = listener.getsockname()[1]
    connections: list[Any] = []

    def accept() -> None:
        try:
            connections.append(listener.accept())
        except OSError:
            pass

    watcher = threading.Thread(target=accept, daemon=True)
    watcher.start()
    remote = f"http://127.0.0.1:{port}/schema.json"
    schema = {"type": "object", "properties": {"far": {"$ref": remote}, "near": {"type": "string"}},
              "required": ["far"]}
    try:
        root = build(schema)
        far = root.child("far")
        assert far is not None and far.kind == "json"
        assert far.note == f"the schema refers to {remote}, which is never fetched: write this value as JSON"
        value, _ = V.from_arguments(root, {"far": {"any": 1}, "near": "x"})
        found = V.problems(root, schema, value)
        assert [p.keyword for p in found] == ["$ref"] and "never fetched" in found[0].sentence
        watcher.join(NO_CONNECTION_WAIT * 2)
    finally:
        listener.close()
    assert connections == [], "building or validating the form connected to the $ref's address"


# -- paths ---------------------------------------------------------------------------------------------------

def test_paths_are_written_as_the_validator_writes_them() -> None:
    assert V.join("arguments", "a") == "arguments.a"
    assert V.join("arguments", "weird key") == 'arguments["weird key"]'
    assert V.parent('arguments["a]b"][2]') == 'arguments["a]b"]'
    assert V.parent("arguments.a.b") == "arguments.a"
    assert V.parent("arguments.a") == "arguments"
