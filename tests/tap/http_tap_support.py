"""Shared by the HTTP tap's tests: running ``mcp-inspector tap --url`` as a user does (a process of its own, its
URL read from its stdout, ended with SIGINT), the HTTP servers of tests/http, and what /proc says listens.

tests/http is no package (``http`` is the standard library's name), so its helpers are loaded by path under the
name its own conftest gives them, as tests/faults does.
"""

from __future__ import annotations

import importlib.util
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import warm_cli
from helpers import ROOT

from inspector.core.capture import Capture, read_capture

TESTS = ROOT / "tests"
SERVERS = Path(__file__).resolve().parent / "servers"
#: Bound on the tap printing its URL, and on it ending after SIGINT with the capture complete.
TAP_TIMEOUT = 30.0
TCP_LISTEN = "0A"


def _http_support() -> Any:
    module = sys.modules.get("http_support")
    if module is None:
        spec = importlib.util.spec_from_file_location("http_support", TESTS / "http" / "http_support.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["http_support"] = module
        spec.loader.exec_module(module)
    return module


http_support = _http_support()


@dataclass
class RunningTap:
    """A tap process: its URL, its capture, and (once ended) its exit status and stderr."""

    process: subprocess.Popen[bytes]
    url: str
    capture_path: Path
    returncode: int | None = None
    stderr: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def port(self) -> int:
        return int(self.url.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])

    @property
    def capture(self) -> Capture:
        return read_capture(self.capture_path)

    def origin(self) -> str:
        scheme, rest = self.url.split("://", 1)
        return f"{'http' if scheme == 'ws' else scheme}://{rest.split('/', 1)[0]}"

    def stop(self, sig: int = signal.SIGINT) -> int:
        """End the tap with ``sig`` and wait (bounded) until it exits with the capture complete."""
        if self.returncode is None:
            if self.process.poll() is None:
                self.process.send_signal(sig)
            try:
                _, err = self.process.communicate(timeout=TAP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                _, err = self.process.communicate(timeout=TAP_TIMEOUT)
                pytest.fail(f"the tap did not end within {TAP_TIMEOUT:g} s of signal {sig}")
            self.returncode = self.process.returncode
            self.stderr = err.decode("utf-8", "replace")
        return self.returncode


def tap_argv(url: str, capture: Path, *options: str, listen: str | None = "127.0.0.1:0") -> list[str]:
    argv = [sys.executable, "-m", "inspector", "tap", "--url", url, "--capture", str(capture)]
    if listen is not None:
        argv += ["--listen", listen]
    if "--socket" not in options:
        argv.append("--no-live")  # never stream to a window the user may have open
    return [*argv, *options]


def first_line(process: subprocess.Popen[bytes], timeout: float) -> bytes:
    """What ``process`` writes on stdout up to its first newline, within ``timeout`` (less when it ends first)."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    line = b""
    deadline = time.monotonic() + timeout
    while not line.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return line
        piece = os.read(fd, 4096)
        if not piece:
            return line
        line += piece
    return line


@contextmanager
def running_tap(url: str, capture: Path, *options: str, listen: str | None = "127.0.0.1:0",
                env: dict[str, str] | None = None) -> Iterator[RunningTap]:
    """``mcp-inspector tap --url URL ...`` running; its URL is the first line it prints. Ended with SIGINT at the
    end of the block (if the test did not end it), and checked to exit 0."""
    process = warm_cli.Popen(tap_argv(url, capture, *options, listen=listen), cwd=ROOT, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **(env or {})})
    try:
        line = first_line(process, TAP_TIMEOUT).decode().strip()
        if not line:
            process.kill()
            _, err = process.communicate(timeout=TAP_TIMEOUT)
            pytest.fail(f"the tap printed no URL within {TAP_TIMEOUT:g} s: {err.decode('utf-8', 'replace')}")
        tap = RunningTap(process, line, capture)
        yield tap
        assert tap.stop() == 0, tap.stderr
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=TAP_TIMEOUT)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


# -- what listens -------------------------------------------------------------------------------------------


def socket_inodes(pid: int) -> set[str]:
    inodes = set()
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return inodes
    for fd in fds:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def listening() -> dict[str, tuple[str, int]]:
    """Inode -> (local address as /proc writes it, port) of every listening TCP socket of this machine's
    network namespace."""
    found = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if fields[3] == TCP_LISTEN:
                address, _, port = fields[1].rpartition(":")
                found[fields[9]] = (address, int(port, 16))
    return found


def listening_ports_of(pid: int) -> list[tuple[str, int]]:
    """(address, port) of the TCP sockets process ``pid`` listens on."""
    table = listening()
    return sorted(table[inode] for inode in socket_inodes(pid) if inode in table)


def port_listens(port: int) -> bool:
    return any(found_port == port for _, found_port in listening().values())


def children_of(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(child) for child in text.split()]


def start_server(argv: list[str], directory: Path, name: str) -> Any:
    """A test server that writes its port to ``directory/port``; the caller stops it (http_support.stop)."""
    directory.mkdir(parents=True, exist_ok=True)
    return http_support.launch(name, [*argv, str(directory / "port")], directory / "server.log",
                               port_file=directory / "port")
