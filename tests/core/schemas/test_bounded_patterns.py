"""A server's patterns are matched within a time budget (inspector.core.schemas.patterns): every keyword that
matches one (pattern, patternProperties, additionalProperties, unevaluatedProperties) decides in bounded time,
says what it could not decide, and refuses nothing it could not check."""

from __future__ import annotations

import time

import pytest

from inspector.core.schemas import patterns
from inspector.core.schemas.validate import UNCHECKED, first_violation, violations

#: Python's re backtracks on this for ever (2^44 ways to split the string); the regex module sees through it
NESTED = "^(.+)+#$"
#: the regex module backtracks on this one too: only its timeout ends it
SLOW = "(a|aa)+$"
SLOW_TEXT = "a" * 60 + "b"
#: generous against a loaded machine; the match itself stops a few tenths of a second after the budget
BOUND = 3.0


def timed(schema, value):
    started = time.monotonic()
    found = violations(schema, value, root="arguments")
    return found, time.monotonic() - started


def test_a_nested_quantifier_is_decided_at_once_and_said_as_a_pattern_violation():
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": NESTED}}}
    found, seconds = timed(schema, {"s": "a" * 44})
    assert [(v.path, v.keyword) for v in found] == [("arguments.s", "pattern")]
    assert seconds < BOUND


def test_a_pattern_that_runs_out_of_time_is_a_note_and_the_value_is_not_refused():
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": SLOW}}}
    found, seconds = timed(schema, {"s": SLOW_TEXT})
    assert [(v.keyword, v.blocking) for v in found] == [(UNCHECKED, False)]
    assert found[0].sentence == (f'the server\'s pattern {SLOW} took too long to check against the string '
                                 f'"{"a" * 39}…"; not checked')
    assert first_violation(schema, {"s": SLOW_TEXT}) is None
    assert seconds < BOUND


def test_one_budget_is_shared_by_every_pattern_of_a_check():
    schema = {"type": "object", "properties": {f"s{i}": {"type": "string", "pattern": SLOW} for i in range(20)}}
    found, seconds = timed(schema, {f"s{i}": SLOW_TEXT for i in range(20)})
    assert {v.keyword for v in found} == {UNCHECKED} and len(found) == 1  # the same sentence, said once
    assert seconds < BOUND  # twenty patterns, not twenty budgets


@pytest.mark.parametrize("rest", ["additionalProperties", "unevaluatedProperties"])
def test_pattern_properties_decide_in_time_and_an_undecided_name_is_neither_refused_nor_checked(rest: str):
    # the decided names first: once the budget is spent, every later match is undecided too
    schema = {"type": "object", "patternProperties": {"^n_": {"type": "integer"}, SLOW: {"type": "integer"}},
              rest: False}
    found, seconds = timed(schema, {"n_1": "x", SLOW_TEXT: "not an integer"})
    assert seconds < BOUND
    # n_1 is decided and checked as before; the undecided name is neither checked (no type violation) nor
    # called a field the schema does not allow: a note says it was not checked
    assert (found[0].path, found[0].keyword) == ("arguments.n_1", "type")
    assert found[1:] and {(v.path, v.keyword) for v in found[1:]} == {("arguments", UNCHECKED)}


def test_a_field_a_pattern_property_covers_is_not_called_one_the_schema_does_not_allow():
    schema = {"type": "object", "properties": {"a": {}}, "patternProperties": {"^x": {}}, "additionalProperties": False}
    found = violations(schema, {"a": 1, "xy": 2, "z": 3}, root="arguments")
    assert [v.sentence for v in found] == ['arguments has a field the schema does not allow: "z"']


def test_a_pattern_the_regex_module_cannot_read_is_a_note():
    with patterns.Budget() as budget:
        assert patterns.search("(", "x") is None
    assert budget.notes == ['the server\'s pattern ( cannot be read (missing ) at position 1) against the string '
                            '"x"; not checked']


def test_ordinary_patterns_match_as_before():
    assert patterns.search("^[a-z]+$", "abc") is True
    assert patterns.search("^[a-z]+$", "ab1") is False
    assert patterns.search("b", "abc") is True  # not anchored: JSON Schema's pattern is a search
