"""Fixtures for the integration tests: real MCP servers, misbehaving ones, and the CLI run as a user runs it.

Everything these tests need is provided here without the user doing anything: the npm package
``@modelcontextprotocol/server-everything`` is installed on first use into a cache folder (reused afterwards),
the Python servers come with the ``test`` extra (``mcp``, ``mcp-server-time``) or live in ``servers/``.

Every wait is bounded: subprocesses get a ``timeout``, and a timed-out ``record`` has its server's process
group killed so nothing outlives the test.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from integration_support import CLI_TIMEOUT, SERVERS, Recorded, record_server, run_inspector

#: The server-everything release these tests were written against (its tool names and startup line).
EVERYTHING_PACKAGE = "@modelcontextprotocol/server-everything"
EVERYTHING_VERSION = "2026.8.31"
#: First install downloads ~110 packages; bound it generously for slow mirrors, but bound it.
NPM_INSTALL_TIMEOUT = 600.0


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
        import mcp.server.mcpserver  # noqa: F401
    except ImportError as exc:
        pytest.fail(f"the mcp SDK (2.x) is not installed: pip install -e '.[test]' ({exc})")
    return [sys.executable, str(SERVERS / "sdk_server.py")]


@pytest.fixture(scope="session")
def time_server() -> list[str]:
    """The reference ``mcp-server-time`` (PyPI), via its console script, with a fixed local timezone."""
    script = Path(sys.executable).parent / "mcp-server-time"
    found = str(script) if script.exists() else shutil.which("mcp-server-time")
    if found is None:
        pytest.fail("mcp-server-time is not installed (it is in the test extra): pip install -e '.[test]'")
    return [found, "--local-timezone", "UTC"]


@pytest.fixture(scope="session")
def misbehaving() -> Callable[..., list[str]]:
    """``misbehaving("junk", "--banner")``: the argv of ``servers/junk_server.py --banner``, run with this Python."""

    def argv(name: str, *args: str) -> list[str]:
        path = SERVERS / f"{name}_server.py"
        assert path.exists(), f"no test server {path}"
        return [sys.executable, str(path), *args]

    return argv


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
    """An exclusive lock on ``path`` (across processes: pytest-xdist workers, parallel CI jobs), waiting at
    most ``timeout`` seconds. The blocking flock runs in a helper thread so the wait can be bounded."""
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
def everything_server() -> list[str]:
    """The reference TypeScript server ``@modelcontextprotocol/server-everything``, in stdio mode.

    Installed with npm into ``$MCP_INSPECTOR_TEST_CACHE`` (default ``~/.cache/mcp-inspector-tests/npm``) on
    first use, at a pinned version, and reused afterwards. Missing node or npm is a failure, not a skip: these
    tests are the proof that the inspector works against a real third-party server.
    """
    node = shutil.which("node")
    npm = shutil.which("npm")
    if node is None or npm is None:
        pytest.fail(f"{'node' if node is None else 'npm'} is not on PATH: the integration tests run the npm "
                    f"package {EVERYTHING_PACKAGE}; install Node.js 18 or newer with npm "
                    "(for example apt-get install nodejs npm)")
    prefix = npm_cache_dir()
    package_dir = prefix / "node_modules" / Path(EVERYTHING_PACKAGE)
    entry = package_dir / "dist" / "index.js"
    argv = [node, str(entry), "stdio"]
    if installed_version(package_dir) == EVERYTHING_VERSION and entry.exists():
        return argv
    prefix.mkdir(parents=True, exist_ok=True)
    with file_lock(prefix / ".install.lock", NPM_INSTALL_TIMEOUT):
        if installed_version(package_dir) == EVERYTHING_VERSION and entry.exists():
            return argv  # another process installed it while we waited for the lock
        command = [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--save-exact",
                   "--loglevel=error", f"{EVERYTHING_PACKAGE}@{EVERYTHING_VERSION}"]
        try:
            done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=NPM_INSTALL_TIMEOUT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"npm install of {EVERYTHING_PACKAGE}@{EVERYTHING_VERSION} did not finish within "
                        f"{NPM_INSTALL_TIMEOUT:g} s: {' '.join(command)}")
        if done.returncode != 0:
            pytest.fail(f"npm install of {EVERYTHING_PACKAGE}@{EVERYTHING_VERSION} failed (exit "
                        f"{done.returncode}): {' '.join(command)}\n{done.stderr[-3000:]}")
    version = installed_version(package_dir)
    if version != EVERYTHING_VERSION or not entry.exists():
        pytest.fail(f"npm install reported success but {entry} (version {version}) is not "
                    f"{EVERYTHING_PACKAGE}@{EVERYTHING_VERSION}")
    return argv
