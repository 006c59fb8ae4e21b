"""Fixtures for the HTTP transport tests: real HTTP MCP servers and misbehaving ones, run as subprocesses.

Every server listens on 127.0.0.1 only, on an ephemeral port, runs in a process group of its own, and is
killed with that whole group at teardown. Every wait is bounded: startup waits poll a condition (the port
file written, the port accepting connections) between bounded waits for the process to exit, never sleeps.

The npm package ``@modelcontextprotocol/server-everything`` is installed on first use into the same cache as
the stdio integration tests (``tests/integration/conftest.py``), with the same pinned version and lock, so
the two share one install.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from http_support import (
    SERVERS,
    ServerProcess,
    launch,
    launch_on_free_port,
    process_state,
    record_url,
    start_misbehaving,
    stop,
    wait_for,
)
from integration.integration_support import CLI_TIMEOUT, Recorded

FORCE_LOOPBACK = SERVERS / "force-loopback.cjs"

# Same package, version, cache and lock as tests/integration/conftest.py: the install is shared.
EVERYTHING_PACKAGE = "@modelcontextprotocol/server-everything"
EVERYTHING_VERSION = "2026.8.31"
NPM_INSTALL_TIMEOUT = 600.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """With MCP_INSPECTOR_RUN_BUG_TESTS=1, the tests skipped as ``BUG: ...`` run (to check a fix, or that
    they still expose the bug)."""
    if os.environ.get("MCP_INSPECTOR_RUN_BUG_TESTS") != "1":
        return
    for item in items:
        item.own_markers[:] = [mark for mark in item.own_markers
                               if not (mark.name == "skip" and str(mark.kwargs.get("reason", "")).startswith("BUG:"))]


@pytest.fixture
def record(tmp_path: Path) -> Callable[..., Recorded]:
    """``record(url, *options, send=[...], timeout=S)``: one ``record --url`` run with its own capture file."""
    counter = iter(range(1, 1_000_000))

    def run(url: str, *options: str, send: list[dict[str, Any]] | None = None,
            timeout: float = CLI_TIMEOUT) -> Recorded:
        return record_url(tmp_path, f"capture-{next(counter)}", url, *options, send=send, timeout=timeout)

    return run


# -- the official Python SDK server -----------------------------------------------------------------------


def _sdk_server(mode: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError as exc:
        pytest.fail(f"the mcp SDK (2.x) is not installed: pip install -e '.[test]' ({exc})")
    log = tmp_path_factory.mktemp(f"sdk-{mode}") / "server.log"
    server = launch_on_free_port(f"SDK server ({mode})",
                                 lambda port: [sys.executable, str(SERVERS / "sdk_http_server.py"), mode, str(port)],
                                 log)
    try:
        yield server
    finally:
        stop(server)


@pytest.fixture(scope="session")
def sdk_streamable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The SDK ``MCPServer`` of servers/sdk_http_server.py, Streamable HTTP at /mcp."""
    yield from _sdk_server("streamable-http", tmp_path_factory)


@pytest.fixture(scope="session")
def sdk_sse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The same server over HTTP+SSE (2024-11-05): /sse, messages to /messages/."""
    yield from _sdk_server("sse", tmp_path_factory)


# -- server-everything (npm) ------------------------------------------------------------------------------


def npm_cache_dir() -> Path:
    configured = os.environ.get("MCP_INSPECTOR_TEST_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "mcp-inspector-tests" / "npm"


def installed_version(package_dir: Path) -> str | None:
    try:
        return json.loads((package_dir / "package.json").read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None


@contextmanager
def file_lock(path: Path, timeout: float) -> Iterator[None]:
    """An exclusive lock on ``path`` across processes, waiting at most ``timeout`` seconds."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    locker = threading.Thread(target=fcntl.flock, args=(fd, fcntl.LOCK_EX), daemon=True)
    locker.start()
    locker.join(timeout)
    if locker.is_alive():
        pytest.fail(f"another process held {path} for more than {timeout:g} s (a stuck npm install?)")
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


