"""A yes/no JSON Schema check generated as Python code, for the few keywords the MCP schemas use.

Judging every message of a flood with :mod:`jsonschema` costs tens of microseconds a message; the MCP
schema files use only ``type``, ``properties``, ``required``, ``additionalProperties``, ``items``, ``const``,
``enum``, ``anyOf``, ``allOf``, ``minimum``, ``maximum``, ``maxItems`` and ``$ref`` into their own
definitions (plus annotations). :class:`CodeCompiler` turns each definition into a function that answers
"valid or not" in well under a microsecond; only a message it calls invalid is judged again by jsonschema, which
says why (:mod:`inspector.core.schemas.validate`). The two must agree: both ignore ``format`` (an annotation
in JSON Schema 2020-12, and optional in draft-07), and in draft-07 a ``$ref`` hides its sibling keywords, as
that draft says. A schema with any other keyword raises :class:`Unsupported`, and the caller uses
jsonschema alone (tests/core/protocol/test_message_schemas.py checks the agreement on every definition, and
against a second, closure-based compiler kept with the tests, tests/core/protocol/closure_check.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]

#: Keywords that say nothing about validity (``format`` included: see the module's notes).
ANNOTATIONS = frozenset({"description", "title", "default", "examples", "$comment", "$schema", "deprecated",
                         "readOnly", "writeOnly", "format", "contentMediaType", "contentEncoding"})
DRAFT7 = "http://json-schema.org/draft-07/schema#"


class Unsupported(Exception):
    """The schema uses a keyword this compiler does not know: use jsonschema instead."""


def _is_integer(value: Any) -> bool:
    t = type(value)
    return t is int or (t is float and value.is_integer())


def _is_number(value: Any) -> bool:
    t = type(value)
    return t is int or t is float


_TYPES: dict[str, Check] = {
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
    "string": lambda v: type(v) is str,
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
    "integer": _is_integer,
    "number": _is_number,
}


def _equal(a: Any, b: Any) -> bool:
    """JSON equality as jsonschema has it: ``true`` is not ``1``."""
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return bool(a == b)


#: Generated code inlines a subschema this many levels deep, then calls a function of its own (Python allows
#: 20 nested blocks in one function; each level may open two).
_INLINE_DEPTH = 6
#: A ``$ref`` met this few levels into a function is inlined there; deeper ones are calls.
_INLINE_REF_DEPTH = 3
#: A property absent from an object (``dict.get``'s default), never a JSON value.
_MISSING = object()
#: Bound as default arguments of every generated function: locals are the fastest names to load.
_LOCALS = "_M=_M, type=type, dict=dict, list=list, str=str, int=int, float=float"


def definition_schema(document: dict[str, Any], pointer: Any) -> Any:
    """The schema ``#/definitions/X`` or ``#/$defs/X`` points to in ``document``; Unsupported for any other
    pointer (the MCP schemas refer only to their own definitions)."""
    if not isinstance(pointer, str):
        raise Unsupported(repr(pointer))
    parts = pointer.removeprefix("#/").split("/")
    if len(parts) != 2 or parts[0] not in ("definitions", "$defs"):
        raise Unsupported(pointer)
    target = document.get(parts[0], {}).get(parts[1])
    if target is None:
        raise Unsupported(pointer)
    return target


class CodeCompiler:
    """The yes/no checks, generated as Python source and compiled (as fastjsonschema does):
    one function per definition, with properties, types, ``const`` and ``enum`` inlined as statements instead
    of a closure call each; about 4x faster on a typical notification. Properties are looked up by name
    (``dict.get``) rather than by walking the object, so a check costs what the schema declares, whatever the
    object carries. Strings and numbers from the schema are written into the source as ``repr`` literals
    (which are exactly those values); any other value is bound to a generated name in the code's namespace.
    The answer is the same as :class:`Compiler`'s for every value (tests/core/protocol/test_message_schemas.py
    checks both against jsonschema and each other on every definition and on mutations of valid instances)."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.draft7 = document.get("$schema") == DRAFT7
        self._namespace: dict[str, Any] = {"_M": _MISSING, "_equal": _equal, "_is_integer": _is_integer,
                                           "__builtins__": {"type": type, "dict": dict, "list": list,
                                                            "str": str, "int": int, "float": float,
                                                            "bool": bool, "len": len, "any": any,
                                                            "frozenset": frozenset}}
        self._functions: dict[str, str] = {}  # pointer -> function name (defined or being generated)
        self._pending: list[tuple[str, Any]] = []  # (function name, schema) still to generate
        self._source: list[str] = []
        self._count = 0
        self._inlining: set[str] = set()  # definitions being inlined on the current path
        #: id of a subschema of the document (which keeps it alive) -> its function's name
        self._subschemas: dict[int, str] = {}

    def definition(self, pointer: str) -> Check:
        """The check of ``#/definitions/X`` or ``#/$defs/X``."""
        name = self._functions.get(pointer)
        if name is None or name not in self._namespace:
            name = self._ref(pointer)
            self._flush()
        check: Check = self._namespace[name]
        return check

    # -- generation -----------------------------------------------------------------------------------

    def _fresh(self, prefix: str) -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    def _constant(self, value: Any) -> str:
        """An expression for ``value``: a literal for a string, a finite number, a boolean or null (``repr``
        of these is exactly the value, and a literal is the fastest load), else a name bound to it."""
        if value is None or type(value) in (str, int, bool) or (type(value) is float and math.isfinite(value)):
            return repr(value)
        if type(value) is frozenset and all(type(item) is str for item in value):
            # `x in {...}` of literals is compiled to one frozenset constant
            return "{" + ", ".join(repr(item) for item in sorted(value)) + "}" if value else "frozenset()"
        name = self._fresh("c")
        self._namespace[name] = value
        return name

    def _ref(self, pointer: Any) -> str:
        """The function name of a definition, generated with the next flush (recursion: the name exists
        before its body)."""
        name = self._functions.get(pointer) if isinstance(pointer, str) else None
        if name is not None:
            return name
        target = definition_schema(self.document, pointer)
        name = self._functions[pointer] = self._fresh("d")
        self._pending.append((name, target))
        return name

    def _function(self, schema: Any) -> str:
        """A function of its own for ``schema`` (anyOf branches, deep subschemas)."""
        name = self._subschemas.get(id(schema))  # one function per subschema of the document, however often met
        if name is None:
            name = self._subschemas[id(schema)] = self._fresh("f")
            self._pending.append((name, schema))
        return name

    def _flush(self) -> None:
        """Generate every pending function, then compile them together."""
        source: list[str] = []
        try:
            while self._pending:
                name, schema = self._pending.pop()
                body: list[str] = []
                self._emit(schema, "v", 1, body, 0)
                source.append(f"def {name}(v, {_LOCALS}):")
                source.extend(body)
                source.append("    return True")
        except Unsupported:
            for pointer in [p for p, n in self._functions.items() if n not in self._namespace]:
                del self._functions[pointer]
            for key in [k for k, n in self._subschemas.items() if n not in self._namespace]:
                del self._subschemas[key]
            self._pending.clear()
            raise
        exec(compile("\n".join(source), "<compiled schema>", "exec"), self._namespace)  # our own generated code

    def _emit(self, schema: Any, var: str, indent: int, out: list[str], depth: int) -> None:
        """Statements that ``return False`` unless the value in ``var`` is valid against ``schema``."""
        pad = "    " * indent
        if schema is True or schema == {}:
            return
        if schema is False:
            out.append(f"{pad}return False")
            return
        if not isinstance(schema, dict):
            raise Unsupported(repr(schema))
        if depth >= _INLINE_DEPTH and _significant(schema):
            out.append(f"{pad}if not {self._function(schema)}({var}): return False")
            return
        if "$ref" in schema and self.draft7:
            self._emit_ref(schema["$ref"], var, indent, out, depth)
            return
        if schema.get("type") == "object" and "$ref" not in schema:
            out.append(f"{pad}if type({var}) is not dict: return False")
            required = list(schema.get("required", ()))
            lines: list[str] = []
            read = self._properties(schema, var, indent, lines, depth, present=frozenset(required))
            rest = [name for name in required if name not in read]  # the others are read, and tested there
            if rest:
                test = " and ".join(f"{self._constant(name)} in {var}" for name in rest)
                out.append(f"{pad}if not ({test}): return False")
            out.extend(lines)
            for key, want in schema.items():
                if key not in ANNOTATIONS and key not in ("type", "required", "properties", "additionalProperties"):
                    self._keyword(key, want, var, indent, out, depth)
            return
        if "type" in schema and not _implied_type(schema):
            self._keyword("type", schema["type"], var, indent, out, depth)
        for key, want in schema.items():
            if key in ANNOTATIONS or key in ("properties", "additionalProperties", "type"):
                continue
            self._keyword(key, want, var, indent, out, depth)
        if "properties" in schema or "additionalProperties" in schema:
            inner: list[str] = []
            self._properties(schema, var, indent + 1, inner, depth)
            if inner:
                out.append(f"{pad}if type({var}) is dict:")
                out.extend(inner)

    def _emit_ref(self, pointer: Any, var: str, indent: int, out: list[str], depth: int) -> None:
        """A ``$ref``: its definition's statements inlined near the top of a function (a call costs more than
        the checks of a small definition), else a call of the definition's function. A definition already
        being inlined on this path is called, never inlined again (recursive definitions)."""
        name = self._ref(pointer)  # validates the pointer, and the function exists for any later call
        target = definition_schema(self.document, pointer)
        if (depth >= _INLINE_REF_DEPTH and not _leaf(target)) or pointer in self._inlining:
            out.append(f"{'    ' * indent}if not {name}({var}): return False")
            return
        self._inlining.add(pointer)
        try:
            self._emit(target, var, indent, out, depth + 1)
        finally:
            self._inlining.discard(pointer)

    def _properties(self, schema: dict[str, Any], var: str, indent: int, out: list[str], depth: int,
                    present: frozenset[str] = frozenset()) -> set[str]:
        """``properties`` and ``additionalProperties`` of a value known to be an object. A key in ``present``
        (its ``required``) that has something to check is read once, and its absence is answered there; returns
        those keys (the caller tests only the other required keys for presence)."""
        pad = "    " * indent
        properties = schema.get("properties", {})
        read: set[str] = set()
        for name, sub in properties.items():
            body: list[str] = []
            item = self._fresh("x")
            there = name in present
            self._emit(sub, item, indent if there else indent + 1, body, depth + 1)
            if body and there:
                read.add(name)
                constant = _string_const(sub, body)
                if constant is not None:  # one lookup and one comparison: a missing key is None, never equal
                    out.append(f"{pad}if {var}.get({self._constant(name)}) != {self._constant(constant)}: "
                               "return False")
                    continue
                out.append(f"{pad}{item} = {var}.get({self._constant(name)}, _M)")
                out.append(f"{pad}if {item} is _M: return False")
                out.extend(body)
            elif body:
                out.append(f"{pad}{item} = {var}.get({self._constant(name)}, _M)")
                out.append(f"{pad}if {item} is not _M:")
                out.extend(body)
        additional = schema.get("additionalProperties", True)
        if additional is True or additional == {}:
            return read
        known = self._constant(frozenset(properties))
        if additional is False:
            out.append(f"{pad}if not {var}.keys() <= {known}: return False")
            return read
        extra = self._fresh("k")
        item = self._fresh("x")
        body = []
        self._emit(additional, item, indent + 2, body, depth + 1)
        if body:
            out.append(f"{pad}for {extra}, {item} in {var}.items():")
            out.append(f"{pad}    if {extra} not in {known}:")
            out.extend(body)
        return read

    def _keyword(self, key: str, want: Any, var: str, indent: int, out: list[str], depth: int) -> None:
        pad = "    " * indent
        if key == "$ref":
            self._emit_ref(want, var, indent, out, depth)
        elif key == "type":
            names = want if isinstance(want, list) else [want]
            if any(n not in _TYPES for n in names):
                raise Unsupported(f"type {want!r}")
            tests = " or ".join(_type_test(n, var) for n in names)
            out.append(f"{pad}if not ({tests}): return False")
        elif key == "required":
            fields = list(want)
            if fields:
                test = " and ".join(f"{self._constant(n)} in {var}" for n in fields)
                out.append(f"{pad}if type({var}) is dict and not ({test}): return False")
        elif key == "items":
            if isinstance(want, list):
                raise Unsupported("items as an array")
            item = self._fresh("x")
            body: list[str] = []
            self._emit(want, item, indent + 2, body, depth + 1)
            if body:
                out.append(f"{pad}if type({var}) is list:")
                out.append(f"{pad}    for {item} in {var}:")
                out.extend(body)
        elif key == "const":
            if type(want) is str:  # no JSON value but that string equals it: no type test needed
                out.append(f"{pad}if {var} != {self._constant(want)}: return False")
            else:
                out.append(f"{pad}if not _equal({var}, {self._constant(want)}): return False")
        elif key == "enum":
            choices = list(want)
            if all(type(c) is str for c in choices):
                out.append(f"{pad}if type({var}) is not str or {var} not in {self._constant(frozenset(choices))}: "
                           "return False")
            else:
                out.append(f"{pad}if not any(_equal({var}, c) for c in {self._constant(tuple(choices))}): "
                           "return False")
        elif key == "anyOf":
            subs = [self._function(s) for s in want]
            test = " or ".join(f"{s}({var})" for s in subs) or "False"
            out.append(f"{pad}if not ({test}): return False")
        elif key == "allOf":
            for sub in want:
                self._emit(sub, var, indent, out, depth + 1)
        elif key in ("minimum", "maximum"):
            if not isinstance(want, (int, float)) or isinstance(want, bool):
                raise Unsupported(f"{key} {want!r}")
            op = ">=" if key == "minimum" else "<="
            out.append(f"{pad}if (type({var}) is int or type({var}) is float) and not ({var} {op} "
                       f"{self._constant(want)}): return False")
        elif key == "maxItems":
            out.append(f"{pad}if type({var}) is list and len({var}) > {self._constant(want)}: return False")
        else:
            raise Unsupported(key)


