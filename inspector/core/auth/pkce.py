"""PKCE (RFC 7636) with S256, and the random ``state``: small enough for hashlib and secrets."""

from __future__ import annotations

import base64
import hashlib
import secrets

#: RFC 7636 section 4.1: 43 to 128 characters; 64 random bytes give 86.
VERIFIER_BYTES = 64


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def make_verifier() -> str:
    return _b64url(secrets.token_bytes(VERIFIER_BYTES))


def challenge_of(verifier: str) -> str:
    """``BASE64URL(SHA256(ASCII(code_verifier)))`` (RFC 7636 section 4.2)."""
    return _b64url(hashlib.sha256(verifier.encode("ascii")).digest())


def make_state() -> str:
    return secrets.token_urlsafe(32)
