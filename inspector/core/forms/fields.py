"""A JSON Schema as a tree of form fields: what to ask for, in what order, with which limits and labels.

Contract:

- :func:`build` never raises and never fetches anything: every schema gives a usable tree. What the form cannot
  lay out (``patternProperties``, ``additionalProperties`` maps, ``if``/``then``/``else``, ``not``, a ``$ref``
  outside the schema, a reference to itself, anything that is not a schema) becomes a ``json`` field, edited
  as JSON text, with a ``note`` that says why. Validation (:func:`inspector.core.forms.values.problems`) always
  uses the whole schema, so nothing the form leaves out goes unchecked.
- ``$ref`` is resolved inside the schema only: JSON pointers (``#/$defs/X``, ``#/definitions/X``, any
  ``#/...``) and the schema's own ``$id`` followed by a pointer. A network ``$ref`` is never fetched (server
  content is untrusted): the field becomes raw JSON with a note naming the reference.
- Kinds: ``string`` (``format``, ``pattern``, ``minLength``/``maxLength``), ``number`` and ``integer``
  (bounds, exclusive bounds, ``multipleOf``), ``boolean``, ``null``, ``choice`` (``enum``, or ``oneOf``/
  ``anyOf`` whose branches are all ``const``: the titled enums of elicitation), ``multi`` (an array whose
  items are a choice: a multi-select), ``array`` (rows of one item field, after the fixed ``prefixItems`` of
  2020-12 or the array-valued ``items`` of draft-07), ``object`` (its ``properties`` in order), ``union``
  (``oneOf``/``anyOf``/a list of types, with a chooser; each branch titled from its title, const or type),
  ``const``, ``json``.
- ``type: [T, "null"]`` and ``anyOf``/``oneOf`` with a ``{"type": "null"}`` branch make the field ``nullable``.
- A budget keeps every form small whatever the schema (a 1.2 KB schema of ``$defs`` that refer to each other
  can stand for 65,536 fields): :func:`build` lays out at most :data:`MAX_FIELDS` fields, level by level (the
  deepest whole levels that fit), and each composite field (object, array, union) below them is ``expandable``:
  a ``json`` field whose ``note`` says the form stopped there; :func:`expand` lays it out on demand, within a
  budget of its own, and :func:`replace_field` puts the result in the tree. An object with more properties than
  the budget lists the first ones and says how many more there are (the others are written in the JSON view).
- Keywords the form does not use (``$defs``, ``unevaluatedProperties``, ``contains``, ``$comment``, vendor
  ``x-`` keywords) are kept in ``Field.schema`` and ignored, never an error.

JSON Schema usage in MCP: https://modelcontextprotocol.io/specification/2025-11-25/basic#json-schema-usage
(2020-12 by default, other dialects when ``$schema`` names them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from inspector.core.schemas.refs import ref_target

#: refs followed in one chain before the form gives up (a schema that refers to itself is cut much earlier)
MAX_REF_DEPTH = 32
#: nesting depth past which a field becomes raw JSON (a deeply recursive or hostile schema stays a small form)
MAX_DEPTH = 12
#: fields one form lays out at most, and one expansion of a part the budget cut: a form of this size builds its
#: widgets in well under a second; the 65,536 of a hostile schema took a minute and 4 GB
MAX_FIELDS = 300
#: the note of a composite field the budget left out (see :func:`expand`)
CUT_NOTE = "the form stops here to stay small: write this value as JSON, or lay it out as a form"
#: keywords whose rules the form cannot lay out: the field is edited as JSON instead
CONDITIONAL = ("if", "then", "else", "not", "dependentSchemas")
_UNION = ("oneOf", "anyOf")
_NUMBER_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_STRING_KEYS = ("minLength", "maxLength", "pattern", "format")
_OLD_TUPLES = ("draft-03", "draft-04", "draft-06", "draft-07", "draft/2019-09")


@dataclass(frozen=True)
class Option:
    """One choice of a ``choice`` or ``multi`` field: the JSON value sent and the label shown."""

    value: Any
    label: str


@dataclass(frozen=True)
class Field:
    """One field of a form. Which attributes mean something depends on ``kind`` (see the module docstring)."""

    kind: str
    schema: Any  #: the schema this field stands for, with its ``$ref``/``allOf`` resolved and merged
    name: str | None = None  #: the property name in the parent object; None for the root, rows and branches
    title: str = ""  #: the label: the schema's title, else the property name
    description: str = ""
    required: bool = False
    nullable: bool = False
    has_default: bool = False
    default: Any = None
    note: str = ""  #: why a field is raw JSON, or what the form does not lay out here
    # string
    format: str | None = None
    pattern: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    # number and integer
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: float | None = None
    exclusive_maximum: float | None = None
    multiple_of: float | None = None
    # choice and multi
    options: tuple[Option, ...] = ()
    # array and multi
    item: Field | None = None
    prefix: tuple[Field, ...] = ()
    min_items: int | None = None
    max_items: int | None = None
    unique: bool = False
    # object
    children: tuple[Field, ...] = ()
    extra_allowed: bool = True  #: whether the object takes fields it does not list (kept from the JSON view)
    # union
    branches: tuple[Field, ...] = ()
    # const
    const: Any = None
    # a part the budget cut (kind json): :func:`expand` lays it out from where the build stopped
    expandable: bool = False
    refs: tuple[str, ...] = field(default=(), compare=False, repr=False)  #: the refs followed to get here
    depth: int = field(default=0, compare=False, repr=False)  #: how deep in the form the field is

    @property
    def label(self) -> str:
        return self.title or self.name or ""

    def child(self, name: str) -> Field | None:
        return next((c for c in self.children if c.name == name), None)


def build(schema: Any, budget: int = MAX_FIELDS) -> Field:
    """The field tree of ``schema`` (the root of a tool's ``inputSchema``, an elicitation's ``requestedSchema``,
    or any schema), at most ``budget`` fields. Never raises."""
    return _layout(_Builder(schema), schema, None, True, (), 0, budget)


def expand(schema: Any, cut: Field, budget: int = MAX_FIELDS) -> Field:
    """The field ``cut`` (an ``expandable`` field of the tree of ``schema``) laid out as a form, at most ``budget``
    more fields; ``cut`` itself when it is not expandable."""
    if not cut.expandable:
        return cut
    built = _layout(_Builder(schema), cut.schema, cut.name, cut.required, cut.refs, cut.depth, budget)
    return _titled(built, cut.title)  # a branch's or a position's label, given after the build


def replace_field(root: Field, old: Field, new: Field) -> Field:
    """``root`` with the field ``old`` (that very object) replaced by ``new``; ``root`` itself when ``old`` is
    not in it."""
    if root is old:
        return new
    changes: dict[str, Any] = {}
    for name in ("children", "prefix", "branches"):
        parts: tuple[Field, ...] = getattr(root, name)
        swapped = tuple(replace_field(part, old, new) for part in parts)
        if any(a is not b for a, b in zip(parts, swapped, strict=True)):
            changes[name] = swapped
    if root.item is not None:
        item = replace_field(root.item, old, new)
        if item is not root.item:
            changes["item"] = item
    return replace(root, **changes) if changes else root


class _OverBudget(Exception):
    """A layout needed more fields than its budget."""


def _layout(builder: _Builder, schema: Any, name: str | None, required: bool, refs: tuple[str, ...], depth: int,
            budget: int) -> Field:
    """The deepest layout of ``schema`` whose whole levels fit in ``budget`` fields (iterative deepening: each
    try stops as soon as it is over budget, so the work is bounded by the budget times the depth); when not
    even the first level fits, that level with its objects' properties cut to the budget."""
    best: Field | None = None
    for limit in range(depth, MAX_DEPTH + 2):
        builder.start(limit, budget)
        try:
            built = builder.field(schema, name, required, refs, depth)
        except _OverBudget:
            break
        best = built
        if not builder.cut:  # the whole schema fits: no deeper try can show more
            break
    if best is None:
        builder.start(depth, budget, strict=False)
        best = builder.field(schema, name, required, refs, depth)
    return best


