"""Schemas the form tests share: server-everything's tools (tests/data/everything-tools.json, recorded by
scripts/refresh_everything_tools.py), its elicitation's requestedSchema (copied from the same release's
dist/tools/trigger-elicitation-request.js), and a draft-07 and a 2020-12 tool schema written for these tests."""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data"
EVERYTHING = json.loads((DATA / "everything-tools.json").read_text(encoding="utf-8"))["tools"]
ELICITATION = json.loads((DATA / "everything-elicitation-schema.json").read_text(encoding="utf-8"))

DRAFT_07 = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "definitions": {"point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                              "required": ["x", "y"]}},
    "properties": {
        "origin": {"$ref": "#/definitions/point"},
        "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": False},
        "ratio": {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
        "when": {"type": ["string", "null"], "format": "date-time"},
        "tags": {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": 3},
    },
    "required": ["origin"],
}

DRAFT_2020 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"shape": {"oneOf": [
        {"title": "Circle", "type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number",
                                                                                                "exclusiveMinimum": 0}},
         "required": ["kind", "r"]},
        {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "integer"}},
         "required": ["kind", "side"]}]}},
    "properties": {
        "shape": {"$ref": "#/$defs/shape"},
        "point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": False},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "pattern": {"type": "object", "patternProperties": {"^x-": {}}},
        "maybe": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
        "mode": {"const": "fast"},
        "when": {"type": "object", "if": {"properties": {"a": {"const": 1}}}, "then": {"required": ["b"]},
                 "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}},
        "level": {"type": "integer", "enum": [1, 2, 3], "default": 2},
        "settings": {"type": "object", "properties": {"verbose": {"type": "boolean"},
                                                      "depth": {"type": "integer", "minimum": 0}},
                     "unevaluatedProperties": False},
    },
    "required": ["shape"],
    "unevaluatedProperties": False,
}
