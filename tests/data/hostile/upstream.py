"""python upstream.py PORT LOG: Streamable HTTP MCP server; tools/call NAME picks the behaviour:
ok, hang (never answers), bigjson (1 GiB body, Content-Length), junksse (an endless SSE stream of junk bytes),
slowsse (one byte a second), hdrs (echoes the request headers it got). Every request's headers are logged."""
import json, sys, time, os, select
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
PORT, LOG = int(sys.argv[1]), sys.argv[2]
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def reply(self, body, ctype="application/json", status=200, extra=()):
        self.send_response(status); self.send_header("Content-Type", ctype); self.send_header("Content-Length", str(len(body)))
        self.send_header("Mcp-Session-Id", "s1")
        for k, v in extra: self.send_header(k, v)
        self.end_headers(); self.wfile.write(body)
    def do_GET(self):
        with open(LOG, "a") as f: f.write(f"GET {self.path} {dict(self.headers)}\n")
        self.send_response(405); self.send_header("Content-Length", "0"); self.end_headers()
    def do_DELETE(self):
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n)
        with open(LOG, "a") as f: f.write(f"POST {self.path} len={len(raw)} {dict(self.headers)} {raw[:150]!r}\n")
        try: msg = json.loads(raw)
        except Exception: return self.reply(b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}', status=400)
        if not isinstance(msg, dict) or "id" not in msg:
            self.send_response(202); self.send_header("Content-Length", "0"); self.end_headers(); return
        m, mid = msg.get("method"), msg["id"]
        if m == "initialize":
            return self.reply(json.dumps({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": msg["params"]["protocolVersion"],
                "capabilities": {"tools": {}}, "serverInfo": {"name": "up", "version": "1"}}}).encode())
        if m == "tools/list":
            return self.reply(json.dumps({"jsonrpc": "2.0", "id": mid, "result": {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in ("ok", "hang", "bigjson", "junksse", "slowsse", "hdrs")]}}).encode())
        name = (msg.get("params") or {}).get("name") if m == "tools/call" else "ok"
        ok = {"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": "ok"}]}}
        if name == "hang":  # never answers; logs when its client leaves (the copy's one change)
            select.select([self.connection], [], [], 3600)
            with open(LOG, "a") as f: f.write(f"LEFT {self.path}\n")
            return
        if name == "bigjson":
            self.send_response(200); self.send_header("Content-Type", "application/json")
            head = json.dumps({"jsonrpc": "2.0", "id": mid, "result": {"content": [], "pad": ""}}).encode()[:-3]
            self.send_header("Content-Length", str(len(head) + (1 << 30) + 3)); self.end_headers()
            try:
                self.wfile.write(head); c = b"x" * (1 << 20)
                for _ in range(1024): self.wfile.write(c)
                self.wfile.write(b'"}}')
            except OSError: pass
            return
        if name in ("junksse", "slowsse"):
            self.send_response(200); self.send_header("Content-Type", "text/event-stream"); self.end_headers()
            try:
                if name == "junksse":
                    junk = os.urandom(1 << 16)
                    for _ in range(20000): self.wfile.write(junk)   # 1.3 GB of junk, no event ever completes
                else:
                    for _ in range(3600): self.wfile.write(b"d"); self.wfile.flush(); time.sleep(1)
            except OSError: pass
            self.close_connection = True
            return
        if name == "hdrs":
            ok["result"]["content"][0]["text"] = json.dumps(dict(self.headers))
        return self.reply(json.dumps(ok).encode(), extra=[("X-Up", "v")])
# This copy's second change: a listen backlog of 64, not socketserver's 5. Twenty clients arriving at once overflowed
# 5 (the kernel's ListenOverflows counted 14 a run), and each dropped handshake waited out TCP's 1-3-7 s retries.
ThreadingHTTPServer.request_queue_size = 64
srv = ThreadingHTTPServer(("127.0.0.1", PORT), H); srv.daemon_threads = True; srv.serve_forever()