def _types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [t for t in kind if isinstance(t, str)]
    return []


def _number(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def value_label(value: Any) -> str:
    """How a JSON value reads as an option: strings as they are, everything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class _Builder:
    def __init__(self, root: Any) -> None:
        self.root = root
        dialect = root.get("$schema") if isinstance(root, dict) else None
        self.old_tuples = isinstance(dialect, str) and any(d in dialect for d in _OLD_TUPLES)
        self.start(MAX_DEPTH, MAX_FIELDS)

    def start(self, limit: int, budget: int, *, strict: bool = True) -> None:
        """A new try: composite fields deeper than ``limit`` are cut; over ``budget`` fields raises _OverBudget
        when ``strict``, else an object lists only the properties that fit."""
        self.limit = limit
        self.budget = budget
        self.strict = strict
        self.count = 0
        self.cut = False

    def counted(self) -> None:
        self.count += 1
        if self.strict and self.count > self.budget:
            raise _OverBudget

    def cut_here(self, schema: dict[str, Any], nullable: bool, refs: tuple[str, ...], depth: int,
                 common: dict[str, Any]) -> Field | None:
        """The placeholder of a composite field below the layout's depth limit, else None."""
        if depth <= self.limit:
            return None
        self.cut = True
        return Field("json", schema, nullable=nullable, note=CUT_NOTE, expandable=True, refs=refs, depth=depth,
                     **common)

    # -- resolution ------------------------------------------------------------------------------------

    def resolve(self, schema: Any, refs: tuple[str, ...]) -> tuple[Any, tuple[str, ...], str]:
        """``schema`` with its ``$ref`` chain and ``allOf`` merged in; the refs followed; a note when the
        schema cannot be laid out (a network ``$ref``, a cycle), else ``""``."""
        for _ in range(MAX_REF_DEPTH):
            if not isinstance(schema, dict) or not isinstance(schema.get("$ref"), str):
                break
            ref = schema["$ref"]
            if ref in refs:
                return schema, refs, f"this value refers to itself ({ref}): write it as JSON"
            found, target = ref_target(self.root, ref)
            if not found:
                if ref.startswith("#"):
                    return schema, refs, f"the schema refers to {ref}, which it does not contain: write this " \
                                         "value as JSON"
                return schema, refs, f"the schema refers to {ref}, which is never fetched: write this value " \
                                     "as JSON"
            refs = (*refs, ref)
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **rest} if isinstance(target, dict) else (target if not rest else rest)
        else:
            return schema, refs, "the schema's references go too deep to follow: write this value as JSON"
        if isinstance(schema, dict) and isinstance(schema.get("allOf"), list):
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                part, refs, note = self.resolve(part, refs)
                if note:
                    return schema, refs, note
                if part is False:
                    return schema, refs, "the schema allows no value here"
                if isinstance(part, dict):
                    merged = _merge(merged, part)
            return merged, refs, ""
        return schema, refs, ""

    # -- fields ----------------------------------------------------------------------------------------

    def field(self, schema: Any, name: str | None, required: bool, refs: tuple[str, ...], depth: int) -> Field:
        self.counted()
        schema, refs, note = self.resolve(schema, refs)
        common = self.common(schema, name, required)
        if note:
            return Field("json", schema, note=note, **common)
        if schema is True or schema == {}:
            return Field("json", schema, note="any JSON value", **common)
        if schema is False:
            return Field("json", schema, note="the schema allows no value here", **common)
        if not isinstance(schema, dict):
            return Field("json", schema, note="this part of the schema is not a schema: write the value as JSON",
                         **common)
        if depth > MAX_DEPTH:
            return Field("json", schema, note="nested too deep for the form: write this value as JSON", **common)
        conditional = [k for k in CONDITIONAL if k in schema]
        if conditional:
            return Field("json", schema, note=f"the schema's {', '.join(conditional)} rules are not laid out as a "
                                              "form: write this value as JSON", **common)
        types = _types(schema)
        nullable = "null" in types and len(types) > 1
        types = [t for t in types if t != "null"] if nullable else types

        for key in _UNION:
            branches = schema.get(key)
            if isinstance(branches, list) and branches:
                if len(branches) > 1 and (cut := self.cut_here(schema, nullable, refs, depth, common)):
                    return cut
                return self.union(schema, key, branches, name, required, nullable, refs, depth)
        if "const" in schema:
            return Field("const", schema, const=schema["const"], nullable=nullable, **common)
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self.choice(schema, schema["enum"], nullable, common)
        if len(types) > 1:
            if cut := self.cut_here(schema, nullable, refs, depth, common):
                return cut
            parts = [{**schema, "type": t} for t in types]
            fields = tuple(self.field(p, None, True, refs, depth + 1) for p in parts)
            fields = tuple(_titled(f, t) for f, t in zip(fields, types, strict=True))
            return Field("union", schema, branches=fields, nullable=nullable, **common)
        kind = types[0] if types else _infer(schema)
        if kind == "null" and not nullable:
            return Field("null", schema, **common)
        if kind in ("string", "number", "integer", "boolean"):
            return self.scalar(kind, schema, nullable, common)
        if kind in ("array", "object") and (cut := self.cut_here(schema, nullable, refs, depth, common)):
            return cut
        if kind == "array":
            return self.array(schema, nullable, refs, depth, common)
        if kind == "object":
            return self.object(schema, nullable, refs, depth, common)
        return Field("json", schema, nullable=nullable, note="any JSON value", **common)

    def common(self, schema: Any, name: str | None, required: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"name": name, "required": required}
        if isinstance(schema, dict):
            out["title"] = _text(schema.get("title")).strip() or (name or "")
            out["description"] = _text(schema.get("description")).strip()
            if "default" in schema:
                out["has_default"] = True
                out["default"] = schema["default"]
        else:
            out["title"] = name or ""
        return out

    def scalar(self, kind: str, schema: dict[str, Any], nullable: bool, common: dict[str, Any]) -> Field:
        if kind == "string":
            return Field("string", schema, nullable=nullable, format=_text(schema.get("format")) or None,
                         pattern=_text(schema.get("pattern")) or None, min_length=_count(schema.get("minLength")),
                         max_length=_count(schema.get("maxLength")), **common)
        if kind == "boolean":
            return Field("boolean", schema, nullable=nullable, **common)
        minimum, maximum = _number(schema.get("minimum")), _number(schema.get("maximum"))
        low, high = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
        exclusive_minimum = _number(low) if not isinstance(low, bool) else (minimum if low else None)
        exclusive_maximum = _number(high) if not isinstance(high, bool) else (maximum if high else None)
        if low is True:  # draft-04: the boolean turns minimum into an exclusive bound
            minimum = None
        if high is True:
            maximum = None
        multiple = _number(schema.get("multipleOf"))
        return Field(kind, schema, nullable=nullable, minimum=minimum, maximum=maximum,
                     exclusive_minimum=exclusive_minimum, exclusive_maximum=exclusive_maximum,
                     multiple_of=multiple if multiple and multiple > 0 else None, **common)

    def choice(self, schema: dict[str, Any], values: list[Any], nullable: bool, common: dict[str, Any]) -> Field:
        names = schema.get("enumNames")  # legacy titled enum (elicitation's LegacyTitledEnumSchema)
        labels = names if isinstance(names, list) and len(names) == len(values) \
            and all(isinstance(n, str) for n in names) else [value_label(v) for v in values]
        options = tuple(Option(v, label) for v, label in zip(values, labels, strict=True))
        if nullable and not any(v is None for v in values):
            options = (*options, Option(None, "null"))
        return Field("choice", schema, options=options, **common)

    def union(self, schema: dict[str, Any], key: str, branches: list[Any], name: str | None, required: bool,
              nullable: bool, refs: tuple[str, ...], depth: int) -> Field:
        common = self.common(schema, name, required)
        parent = {k: v for k, v in schema.items() if k != key and k not in ("title", "description", "default")}
        resolved: list[Any] = []
        for branch in branches:
            branch, _refs, note = self.resolve(branch, refs)
            if note:
                return Field("json", schema, note=note, **common)
            if isinstance(branch, dict) and _types(branch) == ["null"] and len(branch.keys() - {"title",
                                                                                                 "description"}) == 1:
                nullable = True
                continue
            resolved.append(branch)
        if resolved and all(isinstance(b, dict) and "const" in b for b in resolved):
            options = tuple(Option(b["const"], _text(b.get("title")) or value_label(b["const"])) for b in resolved)
            if nullable:
                options = (*options, Option(None, "null"))
            return Field("choice", schema, options=options, **common)
        if not resolved:
            return Field("null", schema, **common)
        if len(resolved) == 1:
            only = _merge(parent, resolved[0]) if isinstance(resolved[0], dict) else resolved[0]
            if isinstance(only, dict):
                only = {**only, **{k: schema[k] for k in ("title", "description", "default") if k in schema}}
                if nullable:
                    only = _with_null(only)
            return self.field(only, name, required, refs, depth)
        fields = []
        for number, branch in enumerate(resolved, 1):
            merged = _merge(parent, branch) if isinstance(branch, dict) else branch
            built = self.field(merged, None, True, refs, depth + 1)
            fields.append(_titled(built, _branch_label(branch, number)))
        return Field("union", schema, branches=tuple(fields), nullable=nullable, **common)

    def array(self, schema: dict[str, Any], nullable: bool, refs: tuple[str, ...], depth: int,
              common: dict[str, Any]) -> Field:
        items = schema.get("items")
        prefix_schemas: list[Any] = []
        rest: Any = True
        if isinstance(schema.get("prefixItems"), list):
            prefix_schemas = schema["prefixItems"]
            rest = items if items is not None else True
        elif isinstance(items, list):  # draft-07 tuple
            prefix_schemas = items
            rest = schema.get("additionalItems", True)
        elif items is not None:
            rest = items
        limits: dict[str, Any] = {"min_items": _count(schema.get("minItems")),
                                   "max_items": _count(schema.get("maxItems")),
                                   "unique": schema.get("uniqueItems") is True}
        if not prefix_schemas:
            item_schema, _refs, note = self.resolve(rest, refs)
            if not note:
                choice = self.field(item_schema, None, True, refs, depth + 1)
                if choice.kind == "choice" and not choice.nullable:
                    return Field("multi", schema, nullable=nullable, options=choice.options, item=choice,
                                 **limits, **common)
        prefix = tuple(_titled(self.field(s, None, True, refs, depth + 1), f"Item {i}")
                       for i, s in enumerate(prefix_schemas, 1))
        item = None if rest is False else self.field(rest, None, True, refs, depth + 1)
        return Field("array", schema, nullable=nullable, item=item, prefix=prefix, **limits, **common)

    def object(self, schema: dict[str, Any], nullable: bool, refs: tuple[str, ...], depth: int,
               common: dict[str, Any]) -> Field:
        props: dict[str, Any] = schema["properties"] if isinstance(schema.get("properties"), dict) else {}
        required = {r for r in schema.get("required", []) if isinstance(r, str)} \
            if isinstance(schema.get("required"), list) else set()
        additional = schema.get("additionalProperties", True)
        unevaluated = schema.get("unevaluatedProperties", True)
        is_map = "patternProperties" in schema or isinstance(additional, dict) and additional != {}
        if not props and (is_map or depth > 0):
            what = "a map of names to values" if is_map else "an object with any fields"
            return Field("json", schema, nullable=nullable, note=f"{what}: write it as JSON", **common)
        children: list[Field] = []
        for key, sub in props.items():
            if not self.strict and self.count >= self.budget:
                break
            children.append(self.field(sub, str(key), key in required, refs, depth + 1))
        extra_allowed = additional is not False and unevaluated is not False
        note = "other fields can be added in the JSON view" if is_map else ""
        if len(children) < len(props):
            left = len(props) - len(children)
            note = f"the form shows the first {len(children):,} of its {len(props):,} fields to stay small: write " \
                   f"the other {left:,} in the JSON view"
        return Field("object", schema, nullable=nullable, children=tuple(children), extra_allowed=extra_allowed,
                     note=note, **common)


