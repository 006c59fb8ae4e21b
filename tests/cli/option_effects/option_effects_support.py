"""Shared by the option-to-effect tests (imported as ``option_effects_support``; pytest puts this folder on the
path): the probe servers, what they saw, and the commands run against them the way a user runs them.

Every command is a real ``mcp-inspector`` process (tests/warm_cli.py through ``helpers.cli``) against a real
server process; what a test asserts is what the server received (its log) or what the command wrote (its
capture, report or output), never the parsed arguments.
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import warm_cli
import warm_python
from helpers import ROOT, cli, kill_group, wait_until

from inspector.core.capture import Capture, read_capture
from inspector.core.wire.events import Event, Kind

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
PROBE_SCRIPT = SERVERS / "probe_server.py"
HTTP_SCRIPT = SERVERS / "probe_http_server.py"
OAUTH_SCRIPT = HERE.parent.parent / "auth" / "servers" / "oauth_server.py"
#: Bound on one command run; each finishes in well under a second or two unless it is broken.
RUN_TIMEOUT = 60.0
#: Bound on a server coming up (a Python start-up on a loaded machine).
STARTUP_TIMEOUT = 30.0
#: The commands every target option (the ways to reach a server) is proven through.
TARGET_COMMANDS = ("record", "call", "replay", "check")
#: Tokens live in this process's memory only, never in a person's keyring.
MEMORY_TOKENS = {"MCP_INSPECTOR_TOKEN_STORE": "memory"}


# -- the stdio probe server --------------------------------------------------------------------------------


def probe(log: Path, *args: str) -> list[str]:
    """The command line of the stdio probe server, logging to ``log``."""
    return [sys.executable, str(PROBE_SCRIPT), str(log), *args]


@dataclass
class ProbeLog:
    """What a probe server wrote to its log: its start (cwd, PROBE_* variables) and every message it read."""

    path: Path

    def entries(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines() if line.strip()]

    def starts(self) -> list[dict[str, Any]]:
        return [e["start"] for e in self.entries() if "start" in e]

    def start(self) -> dict[str, Any]:
        """The start of the server (the first, when a command started it more than once)."""
        starts = self.starts()
        assert starts, f"the probe server never started (no start in {self.path})"
        return starts[0]

    def got(self) -> list[dict[str, Any]]:
        return [e["got"] for e in self.entries() if "got" in e]

    def methods(self) -> list[str]:
        return [m["method"] for m in self.got() if isinstance(m.get("method"), str)]

    def calls(self) -> list[str]:
        """The tools called, in order."""
        return [m["params"]["name"] for m in self.got() if m.get("method") == "tools/call"
                and isinstance(m.get("params"), dict) and isinstance(m["params"].get("name"), str)]

    def asked_revisions(self) -> list[str]:
        return [m["params"].get("protocolVersion") for m in self.got() if m.get("method") == "initialize"]


# -- what a command wrote ----------------------------------------------------------------------------------


def capture_text(paths: list[Path]) -> str:
    return "".join(path.read_text(encoding="utf-8") for path in paths)


def events_of(paths: list[Path]) -> list[Event]:
    return [event for path in paths for event in read_capture(path).events]


def messages(capture: Capture | list[Event], direction: str | None = None, method: str | None = None
             ) -> list[Event]:
    events = capture.events if isinstance(capture, Capture) else capture
    return [e for e in events if e.kind == Kind.MESSAGE and (direction is None or e.dir == direction)
            and (method is None or e.method == method)]


def write_messages(path: Path, objects: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")
    return path


# -- the commands, run as a user runs them -----------------------------------------------------------------


@dataclass
class Run:
    """One command run: its exit status and output, the captures it wrote, and how long it took."""

    command: str
    returncode: int
    stdout: str
    stderr: str
    elapsed: float
    captures: list[Path] = field(default_factory=list)
    report: Path | None = None

    def explain(self) -> str:
        return f"{self.command}: exit {self.returncode}\nstdout: {self.stdout[-2000:]}\nstderr: {self.stderr[-2000:]}"

    @property
    def said(self) -> str:
        """stdout and stderr together: replay says some things on stdout, the others on stderr."""
        return self.stdout + self.stderr


def inspector(*args: str, env: dict[str, str] | None = None, timeout: float = RUN_TIMEOUT
              ) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = cli(*args, env=env, timeout=timeout)
    return done, time.monotonic() - started


def run_command(command: str, folder: Path, target: list[str], *, replay_source: Path,
                send: list[dict[str, Any]] | None = None, tool: tuple[str, ...] = ("echo",),
                env: dict[str, str] | None = None) -> Run:
    """``command`` (one of :data:`TARGET_COMMANDS`) against ``target`` (its options, ``-- CMD`` included),
    writing its capture(s) in ``folder``: ``record`` sends ``send`` (default: tools/list), ``call`` calls
    ``tool`` (a name and KEY=VALUE words), ``replay`` replays ``replay_source``, ``check`` writes its report
    (and its captures beside it)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"{command}.jsonl"
    if command == "record":
        send_file = write_messages(folder / "send.jsonl", send or [{"method": "tools/list"}])
        args = ["record", "--out", str(out), "--send", str(send_file)]
    elif command == "call":
        args = ["call", *tool, "--out", str(out)]
    elif command == "replay":
        args = ["replay", str(replay_source), "--out", str(out)]
    elif command == "check":
        args = ["check", "--report", str(folder / "report.json")]
    else:
        raise ValueError(command)
    done, elapsed = inspector(*args, *target, env=env)
    if command == "check":
        captures = sorted(folder.glob("report-*.jsonl"))
        return Run(command, done.returncode, done.stdout, done.stderr, elapsed, captures, folder / "report.json")
    return Run(command, done.returncode, done.stdout, done.stderr, elapsed, [out] if out.exists() else [])


