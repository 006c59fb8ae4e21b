"""Whether a tool's result keeps the promise of its ``outputSchema``: one answer for ``check``, ``lint`` (and the
protocol judge behind the window's Problems panel) and the one-shot ``call``.

Spec: a tool with an outputSchema returns ``structuredContent`` that conforms to it ("Servers MUST provide
structured results that conform to this schema",
https://modelcontextprotocol.io/specification/2025-11-25/server/tools#output-schema; the schema's CallToolResult
comment says SHOULD). A result with
``isError: true`` reports a failure in its content and is not held to the schema. An outputSchema that is not
a usable JSON Schema is judged elsewhere (``check``'s tool-schemas), not here.
"""

from __future__ import annotations

from typing import Any


def output_problem(tool_name: Any, output_schema: Any, result: Any) -> str | None:
    """One sentence on how ``result`` (a tools/call result) breaks ``output_schema``, or None when it keeps it
    (or there is nothing to hold it to: no schema object, an error result, a result that is no object)."""
    if not isinstance(output_schema, dict) or not isinstance(result, dict) or result.get("isError") is True:
        return None
    from inspector.core.schemas.validate import first_violation, schema_problem

    if schema_problem(output_schema) is not None:
        return None
    name = _short(tool_name)
    if "structuredContent" not in result:
        return f"the tool {name} declares an outputSchema but its result has no structuredContent"
    violation = first_violation(output_schema, result["structuredContent"], root="structuredContent")
    if violation is None:
        return None
    return f"the result of {name} breaks its outputSchema: {violation.sentence}"


def _short(name: Any, limit: int = 80) -> str:
    """A tool's name cut for a sentence (a server may name a tool with a megabyte); whoever shows the sentence
    escapes its control characters."""
    text = str(name)
    return text if len(text) <= limit else text[: limit - 1] + "…"
