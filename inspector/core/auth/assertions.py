"""JWTs the client signs or carries: the private_key_jwt client assertion (RFC 7523 section 2.2 and 3), the
assertion of the JWT bearer grant (RFC 7523 section 2.1), the ID token of enterprise-managed authorization, and
what their claims say when a server refuses them. Signing is joserfc's (the JOSE library of authlib's author).

A key file is read when it is used and kept in memory only: its path may be saved (a profile, a command line),
its content never is. An assertion is a credential: the flow adds every one it sends to the secrets scrubbed from
captures.

https://www.rfc-editor.org/rfc/rfc7523 and, for the audience, draft-ietf-oauth-rfc7523bis (the issuer).
"""

from __future__ import annotations

import json
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from joserfc import jws, jwt
from joserfc.errors import JoseError
from joserfc.jwk import ECKey, OKPKey, RSAKey

#: How long a client assertion the inspector signs is valid (RFC 7523 section 3: a short lifetime).
ASSERTION_LIFETIME = 300
#: The largest key or assertion file read (a PEM key is a few KiB; a JWT a few more).
MAX_FILE = 64 * 1024
#: client_assertion_type of RFC 7523 section 2.2.
CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

#: The JWS algorithms each kind of key may sign with, the default first.
ALGORITHMS = {
    ("EC", "P-256"): ("ES256",), ("EC", "P-384"): ("ES384",), ("EC", "P-521"): ("ES512",),
    ("RSA", ""): ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512"),
    ("OKP", "Ed25519"): ("Ed25519", "EdDSA"),  # RFC 9864 names the algorithm Ed25519; EdDSA is the old name
}


class CredentialError(ValueError):
    """A key, assertion or ID token file that cannot be used: ``str()`` is one sentence naming the file."""


@dataclass
class ClientKey:
    """A private key read from ``path``, the algorithm it signs with, and its public thumbprint (RFC 7638)."""

    path: str
    key: ECKey | RSAKey | OKPKey
    alg: str

    @property
    def thumbprint(self) -> str:
        return self.key.thumbprint()

    def describe(self) -> str:
        return f"{self.alg} key {Path(self.path).name} (thumbprint {self.thumbprint})"


def _kind(key: ECKey | RSAKey | OKPKey) -> tuple[str, str]:
    kty = key.key_type
    return (kty, "" if kty == "RSA" else str(key.get("crv") or ""))


def load_client_key(path: str, alg: str | None = None) -> ClientKey:
    """The private key in the PEM file ``path`` (EC P-256/384/521, RSA, Ed25519) and the algorithm to sign
    with: ``alg`` when it fits the key, else the key's default. Raises CredentialError with a sentence."""
    data = _read(path, "the client key file")
    if b"PRIVATE KEY" not in data:
        raise CredentialError(f"the client key file {path} holds no PEM private key (-----BEGIN PRIVATE KEY-----)")
    key: ECKey | RSAKey | OKPKey | None = None
    for kind in (ECKey, RSAKey, OKPKey):
        try:
            key = kind.import_key(data)
            break
        except (JoseError, ValueError, TypeError):
            continue
    if key is None or not key.is_private:
        raise CredentialError(f"the client key file {path} holds no EC, RSA or Ed25519 private key that can be read "
                        "(an encrypted key must be decrypted first)")
    allowed = ALGORITHMS.get(_kind(key), ())
    if not allowed:
        raise CredentialError(f"the client key file {path} holds a {'/'.join(_kind(key)).strip('/')} key, which "
                        "cannot sign JWTs here (EC P-256, P-384, P-521, RSA or Ed25519)")
    if alg is None:
        return ClientKey(path, key, allowed[0])
    if alg not in allowed:
        raise CredentialError(f"--client-key-alg {alg} does not fit the {'/'.join(_kind(key)).strip('/')} key in "
                        f"{path}: it signs with {', '.join(allowed)}")
    return ClientKey(path, key, alg)


def exposed_key_file(path: str) -> str | None:
    """Why the private key file ``path`` is not private, as ssh judges one (any permission for its group or
    others: ``mode & 0o077``), in one clause; None when it is private, cannot be looked at (reading it later
    says why), or the system has no such permissions (Windows)."""
    if os.name != "posix":
        return None
    try:
        mode = os.stat(path).st_mode & 0o777
    except OSError:
        return None
    if not mode & 0o077:
        return None
    who = "other users" if mode & 0o007 else "its group"
    how = "read" if mode & 0o044 and not mode & 0o022 else "changed" if not mode & 0o044 else "read and changed"
    return (f"the client key file {path} can be {how} by {who} (permissions {mode:04o}); a private key should be "
            f"yours alone: chmod 600 {path}")


