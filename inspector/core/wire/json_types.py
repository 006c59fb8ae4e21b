"""The names of JSON types, for sentences about a decoded value: one place for the whole inspector.

A value decoded from JSON is one of ``dict``, ``list``, ``str``, ``bool``, ``int``, ``float`` or ``None``;
:func:`json_type` names it as JSON Schema does, :func:`json_type_phrase` as a sentence about a
configuration file does ("it is a list, not an object").
"""

from __future__ import annotations

from typing import Any

_PHRASES: dict[type, str] = {dict: "an object", list: "a list", str: "a string", bool: "true/false",
                             int: "a number", float: "a number", type(None): "null"}


def json_type(value: Any, *, integers: bool = False) -> str:
    """The JSON type of a decoded value: ``null``, ``boolean``, ``number``, ``string``, ``array`` or
    ``object`` (anything else). With ``integers``, a whole number (``3`` or ``3.0``) is ``integer``, as
    JSON Schema's ``type`` tells them apart."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer" if integers else "number"
    if isinstance(value, float):
        return "integer" if integers and value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def json_type_phrase(value: object) -> str:
    """The type of a decoded value with its article, for a sentence: ``an object``, ``a list``,
    ``a string``, ``true/false``, ``a number``, ``null``; a value JSON cannot hold (a date from TOML or
    YAML) by its Python type's name."""
    return _PHRASES.get(type(value), type(value).__name__)
