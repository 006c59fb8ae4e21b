"""Field values <-> the arguments object, and each violation on the field it is about.

A form's state is a tree of plain values shaped like its field tree (:mod:`inspector.core.forms.fields`):

====================  ===============================================================================
kind                  value
====================  ===============================================================================
string                ``str``
number, integer       ``str``: the text as typed (``"2"``, ``"1e3"``); text that is not a number is sent
                      as a string, so validation says so; a ``float``/``int`` is taken as it is
boolean               ``bool``
choice                ``int``: the index of the chosen option
multi                 ``list[int]``: the indexes of the chosen options, in the order sent
array                 ``list``: the values of the fixed positions (``prefixItems``), then of the rows
object                :class:`Obj`: the children's values by name, plus fields the form does not list
union                 :class:`Branch`: the chosen branch's index and its value
const                 ``True``: send it
null                  ``None``
json                  ``str``: the JSON text
====================  ===============================================================================

Any field may hold :data:`UNSET` (nothing is sent), and a nullable field :data:`NULL` (``null`` is sent).

Contract:

- :func:`arguments` omits what is unset: an empty optional field is never sent. An optional object is sent
  when one of its fields is, or when it came from the JSON view (``Obj.explicit``); a row of an array whose
  string was left empty is sent as ``""`` (a row the user added is meant to be there).
- :func:`from_arguments` is the way back (a JSON view edits the same arguments and the form follows):
  ``arguments(f, from_arguments(f, a)[0]) == a`` for every ``a`` the form can show; what it cannot show (a
  string where the schema says number, a value outside an enum) is listed as a sentence, never dropped
  silently.
- :func:`problems` validates with :func:`inspector.core.schemas.validate.violations` (``root="arguments"``)
  plus one sentence per JSON field whose text does not parse; :func:`assign` puts each on the field whose path
  is nearest (a missing required field on that field, not on its object).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from inspector.core.forms.fields import Field
from inspector.core.schemas.validate import Violation, describe_value, violations


class _Marker:
    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name


#: nothing is sent for this field
UNSET: Any = _Marker("UNSET")
#: ``null`` is sent for this (nullable) field
NULL: Any = _Marker("NULL")
#: the name the arguments object has in paths and sentences
ROOT = "arguments"

_INTEGER = re.compile(r"[+-]?\d+")


@dataclass
class Obj:
    """An object's value: its listed fields by name, fields it does not list (kept from the JSON view), and
    whether it is sent even when empty."""

    values: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    explicit: bool = False


@dataclass
class Branch:
    """A union's value: which branch is chosen, and that branch's value."""

    index: int
    value: Any


class _Omit:
    pass


_OMIT = _Omit()


# -- initial values ------------------------------------------------------------------------------------------

def initial(f: Field) -> Any:
    """The value a new form starts with: the schema's ``default`` where it gives one (and the form can show
    it), else empty; a required boolean starts false, a required ``const`` is sent."""
    if f.has_default:
        value, misfits = from_arguments(f, f.default)
        if not misfits:
            return value
    return empty(f)


def empty(f: Field) -> Any:
    if f.kind == "object":
        return Obj({c.name or "": initial(c) for c in f.children})
    if f.kind == "boolean" and f.required:
        return False
    if f.kind == "const" and f.required:
        return True
    if f.kind == "null" and f.required:
        return None
    if f.kind == "union" and f.required and f.branches:
        return Branch(0, initial(f.branches[0]))
    if f.kind == "array" and f.required:
        rows = [initial(p) for p in f.prefix]
        if f.item is not None:
            rows += [initial(f.item) for _ in range(max(0, (f.min_items or 0) - len(f.prefix)))]
        return rows
    if f.kind == "multi" and f.required:
        return []
    return UNSET


def new_row(f: Field) -> Any:
    """The value of a row just added to array ``f``."""
    return initial(f.item) if f.item is not None else UNSET


# -- values to arguments -------------------------------------------------------------------------------------

def arguments(root: Field, value: Any) -> dict[str, Any]:
    """The arguments object the form's ``value`` stands for (``{}`` when nothing is sent)."""
    out = _json(root, value, top=True)
    return out if isinstance(out, dict) else {}


