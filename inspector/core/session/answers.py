"""Headless answers to the server's own requests: ``record --answer elicitation=... --answer sampling=...``.

The GUI asks the user; headless runs need a policy. ``ping`` and ``roots/list`` are the session's own
business and always answered; everything else without a policy gets an error that says it was not handled.
Spec: https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation and .../client/sampling
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector.core.session.outcomes import METHOD_NOT_FOUND, RpcError
from inspector.core.session.server_requests import ServerRequestHandler

ELICITATION_CHOICES = ("accept-defaults", "decline", "cancel")
#: The code the sampling spec gives for a request the user rejected.
USER_REJECTED = -1


@dataclass
class AnswerPolicy(ServerRequestHandler):
    elicitation: str | None = None  #: accept-defaults, decline or cancel
    sampling: str | None = None  #: "error" or "text:TEXT"

    @classmethod
    def parse(cls, answers: dict[str, str]) -> AnswerPolicy | None:
        """From ``{"elicitation": ..., "sampling": ...}``; raises ValueError with a sentence when invalid."""
        policy = cls()
        for kind, value in answers.items():
            if kind == "elicitation":
                if value not in ELICITATION_CHOICES:
                    raise ValueError(f"--answer elicitation={value}: use one of {', '.join(ELICITATION_CHOICES)}")
                policy.elicitation = value
            elif kind == "sampling":
                if value != "error" and not value.startswith("text:"):
                    raise ValueError(f"--answer sampling={value}: use error or text:TEXT")
                policy.sampling = value
            else:
                raise ValueError(f"--answer {kind}=...: only elicitation and sampling can be answered")
        return policy if (policy.elicitation or policy.sampling) else None

    def capabilities(self) -> dict[str, Any]:
        """What the client may declare, given the answers it can give."""
        caps: dict[str, Any] = {}
        if self.elicitation:
            caps["elicitation"] = {"form": {}}
        if self.sampling:
            caps["sampling"] = {}
        return caps

    async def __call__(self, method: str, params: Any) -> Any:
        params = params if isinstance(params, dict) else {}
        if method == "elicitation/create" and self.elicitation:
            return self._elicit(params)
        if method == "sampling/createMessage" and self.sampling:
            if self.sampling == "error":
                raise RpcError(USER_REJECTED, "sampling declined by mcp-inspector (--answer sampling=error)")
            return {"role": "assistant", "content": {"type": "text", "text": self.sampling[len("text:"):]},
                    "model": "mcp-inspector", "stopReason": "endTurn"}
        raise RpcError(METHOD_NOT_FOUND, f"mcp-inspector has no answer for {method} (see --answer); "
                                         "the request was recorded")

    def _elicit(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.elicitation != "accept-defaults":
            return {"action": self.elicitation}
        if params.get("mode") == "url":
            return {"action": "accept"}
        schema = s if isinstance(s := params.get("requestedSchema"), dict) else {}
        properties = p if isinstance(p := schema.get("properties"), dict) else {}
        content = {name: prop["default"] for name, prop in properties.items()
                   if isinstance(prop, dict) and "default" in prop}
        return {"action": "accept", "content": content}