@pytest.fixture(scope="session")
def everything_entry() -> tuple[str, Path]:
    """``(node, dist/index.js)`` of server-everything, installed with npm into the shared cache if needed."""
    node = shutil.which("node")
    npm = shutil.which("npm")
    if node is None or npm is None:
        pytest.fail(f"{'node' if node is None else 'npm'} is not on PATH: these tests run the npm package "
                    f"{EVERYTHING_PACKAGE}; install Node.js 18 or newer with npm")
    prefix = npm_cache_dir()
    package_dir = prefix / "node_modules" / Path(EVERYTHING_PACKAGE)
    entry = package_dir / "dist" / "index.js"
    if installed_version(package_dir) == EVERYTHING_VERSION and entry.exists():
        return node, entry
    prefix.mkdir(parents=True, exist_ok=True)
    with file_lock(prefix / ".install.lock", NPM_INSTALL_TIMEOUT):
        if not (installed_version(package_dir) == EVERYTHING_VERSION and entry.exists()):
            command = [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--save-exact",
                       "--loglevel=error", f"{EVERYTHING_PACKAGE}@{EVERYTHING_VERSION}"]
            try:
                done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                      timeout=NPM_INSTALL_TIMEOUT)
            except subprocess.TimeoutExpired:
                pytest.fail(f"npm install did not finish within {NPM_INSTALL_TIMEOUT:g} s: {' '.join(command)}")
            if done.returncode != 0:
                pytest.fail(f"npm install failed (exit {done.returncode}): {' '.join(command)}\n{done.stderr[-3000:]}")
    if installed_version(package_dir) != EVERYTHING_VERSION or not entry.exists():
        pytest.fail(f"{entry} is not {EVERYTHING_PACKAGE}@{EVERYTHING_VERSION} after npm install")
    return node, entry


def _everything(mode: str, entry: tuple[str, Path], tmp_path_factory: pytest.TempPathFactory
                ) -> Iterator[ServerProcess]:
    node, script = entry
    directory = tmp_path_factory.mktemp(f"everything-{mode}")
    port_file = directory / "port"
    # PORT=0: the kernel picks the port; the preload binds it to 127.0.0.1 and writes it to the port file
    env = {"PORT": "0", "FORCE_LOOPBACK_PORT_FILE": str(port_file),
           "NODE_OPTIONS": f"--require {FORCE_LOOPBACK}"}
    server = launch(f"server-everything ({mode})", [node, str(script), mode], directory / "server.log", env=env,
                    port_file=port_file)
    try:
        yield server
    finally:
        stop(server)


@pytest.fixture(scope="session")
def everything_streamable(everything_entry: tuple[str, Path], tmp_path_factory: pytest.TempPathFactory
                          ) -> Iterator[ServerProcess]:
    """server-everything in ``streamableHttp`` mode: /mcp."""
    yield from _everything("streamableHttp", everything_entry, tmp_path_factory)


@pytest.fixture(scope="session")
def everything_sse(everything_entry: tuple[str, Path], tmp_path_factory: pytest.TempPathFactory
                   ) -> Iterator[ServerProcess]:
    """server-everything in ``sse`` mode: /sse, messages to /message."""
    yield from _everything("sse", everything_entry, tmp_path_factory)


# -- misbehaving servers ----------------------------------------------------------------------------------


@pytest.fixture
def misbehaving(tmp_path: Path) -> Iterator[Callable[[str], ServerProcess]]:
    """``misbehaving("html-500")`` starts servers/misbehaving_http_server.py in that mode; killed at teardown."""
    started: list[ServerProcess] = []

    def start(mode: str) -> ServerProcess:
        server = start_misbehaving(mode, tmp_path / f"server-{mode}-{len(started)}")
        started.append(server)
        return server

    try:
        yield start
    finally:
        for server in started:
            stop(server)


@pytest.fixture
def frozen_server(misbehaving: Callable[[str], ServerProcess]) -> ServerProcess:
    """A working Streamable HTTP server, stopped with SIGSTOP once it listens: the kernel still accepts
    connections for it, and nothing ever answers. Teardown sends SIGCONT and SIGKILL."""
    server = misbehaving("good")
    os.killpg(server.process.pid, signal.SIGSTOP)
    wait_for(server.process, lambda: process_state(server.process.pid) == "T", 10.0, "the server to stop",
             server.log)
    return server