def _infer(schema: dict[str, Any]) -> str:
    """The type a schema without ``type`` evidently means, from its keywords; ``""`` when it could be anything."""
    if any(k in schema for k in ("properties", "required", "additionalProperties", "patternProperties")):
        return "object"
    if any(k in schema for k in ("items", "prefixItems", "minItems", "maxItems")):
        return "array"
    if any(k in schema for k in _STRING_KEYS):
        return "string"
    if any(k in schema for k in _NUMBER_KEYS):
        return "number"
    return ""


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """Two schemas that must both hold, as one (for ``allOf`` and a union's branches under their parent):
    properties merged, required joined, other keywords from ``extra`` over ``base``."""
    out = dict(base)
    for key, value in extra.items():
        if key == "properties" and isinstance(value, dict) and isinstance(out.get("properties"), dict):
            out["properties"] = {**out["properties"], **value}
        elif key == "required" and isinstance(value, list) and isinstance(out.get("required"), list):
            out["required"] = list(dict.fromkeys([*out["required"], *value]))
        elif key == "type" and isinstance(out.get("type"), (str, list)) and isinstance(value, (str, list)):
            a = [out["type"]] if isinstance(out["type"], str) else out["type"]
            b = [value] if isinstance(value, str) else value
            both = [t for t in a if t in b] or [t for t in b if t == "integer" and "number" in a] or b
            out["type"] = both[0] if len(both) == 1 else both
        else:
            out[key] = value
    return out


