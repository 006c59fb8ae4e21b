"""What one message asks of its answer, and whether the answer keeps it: the judge's rules on content.

- ``tool-output-schema``: a tool that declares an ``outputSchema`` in ``tools/list`` promises ``structuredContent``
  that conforms to it in the result of each call
  (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#output-schema).
- ``tool-name``: the names of one ``tools/list`` page are unique, visible, and from 2025-11-25 follow the naming
  guidance (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names).
- ``elicitation-content``: the content a client accepts an elicitation with fits the ``requestedSchema`` the
  server sent ("both parties SHOULD validate elicitation content against the provided schema",
  https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#security-considerations), judged
  by :func:`inspector.core.protocol.replies.elicitation_content_problems`, the check the window's answer form
  uses too: the same answer is never valid in one and flagged in the other.

:class:`Promises` keeps what the requests in flight asked and returns findings as ``(rule id, sentence)``;
:class:`~inspector.core.protocol.judge.ProtocolJudge` owns one and records what it returns.
"""

from __future__ import annotations

from typing import Any

from inspector.core.protocol.names import name_problems
from inspector.core.protocol.replies import elicitation_content_problems
from inspector.core.schemas.output import output_problem
from inspector.core.wire.ids import IdKey, id_key

#: At most this many ways an elicitation answer breaks its schema are said (the rest follow from the first).
MAX_CONTENT_FINDINGS = 3

Found = list[tuple[str, str]]


class Promises:
    """The content rules of one session, fed its requests and responses in order."""

    def __init__(self) -> None:
        #: tool name -> the outputSchema the server's last tools/list gave it
        self._output_schemas: dict[str, Any] = {}
        #: a client's tools/call in flight -> the tool's name
        self._calls: dict[IdKey, str] = {}
        #: a server's elicitation/create in flight -> its requestedSchema
        self._elicitations: dict[IdKey, dict[str, Any]] = {}

    def client_request(self, method: str, msg_id: Any, params: Any) -> None:
        if method == "tools/call" and isinstance(params, dict) and isinstance(params.get("name"), str):
            self._calls[id_key(msg_id)] = params["name"]

    def server_request(self, method: str, msg_id: Any, params: Any) -> None:
        if method == "elicitation/create" and isinstance(params, dict) \
                and isinstance(params.get("requestedSchema"), dict) and params.get("mode") != "url":
            self._elicitations[id_key(msg_id)] = params["requestedSchema"]

    def server_answer(self, msg_id: Any, answering: str | None, result: dict[str, Any] | None,
                      revision: str) -> Found:
        """The server answered the client's request ``msg_id`` (``result`` None: with an error)."""
        called = self._calls.pop(id_key(msg_id), None)
        if result is None:
            return []
        if answering == "tools/list":
            self._tools_listed(result)
            return self._tool_names(result, revision)
        if answering == "tools/call" and called is not None and called in self._output_schemas \
                and not _interim(result):
            problem = output_problem(called, self._output_schemas[called], result)
            return [("tool-output-schema", problem)] if problem is not None else []
        return []

    def client_answer(self, msg_id: Any, result: dict[str, Any] | None) -> Found:
        """The client answered the server's request ``msg_id`` (``result`` None: with an error)."""
        requested = self._elicitations.pop(id_key(msg_id), None)
        if requested is None or result is None or result.get("action") != "accept":
            return []
        content = result.get("content", {})
        found = [v for v in elicitation_content_problems(requested, content) if v.blocking]
        return [("elicitation-content", f"the accepted answer breaks the elicitation's requestedSchema: {v.sentence}")
                for v in found[:MAX_CONTENT_FINDINGS]]

    def _tools_listed(self, result: dict[str, Any]) -> None:
        """The outputSchema of each tool of a tools/list page, for the calls that follow (a tool listed again
        without one has none any more)."""
        tools = result.get("tools")
        for tool in tools if isinstance(tools, list) else ():
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                if isinstance(tool.get("outputSchema"), dict):
                    self._output_schemas[tool["name"]] = tool["outputSchema"]
                else:
                    self._output_schemas.pop(tool["name"], None)

    @staticmethod
    def _tool_names(result: dict[str, Any], revision: str) -> Found:
        """Duplicate and hidden-character names in one tools/list page (and, from 2025-11-25, the length and
        characters its guidance asks for)."""
        tools = result.get("tools")
        if not isinstance(tools, list):
            return []
        guidance = revision >= "2025-11-25"  # the revisions are dates: later sorts after
        names = (tool.get("name") for tool in tools if isinstance(tool, dict))
        return [("tool-name", problem) for problem in name_problems(names, guidance=guidance)]


def _interim(result: dict[str, Any]) -> bool:
    """Whether a tools/call result is not yet the tool's result: a round asking for input (2026-07-28 multi
    round-trip requests, answered by a retry under a new id) or the task that will bring it (tasks)."""
    return result.get("resultType") in ("input_required", "task") or isinstance(result.get("task"), dict)
