"""KEY=VALUE typing by a tool's inputSchema (inspector/core/explore/arguments.py): unit cases and a property."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.core.explore.arguments import (
    ArgumentError,
    argument_problems,
    closest,
    did_you_mean,
    parse_json_object,
    prompt_arguments,
    split_pair,
    tool_arguments,
    type_value,
)
from inspector.core.schemas.validate import violations

SCHEMA = {
    "type": "object",
    "properties": {
        "a": {"type": "number"}, "n": {"type": "integer"}, "on": {"type": "boolean"}, "s": {"type": "string"},
        "list": {"type": "array", "items": {"type": "integer"}}, "obj": {"type": "object"},
        "maybe": {"type": ["integer", "null"]}, "ref": {"$ref": "#/$defs/count"},
        "choice": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
        "nested": {"type": "object", "properties": {"depth": {"type": "integer"}}},
        "dotted.name": {"type": "integer"},
    },
    "required": ["a"],
    "$defs": {"count": {"type": "integer", "minimum": 0}},
}


def test_numbers_booleans_and_strings_are_typed_by_the_schema():
    args = tool_arguments(SCHEMA, ["a=2", "n=3", "on=true", "s=5", "maybe=null", "ref=4", "choice=false"])
    assert args == {"a": 2, "n": 3, "on": True, "s": "5", "maybe": None, "ref": 4, "choice": False}


def test_a_string_keeps_its_text_exactly_even_when_it_looks_like_json():
    assert tool_arguments(SCHEMA, ['s={"x": 1}', "s2=  spaced "])["s"] == '{"x": 1}'
    assert type_value("  spaced ", {"type": "string"}) == "  spaced "


def test_arrays_objects_and_untyped_values_are_json_literals_when_they_parse_else_text():
    args = tool_arguments(SCHEMA, ["list=[1,2]", 'obj={"k": "v"}', "free=hello", "free2=7"])
    assert args["list"] == [1, 2] and args["obj"] == {"k": "v"}
    assert args["free"] == "hello" and args["free2"] == 7


def test_a_value_that_fits_no_type_stays_text_so_the_check_names_it():
    args = tool_arguments(SCHEMA, ["a=x", "n=2.5"])
    assert args == {"a": "x", "n": 2.5}
    assert argument_problems(SCHEMA, args) == ['arguments.a must be a number, it is the string "x"',
                                               "arguments.n must be an integer, it is the number 2.5"]


def test_nan_and_infinity_are_never_numbers():
    assert type_value("NaN", {"type": "number"}) == "NaN"
    assert type_value("Infinity", {"type": "number"}) == "Infinity"


def test_lenient_numbers_and_booleans_are_read():
    assert type_value("+2", {"type": "integer"}) == 2
    assert type_value(".5", {"type": "number"}) == 0.5
    assert type_value("True", {"type": "boolean"}) is True


def test_args_json_goes_under_the_words_and_dots_set_nested_fields():
    args = tool_arguments(SCHEMA, ["nested.depth=3", "a=1", "dotted.name=4"], {"a": 9, "nested": {"keep": 1}})
    assert args == {"a": 1, "nested": {"keep": 1, "depth": 3}, "dotted.name": 4}


def test_a_dotted_key_under_a_value_that_is_no_object_is_a_sentence():
    with pytest.raises(ArgumentError, match="a is set to the number 1 already"):
        tool_arguments(SCHEMA, ["a=1", "a.b=2"])


def test_missing_required_fields_are_said_once():
    assert argument_problems(SCHEMA, {}) == ['arguments is missing the required field "a"']


def test_a_word_without_equals_and_bad_args_json_are_sentences():
    with pytest.raises(ArgumentError, match="is not KEY=VALUE"):
        split_pair("a")
    with pytest.raises(ArgumentError, match="no name before"):
        split_pair("=2")
    with pytest.raises(ArgumentError, match="--args is not JSON"):
        parse_json_object("{bad")
    with pytest.raises(ArgumentError, match="must be a JSON object"):
        parse_json_object("[1]")


def test_close_names_are_suggested():
    assert closest("get_sum", ["get-sum", "echo", "get-env"])[0] == "get-sum"
    assert did_you_mean("ECHO", ["echo"]) == "did you mean echo?"
    assert did_you_mean("zzz", ["b", "a"]) == "there are a, b"


def test_prompt_arguments_are_strings_with_required_ones_checked():
    prompt = {"name": "greet", "arguments": [{"name": "name", "required": True}, {"name": "tone"}]}
    assert prompt_arguments(prompt, ["name=7"]) == {"name": "7"}
    with pytest.raises(ArgumentError, match="needs the argument name"):
        prompt_arguments(prompt, ["tone=warm"])
    with pytest.raises(ArgumentError, match="has no argument nmae; did you mean name"):
        prompt_arguments(prompt, ["nmae=x"])


def test_a_network_ref_is_never_followed_to_type_a_value():
    schema = {"type": "object", "properties": {"x": {"$ref": "https://example.invalid/schema.json"}}}
    assert tool_arguments(schema, ["x=2"]) == {"x": 2}  # typed as untyped: a JSON literal


# -- property: a value typed by a one-primitive-type schema validates against it ---------------------------

PRIMITIVES = {
    "string": st.text(),
    "integer": st.integers(min_value=-(10**15), max_value=10**15),
    "number": st.floats(allow_nan=False, allow_infinity=False, width=64),
    "boolean": st.booleans(),
    "null": st.none(),
}


@st.composite
def typed_text(draw: st.DrawFn) -> tuple[str, str]:
    """A primitive type and the text a user types for a value of it (JSON's spelling, or a string as is)."""
    kind = draw(st.sampled_from(sorted(PRIMITIVES)))
    value = draw(PRIMITIVES[kind])
    return kind, value if kind == "string" else json.dumps(value)


@given(typed_text())
def test_a_value_typed_by_a_primitive_schema_validates_against_it(case: tuple[str, str]):
    kind, text = case
    schema = {"type": "object", "properties": {"v": {"type": kind}}}
    args = tool_arguments(schema, [f"v={text}"])
    assert violations(schema, args) == []
    if kind == "string":
        assert args["v"] == text
