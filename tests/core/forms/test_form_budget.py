"""A form stays small whatever the schema (inspector.core.forms.fields): at most MAX_FIELDS fields, laid out
level by level; each composite part below is a JSON field that says the form stopped there and lays out on
demand, within a budget of its own; an object with too many properties lists the first ones and says so."""

from __future__ import annotations

import time
from typing import Any

from inspector.core.forms import values as V
from inspector.core.forms.fields import CUT_NOTE, MAX_FIELDS, Field, build, expand, replace_field


def dag(props: int, levels: int) -> dict[str, Any]:
    """$defs of ``levels`` levels of ``props`` properties that all refer to the next level: 1.2 KB for 4x8, which
    a naive expansion makes 4^8 = 65,536 fields (the hostile server's dagschema)."""
    defs = {}
    for i in range(levels):
        nxt = {"$ref": f"#/$defs/d{i + 1}"} if i + 1 < levels else {"type": "string"}
        defs[f"d{i}"] = {"type": "object", "properties": {f"p{j}": nxt for j in range(props)}}
    return {"type": "object", "$defs": defs, "properties": {"root": {"$ref": "#/$defs/d0"}}}


def fields(f: Field) -> list[Field]:
    out = [f]
    for part in (*f.children, *f.prefix, *f.branches, *([f.item] if f.item is not None else [])):
        out += fields(part)
    return out


def test_a_schema_of_nested_defs_is_laid_out_to_the_deepest_whole_level_that_fits_the_budget():
    schema = dag(4, 8)
    started = time.monotonic()
    root = build(schema)
    assert time.monotonic() - started < 1.0
    every = fields(root)
    assert len(every) <= MAX_FIELDS
    cut = [f for f in every if f.expandable]
    assert len(cut) == 64 and {f.kind for f in cut} == {"json"} and {f.note for f in cut} == {CUT_NOTE}
    # every cut is at the same depth: the levels above are whole
    assert {f.depth for f in cut} == {4}


def test_a_cut_part_lays_out_within_a_budget_of_its_own_and_the_arguments_keep_their_values():
    schema = dag(4, 8)
    root = build(schema)
    cut = next(f for f in fields(root) if f.expandable)
    args = {"root": {"p0": {"p0": {"p0": {"p0": {"p0": {"p1": {"p2": {"p3": "deep"}}}}}}}}}
    value, misfits = V.from_arguments(root, args)
    assert misfits == [] and V.arguments(root, value) == args  # a cut part holds its value as JSON text

    built = expand(schema, cut)
    assert built.kind == "object" and built.name == cut.name and not built.expandable
    assert len(fields(built)) <= MAX_FIELDS
    bigger = replace_field(root, cut, built)
    assert len(fields(bigger)) == len(fields(root)) - 1 + len(fields(built))
    value, misfits = V.from_arguments(bigger, args)
    assert misfits == [] and V.arguments(bigger, value) == args
    assert replace_field(root, cut, cut) is root


def test_a_small_schema_is_laid_out_whole():
    root = build(dag(2, 3))
    assert not any(f.expandable for f in fields(root))


def test_an_object_with_more_properties_than_the_budget_lists_the_first_and_says_how_many_more():
    schema = {"type": "object", "properties": {f"k{i}": {"type": "string"} for i in range(5000)}}
    root = build(schema)
    assert len(root.children) == MAX_FIELDS - 1
    assert root.note == (f"the form shows the first {MAX_FIELDS - 1} of its 5,000 fields to stay small: write the "
                         f"other {5000 - MAX_FIELDS + 1:,} in the JSON view")
    value, _misfits = V.from_arguments(root, {"k4999": "kept"})
    assert V.arguments(root, value) == {"k4999": "kept"}  # a field not listed is still sent, from the JSON view
