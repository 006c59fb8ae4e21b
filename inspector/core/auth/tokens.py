"""Where tokens are kept: the OS keyring (the ``keyring`` library) when a backend is there, else only in this
process's memory. Never in a file in clear. Keyed by server URL and client id; :meth:`TokenStore.forget` is
"log out".

``MCP_INSPECTOR_TOKEN_STORE=memory`` forces memory (the tests use it, so they never touch a person's keyring).
"""

from __future__ import annotations

import json
import os
from typing import Any

from inspector.core.auth.model import ClientInfo, TokenSet

#: The keyring "service" the inspector's entries are filed under.
SERVICE = "mcp-inspector-oauth"

#: Memory of the process, shared by every store of it (a reconnect finds the tokens of the last login).
_MEMORY: dict[str, str] = {}


class TokenStore:
    """Tokens and dynamically registered clients, by server URL (and client id, or issuer)."""

    def __init__(self, use_keyring: bool | None = None) -> None:
        if use_keyring is None:
            use_keyring = os.environ.get("MCP_INSPECTOR_TOKEN_STORE") != "memory"
        # asked first: finding the keyring's backend imports each one, and on Linux the macOS one runs ldconfig
        # and gcc (ctypes.util.find_library) - not for a store that keeps tokens in memory anyway
        self._keyring: Any = _keyring() if use_keyring else None

    @property
    def backend(self) -> str:
        """``keyring`` or ``memory``, for a window to say where tokens are."""
        return "keyring" if self._keyring is not None else "memory"

    # -- raw entries ----------------------------------------------------------------------------------------

    def _get(self, key: str) -> dict[str, Any] | None:
        text = _MEMORY.get(key)
        if text is None and self._keyring is not None:
            try:
                text = self._keyring.get_password(SERVICE, key)
            except Exception:  # any keyring backend failure means: not there, use memory
                self._keyring = None
        if not text:
            return None
        try:
            value = json.loads(text)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def _set(self, key: str, value: dict[str, Any]) -> None:
        text = json.dumps(value)
        _MEMORY[key] = text
        if self._keyring is not None:
            try:
                self._keyring.set_password(SERVICE, key, text)
            except Exception:  # a locked or broken keyring: the memory copy serves this process
                self._keyring = None

    def _delete(self, key: str) -> None:
        _MEMORY.pop(key, None)
        if self._keyring is not None:
            try:
                self._keyring.delete_password(SERVICE, key)
            except Exception:  # nothing stored there (PasswordDeleteError) or no keyring any more
                pass

    def _index(self, server_url: str) -> list[str]:
        entry = self._get(f"index {server_url}") or {}
        keys = entry.get("keys")
        return [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []

    def _remember(self, server_url: str, key: str) -> None:
        keys = self._index(server_url)
        if key not in keys:
            self._set(f"index {server_url}", {"keys": [*keys, key]})

    # -- tokens and clients ---------------------------------------------------------------------------------

    def load(self, server_url: str, client_id: str) -> TokenSet | None:
        entry = self._get(f"tokens {server_url} {client_id}")
        return TokenSet.from_json(entry) if entry else None

    def save(self, server_url: str, client_id: str, tokens: TokenSet) -> None:
        key = f"tokens {server_url} {client_id}"
        self._set(key, tokens.to_json())
        self._remember(server_url, key)

    def load_client(self, server_url: str, issuer: str) -> ClientInfo | None:
        entry = self._get(f"client {server_url} {issuer}")
        return ClientInfo.from_json(entry) if entry else None

    def save_client(self, server_url: str, client: ClientInfo) -> None:
        key = f"client {server_url} {client.issuer}"
        self._set(key, client.to_json())
        self._remember(server_url, key)

    # -- the secret of a profile's client (a grant without a person): configuration, not a login --------------

    def load_client_secret(self, server_url: str, client_id: str) -> str | None:
        entry = self._get(f"secret {server_url} {client_id}")
        secret = entry.get("client_secret") if entry else None
        return secret if isinstance(secret, str) and secret else None

    def save_client_secret(self, server_url: str, client_id: str, secret: str | None) -> None:
        """Keep (or, with None or "", forget) the client secret a profile names; log out leaves it alone."""
        key = f"secret {server_url} {client_id}"
        if secret:
            self._set(key, {"client_secret": secret})
        else:
            self._delete(key)

    def holds(self, server_url: str) -> TokenSet | None:
        """A token held for this server (any client), for a window to say so and when it expires."""
        for key in self._index(server_url):
            if key.startswith("tokens "):
                entry = self._get(key)
                if entry and (tokens := TokenSet.from_json(entry)) is not None:
                    return tokens
        return None

    def forget(self, server_url: str, *, registrations: bool = True) -> None:
        """Log out: every token kept for this server, and its client registrations unless ``registrations`` is
        false (a re-login then reuses the client instead of registering one more each time)."""
        kept = [] if registrations else [k for k in self._index(server_url) if k.startswith("client ")]
        for key in self._index(server_url):
            if key not in kept:
                self._delete(key)
        if kept:
            self._set(f"index {server_url}", {"keys": kept})
        else:
            self._delete(f"index {server_url}")


def _keyring() -> Any:
    """The keyring module when a real backend is available, else None."""
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return None
    try:
        backend = keyring.get_keyring()
    except Exception:  # a misconfigured keyring is no keyring
        return None
    if isinstance(backend, fail.Keyring) or getattr(backend, "priority", 0) <= 0:
        return None
    if type(backend).__module__.endswith(("null", "fail")) or not getattr(backend, "backends", True):
        return None
    return keyring


def default_store() -> TokenStore:
    return TokenStore()
