"""A server's regular expressions, matched within a time budget: the one matcher every ``pattern`` and
``patternProperties`` of a server's schema goes through.

Patterns come from servers and are untrusted. Python's ``re`` backtracks without limit: ``^(.+)+#$`` against 44
characters never ends, holds the GIL (no other thread runs, Ctrl-C is not handled) and cannot be stopped. The
``regex`` module backtracks less often and takes a ``timeout``; here every match of one check shares one
budget (:data:`BUDGET`), so a schema with many patterns cannot add up to a freeze either.

Contract:

- :func:`search` is ``True``/``False`` as ``re.search`` would be, or ``None`` when the answer is unknown: the
  match ran out of the budget, the budget was spent by earlier matches, or ``regex`` cannot read the pattern.
  Each unknown is said once, as a sentence, to the :class:`Budget` in force (``the server's pattern ^(.+)+#$
  took too long to check against the string "aaa…"; not checked``).
- :class:`Budget` is a context manager: the matches inside it share its seconds and its ``notes``. Without one,
  each match gets :data:`BUDGET` of its own and unknowns are not said.
- The keyword functions (:data:`KEYWORDS`) replace jsonschema's ``pattern``, ``patternProperties``,
  ``additionalProperties`` and ``unevaluatedProperties``, the keywords whose jsonschema versions call
  ``re.search`` (jsonschema 4.x, ``_keywords`` and ``_utils``). An unknown match counts as a match (the
  value is not refused for a rule nobody could check), and the note says so.

JSON Schema's ``pattern`` is an ECMA-262 regular expression, not anchored
(https://json-schema.org/draft/2020-12/json-schema-validation#name-pattern); like jsonschema, this reads it
with Python's syntax (``regex`` in its ``re``-compatible version 0).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import regex
from jsonschema.exceptions import ValidationError

#: seconds all the pattern matches of one check may take together: long enough for any sane pattern on any
#: sane value (microseconds each), short enough that a keystroke in a form never freezes the window (``regex``
#: looks at the clock every so many steps, so a match stops up to a few tenths of a second after it)
BUDGET = 0.1
#: a value quoted in a note is cut to this many characters
QUOTE_CHARS = 40

_current: ContextVar[Budget | None] = ContextVar("pattern_budget", default=None)


class Budget:
    """The seconds and the notes the pattern matches inside ``with Budget():`` share (see the module)."""

    def __init__(self, seconds: float = BUDGET) -> None:
        self.seconds = seconds
        self.deadline = 0.0
        self.notes: list[str] = []
        self._token: Any = None

    def __enter__(self) -> Budget:
        self.deadline = time.monotonic() + self.seconds
        self._token = _current.set(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _current.reset(self._token)

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def note(self, sentence: str) -> None:
        if sentence not in self.notes:
            self.notes.append(sentence)


def search(pattern: str, text: str) -> bool | None:
    """Whether ``pattern`` matches somewhere in ``text``; None when that could not be decided in time or the
    pattern cannot be read (said to the budget in force)."""
    budget = _current.get()
    left = budget.left() if budget is not None else BUDGET
    problem = "took too long to check"
    if left > 0:
        try:
            return _compiled(pattern).search(text, timeout=left) is not None
        except TimeoutError:
            pass
        except (regex.error, OverflowError, RecursionError, MemoryError) as exc:
            problem = f"cannot be read ({exc})"
    if budget is not None:
        budget.note(f"the server's pattern {_quote(pattern)} {problem} against {_quote_value(text)}; not checked")
    return None


@functools.lru_cache(maxsize=512)
def _compiled(pattern: str) -> Any:
    """``pattern`` compiled once: ``regex.search(pattern, ...)`` looks it up in regex's own cache on every call,
    which costs five times the search of a short text (an intercept rule's ``match`` runs on every message)."""
    return regex.compile(pattern)


def _quote(pattern: str) -> str:
    return pattern if len(pattern) <= 2 * QUOTE_CHARS else pattern[: 2 * QUOTE_CHARS - 1] + "…"


def _quote_value(text: str) -> str:
    import json

    shown = text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 1] + "…"
    return f"the string {json.dumps(shown, ensure_ascii=False)}"


def _matches(pattern: Any, text: Any, unknown: bool) -> bool:
    """jsonschema's truth for one match, ``unknown`` when it cannot be decided: chosen by each keyword so that
    nothing is refused for a rule nobody could check."""
    if not isinstance(pattern, str) or not isinstance(text, str):
        return False
    found = search(pattern, text)
    return unknown if found is None else found


# -- jsonschema keywords, as jsonschema 4.x writes them, with re.search replaced by the bounded search ---------

