"""A client's answer to a server's request, judged one way wherever it is made.

The window's answer form (the Server requests panel: its footer, and Accept) and the timeline's judge
(:class:`~inspector.core.protocol.judge.ProtocolJudge`, rule ``elicitation-content`` and the schema rule) ask
this module, so an answer the form calls valid is never flagged once it is sent, and the reverse:

- :func:`reply_problems`: the result against the official schema of the session's revision, the definition the
  judge uses for a response to that method (:meth:`~inspector.core.protocol.messages.RevisionSchema.check`),
  then, for an elicitation accepted, :func:`elicitation_content_problems` of its content.
- :func:`elicitation_content_problems`: the content against the ``requestedSchema`` the server sent ("both
  parties SHOULD validate elicitation content against the provided schema",
  https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#security-considerations), with
  formats (``email``, ``uri``, ``date``, ``date-time``) checked. A value equal to its field's own ``default`` is
  never flagged: sending back what the server offered is the user agreeing with the server, and if the default
  breaks the server's own schema that is the server's problem, said of its request, not of our answer.
"""

from __future__ import annotations

import json
from typing import Any

from inspector.core.protocol.messages import for_revision
from inspector.core.schemas.validate import Violation, violations
from inspector.core.wire import jsonrpc


def server_defaults_trusted(schema: dict[str, Any], content: Any) -> dict[str, Any]:
    """``schema`` with each property whose value in ``content`` equals its ``default`` accepted as it is."""
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not isinstance(content, dict):
        return schema
    trusted = {name: True if isinstance(sub, dict) and "default" in sub and name in content
               and _same(content[name], sub["default"]) else sub for name, sub in properties.items()}
    return {**schema, "properties": trusted} if any(v is True for v in trusted.values()) else schema


def elicitation_content_problems(requested_schema: Any, content: Any, *, root: str = "content") -> list[Violation]:
    """Every way ``content`` breaks ``requested_schema`` (paths from ``root``), the server's own defaults
    excepted; ``[]`` when it fits."""
    if not isinstance(requested_schema, dict):
        return []
    return violations(server_defaults_trusted(requested_schema, content), content, root=root)


def reply_problems(method: str, result: Any, *, revision: str | None, params: Any = None) -> list[Violation]:
    """Every way ``result``, the answer to the server's ``method`` request with ``params``, breaks the rules the
    judge holds it to in ``revision`` (None: the schema is not judged); ``[]`` when none."""
    found: list[Violation] = []
    schema = for_revision(revision) if revision else None
    if schema is not None:
        message = {"jsonrpc": "2.0", "id": 0, "result": result}
        found += [Violation(v.path, "schema", v.sentence) for v in schema.check(message, jsonrpc.RESPONSE, None,
                                                                                 method)]
    params = params if isinstance(params, dict) else {}
    if method == "elicitation/create" and isinstance(result, dict) and result.get("action") == "accept" \
            and params.get("mode") != "url":
        found += elicitation_content_problems(params.get("requestedSchema"), result.get("content", {}),
                                              root="result.content")
    return found


def _same(a: Any, b: Any) -> bool:
    """JSON-equal, types included (``true`` is not ``1``)."""
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError):
        return False