def client_assertion(key: ClientKey, client_id: str, audience: str, now: float | None = None) -> str:
    """A private_key_jwt client assertion (RFC 7523 section 3): iss and sub the client_id, aud the authorization
    server's issuer, a short exp, iat, and a jti never used before."""
    issued = int(now if now is not None else time.time())
    claims = {"iss": client_id, "sub": client_id, "aud": audience, "iat": issued,
              "exp": issued + ASSERTION_LIFETIME, "jti": secrets.token_urlsafe(16)}
    return jwt.encode({"alg": key.alg, "typ": "JWT"}, claims, key.key, algorithms=[key.alg])


def read_jwt_file(path: str, what: str) -> str:
    """The JWT in a file (surrounding white space dropped), read now: workload identity tokens are files that
    are rotated while a client runs. Raises CredentialError with a sentence."""
    text = _read(path, what).decode("utf-8", "replace").strip()
    if text.count(".") != 2 or any(c.isspace() for c in text):
        raise CredentialError(f"{what} {path} does not hold one JWT (three dot-separated parts)")
    return text


def _read(path: str, what: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE + 1)
    except FileNotFoundError:
        raise CredentialError(f"{what} {path} does not exist") from None
    except IsADirectoryError:
        raise CredentialError(f"{what} {path} is a folder, not a file") from None
    except OSError as exc:
        raise CredentialError(f"{what} {path} cannot be read: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE:
        raise CredentialError(f"{what} {path} is larger than {MAX_FILE // 1024} KiB: it is not a key or a JWT")
    return data


# -- what a JWT says, for a person (never trusted: the signature is not checked) -------------------------------

def claims_of(token: str) -> dict[str, Any] | None:
    """The claims of a compact JWS, not verified (to explain a refusal); None when it is not one."""
    try:
        payload = jws.extract_compact(token.encode("ascii")).payload
        value = json.loads(payload)
    except (JoseError, ValueError, UnicodeError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def header_of(token: str) -> dict[str, Any]:
    try:
        return dict(jws.extract_compact(token.encode("ascii")).headers())
    except (JoseError, ValueError, UnicodeError, RecursionError):
        return {}


def summary(token: str, now: float | None = None) -> str:
    """``iss X, aud Y, expires in N s`` (what a step may say of a JWT: no subject, which may be a person)."""
    claims = claims_of(token)
    if claims is None:
        return "not a JWT the inspector can read"
    parts = []
    for name in ("iss", "aud"):
        if name in claims:
            value = claims[name]
            parts.append(f"{name} {', '.join(map(str, value)) if isinstance(value, list) else value}")
    parts.append(_expiry(claims, now))
    return ", ".join(parts)


def _expiry(claims: dict[str, Any], now: float | None = None) -> str:
    exp = claims.get("exp")
    if not isinstance(exp, (int, float)) or isinstance(exp, bool):
        return "no exp"
    left = int(exp - (now if now is not None else time.time()))
    return f"expires in {left} s" if left >= 0 else f"expired {-left} s ago"


def why_refused(token: str, audiences: list[str], now: float | None = None) -> str:
    """What in a refused assertion may be the cause, as a clause (``""`` when nothing shows): expired, not yet
    valid, or an audience that is none of ``audiences`` (the issuer, its token endpoint)."""
    claims = claims_of(token)
    if claims is None:
        return "the assertion is not a JWT"
    moment = now if now is not None else time.time()
    reasons = []
    exp = claims.get("exp")
    if isinstance(exp, (int, float)) and not isinstance(exp, bool) and exp <= moment:
        reasons.append(f"it expired {int(moment - exp)} s ago")
    nbf = claims.get("nbf")
    if isinstance(nbf, (int, float)) and not isinstance(nbf, bool) and nbf > moment:
        reasons.append(f"it is not valid for another {int(nbf - moment)} s")
    aud = claims.get("aud")
    named = [aud] if isinstance(aud, str) else [a for a in aud if isinstance(a, str)] if isinstance(aud, list) else []
    wanted = {a.rstrip("/") for a in audiences if a}
    if not any(a.rstrip("/") in wanted for a in named):
        reasons.append(f"its aud is {', '.join(named) or '(none)'}, not the authorization server "
                       f"{sorted(wanted)[0] if len(wanted) == 1 else ' or '.join(sorted(wanted))}")
    return " and ".join(reasons)