def to_json(f: Field, value: Any) -> Any:
    """The JSON value of one field, or :data:`UNSET` when nothing is sent for it."""
    out = _json(f, value)
    return UNSET if out is _OMIT else out


def parse_number(text: str) -> int | float | None:
    """The number a field's text stands for, or None (empty text, or not a finite number)."""
    text = text.strip()
    if not text:
        return None
    if _INTEGER.fullmatch(text):
        return int(text)
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _json(f: Field, value: Any, top: bool = False, row: bool = False) -> Any:
    if value is UNSET:
        return "" if row and f.kind == "string" else _OMIT
    if value is NULL:
        return None
    kind = f.kind
    if kind == "string":
        return value if isinstance(value, str) else _OMIT
    if kind in ("number", "integer"):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        if not isinstance(value, str) or not value.strip():
            return _OMIT
        number = parse_number(value)
        return value if number is None else number
    if kind == "boolean":
        return value if isinstance(value, bool) else _OMIT
    if kind == "choice":
        return f.options[value].value if isinstance(value, int) and 0 <= value < len(f.options) else _OMIT
    if kind == "multi":
        if not isinstance(value, list):
            return _OMIT
        return [f.options[i].value for i in value if isinstance(i, int) and 0 <= i < len(f.options)]
    if kind == "array":
        return _array(f, value)
    if kind == "object":
        return _object(f, value, top)
    if kind == "union":
        if isinstance(value, Branch) and 0 <= value.index < len(f.branches):
            return _json(f.branches[value.index], value.value)
        return _OMIT
    if kind == "const":
        return f.const if value is True else _OMIT
    if kind == "null":
        return None
    if kind == "json":
        if not isinstance(value, str):
            return value
        parsed, problem = parse_json(value)
        return _OMIT if problem is not None or not value.strip() else parsed
    return _OMIT


def _array(f: Field, value: Any) -> Any:
    if not isinstance(value, list):
        return _OMIT
    out = []
    for index, item in enumerate(value):
        if index < len(f.prefix):
            sent = _json(f.prefix[index], item, row=True)
            if sent is _OMIT:
                break  # a later position cannot be sent without this one
        elif f.item is not None:
            sent = _json(f.item, item, row=True)
            if sent is _OMIT:
                continue
        else:
            break
        out.append(sent)
    return out


def _object(f: Field, value: Any, top: bool) -> Any:
    if not isinstance(value, Obj):
        return {} if top or f.required else _OMIT
    out: dict[str, Any] = {}
    for child in f.children:
        name = child.name or ""
        sent = _json(child, value.values.get(name, UNSET))
        if sent is not _OMIT:
            out[name] = sent
    for name, extra in value.extra.items():
        out.setdefault(name, extra)
    if out or top or f.required or value.explicit:
        return out
    return _OMIT


# -- arguments to values -------------------------------------------------------------------------------------

def from_arguments(f: Field, data: Any, path: str = ROOT) -> tuple[Any, list[str]]:
    """The form value that sends ``data``, and a sentence for each part of ``data`` the form cannot show
    (that part is left empty in the value)."""
    misfits: list[str] = []
    return _from(f, data, path, misfits), misfits


