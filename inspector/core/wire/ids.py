"""JSON-RPC ids as keys: the one rule for every table, set and comparison that finds a message by its id.

A request and its answer are matched by id, and everywhere the inspector does that (pairing, the judge, the
session's waiters and cancels, the HTTP transport's streams, check, replay, the timeline, the composer) it
goes through :func:`id_key`, so they all agree on what "the same id" means:

* the JSON type counts: ``2``, ``"2"`` and ``true`` are three ids
  (https://www.jsonrpc.org/specification#response_object: the response's id "MUST be the same as" the
  request's);
* any JSON value gives a key and never an error. MCP ids are strings or integers
  (https://modelcontextprotocol.io/specification/2025-11-25/basic#requests), and a server that sends an
  array or an object breaks the protocol: :func:`inspector.core.wire.jsonrpc.classify` flags it (``id-type``),
  the message is recorded like any other, and the session goes on. An array or an object is unhashable in
  Python, so using the raw id as a key would crash the task that read the message and lose it and the
  messages after it.
"""

from __future__ import annotations

import json
from typing import Any

from inspector.core.wire.json_types import json_type

#: A key made by :func:`id_key`: a type tag and a hashable value.
IdKey = tuple[str, Any]


def id_key(value: Any) -> IdKey:
    """A hashable key for a JSON-RPC id that keeps its JSON type apart (``2`` and ``"2"`` differ).

    Strings, numbers, booleans and null key by value; an array or an object (invalid ids) by its canonical
    JSON text, so the same invalid id still finds itself. Never raises."""
    kind = type(value)
    if kind is int:  # the common ids first, by exact type (a bool is an int subclass: not taken here)
        return ("n", value)
    if kind is str:
        return ("s", value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, bool) or value is None:
        return ("o", value)
    if isinstance(value, (int, float)):
        return ("n", value)
    try:
        return ("x", json.dumps(value, sort_keys=True, default=str))
    except (ValueError, TypeError, RecursionError):  # nested too deeply to write again from where we are
        return ("!", _ByIdentity(value))


def same_id(first: Any, second: Any) -> bool:
    """Whether two ids are the same id: same JSON type and value (``1`` is not ``"1"``, nor ``true``)."""
    return id_key(first) == id_key(second)


def describe_id(value: Any) -> str:
    """An id for a sentence, with its JSON type: ``"2" (a string)``, ``2 (a number)``, ``[1] (an array)``."""
    if isinstance(value, str):
        return f'"{value}" (a string)'
    kind = json_type(value)
    article = "an" if kind[0] in "aeiou" else "a"
    try:
        return f"{json.dumps(value, ensure_ascii=False)} ({article} {kind})"
    except (ValueError, TypeError, RecursionError):
        return f"{article} {kind} nested too deeply to show"


def id_text(value: Any) -> str:
    """An id as JSON writes it, for a table cell: ``7``, ``"7"`` (a string id shows its quotes: a server that
    answers ``"7"`` to ``7`` is a classic bug), ``null``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


class _ByIdentity:
    """The key of an id that cannot be written out: equal only to the key of that very value."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _ByIdentity) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)
