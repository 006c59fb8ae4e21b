"""A Streamable HTTP MCP server that logs every message it receives, for the HTTP tap's intercept tests: what the
rules kept from it must be missing from its log.

``python intercept_server.py PORT_FILE`` binds 127.0.0.1 on an ephemeral port, writes the port to PORT_FILE and
serves ``/mcp`` until killed (standard library only). Each message POSTed is logged as ``received METHOD ID`` (a
response as ``received response ID``). Tools: ``add`` (a JSON answer), ``stream`` (an event stream: a log
notification, then the answer) and ``ask`` (an event stream: an ``elicitation/create`` request to the client, then
the answer saying what came back to it, within 10 s).
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

TOOLS = [{"name": name, "inputSchema": {"type": "object"}} for name in ("add", "stream", "ask")]
answers: dict[str, Any] = {}
answered = threading.Condition()


def log(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 60

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def send_body(self, status: int, body: bytes, content_type: str = "application/json",
                  headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def event(self, obj: Any) -> None:
        data = b"event: message\r\ndata: " + json.dumps(obj).encode() + b"\r\n\r\n"
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        message = json.loads(body)
        if "method" not in message:
            log(f"received response {message.get('id')}")
            with answered:
                answers[str(message.get("id"))] = message
                answered.notify_all()
            self.send_body(202, b"")
            return
        log(f"received {message['method']} {message.get('id')}")
        if "id" not in message:
            self.send_body(202, b"")
            return
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        method, params = message["method"], message.get("params") or {}
        if method == "initialize":
            reply["result"] = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                               "serverInfo": {"name": "intercept-test", "version": "1.0"}}
            self.send_body(200, json.dumps(reply).encode(), headers={"Mcp-Session-Id": "s-1"})
            return
        if method == "tools/list":
            reply["result"] = {"tools": TOOLS}
        elif method == "tools/call" and params.get("name") in ("stream", "ask"):
            self.stream(params["name"], reply)
            return
        elif method == "tools/call":
            args = params.get("arguments") or {}
            reply["result"] = {"content": [{"type": "text", "text": str(args.get("a", 0) + args.get("b", 0))}]}
        else:
            reply["error"] = {"code": -32601, "message": f"no method {method}"}
        self.send_body(200, json.dumps(reply).encode())

    def stream(self, tool: str, reply: dict[str, Any]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if tool == "stream":
            self.event({"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": "info", "data": "working"}})
            text = "streamed"
        else:
            self.event({"jsonrpc": "2.0", "id": "srv-1", "method": "elicitation/create",
                        "params": {"message": "colour?", "requestedSchema": {"type": "object", "properties": {}}}})
            with answered:
                answered.wait_for(lambda: "srv-1" in answers, timeout=10)
                text = "answer: " + json.dumps(answers.pop("srv-1", None), separators=(",", ":"))
        reply["result"] = {"content": [{"type": "text", "text": text}]}
        self.event(reply)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def do_GET(self) -> None:
        self.send_body(405, b"", headers={"Allow": "POST, DELETE"})

    def do_DELETE(self) -> None:
        self.send_body(200, b"")


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    Path(sys.argv[1]).write_text(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
