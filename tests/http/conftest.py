"""Fixtures for the HTTP transport tests: real HTTP MCP servers and misbehaving ones, run as subprocesses.

Every server listens on 127.0.0.1 only, on an ephemeral port, runs in a process group of its own, and is
killed with that whole group at teardown. Every wait is bounded: startup waits poll a condition (the port
file written, the port accepting connections) between bounded waits for the process to exit, never sleeps.

The npm package ``@modelcontextprotocol/server-everything`` is installed on first use into the same cache as
the stdio integration tests (``tests/integration/conftest.py``), with the same pinned version and lock, so
the two share one install.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from http_support import (
    SERVERS,
    ServerProcess,
    launch,
    launch_on_free_port,
    record_url,
    start_misbehaving,
    start_negotiating,
    stop,
    wait_for,
)
from integration.integration_support import CLI_TIMEOUT, Recorded
from npm_servers import install_everything
from shared_servers import shared

from inspector.core.transports.process_group import process_state

FORCE_LOOPBACK = SERVERS / "force-loopback.cjs"

# Same package, version, cache and lock as tests/integration/conftest.py: the install is shared.


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


def _sdk_server(mode: str) -> Iterator[ServerProcess]:
    """The SDK server in ``mode``, one for the whole run (tests/shared_servers.py)."""
    try:
        import mcp.server.mcpserver  # noqa: F401 - imported only to fail with a sentence when it is missing
    except ImportError as exc:
        pytest.fail(f"the mcp SDK (2.x) is not installed: pip install -e '.[test]' ({exc})")
    with shared(f"sdk-{mode}", lambda folder: launch_on_free_port(
            f"SDK server ({mode})", lambda port: [sys.executable, str(SERVERS / "sdk_http_server.py"), mode, str(port)],
            folder / f"sdk-{mode}.log")) as server:
        yield server


@pytest.fixture(scope="session")
def sdk_streamable() -> Iterator[ServerProcess]:
    """The SDK ``MCPServer`` of servers/sdk_http_server.py, Streamable HTTP at /mcp."""
    yield from _sdk_server("streamable-http")


@pytest.fixture(scope="session")
def sdk_sse() -> Iterator[ServerProcess]:
    """The same server over HTTP+SSE (2024-11-05): /sse, messages to /messages/."""
    yield from _sdk_server("sse")


# -- server-everything (npm) ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def everything_entry() -> tuple[str, Path]:
    """``(node, dist/index.js)`` of server-everything, installed with npm into the shared cache if needed."""
    return install_everything()


def _everything(mode: str, entry: tuple[str, Path]) -> Iterator[ServerProcess]:
    """server-everything in ``mode``, one for the whole run (tests/shared_servers.py)."""
    node, script = entry

    def start(folder: Path) -> ServerProcess:
        port_file = folder / f"everything-{mode}.port"
        # PORT=0: the kernel picks the port; the preload binds it to 127.0.0.1 and writes it to the port file
        env = {"PORT": "0", "FORCE_LOOPBACK_PORT_FILE": str(port_file),
               "NODE_OPTIONS": f"--require {FORCE_LOOPBACK}"}
        return launch(f"server-everything ({mode})", [node, str(script), mode], folder / f"everything-{mode}.log",
                      env=env, port_file=port_file)

    with shared(f"everything-{mode}", start) as server:
        yield server


@pytest.fixture(scope="session")
def everything_streamable(everything_entry: tuple[str, Path]) -> Iterator[ServerProcess]:
    """server-everything in ``streamableHttp`` mode: /mcp."""
    yield from _everything("streamableHttp", everything_entry)


@pytest.fixture(scope="session")
def everything_sse(everything_entry: tuple[str, Path]) -> Iterator[ServerProcess]:
    """server-everything in ``sse`` mode: /sse, messages to /message."""
    yield from _everything("sse", everything_entry)


# -- misbehaving servers ----------------------------------------------------------------------------------


def _stopped_at_teardown(start: Callable[..., ServerProcess]) -> Iterator[Callable[..., ServerProcess]]:
    """For a fixture to yield from: ``start(n, *args)`` (n counts the servers started so far), each server it
    starts killed at teardown."""
    started: list[ServerProcess] = []

    def tracked(*args: str) -> ServerProcess:
        server = start(len(started), *args)
        started.append(server)
        return server

    try:
        yield tracked
    finally:
        for server in started:
            stop(server)


@pytest.fixture
def misbehaving(tmp_path: Path) -> Iterator[Callable[[str], ServerProcess]]:
    """``misbehaving("html-500")`` starts servers/misbehaving_http_server.py in that mode; killed at teardown."""
    yield from _stopped_at_teardown(lambda n, mode: start_misbehaving(mode, tmp_path / f"server-{mode}-{n}"))


@pytest.fixture
def negotiating(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """``negotiating("--supported", "2025-11-25")`` starts servers/negotiating_http_server.py with those
    options; killed at teardown."""
    yield from _stopped_at_teardown(lambda n, *options: start_negotiating(tmp_path / f"negotiating-{n}", *options))


@pytest.fixture
def frozen_server(misbehaving: Callable[[str], ServerProcess]) -> ServerProcess:
    """A working Streamable HTTP server, stopped with SIGSTOP once it listens: the kernel still accepts
    connections for it, and nothing ever answers. Teardown sends SIGCONT and SIGKILL."""
    server = misbehaving("good")
    os.killpg(server.process.pid, signal.SIGSTOP)
    wait_for(server.process, lambda: process_state(server.process.pid) == "T", 10.0, "the server to stop",
             server.log)
    return server
