"""A second yes/no compiler of the MCP schemas, as closures: the tests' independent oracle for the generated
code of :mod:`inspector.core.protocol.compiled` (which the product runs), beside jsonschema. Built to the same
rules, from different code, so a mistake in one shows as a disagreement."""

from __future__ import annotations

from typing import Any

from inspector.core.protocol.compiled import (
    _TYPES,
    ANNOTATIONS,
    DRAFT7,
    Check,
    Unsupported,
    _equal,
    _is_number,
    definition_schema,
)


def _always(value: Any) -> bool:
    return True


def _members(value: dict[str, Any], props: dict[str, Check], extra: Check, extra_free: bool) -> bool:
    """Each member of an object against its property's check, or ``additionalProperties``'."""
    get = props.get
    for name, item in value.items():
        sub = get(name)
        if sub is not None:
            if not sub(item):
                return False
        elif not extra_free and not extra(item):
            return False
    return True


def _never(value: Any) -> bool:
    return False


class Compiler:
    """Compiles definitions of one schema document; a definition is compiled once, references are late-bound
    (so recursive definitions work)."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.draft7 = document.get("$schema") == DRAFT7
        self._done: dict[str, Check] = {}

    def definition(self, pointer: str) -> Check:
        """The check of ``#/definitions/X`` or ``#/$defs/X``."""
        found = self._done.get(pointer)
        if found is None:
            target = definition_schema(self.document, pointer)
            cell: list[Check] = []
            self._done[pointer] = lambda v: cell[0](v)  # late-bound while compiling (recursion)
            cell.append(self.schema(target))
            found = cell[0]
            self._done[pointer] = found
        return found

    def schema(self, schema: Any) -> Check:
        if schema is True or schema == {}:
            return _always
        if schema is False:
            return _never
        if not isinstance(schema, dict):
            raise Unsupported(repr(schema))
        if "$ref" in schema and self.draft7:
            return self._ref(schema["$ref"])
        if schema.get("type") == "object" and "$ref" not in schema:
            return self._whole_object(schema)
        checks: list[Check] = []
        if "type" in schema:  # first: cheap, and it guards the others
            checks.append(self._keyword("type", schema["type"], schema))
        for key, want in schema.items():
            if key in ANNOTATIONS or key in ("properties", "additionalProperties", "type"):
                continue
            checks.append(self._keyword(key, want, schema))
        if "properties" in schema or "additionalProperties" in schema:
            checks.append(self._object(schema.get("properties", {}), schema.get("additionalProperties", True)))
        if not checks:
            return _always
        if len(checks) == 1:
            return checks[0]
        all_checks = tuple(checks)

        def every(value: Any) -> bool:
            for check in all_checks:
                if not check(value):
                    return False
            return True
        return every

    def _whole_object(self, schema: dict[str, Any]) -> Check:
        """``type: object`` with its ``required``, ``properties`` and ``additionalProperties`` in one closure
        (the shape of almost every MCP definition); other keywords after it."""
        required = tuple(schema.get("required", ()))
        props = {name: self.schema(sub) for name, sub in schema.get("properties", {}).items()}
        extra = self.schema(schema.get("additionalProperties", True))
        extra_free = extra is _always
        rest = [self._keyword(key, want, schema) for key, want in schema.items()
                if key not in ANNOTATIONS and key not in ("type", "required", "properties", "additionalProperties")]

        def check(value: Any) -> bool:
            if type(value) is not dict:
                return False
            for name in required:
                if name not in value:
                    return False
            if not _members(value, props, extra, extra_free):
                return False
            for other in rest:
                if not other(value):
                    return False
            return True
        return check

    def _ref(self, ref: Any) -> Check:
        if not isinstance(ref, str):
            raise Unsupported(repr(ref))
        return self.definition(ref)  # the final check, or a late-bound one while its target compiles

    def _keyword(self, key: str, want: Any, schema: dict[str, Any]) -> Check:
        if key == "$ref":
            return self._ref(want)
        if key == "type":
            names = want if isinstance(want, list) else [want]
            tests = [_TYPES[n] for n in names if n in _TYPES]
            if len(tests) != len(names):
                raise Unsupported(f"type {want!r}")
            return tests[0] if len(tests) == 1 else (lambda v: any(t(v) for t in tests))
        if key == "required":
            fields = tuple(want)
            return lambda v: type(v) is not dict or all(n in v for n in fields)
        if key == "items":
            if isinstance(want, list):
                raise Unsupported("items as an array")
            item = self.schema(want)
            return lambda v: type(v) is not list or all(item(x) for x in v)
        if key == "const":
            if type(want) is str:
                return lambda v: v == want and type(v) is str
            return lambda v: _equal(v, want)
        if key == "enum":
            choices = list(want)
            if all(type(c) is str for c in choices):
                strings = frozenset(choices)
                return lambda v: type(v) is str and v in strings
            return lambda v: any(_equal(v, c) for c in choices)
        if key in ("anyOf", "allOf"):
            subs = [self.schema(s) for s in want]
            if key == "anyOf":
                return lambda v: any(s(v) for s in subs)
            return lambda v: all(s(v) for s in subs)
        if key == "minimum":
            return lambda v: not _is_number(v) or v >= want
        if key == "maximum":
            return lambda v: not _is_number(v) or v <= want
        if key == "maxItems":
            return lambda v: type(v) is not list or len(v) <= want
        raise Unsupported(key)

    def _object(self, properties: dict[str, Any], additional: Any) -> Check:
        props = {name: self.schema(sub) for name, sub in properties.items()}
        extra = self.schema(additional)
        extra_free = extra is _always

        def check(value: Any) -> bool:
            return type(value) is not dict or _members(value, props, extra, extra_free)
        return check
