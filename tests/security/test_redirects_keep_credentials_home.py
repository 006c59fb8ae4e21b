"""A server that redirects elsewhere gets none of the user's credentials sent there (issue 39, section 6): the
hostile server of the adversarial pass (tests/data/hostile/tlssrv.py, plain http) answers every POST with 307 to
another origin, whose server records the headers it received; ``tools --url`` and ``doctor --url`` run as a user
runs them, with ``--bearer`` and ``-H``. A redirect to ``file:`` or ``smb:`` is refused with one sentence.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, cli, kill_group, wait_until

from inspector.core.exits import EXIT_SERVER_FAILED

pytestmark = [pytest.mark.integration]

TLSSRV = ROOT / "tests" / "data" / "hostile" / "tlssrv.py"
SECRETS = {"bearer": "bearer-secret-39d4", "header": "key-secret-39e5"}
CREDENTIALS = ["--bearer", SECRETS["bearer"], "-H", f"X-Api-Key: {SECRETS['header']}"]
#: Bound on the hostile server accepting connections, and on each command.
STARTUP = 30.0
COMMAND = 60.0
#: How often a test server's loop looks for its shutdown (the standard library's 0.5 s, per server, adds up).
SHUTDOWN_POLL = 0.02


class Recorder(ThreadingHTTPServer):
    """The other origin: records the headers of every request and answers 404."""

    daemon_threads = True

    def __init__(self) -> None:
        self.seen: list[dict[str, str]] = []
        super().__init__(("127.0.0.1", 0), _Record)


class _Record(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Recorder

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.seen.append(dict(self.headers))
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_DELETE = do_POST


@contextmanager
def recorder() -> Iterator[Recorder]:
    server = Recorder()
    threading.Thread(target=server.serve_forever, args=(SHUTDOWN_POLL,), daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
    except OSError:
        return False


def _started(process: subprocess.Popen[bytes], port: int) -> bool:
    """Whether the server listens on ``port`` (False: it exited, the port taken meanwhile)."""
    wait_until(lambda: _accepts(port) or process.poll() is not None, STARTUP, "the hostile server to listen")
    return process.poll() is None


@contextmanager
def hostile(mode: str, tmp_path: Path, redirect_port: int = 0) -> Iterator[str]:
    """tlssrv.py MODE on a free port (plain http); yields its URL."""
    for _ in range(3):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        with (tmp_path / f"tlssrv-{port}.log").open("wb") as log:
            process = subprocess.Popen([sys.executable, str(TLSSRV), str(port), "-", "-", mode], stdout=log,
                                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                                       env={**os.environ, "REDIRECT_PORT": str(redirect_port)})
        try:
            if _started(process, port):
                yield f"http://127.0.0.1:{port}/mcp"
                return
        finally:
            kill_group(process.pid)
            process.wait(timeout=STARTUP)
    pytest.fail("the hostile server could not listen on a free port")


def received_secrets(seen: list[dict[str, str]]) -> list[str]:
    text = json.dumps(seen)
    return [name for name, secret in SECRETS.items() if secret in text]


def other_origin(command: str) -> object:
    return pytest.param(command, marks=pytest.mark.report(
        "security", f"a server redirecting (307) to another origin gets no credentials sent there ({command})",
        surface="CLI"))


@pytest.mark.parametrize("command", [other_origin("tools"), other_origin("doctor")])
def test_a_redirect_to_another_origin_gets_neither_the_bearer_nor_the_users_headers(command, tmp_path, report):
    with recorder() as other, hostile("redirect-other", tmp_path, other.server_address[1]) as url:
        done = cli(command, "--url", url, *CREDENTIALS, timeout=COMMAND)
    assert "Traceback" not in done.stderr
    assert other.seen, f"the redirect was not followed: {done.stdout}{done.stderr}"
    assert received_secrets(other.seen) == []
    assert not any(name.lower() in ("authorization", "x-api-key") for seen in other.seen for name in seen)
    if command == "doctor":
        lines = done.stdout.splitlines()
        at = next(n for n, line in enumerate(lines) if line.split()[1:2] == ["http"])
        fix = lines[at + 1].strip()
        assert fix.startswith("fix: Name the URL the server redirects to (http://127.0.0.1:") and \
            "only if you trust its origin" in fix, done.stdout
        report.saw(fix.removeprefix("fix: "))
    else:
        report.saw(f"{len(other.seen)} requests reached the other origin, none with the bearer or -H values")


def refused(mode: str, location: str) -> object:
    scheme = location.split(":", 1)[0]
    return pytest.param(mode, location, marks=pytest.mark.report(
        "security", f"a server redirecting to a {scheme}: URL is refused with one sentence", surface="CLI"))


@pytest.mark.parametrize(("mode", "location"), [refused("redirect-file", "file:///etc/passwd"),
                                                refused("redirect-smb", "smb://evil/x")])
def test_a_redirect_to_a_file_or_smb_url_is_refused_and_never_advised(mode, location, tmp_path, report):
    with hostile(mode, tmp_path) as url:
        tools = cli("tools", "--url", url, *CREDENTIALS, "--transport", "streamable-http", timeout=COMMAND)
        doctor = cli("doctor", "--url", url, timeout=COMMAND)
    scheme = location.split(":", 1)[0]
    sentence = (f"POST {url}: the server redirected (307) to {location}, a {scheme}: URL, not http or https, so "
                "mcp-inspector does not follow it")
    assert tools.returncode == EXIT_SERVER_FAILED, tools.stderr
    assert tools.stderr.strip() == f"mcp-inspector: {sentence}"
    assert "use it directly" not in doctor.stdout and f"Use {location}" not in doctor.stdout
    assert f"failed   http       the server redirected (307) to {location}" in doctor.stdout
    report.saw(sentence)