def _with_null(schema: dict[str, Any]) -> dict[str, Any]:
    types = _types(schema)
    if "enum" in schema or "const" in schema or "oneOf" in schema or "anyOf" in schema:
        return {"anyOf": [schema, {"type": "null"}]} if not types else {**schema, "type": [*types, "null"]}
    return {**schema, "type": [*(types or [_infer(schema) or "object"]), "null"]}


def _branch_label(branch: Any, number: int) -> str:
    if not isinstance(branch, dict):
        return f"Option {number}"
    if _text(branch.get("title")).strip():
        return _text(branch["title"]).strip()
    if "const" in branch:
        return value_label(branch["const"])
    props: dict[str, Any] = branch["properties"] if isinstance(branch.get("properties"), dict) else {}
    for key, sub in props.items():
        if isinstance(sub, dict) and "const" in sub:
            return f"{key}: {value_label(sub['const'])}"
    types = _types(branch)
    if types:
        return " or ".join(types)
    required = branch.get("required")
    if isinstance(required, list) and required:
        return "with " + ", ".join(str(r) for r in required)
    return f"Option {number}"


def _titled(built: Field, label: str) -> Field:
    return built if built.title else replace(built, title=label)


__all__ = ["Field", "Option", "build", "expand", "replace_field", "ref_target", "value_label"]
