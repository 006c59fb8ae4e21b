"""An HTTP MCP server (standard library only) that logs what reached it, for the option-to-effect tests.

    python probe_http_server.py PORT_FILE LOG_FOLDER

Binds 127.0.0.1 on an ephemeral port (never any other address) and writes the port to PORT_FILE. Every request
is appended to ``LOG_FOLDER/<tag>.jsonl`` as ``{"method", "path", "headers"}`` (header names in lower case),
where ``<tag>`` is the first segment of its path: each test uses a tag of its own, so one server serves them
all. Under ``/<tag>/``:

- ``POST mcp``: Streamable HTTP, one JSON answer per request, 202 for notifications and responses; no session.
  ``GET mcp`` is 405 (no stream to offer), ``DELETE mcp`` 405.
- ``GET sse``: the HTTP+SSE transport (2024-11-05): an ``endpoint`` event naming ``messages?session=ID``, then
  the answers to what is posted there.

It speaks the legacy handshake (``server/discover`` is an unknown method); tools/call ``echo`` answers with its
arguments. Everything else it does not know gets -32601.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

LOG_FOLDER = Path(sys.argv[2])
LOCK = threading.Lock()
STREAMS: dict[str, queue.Queue[bytes | None]] = {}  # session id of an HTTP+SSE stream -> what to send on it
SUPPORTED = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")


def answer_to(message: Any) -> dict[str, Any] | None:
    """The JSON-RPC answer to ``message``, or None for a notification or a response."""
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return None
    method, params = message["method"], message.get("params") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        result: Any = {"protocolVersion": asked if asked in SUPPORTED else SUPPORTED[0],
                       "capabilities": {"tools": {}}, "serverInfo": {"name": "probe-http", "version": "1"}}
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {"tools": [{"name": "echo", "inputSchema": {"type": "object"},
                             "annotations": {"readOnlyHint": True}}]}
    elif method == "tools/call" and params.get("name") == "echo":
        result = {"content": [{"type": "text", "text": json.dumps(params.get("arguments") or {})}]}
    else:
        return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": f"no method {method}"}}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 60  # no handler thread outlives a vanished client for long
    #: headers and body are two writes: without TCP_NODELAY the body waits for the client's delayed ACK (40 ms)
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _route(self) -> tuple[str, str]:
        """(tag, rest of the path) of this request, after logging it."""
        parts = urlsplit(self.path).path.strip("/").split("/", 1)
        tag, rest = (parts[0], parts[1]) if len(parts) == 2 else ("untagged", parts[0])
        entry = {"method": self.command, "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}}
        with LOCK, open(LOG_FOLDER / f"{tag}.jsonl", "a", encoding="utf-8") as log:
            log.write(json.dumps(entry) + "\n")
        return tag, rest

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            return json.loads(self.rfile.read(length) if length else b"")
        except ValueError:
            return None

    def _send(self, status: int, body: bytes = b"", content_type: str = "application/json") -> None:
        self.send_response(status)
        if body:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        tag, rest = self._route()
        message = self._body()
        if rest == "mcp":
            if message is None:
                self._send(400, json.dumps({"jsonrpc": "2.0", "id": None, "error": {
                    "code": -32700, "message": "Parse error"}}).encode())
                return
            reply = answer_to(message)
            self._send(202) if reply is None else self._send(200, json.dumps(reply).encode())
        elif rest == "messages":
            stream = STREAMS.get(parse_qs(urlsplit(self.path).query).get("session", [""])[0])
            if stream is None:
                self._send(404, b"no such session", "text/plain")
                return
            self._send(202)
            reply = answer_to(message)
            if reply is not None:
                stream.put(f"event: message\ndata: {json.dumps(reply)}\n\n".encode())
        else:
            self._send(404, b"not found", "text/plain")

    def do_GET(self) -> None:
        tag, rest = self._route()
        if rest != "sse":
            self._send(405 if rest == "mcp" else 404)
            return
        session = uuid.uuid4().hex
        stream: queue.Queue[bytes | None] = queue.Queue()
        STREAMS[session] = stream
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        stream.put(f"event: endpoint\ndata: /{tag}/messages?session={session}\n\n".encode())
        try:
            while True:
                try:
                    event = stream.get(timeout=1.0)
                except queue.Empty:
                    event = b": keep-alive\n\n"  # a client that went away is found out on the next write
                if event is None:
                    break
                self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                self.wfile.flush()
        except OSError:
            pass
        finally:
            STREAMS.pop(session, None)
            self.close_connection = True

    def do_DELETE(self) -> None:
        self._route()
        self._send(405)


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    Path(sys.argv[1]).write_text(str(server.server_address[1]), encoding="ascii")
    server.serve_forever()


if __name__ == "__main__":
    main()
