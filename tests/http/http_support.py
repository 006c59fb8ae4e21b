"""Helpers for the HTTP transport tests: servers as subprocesses on 127.0.0.1, the CLI, and capture queries.

A plain module (the fixtures are in conftest.py) so that test modules can import it by name.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from helpers import kill_group
from integration.integration_support import (
    CLI_TIMEOUT,
    Recorded,
    run_inspector,
    write_messages,
)

from inspector.core.capture import Capture
from inspector.core.wire.events import Event, Kind

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
#: Bound on a server coming up: Python imports (the SDK, uvicorn) or node loading express.
STARTUP_TIMEOUT = 30.0
#: How long each bounded wait for the process to exit lasts between two checks of the startup condition.
POLL = 0.05
LOOPBACK_HEX = "0100007F"  #: 127.0.0.1 as /proc/net/tcp writes it


# -- servers as processes ---------------------------------------------------------------------------------


@dataclass
class ServerProcess:
    """A server under test: its process (leader of its own process group), port and log file."""

    name: str
    #: None for a server another test process started (tests/shared_servers.py)
    process: subprocess.Popen[bytes] | None
    port: int
    log: Path
    stopped: bool = field(default=False)

    def url(self, path: str = "/mcp") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def log_text(self) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""


def free_port() -> int:
    """A port that was free a moment ago on 127.0.0.1 (the kernel's choice for port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def accepts_connections(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
    except OSError:
        return False


def read_port_file(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def wait_for(process: subprocess.Popen[bytes], condition: Callable[[], bool], timeout: float, what: str,
             log: Path) -> None:
    """Until ``condition()`` holds, wait for the process to exit for at most POLL seconds at a time.

    Fails the test if the process exits first (with its log) or after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}\n{_tail(log)}")
        try:
            code = process.wait(timeout=POLL)
        except subprocess.TimeoutExpired:
            continue
        raise ServerExited(f"{what}: the server exited with code {code} first\n{_tail(log)}")


class ServerExited(Exception):
    pass


def _tail(log: Path) -> str:
    try:
        return "server log:\n" + log.read_text(encoding="utf-8", errors="replace")[-3000:]
    except OSError:
        return "(no server log)"


def launch(name: str, argv: list[str], log: Path, *, env: dict[str, str] | None = None, port: int | None = None,
           port_file: Path | None = None, timeout: float = STARTUP_TIMEOUT) -> ServerProcess:
    """Start a server in a new process group; return once it accepts connections on 127.0.0.1.

    The port is either given (``port``) or written by the server to ``port_file``."""
    assert (port is None) != (port_file is None)
    if port_file is not None:
        port_file.unlink(missing_ok=True)
    with log.open("wb") as sink:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                                   start_new_session=True, env={**os.environ, **(env or {})}, cwd=HERE)
    server = ServerProcess(name, process, port or 0, log)
    try:
        if port_file is not None:
            wait_for(process, lambda: read_port_file(port_file) is not None, timeout, f"{name} to write its port",
                     log)
            server.port = read_port_file(port_file) or 0
        wait_for(process, lambda: accepts_connections(server.port), timeout,
                 f"{name} to accept connections on 127.0.0.1:{server.port}", log)
    except BaseException:
        stop(server)
        raise
    return server


def stop(server: ServerProcess) -> None:
    """SIGCONT (in case it was frozen) and SIGKILL to the server's whole process group; reap it. A server another
    test process started (no ``process``) is left to tests/shared_servers.py."""
    if server.stopped or server.process is None:
        return
    server.stopped = True
    kill_group(server.process.pid)
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{server.name} (pid {server.process.pid}) did not die after SIGKILL within 10 s")


def launch_on_free_port(name: str, make_argv: Callable[[int], list[str]], log: Path, attempts: int = 3
                        ) -> ServerProcess:
    """For servers that must be told their port: pick a free one; if another process took it in the
    meantime (the server exits at once), try again with a new one."""
    for attempt in range(1, attempts + 1):
        port = free_port()
        try:
            return launch(name, make_argv(port), log, port=port)
        except ServerExited as exc:
            if attempt == attempts or "address already in use" not in str(exc).lower():
                pytest.fail(str(exc))
    raise AssertionError("unreachable")




def listening_addresses(port: int) -> list[str]:
    """Local addresses (hex, as in /proc/net/tcp*) of the sockets listening on ``port``."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            address, _, hex_port = fields[1].rpartition(":")
            if int(hex_port, 16) == port and fields[3] == "0A":  # 0A: LISTEN
                found.append(address)
    return found


def start_misbehaving(mode: str, directory: Path) -> ServerProcess:
    """servers/misbehaving_http_server.py in ``mode``, its port file and log in ``directory``; the caller
    stops it (:func:`stop`)."""
    directory.mkdir(parents=True, exist_ok=True)
    return launch(f"misbehaving server ({mode})",
                  [sys.executable, str(SERVERS / "misbehaving_http_server.py"), mode, str(directory / "port")],
                  directory / "server.log", port_file=directory / "port")


def start_negotiating(directory: Path, *options: str) -> ServerProcess:
    """servers/negotiating_http_server.py with ``options`` (``--supported``, ``--reject``), its port file and log
    in ``directory``; the caller stops it (:func:`stop`)."""
    directory.mkdir(parents=True, exist_ok=True)
    return launch("negotiating server",
                  [sys.executable, str(SERVERS / "negotiating_http_server.py"), str(directory / "port"), *options],
                  directory / "server.log", port_file=directory / "port")


# -- the CLI ----------------------------------------------------------------------------------------------


def record_url(directory: Path, name: str, url: str, *options: str, send: list[dict[str, Any]] | None = None,
               timeout: float = CLI_TIMEOUT) -> Recorded:
    """Run ``mcp-inspector record --url URL --out directory/NAME.jsonl [--send ...] OPTIONS`` (bounded)."""
    out = directory / f"{name}.jsonl"
    args = ["record", "--url", url, "--out", str(out)]
    if send is not None:
        args += ["--send", str(write_messages(directory / f"{name}.send.jsonl", send))]
    args += list(options)
    done = run_inspector(args, timeout=timeout)
    return Recorded(done.returncode, done.stdout, done.stderr, out, ["mcp-inspector", *args])


def show(path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """``mcp-inspector show PATH OPTIONS``, bounded."""
    return run_inspector(["show", str(path), *options], timeout=CLI_TIMEOUT)


# -- reading captures -------------------------------------------------------------------------------------


def http_events(capture: Capture, *, method: str | None = None, ended: bool = False) -> list[Event]:
    """The ``http`` events of exchanges (``ended``: the ``phase: end`` events of SSE bodies instead)."""
    out = []
    for event in capture.events:
        if event.kind != Kind.HTTP or (event.data.get("phase") == "end") != ended:
            continue
        if method is not None and event.data.get("method") != method:
            continue
        out.append(event)
    return out


def http_exchange(capture: Capture, number: int) -> Event:
    """The ``http`` event of exchange ``number`` (not its end event)."""
    found = [e for e in http_events(capture) if e.data.get("exchange") == number]
    assert len(found) == 1, f"expected one http event for exchange {number}, got {found}"
    return found[0]


def header(headers: dict[str, str], name: str) -> str | None:
    """A header's value from a recorded header dict, whatever the case of its name."""
    for key, value in headers.items():
        if key.lower() == name.lower():
            return value
    return None


def notes(capture: Capture) -> list[str]:
    return [str(e.data.get("text", "")) for e in capture.events if e.kind == Kind.NOTE]


def sse_events(capture: Capture) -> list[Event]:
    return [e for e in capture.events if e.kind == Kind.SSE]


def result_text(event: Event) -> str:
    """The text blocks of a tools/call result, joined."""
    result = event.json()["result"]
    return "".join(block.get("text", "") for block in result.get("content", []) if isinstance(block, dict))


def one_sentence(stderr: str) -> str:
    """The CLI's error: exactly one ``mcp-inspector:`` line and nothing else (no traceback)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("mcp-inspector: "), f"not one sentence on stderr: {stderr!r}"
    return lines[0]
