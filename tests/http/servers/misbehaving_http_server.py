"""HTTP servers that get MCP wrong in one precise way each, for the inspector's HTTP transports to diagnose.

``python misbehaving_http_server.py MODE PORT_FILE`` binds 127.0.0.1 on an ephemeral port (never any other
address), writes the port number to PORT_FILE once it listens, and serves until killed. Standard library
only (``http.server``), HTTP/1.1 with keep-alive, SSE bodies sent with chunked transfer encoding as real
servers do.

Modes (see MODES): a plain static file server; a Streamable HTTP server that dies in the middle of a
response stream; one that checks the Accept header (406); one whose session expires after the handshake;
an HTTP+SSE server whose ``endpoint`` event points to another origin; one that never sends ``endpoint``;
one that answers a notification with 200 and a JSON body; one that fails with a 500 HTML page; one that
redirects ``/mcp/`` to ``/mcp``; one that freezes itself (SIGSTOP) when a tool is called; one that ends a
response stream after priming and answers on the resuming GET; one whose SSE GET error page is cut short;
one that sends a ``retry`` with a non-ASCII digit; one guarded by a bearer token and an Origin check; two whose
answers carry an array, object or null id; and
``good``, a minimal well-behaved Streamable HTTP server (the tests freeze it with SIGSTOP).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import threading
import uuid
from http.server import (
    BaseHTTPRequestHandler,
    SimpleHTTPRequestHandler,
    ThreadingHTTPServer,
)
from pathlib import Path
from typing import Any

PROTOCOL_VERSION = "2025-11-25"
#: The text of the 500 page, which the inspector must show as the body's snippet.
ERROR_PAGE_TEXT = "The database connection pool is exhausted (pool size 10)"
#: The notification the server that dies mid-stream sends before dying.
LAST_WORDS = "about to crash while answering"
#: The only token the guarded server accepts.
GOOD_TOKEN = "good-token-4d1f"
SESSION_NOT_FOUND = {"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": "Session not found"}}
TOOLS = [{"name": "echo", "description": "Return the message unchanged.",
          "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}}]


class Handler(BaseHTTPRequestHandler):
    """A minimal legacy (2025-11-25) Streamable HTTP server at ``/mcp``: JSON answers, 202 for notifications
    and responses, 405 for GET, 200 for DELETE. Modes override the hooks below."""

    protocol_version = "HTTP/1.1"
    server_version = "misbehaving-mcp/1.0"
    timeout = 60  # no handler thread outlives a vanished client for long
    mode = "good"
    sessions: set[str] = set()

    # -- plumbing --------------------------------------------------------------------------------------

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"{self.command} {self.path} -> {format % args}\n")
        sys.stderr.flush()

    def read_json(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        try:
            return json.loads(body)
        except ValueError:
            return None

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

    def send_json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        self.send_body(status, json.dumps(obj).encode("utf-8"), "application/json", headers)

    def start_sse(self, headers: dict[str, str] | None = None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.flush()

    def chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_chunks(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def hold_open(self) -> None:
        """Keep a response stream open until the client goes away (or the handler's timeout)."""
        try:
            while self.rfile.read(1):
                pass
        except OSError:
            pass
        self.close_connection = True

    # -- MCP -------------------------------------------------------------------------------------------

    def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        method = message.get("method")
        params = message.get("params") or {}
        if method == "initialize":
            result: Any = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {"tools": {}},
                           "serverInfo": {"name": f"misbehaving-{self.mode}", "version": "1.0.0"}}
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "tools/call":
            text = str((params.get("arguments") or {}).get("message", ""))
            result = {"content": [{"type": "text", "text": text}]}
        elif method == "ping":
            result = {}
        else:
            return {"jsonrpc": "2.0", "id": message.get("id"),
                    "error": {"code": -32601, "message": f"Method not found: {method}"}}
        return {"jsonrpc": "2.0", "id": message.get("id"), "result": result}

    def do_POST(self) -> None:
        message = self.read_json()
        if not isinstance(message, dict):
            self.send_json(400, {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
            return
        self.on_message(message)

    def on_message(self, message: dict[str, Any]) -> None:
        if "method" not in message or "id" not in message:
            self.on_notification_or_response(message)
            return
        headers = {}
        if message.get("method") == "initialize":
            session = uuid.uuid4().hex
            self.sessions.add(session)
            headers["Mcp-Session-Id"] = session
        self.send_json(200, self.answer(message), headers)

    def on_notification_or_response(self, message: dict[str, Any]) -> None:
        self.send_body(202, b"")

    def do_GET(self) -> None:
        self.send_body(405, b"", headers={"Allow": "POST, DELETE"})

    def do_DELETE(self) -> None:
        self.sessions.discard(self.headers.get("Mcp-Session-Id", ""))
        self.send_body(200, b"")


class DiesMidStream(Handler):
    """Answers tools/call with an SSE stream: one complete notification, half of the next event, then the
    whole process exits at once, leaving the request unanswered."""

    def on_message(self, message: dict[str, Any]) -> None:
        if message.get("method") != "tools/call":
            super().on_message(message)
            return
        self.start_sse()
        note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": LAST_WORDS}}
        self.chunk(b"event: message\ndata: " + json.dumps(note).encode() + b"\n\n")
        self.chunk(b'data: {"jsonrpc": "2.0", "id": ')
        os._exit(3)


class ChecksAccept(Handler):
    """406 unless Accept names both application/json and text/event-stream (as the SDKs check); ``/strict``
    answers 406 whatever the client accepts, as a server with a stricter rule would."""

    def do_POST(self) -> None:
        accept = self.headers.get("Accept", "")
        if self.path.startswith("/strict") or "application/json" not in accept or "text/event-stream" not in accept:
            self.read_json()
            self.send_json(406, {"jsonrpc": "2.0", "id": None, "error": {
                "code": -32000,
                "message": "Not Acceptable: Client must accept both application/json and text/event-stream"}})
            return
        super().do_POST()


class ExpiringSession(Handler):
    """The session id lives for the handshake only: after ``notifications/initialized`` it is forgotten, and
    every request carrying it gets 404, as from a server that restarted."""

    def on_message(self, message: dict[str, Any]) -> None:
        session = self.headers.get("Mcp-Session-Id")
        if message.get("method") == "initialize":
            super().on_message(message)
            return
        if session is None:
            self.send_json(400, {"jsonrpc": "2.0", "id": None, "error": {
                "code": -32000, "message": "Bad Request: No valid session ID provided"}})
            return
        if session not in self.sessions:
            self.send_json(404, SESSION_NOT_FOUND)
            return
        if message.get("method") == "notifications/initialized":
            self.sessions.discard(session)  # expires right after the handshake
        super().on_message(message)

    def do_GET(self) -> None:
        self.send_json(404, SESSION_NOT_FOUND)


class SseServer(Handler):
    """HTTP+SSE (2024-11-05) at ``/sse``; ``endpoint_event`` says what the stream opens with."""

    def endpoint_event(self) -> bytes:
        raise NotImplementedError

    def do_GET(self) -> None:
        if not self.path.startswith("/sse"):
            self.send_body(404, b"not found", "text/plain")
            return
        self.start_sse()
        self.chunk(self.endpoint_event())
        self.hold_open()

    def do_POST(self) -> None:
        self.read_json()
        self.send_body(405, b"", headers={"Allow": "GET"})


class CrossOriginEndpoint(SseServer):
    """The ``endpoint`` event names another host (127.0.0.2) on the same port: a client must not follow it."""

    def endpoint_event(self) -> bytes:
        port = self.server.server_address[1]
        return f"event: endpoint\ndata: http://127.0.0.2:{port}/x?sessionId=stolen\n\n".encode()


class NoEndpoint(SseServer):
    """The stream opens, carries a keep-alive comment and an unrelated event, and never names an endpoint."""

    def endpoint_event(self) -> bytes:
        return b": keep-alive\n\nevent: hello\ndata: no endpoint here\n\n"


class JsonForNotification(Handler):
    """Answers notifications with 200 and a JSON body, where 202 Accepted with no body is due."""

    def on_notification_or_response(self, message: dict[str, Any]) -> None:
        self.send_json(200, {"status": "accepted"})


class HtmlError(Handler):
    """Every POST and GET fails with 500 and an HTML error page."""

    PAGE = (f"<!DOCTYPE html><html><head><title>500 Internal Server Error</title><style>h1 {{color: red}}</style>"
            f"</head><body><h1>Internal Server Error</h1><p>{ERROR_PAGE_TEXT}</p></body></html>").encode()

    def do_POST(self) -> None:
        self.read_json()
        self.send_body(500, self.PAGE, "text/html; charset=utf-8")

    def do_GET(self) -> None:
        self.send_body(500, self.PAGE, "text/html; charset=utf-8")


class Redirects(Handler):
    """``/mcp/`` answers 307 to ``/mcp`` (as Starlette-based servers do for a trailing slash); ``/mcp`` works."""

    def redirect(self) -> bool:
        if self.path.rstrip("/") == "/mcp" and self.path.endswith("/"):
            self.read_json()
            self.send_body(307, b"", headers={"Location": "/mcp"})
            return True
        return False

    def do_POST(self) -> None:
        if not self.redirect():
            super().do_POST()

    def do_GET(self) -> None:
        if not self.redirect():
            super().do_GET()

    def do_DELETE(self) -> None:
        if not self.redirect():
            super().do_DELETE()


class FreezesOnToolCall(Handler):
    """Answers the handshake, then stops its own process (SIGSTOP) when a tool is called: the connection
    stays open and nothing ever comes back. The test's teardown sends SIGCONT and SIGKILL."""

    def on_message(self, message: dict[str, Any]) -> None:
        if message.get("method") == "tools/call":
            signal.raise_signal(signal.SIGSTOP)  # this very thread stops, and with it the whole process
            threading.Event().wait()  # and if it were ever continued, it would still never answer
        super().on_message(message)


class ResumesAfterClose(Handler):
    """Answers tools/call with an SSE stream that only primes (an id, empty data, a short retry) and then
    ends, as 2025-11-25 allows; the answer comes on the GET that resumes after that id (Last-Event-ID).
    A GET without Last-Event-ID (the standalone stream) gets 405."""

    pending: dict[str, dict[str, Any]] = {}

    def on_message(self, message: dict[str, Any]) -> None:
        if message.get("method") != "tools/call":
            super().on_message(message)
            return
        event_id = f"prime-{uuid.uuid4().hex[:8]}"
        self.pending[event_id] = self.answer(message)
        self.start_sse()
        self.chunk(f"id: {event_id}\nretry: 50\ndata:\n\n".encode())
        self.end_chunks()

    def do_GET(self) -> None:
        last = self.headers.get("Last-Event-ID")
        if last is None:
            super().do_GET()
            return
        answer = self.pending.pop(last, None)
        if answer is None:
            self.send_body(404, b"", headers={"X-Unknown-Event-Id": last})
            return
        self.start_sse()
        self.chunk(b"id: " + last.encode() + b"-answer\nevent: message\ndata: " + json.dumps(answer).encode() + b"\n\n")
        self.end_chunks()


class ErrorPageCutShort(SseServer):
    """The GET of the event stream is answered 503 with a body that stops half-way: the Content-Length
    promises more bytes than ever come, and the connection closes."""

    def do_GET(self) -> None:
        self.send_response(503)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", "5000")
        self.end_headers()
        self.wfile.write(b"<html><body><h1>Service Unavailable</h1><p>the backend is restart")
        self.wfile.flush()
        self.close_connection = True


class OddRetry(Handler):
    """Answers tools/call with an SSE stream whose first event has ``retry: ²`` (a digit, but not an ASCII one:
    the field must be ignored) before the answer."""

    def on_message(self, message: dict[str, Any]) -> None:
        if message.get("method") != "tools/call":
            super().on_message(message)
            return
        self.start_sse()
        self.chunk("retry: \u00b2\ndata: ".encode() + json.dumps(self.answer(message)).encode() + b"\n\n")
        self.end_chunks()


class OddIdsOnStream(Handler):
    """Answers tools/list with an SSE stream whose first two events are responses with an array id (``[id]``)
    and an object id (``{"id": id}``), which MCP forbids, before the real answer."""

    def on_message(self, message: dict[str, Any]) -> None:
        if message.get("method") != "tools/list":
            super().on_message(message)
            return
        answer = self.answer(message)
        self.start_sse()
        for wrong in ([message["id"]], {"id": message["id"]}, message["id"]):
            self.chunk(b"event: message\ndata: " + json.dumps({**answer, "id": wrong}).encode() + b"\n\n")
        self.end_chunks()


class OddIdAnswer(Handler):
    """Answers tools/call with one JSON body whose id is not the request's: ``[id]`` at /array, ``{"id": id}``
    at /object, null with an Invalid Request error at /null (what JSON-RPC answers when it cannot read the id)."""

    def on_message(self, message: dict[str, Any]) -> None:
        if message.get("method") != "tools/call":
            super().on_message(message)
            return
        msg_id = message.get("id")
        if self.path.startswith("/null"):
            self.send_json(200, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}})
            return
        wrong = [msg_id] if self.path.startswith("/array") else {"id": msg_id}
        self.send_json(200, {**self.answer(message), "id": wrong})


