"""Protocol constants and JSON-RPC message builders for the demo server.

Everything here is pure data: no I/O, no threads. The server module decides
*when* to send; this module decides *what* goes on the wire.

Spec references:
- JSON-RPC message shapes and MCP error codes:
  https://modelcontextprotocol.io/specification/2026-07-28/basic/index#messages
- Version negotiation (legacy): https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle
- Version negotiation (modern): https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
"""

from __future__ import annotations

from typing import Any

JSONRPC_VERSION = "2.0"

#: The only revision served statelessly, with per-request ``_meta``.
MODERN_VERSION = "2026-07-28"

#: Revisions that use the ``initialize`` handshake, newest first.
LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")

#: Answered to an ``initialize`` whose requested revision we do not know:
#: the lifecycle page says the server responds with the latest version it
#: supports and lets the client decide whether to disconnect.
LATEST_LEGACY_VERSION = LEGACY_VERSIONS[0]

#: Advertised by ``server/discover`` and in ``UnsupportedProtocolVersionError``.
SUPPORTED_VERSIONS = (MODERN_VERSION, *LEGACY_VERSIONS)

SERVER_NAME = "mcp-inspector-demo"

# _meta keys reserved by the 2026-07-28 revision
# (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#_meta).
META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
META_PROGRESS_TOKEN = "progressToken"

# Standard JSON-RPC 2.0 error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# MCP-specific codes. -32002 is "resource not found" up to 2025-11-25; the
# 2026-07-28 revision forbids it and uses -32602 instead.
LEGACY_RESOURCE_NOT_FOUND = -32002
UNSUPPORTED_PROTOCOL_VERSION = -32022

#: RFC 5424 severities in increasing order, as used by ``notifications/message``
#: (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging).
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


def server_version() -> str:
    """The installed distribution's version (the inspector's, which ships the demo), or ``"0"`` when it is not
    installed (the module copied out on its own, a checkout on the path). Read from the package metadata, so
    the demo imports nothing of the inspector it is inspected by."""
    from importlib import metadata

    try:
        return metadata.version("mcp-inspector-desktop")
    except metadata.PackageNotFoundError:
        return "0"


def server_info() -> dict[str, str]:
    """The ``Implementation`` object that identifies this server."""
    return {"name": SERVER_NAME, "version": server_version()}


def log_level_allows(threshold: str | None, level: str) -> bool:
    """True if a message at ``level`` passes a client-chosen ``threshold``.

    ``None`` means the client never opted in, which (in the modern era) means
    no log notifications at all.
    """
    if threshold is None:
        return False
    return LOG_LEVELS.index(level) >= LOG_LEVELS.index(threshold)


class RpcError(Exception):
    """A JSON-RPC error to send back instead of a result.

    Raised by request handlers; the dispatcher turns it into an error response
    carrying the request's id.
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_error(self) -> dict[str, Any]:
        """The ``error`` member of a JSON-RPC error response."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def unsupported_version_error(requested: Any) -> RpcError:
    """``UnsupportedProtocolVersionError`` (-32022) for a modern request.

    https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#protocol-version-negotiation
    """
    return RpcError(
        UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        {"supported": list(SUPPORTED_VERSIONS), "requested": requested},
    )


def result_response(request_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    """A JSON-RPC result response."""
    return {"jsonrpc": JSONRPC_VERSION, "id": request_id, "result": result}


def error_response(request_id: Any, error: RpcError) -> dict[str, Any]:
    """A JSON-RPC error response; ``request_id`` is ``None`` when unreadable."""
    return {"jsonrpc": JSONRPC_VERSION, "id": request_id, "error": error.to_error()}


def notification(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A JSON-RPC notification (no id, so the receiver must not answer)."""
    return {"jsonrpc": JSONRPC_VERSION, "method": method, "params": params}


def request(request_id: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A server-to-client JSON-RPC request (legacy era only)."""
    return {"jsonrpc": JSONRPC_VERSION, "id": request_id, "method": method, "params": params}


def is_valid_id(value: Any) -> bool:
    """Request ids must be strings or integers, never null (or booleans)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