def _from(f: Field, data: Any, path: str, misfits: list[str]) -> Any:
    if data is None and f.nullable:
        return NULL
    kind = f.kind
    fits = True
    if kind == "string":
        fits = isinstance(data, str)
        result: Any = data
    elif kind in ("number", "integer"):
        fits = isinstance(data, (int, float)) and not isinstance(data, bool)
        result = json.dumps(data) if fits else UNSET
    elif kind == "boolean":
        fits = isinstance(data, bool)
        result = data
    elif kind == "choice":
        result = _index(f, data)
        fits = result is not None
    elif kind == "multi":
        indexes = [_index(f, v) for v in data] if isinstance(data, list) else [None]
        fits = None not in indexes
        result = indexes
    elif kind == "array":
        fits = isinstance(data, list) and (f.item is not None or len(data) <= len(f.prefix))
        if fits:
            result = [_from(f.prefix[i] if i < len(f.prefix) else f.item, v, f"{path}[{i}]", misfits)  # type: ignore[arg-type]  # f.item is set past the prefix (checked above)
                      for i, v in enumerate(data)]
    elif kind == "object":
        fits = isinstance(data, dict)
        if fits:
            names = {c.name for c in f.children}
            result = Obj({c.name or "": _from(c, data[c.name], join(path, c.name or ""), misfits)
                          if c.name in data else UNSET for c in f.children},
                         {k: v for k, v in data.items() if k not in names}, explicit=True)
    elif kind == "union":
        return _from_union(f, data, path, misfits)
    elif kind == "const":
        fits = _same(data, f.const)
        result = True
    elif kind == "null":
        fits = data is None
        result = None
    else:  # json
        result = json.dumps(data, ensure_ascii=False)
    if not fits:
        misfits.append(f"{path} is {describe_value(data)}, which the form's {_kind_name(f)} field cannot show")
        return UNSET
    return result


def _from_union(f: Field, data: Any, path: str, misfits: list[str]) -> Any:
    best: tuple[int, int, Any, list[str]] | None = None
    for index, branch in enumerate(f.branches):
        found: list[str] = []
        value = _from(branch, data, path, found)
        score = len(found) + _unlisted(branch, data)
        if best is None or score < best[0]:
            best = (score, index, value, found)
        if score == 0:
            break
    if best is None:
        misfits.append(f"{path} is {describe_value(data)}, which the form cannot show")
        return UNSET
    misfits.extend(best[3])
    return Branch(best[1], best[2])


def _unlisted(branch: Field, data: Any) -> int:
    """How many fields of ``data`` a branch does not list: the branch that names them all is the better fit."""
    if branch.kind != "object" or not isinstance(data, dict):
        return 0
    names = {c.name for c in branch.children}
    return sum(1 for k in data if k not in names)


def _index(f: Field, data: Any) -> int | None:
    return next((i for i, option in enumerate(f.options) if _same(option.value, data)), None)


