"""A Streamable HTTP server (standard library only) whose answer to tools/list is one SSE event of MB
megabytes, sent in 1 MiB pieces. Usage: python big_sse_server.py MB PORTFILE (binds 127.0.0.1)."""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MEGABYTES = int(sys.argv[1])


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        if "id" not in message:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if message.get("method") == "initialize":
            result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                      "serverInfo": {"name": "big-sse", "version": "1"}}
            return self.answer(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode())
        if message.get("method") != "tools/list":
            error = {"code": -32601, "message": "Method not found"}
            return self.answer(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}).encode())
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        head = b'event: message\ndata: {"jsonrpc":"2.0","id":' + json.dumps(message["id"]).encode() + \
            b',"result":{"tools":[],"pad":"'
        try:
            self.wfile.write(head)
            piece = b"x" * (1 << 20)
            for _ in range(MEGABYTES):
                self.wfile.write(piece)
            self.wfile.write(b'"}}\n\n')
            self.wfile.flush()
        except OSError:
            pass
        self.close_connection = True


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(sys.argv[2], "w") as handle:
    handle.write(str(server.server_port))
server.serve_forever()