# -- servers on 127.0.0.1 ----------------------------------------------------------------------------------


@dataclass
class HttpServer:
    """A server process (leader of its own group) listening on 127.0.0.1:``port``."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path  #: the HTTP probe: its log folder; the OAuth server: its log file

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


def _read_port(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


@contextmanager
def http_server(argv: list[str], port_file: Path, log: Path) -> Iterator[HttpServer]:
    """Start a server that writes its port to ``port_file``; kill its process group afterwards."""
    with (port_file.parent / "server.out").open("wb") as sink:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        wait_until(lambda: _read_port(port_file) is not None or process.poll() is not None, STARTUP_TIMEOUT,
                   f"{argv[1]} to write its port")
        port = _read_port(port_file)
        assert port is not None, f"{argv[1]} exited with {process.returncode} before listening"
        yield HttpServer(process, port, log)
    finally:
        kill_group(process.pid)
        process.wait(timeout=10)


@contextmanager
def probe_http_server(folder: Path) -> Iterator[HttpServer]:
    folder.mkdir(parents=True, exist_ok=True)
    with http_server([sys.executable, str(HTTP_SCRIPT), str(folder / "port"), str(folder)], folder / "port",
                     folder) as server:
        yield server


def http_requests(server: HttpServer, tag: str) -> list[dict[str, Any]]:
    """Every request the HTTP probe got under ``/<tag>/``: method, path and headers (names in lower case)."""
    path = server.log / f"{tag}.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@contextmanager
def oauth_server(folder: Path, *switches: str) -> Iterator[HttpServer]:
    """tests/auth/servers/oauth_server.py (a protected MCP server and its authorization server) with
    ``switches``; every request it gets is a line of its log (``oauth_requests``)."""
    folder.mkdir(parents=True, exist_ok=True)
    with http_server([*warm_python.command(OAUTH_SCRIPT, str(folder / "port"), str(folder / "log.jsonl")),
                      *switches], folder / "port", folder / "log.jsonl") as server:
        yield server


def oauth_requests(server: HttpServer, since: int = 0) -> list[dict[str, Any]]:
    """The requests the OAuth test server logged (method, path, query, headers, form), from line ``since``."""
    if not server.log.exists():
        return []
    lines = server.log.read_text(encoding="utf-8").splitlines()[since:]
    return [entry for entry in (json.loads(line) for line in lines if line.strip()) if "issued" not in entry]


def log_length(server: HttpServer) -> int:
    return len(server.log.read_text(encoding="utf-8").splitlines()) if server.log.exists() else 0


@contextmanager
def unaccepting_port() -> Iterator[int]:
    """A port on 127.0.0.1 whose connections never complete: it listens with a backlog of 0 and never accepts,
    and a first connection fills that backlog, so the kernel drops the SYN of every later one (a connect
    waits as on a firewall that drops packets, until the client's connect timeout)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    fillers: list[socket.socket] = []
    try:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        for _ in range(2):
            filler = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            filler.setblocking(False)
            try:
                filler.connect(("127.0.0.1", port))
            except BlockingIOError:
                pass
            fillers.append(filler)
        yield port
    finally:
        for sock in [*fillers, listener]:
            sock.close()


def on_terminal(*args: str, timeout: float = RUN_TIMEOUT) -> tuple[int, str, str]:
    """``mcp-inspector ARGS`` with a terminal (a pseudo-terminal) as its stdout, as when a person runs it:
    its exit status, what it printed on the terminal (line ends as written) and its stderr."""
    master, slave = os.openpty()
    try:
        process = warm_cli.Popen([sys.executable, "-m", "inspector", *args], stdin=subprocess.DEVNULL,
                                 stdout=slave, stderr=subprocess.PIPE, cwd=ROOT, env=dict(os.environ))
    finally:
        os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while True:
            ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                process.kill()
                raise AssertionError(f"mcp-inspector {' '.join(args)} printed nothing more within {timeout:g} s")
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the command closed its end of the terminal
                break
            if not data:
                break
            chunks.append(data)
        assert process.stderr is not None
        stderr = process.stderr.read().decode("utf-8", "replace")
        code = process.wait(timeout=max(0.1, deadline - time.monotonic()))
    finally:
        os.close(master)
        if process.stderr is not None:
            process.stderr.close()
    return code, b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n"), stderr