def _same(a: Any, b: Any) -> bool:
    """JSON equality, where ``true`` is not ``1`` and ``1`` equals ``1.0``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _kind_name(f: Field) -> str:
    return {"choice": "choice", "multi": "multiple-choice", "const": "fixed-value"}.get(f.kind, f.kind)


# -- problems and where they go ------------------------------------------------------------------------------

def parse_json(text: str) -> tuple[Any, str | None]:
    """The JSON of ``text``, or a sentence naming the line and column (1-based) where it stops being JSON."""
    def reject(token: str) -> Any:
        raise ValueError(f"{token} is not JSON (write null or a number)")

    try:
        return json.loads(text, parse_constant=reject), None
    except json.JSONDecodeError as exc:
        return None, f"line {exc.lineno}, column {exc.colno}: {exc.msg}"
    except ValueError as exc:
        return None, str(exc)


def problems(root: Field, schema: Any, value: Any) -> list[Violation]:
    """Every problem of the form's ``value``: JSON fields that do not parse, then every violation of
    ``schema`` by the arguments it sends (paths start at ``arguments``)."""
    local = [Violation(path, "json", f"{path} is not JSON: {problem}")
             for path, f, v in walk(root, value) if f.kind == "json" and isinstance(v, str) and v.strip()
             for problem in [parse_json(v)[1]] if problem is not None]
    found = violations(schema, arguments(root, value), root=ROOT)
    for path, f, v in walk(root, value):
        if f.kind == "union" and isinstance(v, Branch) and 0 <= v.index < len(f.branches) \
                and any(_under(p.path, path) for p in found):
            found = _in_branch(found, path, f.branches[v.index], v.value, schema)
    return list(dict.fromkeys(local + found))  # draft-07 says each missing required field once, in one sentence


def _under(path: str, top: str) -> bool:
    return path == top or path.startswith((top + ".", top + "["))


def _in_branch(found: list[Violation], path: str, branch: Field, value: Any, schema: Any) -> list[Violation]:
    """A union's problems said for the branch the user chose (the validator alone would pick whichever branch
    came closest, which may not be the one on screen); unchanged when that branch alone has none."""
    if not isinstance(branch.schema, dict):
        return found
    sent = to_json(branch, value)
    if sent is UNSET:
        return found
    keep = {k: schema[k] for k in ("$schema", "$defs", "definitions", "$id")
            if isinstance(schema, dict) and k in schema}
    inner = violations({**keep, **branch.schema}, sent, root=path)
    if not inner:
        return found
    return [p for p in found if not _under(p.path, path)] + inner


def walk(root: Field, value: Any, path: str = ROOT) -> Iterator[tuple[str, Field, Any]]:
    """Every field the form shows for ``value``, with its path and value, parents first."""
    yield path, root, value
    if root.kind == "object":
        values = value.values if isinstance(value, Obj) else {}
        for child in root.children:
            yield from walk(child, values.get(child.name or "", UNSET), join(path, child.name or ""))
    elif root.kind == "array" and isinstance(value, list):
        for index, item in enumerate(value):
            f = root.prefix[index] if index < len(root.prefix) else root.item
            if f is not None:
                yield from walk(f, item, f"{path}[{index}]")
    elif root.kind == "union" and isinstance(value, Branch) and 0 <= value.index < len(root.branches):
        for inner in walk(root.branches[value.index], value.value, path):
            if inner[0] != path or inner[1] is not root.branches[value.index]:
                yield inner


def assign(found: list[Violation], root: Field, value: Any) -> dict[str, list[str]]:
    """Each problem's sentence under the path of the field it is about: the field at its path, else the
    nearest field above it; a missing required field under that field's own path."""
    known = {path for path, _f, _v in walk(root, value)}
    out: dict[str, list[str]] = {}
    for problem in found:
        if problem.keyword == "required":
            names = _required_names(problem.sentence)
            children = [join(problem.path, n) for n in names]
            if names and all(c in known for c in children):
                for child in children:
                    _add(out, child, f"{child} is required")
                continue
        path = problem.path
        while path not in known and path != ROOT:
            path = parent(path)
        _add(out, path if path in known else ROOT, problem.sentence)
    return out


def _add(out: dict[str, list[str]], path: str, sentence: str) -> None:
    sentences = out.setdefault(path, [])
    if sentence not in sentences:
        sentences.append(sentence)


_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _required_names(sentence: str) -> list[str]:
    _head, _sep, tail = sentence.partition("the required field")
    names = []
    for match in _QUOTED.finditer(tail):
        try:
            names.append(json.loads(f'"{match.group(1)}"'))
        except ValueError:
            continue
    return names


def join(path: str, name: str) -> str:
    """A property's path below ``path``, written as :mod:`inspector.core.schemas.validate` writes paths."""
    if name.isidentifier():
        return f"{path}.{name}"
    return f"{path}[{json.dumps(name, ensure_ascii=False)}]"


def parent(path: str) -> str:
    """The path one level up (``arguments.a[2]`` -> ``arguments.a``)."""
    if path.endswith("]"):
        depth = 0
        in_string = False
        for index in range(len(path) - 1, -1, -1):
            char = path[index]
            if char == '"' and (index == 0 or path[index - 1] != "\\"):
                in_string = not in_string
            elif not in_string and char == "]":
                depth += 1
            elif not in_string and char == "[":
                depth -= 1
                if depth == 0:
                    return path[:index]
        return ROOT
    cut = path.rfind(".")
    return path[:cut] if cut > 0 else ROOT


__all__ = ["UNSET", "NULL", "ROOT", "Obj", "Branch", "initial", "empty", "new_row", "arguments", "to_json",
           "parse_number", "from_arguments", "parse_json", "problems", "walk", "assign", "join", "parent"]
