"""Fixtures for the integration tests: real MCP servers, misbehaving ones, and the CLI run as a user runs it.

Everything these tests need is provided here without the user doing anything: the npm package
``@modelcontextprotocol/server-everything`` is installed on first use into a cache folder (reused afterwards),
the Python servers come with the ``test`` extra (``mcp``, ``mcp-server-time``) or live in ``servers/``.

Every wait is bounded: subprocesses get a ``timeout``, and a timed-out ``record`` has its server's process
group killed so nothing outlives the test.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import warm_python
from integration_support import (
    CLI_TIMEOUT,
    SERVERS,
    Recorded,
    record_server,
    run_inspector,
)
from npm_servers import install_everything

# -- the CLI ----------------------------------------------------------------------------------------------


@pytest.fixture
def record(tmp_path: Path) -> Callable[..., Recorded]:
    """``record(server_argv, *options, send=[...], timeout=S)`` runs ``mcp-inspector record`` on a server and
    returns a :class:`Recorded` (exit status, stdout, stderr, capture path)."""
    counter = iter(range(1, 1_000_000))

    def run(server: list[str], *options: str, send: list[dict[str, Any]] | None = None,
            timeout: float = CLI_TIMEOUT) -> Recorded:
        return record_server(tmp_path, f"capture-{next(counter)}", server, *options, send=send, timeout=timeout)

    return run


@pytest.fixture
def show() -> Callable[..., subprocess.CompletedProcess[str]]:
    """``show(path, "--json")`` runs ``mcp-inspector show`` and returns the finished process."""

    def run(path: Path, *options: str) -> subprocess.CompletedProcess[str]:
        return run_inspector(["show", str(path), *options], timeout=CLI_TIMEOUT)

    return run


# -- servers ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def sdk_server() -> list[str]:
    """A small MCPServer (official Python SDK, mcp 2.x) with tools add and echo, a resource and a prompt.

    The SDK is a declared test dependency: if it is missing the tests fail, they do not skip."""
    try:
        import mcp.server.mcpserver  # noqa: F401 - imported only to fail with a sentence when it is missing
    except ImportError as exc:
        pytest.fail(f"the mcp SDK (2.x) is not installed: pip install -e '.[test]' ({exc})")
    return warm_python.command(SERVERS / "sdk_server.py")



@pytest.fixture(scope="session")
def misbehaving() -> Callable[..., list[str]]:
    """``misbehaving("junk", "--banner")``: the argv of ``servers/junk_server.py --banner``, run with this Python."""

    def argv(name: str, *args: str) -> list[str]:
        path = SERVERS / f"{name}_server.py"
        assert path.exists(), f"no test server {path}"
        return [sys.executable, str(path), *args]

    return argv


@pytest.fixture(scope="session")
def everything_server() -> list[str]:
    """The reference TypeScript server ``@modelcontextprotocol/server-everything``, in stdio mode.

    Installed with npm into ``$MCP_INSPECTOR_TEST_CACHE`` (default ``~/.cache/mcp-inspector-tests/npm``) on
    first use, at a pinned version, and reused afterwards. Missing node or npm is a failure, not a skip: these
    tests are the proof that the inspector works against a real third-party server.
    """
    node, entry = install_everything()
    return [node, str(entry), "stdio"]
