"""HTTP servers for the HTTP rows of the fault matrix (tests/faults/test_http_faults.py).

``python http_fault_server.py MODE PORT_FILE [--interval S] [--marker PATH]`` binds 127.0.0.1 on an
ephemeral port (never any other address), writes the port number to PORT_FILE once it listens, and serves
until killed. Standard library only. The MCP side is the minimal Streamable HTTP server of
tests/http/servers/misbehaving_http_server.py, imported, not copied.

Modes:

- ``dribble``: answers ``initialize`` with an SSE stream that sends its answer one byte every ``--interval``
  seconds (default 1, as a server or proxy that trickles bytes): the answer is padded so that it would take
  hours to complete. Everything else is answered at once.
- ``streams-then-waits``: answers the handshake and ``tools/list``; answers ``tools/call`` with an SSE stream
  that carries one notification, then touches ``--marker`` and keeps the stream open without answering
  (the test kills the server there: a server killed in the middle of a response stream).
- ``plain``: a plain-HTTP server (no TLS); whatever it cannot parse, such as a TLS hello, gets
  ``400 Bad Request`` in clear text, as most HTTP servers answer.
- ``hangs-up``: a plain-HTTP port that closes the connection, without a word, on anything that is not HTTP
  (a TLS hello).
"""

from __future__ import annotations

import argparse
import json
import socket
import socketserver
import sys
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "http" / "servers"))

import misbehaving_http_server as base

#: Text of the notification the stream carries before the server is killed.
LAST_WORDS = "working on it"
#: How long the answer a dribbling server trickles is, in bytes (hours at one byte a second).
DRIBBLE_PADDING = 100_000


class Handler(base.Handler):
    """The base server, with a request log that survives requests it could not parse (a TLS hello has no
    path), so such a request gets the base class's clear-text 400 instead of a dropped connection."""

    interval = 1.0
    marker: Path | None = None

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"{getattr(self, 'command', None)} {getattr(self, 'path', None)} -> {format % args}\n")
        sys.stderr.flush()


class Dribble(Handler):
    def on_message(self, message: dict[str, Any]) -> None:
        if message.get("method") != "initialize":
            super().on_message(message)
            return
        answer = self.answer(message)
        answer["padding"] = " " * DRIBBLE_PADDING  # never finished within any test's bound
        payload = b"event: message\ndata: " + json.dumps(answer).encode() + b"\n\n"
        self.start_sse()
        try:
            for index in range(len(payload)):
                self.chunk(payload[index:index + 1])
                time.sleep(self.interval)  # the server's own pace: one byte, then nothing for a while
        except OSError:
            pass  # the client gave up on the stream
        self.close_connection = True


class StreamsThenWaits(Handler):
    def on_message(self, message: dict[str, Any]) -> None:
        if message.get("method") != "tools/call":
            super().on_message(message)
            return
        self.start_sse()
        note = {"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"level": "info", "data": LAST_WORDS}}
        self.chunk(b"event: message\ndata: " + json.dumps(note).encode() + b"\n\n")
        if self.marker is not None:
            self.marker.write_text("streaming", encoding="ascii")
        self.hold_open()


class HangUp(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        self.request.recv(4096)  # a TLS hello, or anything: no answer
        self.request.shutdown(socket.SHUT_RDWR)


MODES: dict[str, type[Handler]] = {"dribble": Dribble, "streams-then-waits": StreamsThenWaits, "plain": Handler}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=[*MODES, "hangs-up"])
    parser.add_argument("port_file", type=Path)
    parser.add_argument("--interval", type=float, default=1.0, help="dribble: seconds between two bytes")
    parser.add_argument("--marker", type=Path, help="streams-then-waits: touched once the stream is open")
    args = parser.parse_args()
    server: socketserver.TCPServer
    if args.mode == "hangs-up":
        server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), HangUp)
    else:
        handler = type(MODES[args.mode].__name__, (MODES[args.mode],),
                       {"mode": args.mode, "sessions": set(), "interval": args.interval, "marker": args.marker})
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    tmp = args.port_file.with_name(args.port_file.name + ".tmp")
    tmp.write_text(str(server.server_address[1]), encoding="ascii")
    tmp.replace(args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
