"""The one naming of JSON types that sentences across the inspector use."""

from __future__ import annotations

import datetime

import pytest

from inspector.core.wire.json_types import json_type, json_type_phrase


@pytest.mark.parametrize(("value", "name"), [
    (None, "null"), (True, "boolean"), (3, "number"), (3.5, "number"), ("x", "string"), ([], "array"),
    ({}, "object"),
])
def test_each_decoded_value_is_named_as_json_names_it(value: object, name: str) -> None:
    assert json_type(value) == name


def test_whole_numbers_are_integers_only_when_asked_as_json_schema_tells_them_apart() -> None:
    assert [json_type(v, integers=True) for v in (3, 3.0, 3.5, False)] == ["integer", "integer", "number", "boolean"]


def test_a_phrase_carries_its_article_and_names_what_json_cannot_hold_by_its_python_type() -> None:
    assert [json_type_phrase(v) for v in ({}, [], "s", True, 1, 1.5, None)] == [
        "an object", "a list", "a string", "true/false", "a number", "a number", "null"]
    assert json_type_phrase(datetime.date(2026, 1, 1)) == "date"
