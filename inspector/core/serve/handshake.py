"""The handshake of a served capture: ``initialize`` and ``server/discover`` answered as the recorded server did.

* ``initialize`` (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#initialization): the
  recorded result, capabilities, serverInfo and instructions as they were. The revision is the client's own when
  the capture shows its server speaks it (the recorded revision, or one of the revisions a recorded
  ``server/discover`` listed); otherwise the recorded one, as the real server answered. A capture of the
  2026-07-28 era, which has no ``initialize``, answers from its ``server/discover`` result: the client's
  revision when the server listed it, else the newest initialize-era revision it listed, else the spec's
  "Unsupported protocol version" error naming them.
* ``server/discover`` (2026-07-28): the recorded answer (a refusal too: a legacy server's error is what an
  ``auto`` client needs to fall back to ``initialize``). A capture without one answers "Method not found", as a
  server of the initialize era does.
* A capture without any handshake answers ``initialize`` with what its requests show (a capability for each
  family of methods recorded) and a serverInfo saying it is a twin; :attr:`ServedHandshake.missing` says so,
  for the command to tell the user.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspector.core.protocol.revisions import HANDSHAKE_REVISIONS, STATELESS_FROM

SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"
#: The serverInfo of a twin whose capture recorded none.
TWIN_INFO = {"name": "mcp-inspector serve", "version": "0"}
#: Capabilities a capture without a handshake is given, by the prefix of the methods it recorded.
_CAPABILITIES = (("tools/", "tools"), ("resources/", "resources"), ("prompts/", "prompts"),
                 ("completion/", "completions"), ("logging/", "logging"))
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602


@dataclass(frozen=True, slots=True)
class HandshakeAnswer:
    """What answers a handshake request: ``body`` holds ``result`` or ``error``; ``served_from`` is the seq of the
    recorded answer it comes from (None for one made up); ``note`` says what differs from the recording."""

    body: dict[str, Any]
    served_from: int | None
    note: str | None = None


Recorded = tuple[dict[str, Any], dict[str, Any], int]  # request, answer, the answer's seq


class ServedHandshake:
    """Answers ``initialize`` and ``server/discover`` from the recorded ones (either may be None)."""

    def __init__(self, initialize: Recorded | None, discover: Recorded | None, methods: Sequence[str]) -> None:
        self.initialize = initialize
        self.discover = discover
        self.methods = list(methods)

    @property
    def missing(self) -> bool:
        """The capture recorded no answered handshake at all."""
        return self.initialize is None and self.discover is None

    @property
    def discovered(self) -> dict[str, Any] | None:
        """The recorded ``server/discover`` result, when the server gave one."""
        if self.discover is None:
            return None
        result = self.discover[1].get("result")
        return result if isinstance(result, dict) else None

    def supported(self) -> list[str]:
        """The revisions the capture shows its server speaking."""
        found: list[str] = []
        discovered = self.discovered
        if discovered is not None and isinstance(discovered.get("supportedVersions"), list):
            found += [v for v in discovered["supportedVersions"] if isinstance(v, str)]
        if self.initialize is not None:
            result = self.initialize[1].get("result")
            version = result.get("protocolVersion") if isinstance(result, dict) else None
            if isinstance(version, str) and version not in found:
                found.append(version)
        return found

    def answers_alone(self, params: Any) -> bool:
        """The answer to ``initialize`` with ``params`` is the recorded initialize's answer as it is, whatever
        ``server/discover`` the capture holds: the client asks the recorded revision (or no revision the answer
        could be changed to)."""
        if self.initialize is None:
            return False
        result = self.initialize[1].get("result")
        asked = params.get("protocolVersion") if isinstance(params, dict) else None
        return not (isinstance(result, dict) and isinstance(asked, str) and asked < STATELESS_FROM
                    and result.get("protocolVersion") != asked)

    def answer(self, method: str, params: Any) -> HandshakeAnswer:
        if method == "server/discover":
            return self._discover()
        return self._initialize(params)

    def _discover(self) -> HandshakeAnswer:
        if self.discover is not None:
            answer, seq = self.discover[1], self.discover[2]
            return HandshakeAnswer(_outcome(answer), seq)
        era = "the initialize handshake" if self.initialize is not None else "no handshake"
        reason = f"the capture's server spoke {era}, not server/discover"
        return HandshakeAnswer({"error": {"code": METHOD_NOT_FOUND, "message": "Method not found",
                                          "data": {"reason": reason}}}, None)

    def _initialize(self, params: Any) -> HandshakeAnswer:
        asked = params.get("protocolVersion") if isinstance(params, dict) else None
        supported = self.supported()
        if self.initialize is not None:
            answer, seq = self.initialize[1], self.initialize[2]
            body = _outcome(answer)
            result = body.get("result")
            if (isinstance(result, dict) and isinstance(asked, str) and asked in supported
                    and asked < STATELESS_FROM and result.get("protocolVersion") != asked):
                body["result"] = {**result, "protocolVersion": asked}
                return HandshakeAnswer(body, seq, f"protocolVersion {asked}, the client's, which the capture's "
                                                  f"server supported (recorded {result.get('protocolVersion')})")
            return HandshakeAnswer(body, seq)
        discovered = self.discovered
        if discovered is not None:
            assert self.discover is not None
            return self._from_discover(discovered, self.discover[2], asked, supported)
        return self._made_up(asked)

    def _made_up(self, asked: Any) -> HandshakeAnswer:
        """The answer of a capture without a handshake: a capability per family of methods it recorded."""
        recorded = self.methods
        capabilities: dict[str, Any] = {name: {} for prefix, name in _CAPABILITIES
                                        if any(method.startswith(prefix) for method in recorded)}
        version = asked if isinstance(asked, str) and asked in HANDSHAKE_REVISIONS else HANDSHAKE_REVISIONS[0]
        made = {"protocolVersion": version, "capabilities": capabilities, "serverInfo": dict(TWIN_INFO)}
        return HandshakeAnswer({"result": made}, None,
                               "the capture has no handshake: capabilities from the methods it recorded")

    def _from_discover(self, discovered: dict[str, Any], seq: int, asked: Any, supported: list[str]) -> HandshakeAnswer:
        legacy = sorted((v for v in supported if v < STATELESS_FROM), reverse=True)
        if isinstance(asked, str) and asked in legacy:
            version = asked
        elif legacy:
            version = legacy[0]
        else:
            return HandshakeAnswer({"error": {"code": INVALID_PARAMS, "message": "Unsupported protocol version",
                                              "data": {"supported": supported, "requested": asked}}}, seq,
                                   "the capture's server listed no revision of the initialize handshake")
        meta = discovered.get("_meta")
        info = meta.get(SERVER_INFO_META) if isinstance(meta, dict) else None
        info = discovered.get("serverInfo", info)
        result: dict[str, Any] = {"protocolVersion": version, "capabilities": discovered.get("capabilities", {}),
                                  "serverInfo": info if isinstance(info, dict) else dict(TWIN_INFO)}
        if isinstance(discovered.get("instructions"), str):
            result["instructions"] = discovered["instructions"]
        return HandshakeAnswer({"result": result}, seq,
                               f"initialize answered from the recorded server/discover, at {version}")


def _outcome(answer: dict[str, Any]) -> dict[str, Any]:
    """The ``result`` or ``error`` of a recorded answer, without its envelope."""
    return {key: answer[key] for key in ("result", "error") if key in answer}
