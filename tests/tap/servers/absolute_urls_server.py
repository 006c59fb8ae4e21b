"""An MCP server that names its own absolute URLs, as some deployments do: what the HTTP tap must rewrite so
that a client stays on the tap. Standard library only.

``python absolute_urls_server.py PORT_FILE`` binds 127.0.0.1 on an ephemeral port (never another address),
writes the port to PORT_FILE once it listens, and serves until killed:

* HTTP+SSE (2024-11-05) at ``/sse``: the ``endpoint`` event is ``http://127.0.0.1:PORT/messages?session=ID``
  (absolute, this server's own origin); messages POSTed there get 202 and their answers come on the stream.
* Streamable HTTP at ``/mcp/``: ``/mcp`` answers 307 with ``Location: http://127.0.0.1:PORT/mcp/`` (absolute);
  ``/mcp/`` answers requests with JSON, notifications with 202, GET with 405 and DELETE with 200.
"""

from __future__ import annotations

import json
import queue
import sys
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

#: How often an idle event stream sends a comment (so a stream whose client left is noticed).
KEEPALIVE_SECONDS = 1.0
TOOLS = [{"name": "echo", "description": "Return the message unchanged.",
          "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}}]


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    if "id" not in message or "method" not in message:
        return None
    method = message["method"]
    params = message.get("params") or {}
    if method == "initialize":
        result: Any = {"protocolVersion": params.get("protocolVersion", "2024-11-05"), "capabilities": {"tools": {}},
                       "serverInfo": {"name": "absolute-urls", "version": "1.0.0"}}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": str((params.get("arguments") or {}).get("message", ""))}]}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": f"no method {method}"}}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # an answer's head and body go at once, as from real servers
    streams: dict[str, queue.Queue[bytes]] = {}

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"{self.command} {self.path} -> {format % args}\n")

    def own(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            return json.loads(self.rfile.read(length)) if length else None
        except ValueError:
            return None

    def send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def do_GET(self) -> None:
        if self.path != "/sse":
            self.send(405, headers={"Allow": "POST, DELETE"})
            return
        session = uuid.uuid4().hex
        outbox: queue.Queue[bytes] = queue.Queue()
        self.streams[session] = outbox
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            self.chunk(f"event: endpoint\ndata: {self.own()}/messages?session={session}\n\n".encode())
            while True:
                try:
                    self.chunk(b"event: message\ndata: " + outbox.get(timeout=KEEPALIVE_SECONDS) + b"\n\n")
                except queue.Empty:
                    self.chunk(b": keep-alive\n\n")
        except OSError:
            pass  # the client left
        finally:
            self.streams.pop(session, None)
            self.close_connection = True

    def do_POST(self) -> None:
        message = self.body()
        if self.path == "/mcp":
            self.send(307, headers={"Location": f"{self.own()}/mcp/"})
            return
        reply = answer(message) if isinstance(message, dict) else None
        if self.path.startswith("/messages?session="):
            outbox = self.streams.get(self.path.split("=", 1)[1])
            if outbox is None:
                self.send(404, b"no such session", {"Content-Type": "text/plain"})
                return
            self.send(202, b"Accepted", {"Content-Type": "text/plain"})
            if reply is not None:
                outbox.put(json.dumps(reply).encode())
            return
        if self.path == "/mcp/":
            if reply is None:
                self.send(202)
            else:
                self.send(200, json.dumps(reply).encode(), {"Content-Type": "application/json"})
            return
        self.send(404, b"not found", {"Content-Type": "text/plain"})

    def do_DELETE(self) -> None:
        self.send(200)


def main() -> None:
    port_file = Path(sys.argv[1])
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    tmp = port_file.with_name(port_file.name + ".tmp")
    tmp.write_text(str(httpd.server_address[1]), encoding="ascii")
    tmp.replace(port_file)
    httpd.serve_forever()


if __name__ == "__main__":
    main()
