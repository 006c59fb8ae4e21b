"""Serves the protocol revisions it is told to, and rejects the client's first request to make it negotiate.

``python negotiating_server.py [--supported V1,V2,...] [--reject N]``: the revisions it speaks (default
``2026-07-28,2025-11-25``), listed in every rejection. The first N requests (default 1; with 0, only those at
an unlisted revision) are rejected whatever they ask for: a modern request (one whose ``_meta`` carries a
protocol version) with ``UnsupportedProtocolVersionError`` (-32022, ``data.supported``, 2026-07-28 versioning),
an ``initialize`` with the legacy form (-32602 "Unsupported protocol version", ``data.supported``, 2025-11-25
lifecycle). Later requests are served at any listed revision and rejected the same way otherwise.

Served: ``server/discover``, ``initialize``, ``ping``, ``tools/list``, ``tools/call count`` (``count`` steps,
``delay_ms`` before each, a ``notifications/progress`` per step when the request has a progressToken) and
``tools/call stall`` (a log notification after ``delay_ms``, then never an answer).

:class:`Negotiator` is the whole protocol logic, shared with the HTTP variant
(tests/http/servers/negotiating_http_server.py); this script only carries it over stdio.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

from _wire import messages, send

DEFAULT_SUPPORTED = "2026-07-28,2025-11-25"
MODERN = ("2026-07-28",)
UNSUPPORTED_PROTOCOL_VERSION = -32022
INVALID_PARAMS = -32602
META_VERSION = "io.modelcontextprotocol/protocolVersion"
TOOLS = [{"name": "count", "description": "Count slowly, reporting progress.",
          "inputSchema": {"type": "object", "properties": {"count": {"type": "integer"},
                                                           "delay_ms": {"type": "integer"}}}}]
SERVER_INFO = {"name": "negotiating-test-server", "version": "1.0.0"}


class Negotiator:
    """The server's side of one connection (stdio) or endpoint (HTTP): which requests it rejects, and the
    messages it answers with. Thread-safe: the HTTP variant handles requests on several threads."""

    def __init__(self, supported: list[str], reject: int = 1) -> None:
        self.supported = supported
        self.reject = reject
        self._lock = threading.Lock()

    def _first(self) -> bool:
        """Whether this request is one of the first ones, rejected whatever they ask for."""
        with self._lock:
            self.reject -= 1
            return self.reject >= 0

    def answer(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The messages that answer ``request``, in order (progress notifications, then the response); a
        tool's delays happen between them."""
        method = request.get("method")
        params = p if isinstance(p := request.get("params"), dict) else {}
        meta = m if isinstance(m := params.get("_meta"), dict) else {}
        if method == "initialize":
            requested = params.get("protocolVersion")
            legacy = [v for v in self.supported if v not in MODERN]
            if self._first() or not legacy:
                yield self.rejection(request, INVALID_PARAMS, "Unsupported protocol version", requested)
                return
            chosen = requested if requested in legacy else legacy[0]
            yield result(request, {"protocolVersion": chosen, "capabilities": {"tools": {}},
                                   "serverInfo": SERVER_INFO})
            return
        requested = meta.get(META_VERSION)
        if requested is not None and (self._first() or requested not in self.supported):
            yield self.rejection(request, UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", requested)
            return
        if method == "server/discover":
            yield result(request, {"supportedVersions": self.supported, "capabilities": {"tools": {}},
                                   "resultType": "complete", "cacheScope": "public", "ttlMs": 0,
                                   "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO}})
        elif method == "ping":
            yield result(request, {})
        elif method == "tools/list":
            yield result(request, {"tools": TOOLS})
        elif method == "tools/call" and params.get("name") == "count":
            arguments = a if isinstance(a := params.get("arguments"), dict) else {}
            count, delay = int(arguments.get("count", 3)), int(arguments.get("delay_ms", 0)) / 1000
            for step in range(1, count + 1):
                time.sleep(delay)
                if "progressToken" in meta:
                    yield {"jsonrpc": "2.0", "method": "notifications/progress",
                           "params": {"progressToken": meta["progressToken"], "progress": step, "total": count}}
            yield result(request, {"content": [{"type": "text", "text": f"counted to {count}"}]})
        elif method == "tools/call" and params.get("name") == "stall":
            arguments = a if isinstance(a := params.get("arguments"), dict) else {}
            time.sleep(int(arguments.get("delay_ms", 0)) / 1000)
            yield {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "stalling"}}
            time.sleep(3600)  # the test ends first, and kills the server
        else:
            yield {"jsonrpc": "2.0", "id": request.get("id"),
                   "error": {"code": -32601, "message": f"Method not found: {method}"}}

    def rejection(self, request: dict[str, Any], code: int, message: str, requested: Any) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": request.get("id"),
                "error": {"code": code, "message": message,
                          "data": {"supported": self.supported, "requested": requested}}}


def result(request: dict[str, Any], value: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request.get("id"), "result": value}


def negotiator_from(argv: list[str]) -> Negotiator:
    """The negotiator the options ``--supported`` and ``--reject`` describe."""
    text = argv[argv.index("--supported") + 1] if "--supported" in argv else DEFAULT_SUPPORTED
    reject = int(argv[argv.index("--reject") + 1]) if "--reject" in argv else 1
    return Negotiator([v for v in text.split(",") if v], reject)


if __name__ == "__main__":
    negotiator = negotiator_from(sys.argv)
    for message in messages():
        if "method" in message and "id" in message:
            for answer in negotiator.answer(message):
                send(answer)
