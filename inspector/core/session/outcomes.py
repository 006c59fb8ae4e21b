"""What a session's requests and handshake come to, for their callers: the errors they raise (each carries one
sentence for a person), what the handshake learned about the server, and a response's result or error.

A leaf of :mod:`inspector.core.session`: the session, its handshake and everything that calls them share these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from inspector.core.exits import EXIT_CANNOT_CONNECT, EXIT_RPC_ERROR, EXIT_SERVER_FAILED, EXIT_TIMEOUT
from inspector.core.transports.base import CannotConnect, CannotRun, CommandNotFound, TransportError
from inspector.core.wire.events import Event

#: JSON-RPC error codes that identify a modern server (2026-07-28 schema).
UNSUPPORTED_PROTOCOL_VERSION = -32022
MISSING_CLIENT_CAPABILITY = -32021
MODERN_ERROR_CODES = frozenset({UNSUPPORTED_PROTOCOL_VERSION, MISSING_CLIENT_CAPABILITY})
#: JSON-RPC's own codes for what the client answers a server request with.
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603


class RequestTimeout(TransportError):
    """No response within the bound."""


class HandshakeError(TransportError):
    """The handshake failed; the message says how."""


class RevisionRefused(HandshakeError):
    """The handshake failed on the protocol revision: the server and mcp-inspector share none it will speak, or
    the server refused the one asked for."""


class RequestCancelled(TransportError):
    """The request was cancelled (by the user) before its answer came; a late answer is still recorded."""


class UnreadableResponse(TransportError):
    """The answer to a request arrived but cannot be read as a message: a line or body over the size limit
    (``too_large``: raising ``--max-message`` would read it), or JSON nested deeper than any parser goes."""

    def __init__(self, sentence: str, *, too_large: bool = True) -> None:
        super().__init__(sentence)
        self.too_large = too_large


class RpcError(Exception):
    """Raised by a server request handler to answer with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


@dataclass
class ServerInfo:
    """What the handshake learned about the server."""

    era: str  #: ``legacy``, ``modern`` or ``unknown`` (no handshake)
    protocol_version: str | None = None
    name: str | None = None
    version: str | None = None
    capabilities: dict[str, Any] = field(default_factory=dict)
    instructions: str | None = None
    supported_versions: list[str] = field(default_factory=list)


def client_info() -> dict[str, str]:
    from inspector import __version__

    return {"name": "mcp-inspector", "version": __version__}


def result_of(response: Event) -> tuple[Any, Any]:
    """``(result, error)`` of a response event; one of them is None."""
    try:
        obj = response.json()
    except ValueError:
        return None, {"code": None, "message": "the response is not JSON"}
    if not isinstance(obj, dict):
        return None, {"code": None, "message": "the response is not an object"}
    if "error" in obj:
        return None, obj["error"]
    return obj.get("result"), None


def error_text(error: Any) -> str:
    if isinstance(error, dict):
        return f"{error.get('message', '(no message)')} (code {error.get('code')})"
    return repr(error)


def failure_exit(exc: BaseException, *, started: bool, connected: bool, refused: bool = False) -> int:
    """The exit status of a run that ``exc`` stopped (record's, and the one-shot commands'): 3 when the server
    could not be started or reached (``started``: the transport started; ``connected``: the handshake got
    through), 4 for no response in time, 5 for a handshake the server ``refused`` with an error answer, else 1."""
    if not started or isinstance(exc, (CommandNotFound, CannotRun)) or \
            (_raised_while(exc, CannotConnect) and not connected):  # also behind the handshake's error
        return EXIT_CANNOT_CONNECT
    if _raised_while(exc, RequestTimeout):
        return EXIT_TIMEOUT
    if isinstance(exc, HandshakeError) and refused:  # refused with an error answer
        return EXIT_RPC_ERROR
    return EXIT_SERVER_FAILED


def _raised_while(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``exc`` is a ``kind`` or was raised while handling one (a handshake turns the timeout of its
    request into a HandshakeError ``from None``, which hides the timeout from tracebacks, not from
    ``__context__``)."""
    seen: BaseException | None = exc
    for _ in range(10):  # a chain is short; a cycle must not hang us
        if seen is None:
            return False
        if isinstance(seen, kind):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
