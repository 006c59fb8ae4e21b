"""Where the official ``schema.json`` of a revision contradicts itself, the reading the inspector judges by.

The files ship unchanged (``schemas/SOURCE``); each erratum is applied to the parsed document in memory, once,
when :func:`inspector.core.protocol.revisions.schema_document` reads it, and is listed here with its reason so a
reader can check it against the files.

- **An elicitation answered with a decimal number** (2025-06-18 and later). ``ElicitRequest``'s
  ``requestedSchema`` may ask for a field of ``"type": "number"`` with a decimal ``default`` (``NumberSchema``:
  ``"type": ["integer", "number"]``, ``"default": {"type": "number"}``), and the spec's TypeScript types the
  answer's values as ``string | number | boolean``; yet ``ElicitResult.content`` in the generated file allows
  only ``"integer"`` among numbers (its generator's default number type). Taken literally, a client that sends
  back the server's own default ``3.14`` would break the schema. The inspector reads those values as
  ``"number"``, which includes every integer.
"""

from __future__ import annotations

from typing import Any

#: The revisions whose ElicitResult.content allows integers but not numbers.
ELICIT_NUMBER_REVISIONS = ("2025-06-18", "2025-11-25", "2026-07-28")


def apply(revision: str, document: dict[str, Any]) -> dict[str, Any]:
    """``document`` (the parsed schema of ``revision``) with this module's errata applied, in place."""
    if revision in ELICIT_NUMBER_REVISIONS:
        definitions = document.get("$defs") or document.get("definitions") or {}
        content = definitions.get("ElicitResult", {}).get("properties", {}).get("content", {})
        _integer_to_number(content.get("additionalProperties"))
    return document


def _integer_to_number(schema: Any) -> None:
    """Every ``"type"`` list in ``schema`` (and its ``anyOf`` branches) that names ``integer`` names ``number``."""
    if not isinstance(schema, dict):
        return
    types = schema.get("type")
    if isinstance(types, list) and "integer" in types and "number" not in types:
        schema["type"] = ["number" if t == "integer" else t for t in types]
    for branch in schema.get("anyOf", ()):
        _integer_to_number(branch)
