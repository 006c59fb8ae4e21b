"""Shared by the MCP Apps tests: the probe app server's command line, and two HTTP origins on 127.0.0.1 that
record every request they get (one the probe's policy blocks, one it allows)."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import warm_python

PROBE_SERVER = Path(__file__).with_name("probe_app_server.py")


@dataclass
class Origins:
    """``blocked`` and ``allowed``: ``http://127.0.0.1:PORT``; ``hits``: the path of every request each got."""

    blocked: str
    allowed: str
    hits: dict[str, list[str]] = field(default_factory=dict)


@contextmanager
def recording_origins() -> Iterator[Origins]:
    """Two HTTP servers on 127.0.0.1 (ports the kernel picks) that answer 200 "ok" (CORS open) and record."""
    servers = []
    hits: dict[str, list[str]] = {}
    lock = threading.Lock()

    class Recorder(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # the stdlib's name
            with lock:
                hits.setdefault(f"http://127.0.0.1:{self.server.server_port}", []).append(self.path)
            self.send_response(200)
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: object) -> None:
            pass

    for _ in range(2):
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    try:
        yield Origins(*(f"http://127.0.0.1:{s.server_port}" for s in servers), hits=hits)
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


def probe_argv(origins: Origins) -> list[str]:
    """The probe app server (the ``mcp`` SDK's MCP Apps extension), told which origin to try and which it may use."""
    return warm_python.command(PROBE_SERVER, origins.blocked, origins.allowed)
