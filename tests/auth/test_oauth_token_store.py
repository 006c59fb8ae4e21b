"""Tokens: in the OS keyring when a backend is there, else in memory only; per server URL and client id; a
second session reuses them without logging in; log out forgets them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import keyring
import pytest
from auth_support import record_with_oauth
from keyring.backend import KeyringBackend

from inspector.core.auth import tokens
from inspector.core.auth.flow import OAuthClient
from inspector.core.auth.model import OAuthOptions, TokenSet
from inspector.core.exits import EXIT_OK

PRE = {"client_id": "pre-client", "client_secret": "pre-secret-Zq81x"}


class DictKeyring(KeyringBackend):
    """A keyring backend that keeps entries in a dict (priority 1: "available")."""

    priority = 1  # type: ignore[assignment]  # keyring declares it as a class property

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.entries.pop((service, username), None)


def logins(server: Any) -> int:
    return sum(1 for r in server.requests() if r["path"] == "/authorize")


def test_a_second_session_reuses_the_token_and_log_out_forgets_it(auth_server, tmp_path: Path) -> None:
    server = auth_server("--registration", "pre", "--token-auth", "client_secret_basic")
    first = record_with_oauth(server, tmp_path / "1.jsonl", **PRE)
    assert first.result.exit_code == EXIT_OK and logins(server) == 1
    second = record_with_oauth(server, tmp_path / "2.jsonl", **PRE)
    assert second.result.exit_code == EXIT_OK, second.result.error
    assert logins(server) == 1, "the second session must not log in again"
    OAuthClient(server.url, OAuthOptions(**PRE)).logout()
    third = record_with_oauth(server, tmp_path / "3.jsonl", **PRE)
    assert third.result.exit_code == EXIT_OK and logins(server) == 2


def test_tokens_go_to_the_keyring_when_a_backend_is_available_keyed_by_server_and_client(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCP_INSPECTOR_TOKEN_STORE")
    backend = DictKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        store = tokens.TokenStore()
        assert store.backend == "keyring"
        store.save("http://127.0.0.1:1/mcp", "client-a", TokenSet("secret-access", refresh_token="secret-refresh"))
        assert ("mcp-inspector-oauth", "tokens http://127.0.0.1:1/mcp client-a") in backend.entries
        tokens._MEMORY.clear()  # a new process: only the keyring has it
        loaded = tokens.TokenStore().load("http://127.0.0.1:1/mcp", "client-a")
        assert loaded is not None and loaded.access_token == "secret-access"
        assert tokens.TokenStore().load("http://127.0.0.1:1/mcp", "client-b") is None
        tokens.TokenStore().forget("http://127.0.0.1:1/mcp")
        assert backend.entries == {}
    finally:
        keyring.set_keyring(previous)


def test_without_a_keyring_backend_tokens_stay_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCP_INSPECTOR_TOKEN_STORE")
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        store = tokens.TokenStore()
        assert store.backend == "memory"
        store.save("http://127.0.0.1:1/mcp", "c", TokenSet("t"))
        assert tokens.TokenStore().load("http://127.0.0.1:1/mcp", "c") is not None
    finally:
        keyring.set_keyring(previous)
