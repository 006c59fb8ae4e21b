"""Property: whatever a user fills into a generated form, within what its fields say (lengths, bounds, formats,
patterns, choices, row counts), sends arguments that validate against the schema, and those arguments come
back into the form unchanged."""

from __future__ import annotations

import datetime
import math
from typing import Any

import pytest
from form_schemas import DRAFT_07, DRAFT_2020, ELICITATION, EVERYTHING
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core.forms import build
from inspector.core.forms import values as V
from inspector.core.forms.fields import Field
from inspector.core.schemas.validate import violations

PATTERNED = {"type": "object", "properties": {
    "code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{2}$"},
    "name": {"type": "string", "minLength": 2, "maxLength": 5},
    "step": {"type": "number", "multipleOf": 0.5, "minimum": -10, "maximum": 10},
    "count": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 100},
    "rows": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"type": "object", "properties": {
        "id": {"type": "integer"}, "on": {"type": "boolean"}}, "required": ["id"]}},
    "when": {"type": "string", "format": "date-time"},
    "either": {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer", "maximum": 0}]}},
    "required": ["code", "rows"]}

SCHEMAS = {t["name"]: t["inputSchema"] for t in EVERYTHING} | {
    "elicitation": ELICITATION, "draft-07": DRAFT_07, "2020-12": DRAFT_2020, "patterned": PATTERNED}


def _number_text(f: Field) -> st.SearchStrategy[str]:
    low = f.exclusive_minimum if f.exclusive_minimum is not None else f.minimum
    high = f.exclusive_maximum if f.exclusive_maximum is not None else f.maximum
    if f.kind == "integer" or f.multiple_of is not None:
        step = f.multiple_of or 1
        lo = None if low is None else math.ceil(low / step) + (1 if f.exclusive_minimum is not None
                                                              and low % step == 0 else 0)
        hi = None if high is None else math.floor(high / step) - (1 if f.exclusive_maximum is not None
                                                                 and high % step == 0 else 0)
        whole = st.integers(min_value=lo, max_value=hi)
        return whole.map(lambda n: str(n * step) if isinstance(step, int) else repr(n * step))
    return st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False,
                     exclude_min=f.exclusive_minimum is not None, exclude_max=f.exclusive_maximum is not None
                     ).map(repr)


def _string(f: Field) -> st.SearchStrategy[str]:
    if f.format == "email":
        return st.from_regex(r"[a-z]{1,8}@[a-z]{1,8}\.com", fullmatch=True)
    if f.format == "date":
        return st.dates().map(datetime.date.isoformat)
    if f.format == "date-time":
        return st.datetimes(timezones=st.just(datetime.UTC)).map(lambda d: d.isoformat())
    if f.format == "uri":
        return st.from_regex(r"https://[a-z]{1,10}\.example/[a-z0-9]{0,10}", fullmatch=True)
    if f.pattern:
        return st.from_regex(f.pattern, fullmatch=True).filter(
            lambda s: len(s) >= (f.min_length or 0) and (f.max_length is None or len(s) <= f.max_length))
    return st.text(min_size=f.min_length or 0, max_size=f.max_length if f.max_length is not None else 12)


def fill(f: Field) -> st.SearchStrategy[Any]:
    """A value for ``f`` that a user could enter, within the field's constraints."""
    strategy = _fill(f)
    if f.nullable:
        strategy = st.one_of(st.just(V.NULL), strategy)
    return strategy


def _fill(f: Field) -> st.SearchStrategy[Any]:
    if f.kind == "string":
        return _string(f)
    if f.kind in ("number", "integer"):
        return _number_text(f)
    if f.kind == "boolean":
        return st.booleans()
    if f.kind == "choice":
        return st.integers(0, len(f.options) - 1)
    if f.kind == "multi":
        return st.lists(st.integers(0, len(f.options) - 1), unique=True, min_size=f.min_items or 0,
                        max_size=min(f.max_items if f.max_items is not None else len(f.options), len(f.options)))
    if f.kind == "array":
        prefix = st.tuples(*(fill(p) for p in f.prefix)).map(list)
        if f.item is None:
            return prefix
        low = max(0, (f.min_items or 0) - len(f.prefix))
        high = None if f.max_items is None else f.max_items - len(f.prefix)
        rows = st.lists(fill(f.item), min_size=low, max_size=high if high is not None else 3)
        return st.tuples(prefix, rows).map(lambda pr: pr[0] + pr[1])
    if f.kind == "object":
        parts = {c.name or "": fill(c) if c.required else st.one_of(st.just(V.UNSET), fill(c)) for c in f.children}
        return st.fixed_dictionaries(parts).map(lambda values: V.Obj(values))
    if f.kind == "union":
        return st.integers(0, len(f.branches) - 1).flatmap(
            lambda i: fill(f.branches[i]).map(lambda v: V.Branch(i, v)))
    if f.kind == "const":
        return st.just(True)
    if f.kind == "null":
        return st.just(None)
    if f.has_default:  # a json field: its default, or nothing when it may be left out
        return st.just(V.initial(f))
    assert not f.required, f"cannot fill the required JSON field {f.label}"
    return st.just(V.UNSET)


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_a_random_fill_of_the_form_validates_and_comes_back_unchanged(name: str) -> None:
    schema = SCHEMAS[name]
    root = build(schema)

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(fill(root))
    def check(value: Any) -> None:
        args = V.arguments(root, value)
        assert violations(schema, args, root="arguments") == [], args
        back, misfits = V.from_arguments(root, args)
        assert misfits == []
        assert V.arguments(root, back) == args

    check()


def test_the_property_can_fail_a_fill_outside_the_constraints() -> None:
    root = build(PATTERNED)
    value = V.Obj({"code": "abc", "rows": [V.Obj({"id": "1.5"})]})
    found = {v.path for v in violations(PATTERNED, V.arguments(root, value), root="arguments")}
    assert found == {"arguments.code", "arguments.rows[0].id"}
