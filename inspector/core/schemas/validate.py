"""Validate JSON against a JSON Schema and say each violation as a sentence with its JSON path.

Contract:

- :func:`violations` returns every violation (best first, at most ``limit``), each a :class:`Violation` with
  the path of the offending value (``arguments.items[2].name``), the keyword that failed (``type``) and a
  sentence (``arguments.items[2].name must be a string, it is the number 3``). An empty list means valid.
- :func:`schema_problem` says why a schema is not a usable JSON Schema, or returns None.
- The dialect is the schema's ``$schema`` when it names one we know, else JSON Schema 2020-12, the default the
  MCP spec sets for tool schemas since 2025-11-25 (https://modelcontextprotocol.io/specification/2025-11-25/
  basic#json-schema-usage); draft-07 schemas that name themselves keep draft-07 rules.
- ``$ref`` is resolved inside the schema only (``#/$defs/...``, ``#/definitions/...``, and the schema's own
  ``$id``). A reference to anything else is never fetched: it is reported as a violation with the keyword
  ``$ref`` ("... refers to https://..., which is never fetched"), because server content is untrusted.
- A server's ``pattern`` and ``patternProperties`` are matched by :mod:`inspector.core.schemas.patterns`, within a
  time budget shared by the whole check: a pattern that cannot be decided in time (or read) is a
  :data:`UNCHECKED` violation, a note that says so, never a hang. So is a schema that refers to itself without
  end (``{"$ref": "#"}``) or nests too deep to follow. Such a note does not make the value invalid:
  ``Violation.blocking`` is False, and :func:`first_violation` leaves notes out.
- Validators are compiled once per distinct schema (keyed by its canonical JSON) and kept in a bounded cache,
  so judging every message of a session against the same schema costs one compile.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import jsonschema
import referencing
import referencing.exceptions
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match, relevance
from jsonschema.protocols import Validator

from inspector.core.schemas import patterns

#: how many compiled validators to keep (a session's tools, the MCP schemas' definitions)
CACHE_SIZE = 512


@dataclass(frozen=True)
class Violation:
    """One way a value breaks its schema: where, which rule, and the sentence for a person."""

    path: str  #: the JSON path of the offending value, from the ``root`` name given (``arguments.a``)
    keyword: str  #: the JSON Schema keyword that failed (``type``, ``required``, ``$ref``, ...)
    sentence: str  #: one sentence, without a final full stop, e.g. ``arguments.a must be a number, it is "x"``

    @property
    def blocking(self) -> bool:
        """Whether the value breaks the schema (False for a note about a part that could not be checked)."""
        return self.keyword != UNCHECKED


#: the keyword of a note about a part of the schema that could not be checked (a slow pattern, a ``$ref`` loop)
UNCHECKED = "unchecked"
#: what is said when jsonschema ran out of stack on a schema
TOO_DEEP = "the schema refers to itself without end or nests too deep to check"


def _never_fetch(uri: str) -> referencing.Resource[Any]:
    raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]  # an attrs field mypy does not see


#: an empty registry whose retrieve refuses: a ``$ref`` outside the schema is never fetched
_NO_NETWORK: referencing.Registry[Any] = referencing.Registry(retrieve=_never_fetch)  # type: ignore[call-arg]  # an attrs field mypy does not see

_cache: OrderedDict[str, Validator] = OrderedDict()
#: what :func:`schema_problem` said of each schema :func:`violations` met (by canonical JSON), as bounded
_problems: dict[str, str | None] = {}
_NOT_LOOKED_AT = object()


def _key(schema: Any) -> str:
    return json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def validator_for(schema: Any) -> Validator:
    """A compiled validator for ``schema`` (cached). ``schema`` must be a dict or a bool."""
    key = _key(schema)
    found = _cache.get(key)
    if found is not None:
        _cache.move_to_end(key)
        return found
    cls = _bounded(jsonschema.validators.validator_for(schema, default=Draft202012Validator))
    validator: Validator = cls(schema, registry=_NO_NETWORK, format_checker=cls.FORMAT_CHECKER)
    _cache[key] = validator
    if len(_cache) > CACHE_SIZE:
        _cache.popitem(last=False)
    return validator


def _too_deep(root: str) -> str:
    return f"{TOO_DEEP}: {root or 'the value'} could not be checked against it"


_bounded_classes: dict[type[Validator], type[Validator]] = {}


def _bounded(cls: type[Validator]) -> type[Validator]:
    """``cls`` with the keywords that match a server's regular expressions bounded in time (:mod:`.patterns`)."""
    found = _bounded_classes.get(cls)
    if found is None:
        found = _bounded_classes[cls] = jsonschema.validators.extend(  # type: ignore[no-untyped-call]  # jsonschema's stub leaves extend untyped
            cls, patterns.keywords_for(cls.VALIDATORS))
    return found


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` is not a usable JSON Schema (one sentence), or None when it is."""
    if not isinstance(schema, (dict, bool)):
        return f"a JSON Schema is an object or a boolean, this is {describe_value(schema)}"
    cls = jsonschema.validators.validator_for(schema, default=Draft202012Validator)
    try:
        cls.check_schema(schema)  # type: ignore[arg-type]  # a boolean is a schema too; the stub says dict only
    except jsonschema.SchemaError as exc:
        where = _path(exc.absolute_path, "schema")
        return f"{where} breaks the JSON Schema rules: {_short(exc.message)}"
    except RecursionError:
        return f"{TOO_DEEP} against the JSON Schema rules"
    return None


def violations(schema: Any, instance: Any, *, root: str = "", limit: int = 20) -> list[Violation]:
    """Every way ``instance`` breaks ``schema``, best first (at most ``limit``); ``[]`` when it is valid.

    ``root`` names the value in sentences (``arguments``); paths below it are joined to it.
    A schema that is not a dict or bool, or that itself breaks the JSON Schema rules, gives one violation
    with the keyword ``schema`` rather than an exception.
    """
    if not isinstance(schema, (dict, bool)):
        return [Violation(root or "$", "schema", str(schema_problem(schema)))]
    try:
        key = _key(schema)
    except RecursionError:  # nested deeper than json.dumps goes
        return [Violation(root or "$", UNCHECKED, _too_deep(root))]
    problem = _problems.get(key, _NOT_LOOKED_AT)
    if problem is _NOT_LOOKED_AT:  # checking a schema against its metaschema costs as much as compiling it: once
        problem = _problems[key] = schema_problem(schema)
        if len(_problems) > CACHE_SIZE:
            del _problems[next(iter(_problems))]
    if problem is not None:
        too_deep = str(problem).startswith(TOO_DEEP)  # not a broken schema: one this check cannot follow
        return [Violation(root or "$", UNCHECKED if too_deep else "schema",
                          _too_deep(root) if too_deep else str(problem))]
    return violations_of(validator_for(schema), instance, root=root, limit=limit)


def definition_validator(document: dict[str, Any], name: str) -> Validator:
    """A validator for one definition of a whole schema document (``{"$ref": "#/definitions/NAME"}`` or
    ``#/$defs/NAME`` resolved inside ``document``), in the document's dialect, without format checks.

    Meant for trusted documents such as the MCP schema files shipped with the inspector: the document is
    not checked against its metaschema, and the caller caches the validator (compiling is the expensive
    part; the document is referred to, not copied).
    """
    key = "$defs" if "$defs" in document else "definitions"
    schema: dict[str, Any] = {"$ref": f"#/{key}/{name}", key: document[key]}
    if "$schema" in document:
        schema["$schema"] = document["$schema"]
    cls = jsonschema.validators.validator_for(schema, default=Draft202012Validator)
    validator: Validator = cls(schema, registry=_NO_NETWORK)
    return validator


def violations_of(validator: Validator, instance: Any, *, root: str = "", limit: int = 20) -> list[Violation]:
    """:func:`violations` with a validator already compiled (:func:`validator_for`, :func:`definition_validator`).

    A violation is said once: a schema that asks for the same thing twice (2026-07-28's ListToolsResult requires
    ``cacheScope`` in each of the two schemas it combines) gives jsonschema two errors with the same sentence."""
    out: list[Violation] = []
    with patterns.Budget() as budget:
        try:
            errors = sorted(validator.iter_errors(instance), key=relevance)
            for error in errors[:limit]:
                violation = _violation(_deepest(error), root)
                if violation not in out:
                    out.append(violation)
        except referencing.exceptions.Unresolvable as exc:
            ref = getattr(exc, "ref", str(exc))
            out.append(Violation(root or "$", "$ref",
                                 f"the schema refers to {ref}, which is not inside the schema and is never fetched"))
        except RecursionError:
            out.append(Violation(root or "$", UNCHECKED, _too_deep(root)))
    out += [Violation(root or "$", UNCHECKED, note) for note in budget.notes]
    return out


def first_violation(schema: Any, instance: Any, *, root: str = "") -> Violation | None:
    """The best single violation, or None when ``instance`` is valid (notes about what could not be checked are
    left out)."""
    return next((v for v in violations(schema, instance, root=root, limit=1) if v.blocking), None)


def _deepest(error: ValidationError) -> ValidationError:
    """For ``oneOf``/``anyOf`` failures, the most telling error from the branches (jsonschema's best_match)."""
    if error.context:
        return best_match([error]) or error
    return error


def _violation(error: ValidationError, root: str) -> Violation:
    path = _path(error.absolute_path, root)
    return Violation(path, str(error.validator), _sentence(error, path))


def _path(parts: Iterable[Any], root: str) -> str:
    text = root
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif isinstance(part, str) and part.isidentifier():
            text += f".{part}" if text else part
        else:
            text += f"[{json.dumps(part, ensure_ascii=False)}]"
    return text or "the value"


_TYPE_NAMES = {"string": "a string", "number": "a number", "integer": "an integer", "boolean": "a boolean",
               "object": "an object", "array": "an array", "null": "null"}


def describe_value(value: Any) -> str:
    """A short phrase for a JSON value: ``the string "x"``, ``the number 3``, ``an object``, ``null``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, (int, float)):
        return f"the number {json.dumps(value)}"
    if isinstance(value, str):
        return f"the string {_short(json.dumps(value, ensure_ascii=False), 60)}"
    if isinstance(value, list):
        return f"an array of {len(value)} item{'s' if len(value) != 1 else ''}"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _types(expected: Any) -> str:
    names = expected if isinstance(expected, list) else [expected]
    words = [_TYPE_NAMES.get(str(n), str(n)) for n in names]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _sentence(error: ValidationError, path: str) -> str:
    keyword = error.validator
    want: Any = error.validator_value
    value: Any = error.instance
    if keyword == "type":
        return f"{path} must be {_types(want)}, it is {describe_value(value)}"
    if keyword == "required":
        missing = [name for name in want if isinstance(value, dict) and name not in value]
        names = ", ".join(json.dumps(n) for n in missing) or json.dumps(want)
        return f"{path} is missing the required {'field' if len(missing) == 1 else 'fields'} {names}"
    if keyword == "enum":
        choices = ", ".join(_short(json.dumps(v, ensure_ascii=False), 30) for v in list(want)[:8])
        more = ", ..." if len(want) > 8 else ""
        return f"{path} must be one of {choices}{more}; it is {describe_value(value)}"
    if keyword == "const":
        return f"{path} must be {_short(json.dumps(want, ensure_ascii=False), 60)}, it is {describe_value(value)}"
    if keyword in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        rel = {"minimum": "at least", "exclusiveMinimum": "more than", "maximum": "at most",
               "exclusiveMaximum": "less than"}[keyword]
        return f"{path} must be {rel} {want}, it is {json.dumps(value)}"
    if keyword == "multipleOf":
        return f"{path} must be a multiple of {want}, it is {json.dumps(value)}"
    if keyword in ("minLength", "maxLength"):
        rel = "at least" if keyword == "minLength" else "at most"
        return f"{path} must be {rel} {want} character{'s' if want != 1 else ''} long, it has {len(value)}"
    if keyword in ("minItems", "maxItems"):
        rel = "at least" if keyword == "minItems" else "at most"
        return f"{path} must have {rel} {want} item{'s' if want != 1 else ''}, it has {len(value)}"
    if keyword in ("minProperties", "maxProperties"):
        rel = "at least" if keyword == "minProperties" else "at most"
        return f"{path} must have {rel} {want} field{'s' if want != 1 else ''}, it has {len(value)}"
    if keyword == "pattern":
        return f"{path} must match the pattern {want}, it is {describe_value(value)}"
    if keyword == "format":
        return f"{path} must be in the format {want}, it is {describe_value(value)}"
    if keyword in ("additionalProperties", "unevaluatedProperties"):
        extra = _extra_names(error)
        return f"{path} has {'a field' if len(extra) == 1 else 'fields'} the schema does not allow: " + \
            ", ".join(json.dumps(n, ensure_ascii=False) for n in extra)
    if keyword == "uniqueItems":
        return f"{path} must not repeat items"
    if keyword in ("oneOf", "anyOf"):
        count = len(want) if isinstance(want, list) else 0
        rule = "exactly one" if keyword == "oneOf" else "at least one"
        return f"{path} must match {rule} of the {count} allowed shapes, it matches " + \
            ("more than one" if keyword == "oneOf" and not error.context else "none")
    if keyword == "not":
        return f"{path} must not match the shape the schema excludes"
    if keyword == "false" or want is False:
        return f"{path} is not allowed here"
    return f"{path}: {_short(error.message)}"


def _extra_names(error: ValidationError) -> list[str]:
    value = error.instance if isinstance(error.instance, dict) else {}
    schema = error.schema if isinstance(error.schema, dict) else {}
    props = schema.get("properties", {}) if isinstance(schema.get("properties"), dict) else {}
    matched: dict[str, Any] = schema["patternProperties"] if isinstance(schema.get("patternProperties"), dict) \
        else {}
    return [name for name in value if name not in props
            and not any(isinstance(p, str) and patterns.search(p, name) is not False for p in matched)][:8] or ["?"]


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