def _type_test(name: str, var: str) -> str:
    """A Python expression true when ``var`` has JSON type ``name`` (as :data:`_TYPES` says)."""
    return {
        "object": f"type({var}) is dict",
        "array": f"type({var}) is list",
        "string": f"type({var}) is str",
        "boolean": f"type({var}) is bool",
        "null": f"{var} is None",
        "integer": f"_is_integer({var})",
        "number": f"type({var}) is int or type({var}) is float",
    }[name]


def _implied_type(schema: dict[str, Any]) -> bool:
    """Whether ``type: string`` says nothing the schema's string ``const`` or all-string ``enum`` does not
    (both check the type themselves)."""
    if schema.get("type") != "string":
        return False
    if "const" in schema:
        return type(schema["const"]) is str
    return "enum" in schema and all(type(c) is str for c in schema["enum"])


def _string_const(schema: Any, body: list[str]) -> str | None:
    """The string a property's schema requires it to equal (``const``, or a one-string ``enum``), when that is
    all the schema checks (its generated ``body`` is that one test); else None."""
    if not isinstance(schema, dict) or len(body) != 1:
        return None
    if type(schema.get("const")) is str:
        return str(schema["const"])
    return None


def _leaf(schema: Any) -> bool:
    """A definition that checks only its value's own type, ``const`` or ``enum`` (a level name, a role): cheaper
    inlined wherever it is referenced than called."""
    return isinstance(schema, dict) and all(key in ANNOTATIONS or key in ("type", "const", "enum") for key in schema)


def _significant(schema: dict[str, Any]) -> bool:
    """Whether a subschema says anything about validity (annotations alone do not)."""
    return any(key not in ANNOTATIONS for key in schema)