def pattern(validator: Any, patrn: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _matches(patrn, instance, unknown=True):
        yield ValidationError(f"{instance!r} does not match {patrn!r}")


def pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object") or not isinstance(patterns, dict):
        return
    for each, subschema in patterns.items():
        for key, value in instance.items():
            if _matches(each, key, unknown=False):  # an unknown match: its subschema is not applied
                yield from validator.descend(value, subschema, path=key, schema_path=each)


def _additional(instance: dict[str, Any], schema: dict[str, Any]) -> Iterator[str]:
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    for key in instance:
        if key in properties:
            continue
        if isinstance(patterns, dict) and any(_matches(each, key, unknown=True) for each in patterns):
            continue
        yield key


def additional_properties(validator: Any, ap: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    extras = set(_additional(instance, schema))
    if validator.is_type(ap, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], ap, path=extra)
    elif not ap and extras:
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(each) for each in sorted(extras))
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield ValidationError(f"{joined} {verb} not match any of the regexes: {patterns}")
        else:
            error = "Additional properties are not allowed (%s %s unexpected)"
            yield ValidationError(error % extras_msg(sorted(extras, key=str)))


def extras_msg(extras: list[str]) -> tuple[str, str]:
    """jsonschema's wording of extra properties: the names, and "was" or "were"."""
    return ", ".join(repr(extra) for extra in extras), "was" if len(extras) == 1 else "were"


def _valid(errors: Iterator[ValidationError]) -> bool:
    return next(errors, None) is None


def _evaluated_keys(validator: Any, instance: dict[str, Any], schema: Any) -> list[str]:
    """jsonschema's ``find_evaluated_property_keys_by_schema`` (2020-12) with the bounded search."""
    if validator.is_type(schema, "boolean") or not isinstance(schema, dict):
        return []
    keys: list[str] = []
    for ref_keyword in ("$ref", "$dynamicRef"):
        ref = schema.get(ref_keyword)
        if ref is not None:
            resolved = validator._resolver.lookup(ref)  # as jsonschema's own function does: no public way
            keys += _evaluated_keys(validator.evolve(schema=resolved.contents, _resolver=resolved.resolver),
                                    instance, resolved.contents)
    properties = schema.get("properties")
    if isinstance(properties, dict):
        keys += properties.keys() & instance.keys()
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        if (subschema := schema.get(keyword)) is not None:
            keys += (key for key, value in instance.items() if _valid(validator.descend(value, subschema)))
    patterns = schema.get("patternProperties")
    if isinstance(patterns, dict):
        keys += (key for key in instance if any(_matches(each, key, unknown=True) for each in patterns))
    dependent = schema.get("dependentSchemas")
    if isinstance(dependent, dict):
        for key, subschema in dependent.items():
            if key in instance:
                keys += _evaluated_keys(validator, instance, subschema)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if _valid(validator.descend(instance, subschema)):
                keys += _evaluated_keys(validator, instance, subschema)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            keys += _evaluated_keys(validator, instance, schema["if"])
            if "then" in schema:
                keys += _evaluated_keys(validator, instance, schema["then"])
        elif "else" in schema:
            keys += _evaluated_keys(validator, instance, schema["else"])
    return keys


def unevaluated_properties(validator: Any, uP: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    evaluated = _evaluated_keys(validator, instance, schema)
    unevaluated = [key for key in instance if key not in evaluated
                   for _ in validator.descend(instance[key], uP, path=key, schema_path=key)]
    if unevaluated:
        if uP is False:
            error = "Unevaluated properties are not allowed (%s %s unexpected)"
            yield ValidationError(error % extras_msg(sorted(unevaluated, key=str)))
        else:
            error = "Unevaluated properties are not valid under the given schema (%s %s unevaluated and invalid)"
            yield ValidationError(error % extras_msg(unevaluated))


#: the keywords every dialect's validator takes from here (2020-12's ``unevaluatedProperties`` is added for
#: the dialects that have that version of it: see :func:`keywords_for`)
KEYWORDS = {"pattern": pattern, "patternProperties": pattern_properties,
            "additionalProperties": additional_properties}


def keywords_for(validators: dict[str, Any]) -> dict[str, Any]:
    """The bounded keywords for a validator class whose keywords are ``validators`` (its ``VALIDATORS``):
    only those it has, and ``unevaluatedProperties`` in 2020-12 (the dialect of ``$dynamicRef``; 2019-09's
    version of the keyword follows ``$recursiveRef`` and is left as jsonschema has it)."""
    out = {k: v for k, v in KEYWORDS.items() if k in validators}
    if "unevaluatedProperties" in validators and "$dynamicRef" in validators:
        out["unevaluatedProperties"] = unevaluated_properties
    return out


__all__ = ["BUDGET", "Budget", "search", "keywords_for"]
