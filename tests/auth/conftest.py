"""Fixtures for the OAuth tests: tokens only in memory (never a person's keyring), a fresh memory per test,
and the protected test server (servers/oauth_server.py) started with the switches a test names."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from auth_support import AuthServer, start_server


@pytest.fixture(autouse=True)
def tokens_in_memory(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from inspector.core.auth import tokens

    monkeypatch.setenv("MCP_INSPECTOR_TOKEN_STORE", "memory")
    tokens._MEMORY.clear()
    yield
    tokens._MEMORY.clear()


@pytest.fixture
def auth_server(tmp_path: Path) -> Iterator[Callable[..., AuthServer]]:
    """``auth_server(*switches)``: a protected MCP server with its authorization server; stopped at teardown."""
    started: list[AuthServer] = []

    def start(*switches: str) -> AuthServer:
        server = start_server(tmp_path / f"server-{len(started)}", *switches)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