class Guarded(Handler):
    """Checks Origin (403 unless absent or this server's own) and wants ``Authorization: Bearer GOOD_TOKEN``
    (401 with a WWW-Authenticate challenge naming its resource metadata otherwise)."""

    def do_POST(self) -> None:
        own = f"http://127.0.0.1:{self.server.server_address[1]}"
        origin = self.headers.get("Origin")
        if origin is not None and origin != own:
            self.read_json()
            self.send_json(403, {"jsonrpc": "2.0", "id": None,
                                 "error": {"code": -32000, "message": "Forbidden origin"}})
            return
        if self.headers.get("Authorization") != f"Bearer {GOOD_TOKEN}":
            self.read_json()
            challenge = f'Bearer resource_metadata="{own}/.well-known/oauth-protected-resource"'
            self.send_body(401, b"", headers={"WWW-Authenticate": challenge})
            return
        super().do_POST()


def static_handler() -> type[BaseHTTPRequestHandler]:
    """A plain static file server over an empty folder: 404 to every GET, 501 to POST (http.server's own)."""
    root = tempfile.mkdtemp(prefix="static-")

    class Static(SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=root, **kwargs)

        def log_message(self, format: str, *args: Any) -> None:
            sys.stderr.write(f"{self.command} {self.path} -> {format % args}\n")

    return Static


