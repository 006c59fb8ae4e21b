"""Arguments from the command line: ``KEY=VALUE`` words typed by a tool's ``inputSchema``, checked before sending.

Contract (the one-shot ``call`` and ``prompt`` commands; issue 14):

- :func:`split_pair` splits ``KEY=VALUE`` at the first ``=``; a word without one, or with an empty key, is an
  :class:`ArgumentError` (a sentence).
- :func:`type_value` types one VALUE by the schema of its property: ``number``/``integer`` give a number when
  the text reads as one; ``boolean`` gives ``true``/``false``; ``string`` keeps the text as it is; ``null``
  gives null for ``null``; ``array``, ``object`` or no type at all give the JSON literal when the text parses
  as one, else the text. A union (``["integer", "null"]``, ``anyOf``) takes the first reading whose JSON type
  it allows, else the text when it allows strings, else the JSON literal. A value that does not fit stays as
  the text, so the schema check says what is wrong with it (``arguments.a must be a number, it is "x"``).
- :func:`tool_arguments` builds a call's arguments: the ``--args`` object first, each ``KEY=VALUE`` over it.
  A key with dots (``a.b=1``) that is no property of its own sets a nested field, typed by the nested schema.
- :func:`check_arguments` checks arguments against the schema with the shared validator
  (:func:`inspector.core.schemas.validate.violations`): the problems that stop the call, and notes on what could
  not be checked (a server's pattern too slow to decide, a schema that refers to itself without end), which do
  not; :func:`argument_problems` is the problems alone. :func:`prompt_arguments` builds a prompt's string
  arguments and checks the names and the required ones (prompt arguments are strings:
  https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#getting-a-prompt).
- :func:`closest` names the nearest of some known names, for "no tool X; did you mean ...".

Local ``$ref`` (``#/$defs/...``) is followed to type a value; nothing is ever fetched.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from inspector.core.schemas.refs import ref_target
from inspector.core.wire.json_types import json_type

#: how deep ``$ref``/``anyOf`` chains are followed to find a property's types (a cycle must end)
MAX_DEPTH = 16
#: the JSON Schema type names
JSON_TYPES = ("string", "number", "integer", "boolean", "null", "array", "object")


class ArgumentError(ValueError):
    """A ``KEY=VALUE`` word, an ``--args`` value or a set of arguments is unusable; ``str()`` is a sentence."""


def split_pair(word: str) -> tuple[str, str]:
    """``KEY=VALUE`` as ``(KEY, VALUE)``; raises ArgumentError for a word without ``=`` or with no key."""
    key, sep, value = word.partition("=")
    if not sep:
        raise ArgumentError(f"{word!r} is not KEY=VALUE: write it as NAME=VALUE, for example a=2 or "
                            f"message='hello world'")
    if not key:
        raise ArgumentError(f"{word!r} has no name before '='")
    return key, value


def parse_json_object(text: str, what: str = "--args") -> dict[str, Any]:
    """An ``--args`` (or params) text as a JSON object; raises ArgumentError with a sentence."""
    try:
        value = _loads(text)
    except ValueError as exc:
        raise ArgumentError(f"{what} is not JSON: {_json_reason(exc)}") from None
    if not isinstance(value, dict):
        raise ArgumentError(f"{what} must be a JSON object such as '{{\"a\": 2}}', it is {_kind(value)}")
    return value


def allowed_types(schema: Any, root: Any = None, depth: int = 0) -> set[str] | None:
    """The JSON types ``schema`` allows, as far as ``type``, ``const``, ``enum``, local ``$ref`` and
    ``anyOf``/``oneOf``/``allOf`` say; None when it does not say (any type)."""
    root = schema if root is None else root
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return None
    found: set[str] | None = None

    def narrow(types: set[str] | None) -> None:
        nonlocal found
        if types is not None:
            found = types if found is None else (found & types) or found

    declared = schema.get("type")
    if isinstance(declared, str):
        narrow({declared})
    elif isinstance(declared, list):
        narrow({t for t in declared if isinstance(t, str)})
    if "const" in schema:
        narrow({json_type(schema["const"], integers=True)})
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        narrow({json_type(v, integers=True) for v in schema["enum"]})
    ref = schema.get("$ref")
    if isinstance(ref, str):
        narrow(allowed_types(resolve_local(ref, root), root, depth + 1))
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            union: set[str] = set()
            for branch in branches:
                types = allowed_types(branch, root, depth + 1)
                if types is None:
                    union = set()
                    break
                union |= types
            if union:
                narrow(union)
    every = schema.get("allOf")
    for branch in every if isinstance(every, list) else []:
        narrow(allowed_types(branch, root, depth + 1))
    return found


def resolve_local(ref: str, root: Any) -> Any:
    """The part of ``root`` a local ``$ref`` (``#``, ``#/$defs/x``, an anchor) points at; None for anything
    else (never fetched)."""
    found, node = ref_target(root, ref)
    return node if found else None


def type_value(text: str, schema: Any, root: Any = None) -> Any:
    """``text`` typed by ``schema`` (see the module docstring); a value that fits no allowed type is the text."""
    types = allowed_types(schema, root)
    if types is None or not types & set(JSON_TYPES):
        return _literal_or_text(text)
    for reading in _readings(text, types):
        if _fits(reading, types):
            return reading
    if "string" in types:
        return text
    return _literal_or_text(text)


def _readings(text: str, types: set[str]) -> list[Any]:
    """The ways ``text`` can be read, most literal first: its JSON literal, then lenient numbers and booleans."""
    out: list[Any] = []
    try:
        out.append(_loads(text))
    except ValueError:
        pass
    stripped = text.strip()
    if types & {"number", "integer"}:
        for convert in (int, float):
            try:
                number = convert(stripped)
            except ValueError:
                continue
            if isinstance(number, float) and not math.isfinite(number):
                continue
            out.append(number)
            break
    if "boolean" in types and stripped.lower() in ("true", "false"):
        out.append(stripped.lower() == "true")
    return out


def _fits(value: Any, types: set[str]) -> bool:
    kind = json_type(value, integers=True)
    if kind == "integer":
        return bool(types & {"integer", "number"})
    if kind == "string":
        return False  # a JSON string literal ("\"x\"") is not how a string is typed: the text is
    return kind in types


def _literal_or_text(text: str) -> Any:
    try:
        return _loads(text)
    except ValueError:
        return text


def property_schema(schema: Any, path: list[str], root: Any = None) -> Any:
    """The schema of the field at ``path`` under an object ``schema`` (``properties``, else
    ``additionalProperties`` when it is a schema; local ``$ref`` followed); None when the schema does not say."""
    root = schema if root is None else root
    node = schema
    for name in path:
        node = _deref(node, root)
        if not isinstance(node, dict):
            return None
        props = node.get("properties")
        if isinstance(props, dict) and name in props:
            node = props[name]
            continue
        extra = node.get("additionalProperties")
        node = extra if isinstance(extra, dict) else None
    return _deref(node, root)


def _deref(node: Any, root: Any) -> Any:
    for _ in range(MAX_DEPTH):
        if isinstance(node, dict) and isinstance(node.get("$ref"), str) and len(node) == 1:
            node = resolve_local(node["$ref"], root)
        else:
            break
    return node


def _key_path(key: str, schema: Any) -> list[str]:
    """A key as a path: ``a.b`` is nested unless the schema has a property named ``a.b`` itself."""
    if "." not in key or "." in key[:1] + key[-1:]:
        return [key]
    props = schema.get("properties") if isinstance(schema, dict) else None
    if isinstance(props, dict) and key in props:
        return [key]
    return key.split(".")


def tool_arguments(schema: Any, words: Iterable[str], base: dict[str, Any] | None = None) -> dict[str, Any]:
    """A tool call's arguments: ``base`` (the ``--args`` object), then each ``KEY=VALUE`` of ``words`` over it,
    typed by ``schema`` (the tool's ``inputSchema``). Raises ArgumentError for an unusable word."""
    arguments: dict[str, Any] = json.loads(json.dumps(base)) if base else {}
    schema = schema if isinstance(schema, dict) else {}
    for word in words:
        key, text = split_pair(word)
        path = _key_path(key, schema)
        value = type_value(text, property_schema(schema, path), schema)
        node = arguments
        for i, name in enumerate(path[:-1]):
            child = node.get(name)
            if not isinstance(child, dict):
                if child is not None:
                    raise ArgumentError(f"{key}: {'.'.join(path[:i + 1])} is set to {_kind(child)} already, so it "
                                        "cannot have fields")
                child = node[name] = {}
            node = child
        node[path[-1]] = value
    return arguments


def check_arguments(schema: Any, arguments: dict[str, Any]) -> tuple[list[str], list[str]]:
    """``(problems, notes)``: a sentence for each way ``arguments`` break the tool's ``inputSchema`` (``[]``: they
    fit), and one for each part of the schema that could not be checked. A missing or unusable schema checks
    nothing (the server will say)."""
    from inspector.core.schemas.validate import UNCHECKED, schema_problem, violations

    if not isinstance(schema, dict):
        return [], []
    problem = schema_problem(schema)
    found = violations(schema, arguments, root="arguments")
    if problem is not None and not any(v.keyword == UNCHECKED for v in found):
        return [], []
    # one sentence may cover several violations ("missing the required fields "a", "b"" for two)
    return (list(dict.fromkeys(v.sentence for v in found if v.blocking)),
            list(dict.fromkeys(v.sentence for v in found if not v.blocking)))


def argument_problems(schema: Any, arguments: dict[str, Any]) -> list[str]:
    """The problems of :func:`check_arguments` alone."""
    return check_arguments(schema, arguments)[0]


def prompt_arguments(prompt: dict[str, Any], words: Iterable[str]) -> dict[str, str]:
    """A prompt's arguments (strings, as the spec has them) from ``KEY=VALUE`` words, checked against its
    declared ``arguments``: an unknown name (with the closest ones) or a missing required one is an
    ArgumentError. A prompt that declares no arguments list takes any names."""
    declared = prompt.get("arguments")
    specs = [a for a in declared if isinstance(a, dict) and isinstance(a.get("name"), str)] \
        if isinstance(declared, list) else None
    values: dict[str, str] = {}
    for word in words:
        key, text = split_pair(word)
        values[key] = text
    if specs is None:
        return values
    names = [a["name"] for a in specs]
    name = prompt.get("name", "?")
    for key in values:
        if key not in names:
            hint = f"; {did_you_mean(key, names)}" if names else "; it takes no arguments"
            raise ArgumentError(f"the prompt {name} has no argument {key}{hint}")
    missing = [a["name"] for a in specs if a.get("required") is True and a["name"] not in values]
    if missing:
        raise ArgumentError(f"the prompt {name} needs the argument{'s' if len(missing) > 1 else ''} "
                            + ", ".join(missing) + " (write " + " ".join(f"{m}=..." for m in missing) + ")")
    return values


def closest(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The known names nearest to ``name`` (difflib's ratio, a case-insensitive match first)."""
    import difflib

    names = list(dict.fromkeys(known))
    same_case = [k for k in names if k.lower() == name.lower() and k != name]
    near = difflib.get_close_matches(name, names, n=n, cutoff=0.5)
    return list(dict.fromkeys(same_case + near))[:n]


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``did you mean get-sum?`` for the closest names, else the names there are (a few)."""
    from inspector.core.protocol.names import shown_name  # names cut and escaped: a server's may be a megabyte

    names = list(known)
    near = closest(name, names)
    if near:
        return "did you mean " + " or ".join(map(shown_name, near)) + "?"
    if not names:
        return "there are none"
    shown = ", ".join(map(shown_name, sorted(names)[:12])) + (", ..." if len(names) > 12 else "")
    return f"there are {shown}"


def _loads(text: str) -> Any:
    """JSON without NaN and Infinity (not JSON, though Python's parser takes them); JSON nested too deep for
    Python's parser (about a thousand levels) is a ValueError that says so."""
    try:
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("it is nested too deep to read") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _json_reason(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at column {exc.colno}"
    return str(exc)


def _kind(value: Any) -> str:
    from inspector.core.schemas.validate import describe_value

    return describe_value(value)
