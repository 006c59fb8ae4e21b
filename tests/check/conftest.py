"""Fixtures of the check tests: the window runs offscreen; tests/http's server launchers are importable."""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# tests/http's helpers (http_support) are imported by module name, as tests/http/conftest.py does; "http"
# itself cannot be a package name here (the standard library has one)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "http"))

from collections.abc import Iterator

import pytest
from http_support import SERVERS, ServerProcess, launch, stop
from npm_servers import install_everything
from qt_loop import qloop  # noqa: F401 - the shared fixture


@pytest.fixture(scope="module")
def everything_http(tmp_path_factory) -> Iterator[ServerProcess]:
    """npm server-everything over Streamable HTTP on 127.0.0.1 (its own, for the module: checks end sessions)."""
    node, script = install_everything()
    directory = tmp_path_factory.mktemp("everything-http")
    port_file = directory / "port"
    env = {"PORT": "0", "FORCE_LOOPBACK_PORT_FILE": str(port_file),
           "NODE_OPTIONS": f"--require {SERVERS / 'force-loopback.cjs'}"}
    server = launch("server-everything (streamableHttp)", [node, str(script), "streamableHttp"],
                    directory / "server.log", env=env, port_file=port_file)
    try:
        yield server
    finally:
        stop(server)
