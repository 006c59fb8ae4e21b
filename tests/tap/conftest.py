"""Fixtures for the tap tests."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A folder with a short path: a Unix socket path must fit in about 100 bytes, and pytest's tmp_path for
    a test named as a sentence does not."""
    path = Path(tempfile.mkdtemp(prefix="mcpi-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


# -- HTTP servers for the HTTP tap (the same ones tests/http uses, shared the same way) ----------------------


@pytest.fixture(scope="session")
def sdk_streamable() -> Iterator[object]:
    """The SDK ``MCPServer`` of tests/http/servers/sdk_http_server.py, Streamable HTTP at /mcp, one per run."""
    import sys

    from http_tap_support import http_support
    from shared_servers import shared

    with shared("sdk-streamable-http", lambda folder: http_support.launch_on_free_port(
            "SDK server (streamable-http)",
            lambda port: [sys.executable, str(http_support.SERVERS / "sdk_http_server.py"), "streamable-http",
                          str(port)], folder / "sdk-streamable-http.log")) as server:
        yield server


@pytest.fixture(scope="session")
def everything_sse() -> Iterator[object]:
    """server-everything (npm) in ``sse`` mode: /sse, messages to /message; one per run."""
    from http_tap_support import http_support
    from npm_servers import install_everything
    from shared_servers import shared

    node, script = install_everything()

    def start(folder: Path) -> object:
        port_file = folder / "everything-sse.port"
        env = {"PORT": "0", "FORCE_LOOPBACK_PORT_FILE": str(port_file),
               "NODE_OPTIONS": f"--require {http_support.SERVERS / 'force-loopback.cjs'}"}
        return http_support.launch("server-everything (sse)", [node, str(script), "sse"],
                                   folder / "everything-sse.log", env=env, port_file=port_file)

    with shared("everything-sse", start) as server:
        yield server


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[object]:
    """``http_server(argv, name)``: a server that writes its port to a file (tests/http's misbehaving server, or
    one of servers/), started now and killed with its process group at teardown."""
    from http_tap_support import http_support, start_server

    started = []

    def start(argv: list[str], name: str) -> object:
        server = start_server(argv, tmp_path / f"server-{len(started)}", name)
        started.append(server)
        return server

    try:
        yield start
    finally:
        for server in started:
            http_support.stop(server)