MODES: dict[str, type[BaseHTTPRequestHandler]] = {
    "good": Handler,
    "dies-mid-stream": DiesMidStream,
    "checks-accept": ChecksAccept,
    "expiring-session": ExpiringSession,
    "cross-origin-endpoint": CrossOriginEndpoint,
    "no-endpoint": NoEndpoint,
    "json-for-notification": JsonForNotification,
    "html-500": HtmlError,
    "redirect": Redirects,
    "freezes-on-tool-call": FreezesOnToolCall,
    "resumes-after-close": ResumesAfterClose,
    "error-page-cut-short": ErrorPageCutShort,
    "odd-retry": OddRetry,
    "guarded": Guarded,
    "odd-ids-on-stream": OddIdsOnStream,
    "odd-id-answer": OddIdAnswer,
}


def main() -> None:
    mode, port_file = sys.argv[1], Path(sys.argv[2])
    if mode == "static":
        handler = static_handler()
    else:
        handler = type(MODES[mode].__name__, (MODES[mode],), {"mode": mode, "sessions": set()})
    serve(handler, port_file)


def serve(handler: type[BaseHTTPRequestHandler], port_file: Path) -> None:
    """Serve on 127.0.0.1, an ephemeral port, written to ``port_file`` once listening (atomically)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    tmp = port_file.with_name(port_file.name + ".tmp")
    tmp.write_text(str(httpd.server_address[1]), encoding="ascii")
    tmp.replace(port_file)
    httpd.serve_forever()


if __name__ == "__main__":
    main()
