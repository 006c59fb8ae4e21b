"""DPoP, proof of possession for OAuth tokens (RFC 9449, https://www.rfc-editor.org/rfc/rfc9449): one key per
session, a fresh proof on every token and resource request, and the servers' nonces. Signing is joserfc's.

* a proof (section 4.2) is a JWT with header ``typ dpop+jwt``, ``alg`` and the public ``jwk``, and claims ``jti``
  (new each time), ``htm`` (the method), ``htu`` (the URL without query and fragment), ``iat``, ``ath`` (the
  SHA-256 of the access token, on resource requests, section 7) and ``nonce`` when the server gave one;
* the key is made when the session first needs it and lives in memory only; tokens bound to it are not kept
  past the session (another process has no key to prove them with);
* a server that wants a nonce answers ``use_dpop_nonce`` with a ``DPoP-Nonce`` header (the authorization server
  a 400 JSON error, section 8; the resource server a 401 ``DPoP`` challenge, section 9); the nonce is kept per
  server (and per role: an authorization server and its resource may share an origin) and sent from then on.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from joserfc import jwt
from joserfc.jwk import ECKey, OKPKey, RSAKey

from inspector.core.auth.challenge import Challenge, parse_challenges
from inspector.core.auth.model import RULES, Step

if TYPE_CHECKING:
    from inspector.core.auth.flow import OAuthClient
    from inspector.core.transports.credentials import AuthIO

#: The algorithms proofs can be signed with, in the order the inspector prefers them.
PROOF_ALGORITHMS = ("ES256", "ES384", "ES512", "RS256", "PS256", "Ed25519", "EdDSA")
#: The algorithm when the authorization server lists none (``--dpop``, or a resource server's DPoP challenge).
DEFAULT_ALG = "ES256"
#: The error of a server that wants a nonce (RFC 9449 sections 8 and 9).
USE_NONCE = "use_dpop_nonce"
#: Roles a nonce belongs to: the authorization server's token endpoint, or the resource (the MCP server).
AS, RS = "authorization server", "resource server"


def choose_alg(listed: object) -> str | None:
    """The proof algorithm for an authorization server's ``dpop_signing_alg_values_supported``: the first of
    :data:`PROOF_ALGORITHMS` it lists; :data:`DEFAULT_ALG` when it lists none; None when it lists only others."""
    if not isinstance(listed, list) or not listed:
        return DEFAULT_ALG
    for alg in PROOF_ALGORITHMS:
        if alg in listed:
            return alg
    return None


def _new_key(alg: str) -> ECKey | RSAKey | OKPKey:
    if alg.startswith("ES"):
        return ECKey.generate_key({"ES256": "P-256", "ES384": "P-384", "ES512": "P-521"}[alg])
    if alg in ("Ed25519", "EdDSA"):
        return OKPKey.generate_key("Ed25519")
    return RSAKey.generate_key(2048)


def htu(url: str) -> str:
    """The ``htu`` of a request: its URL without query and fragment (RFC 9449 section 4.2)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def token_hash(access_token: str) -> str:
    """``ath``: base64url of the SHA-256 of the access token's ASCII (RFC 9449 section 4.2)."""
    digest = hashlib.sha256(access_token.encode("ascii", "replace")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


class DPoP:
    """A session's DPoP key, and the nonces the servers gave."""

    def __init__(self, alg: str = DEFAULT_ALG) -> None:
        self.alg = alg
        self.key = _new_key(alg)
        self.public_jwk = self.key.as_dict(private=False)
        self.nonces: dict[tuple[str, str], str] = {}

    @property
    def thumbprint(self) -> str:
        """RFC 7638 SHA-256 thumbprint of the public key: what a bound token's ``cnf.jkt`` names."""
        return self.key.thumbprint()

    def proof(self, method: str, url: str, role: str, access_token: str | None = None,
              now: float | None = None) -> str:
        """A fresh proof for one request (``role``: :data:`AS` or :data:`RS`, whose nonce it carries)."""
        claims: dict[str, object] = {"jti": secrets.token_urlsafe(16), "htm": method.upper(), "htu": htu(url),
                                     "iat": int(now if now is not None else time.time())}
        if access_token is not None:
            claims["ath"] = token_hash(access_token)
        nonce = self.nonces.get((role, _origin(url)))
        if nonce is not None:
            claims["nonce"] = nonce
        header = {"typ": "dpop+jwt", "alg": self.alg, "jwk": self.public_jwk}
        return jwt.encode(header, claims, self.key, algorithms=[self.alg])

    def observe(self, role: str, url: str, headers: Mapping[str, str]) -> str | None:
        """Keep a ``DPoP-Nonce`` the server sent (any answer may carry a new one); returns it, or None."""
        nonce = headers.get("dpop-nonce")
        if nonce and nonce.isprintable() and len(nonce) <= 1024:
            self.nonces[(role, _origin(url))] = nonce
            return nonce
        return None


def wants_nonce_at_token_endpoint(status: int, headers: Mapping[str, str], body: bytes) -> bool:
    """An authorization server's ``use_dpop_nonce`` (RFC 9449 section 8): a 400 (401 by some) whose JSON error
    says so, with a ``DPoP-Nonce`` header."""
    if status not in (400, 401) or not headers.get("dpop-nonce"):
        return False
    try:
        error = json.loads(body)
    except (ValueError, RecursionError):
        return False
    return isinstance(error, dict) and error.get("error") == USE_NONCE


def wants_nonce_at_resource(status: int, headers: Mapping[str, str]) -> bool:
    """A resource server's ``use_dpop_nonce`` (RFC 9449 section 9): a 401 whose ``DPoP`` challenge says so,
    with a ``DPoP-Nonce`` header."""
    if status != 401 or not headers.get("dpop-nonce"):
        return False
    return any(c.scheme.lower() == "dpop" and c.error == USE_NONCE
               for c in parse_challenges(headers.get("www-authenticate", "")))


def challenges_with_dpop(header: str) -> bool:
    """Whether a ``WWW-Authenticate`` value offers the ``DPoP`` scheme (RFC 9449 section 7.1)."""
    return any(c.scheme.lower() == "dpop" for c in parse_challenges(header))


def start_dpop(oauth: OAuthClient, io: AuthIO, challenge: Challenge, metadata: dict[str, Any]) -> None:
    """Make the session's DPoP key when it is wanted and not made yet: ``--dpop``, a resource server that
    challenges with the DPoP scheme, or an authorization server that lists dpop_signing_alg_values_supported
    (RFC 9449 section 5.1). Raises AuthError when the server lists only algorithms the inspector cannot sign."""
    if oauth.dpop is not None:
        return
    listed = metadata.get("dpop_signing_alg_values_supported")
    if oauth.options.dpop:
        why = "--dpop"
    elif challenge.scheme.lower() == "dpop":
        why = "the MCP server challenges with the DPoP scheme"
    elif isinstance(listed, list) and listed:
        why = "the authorization server lists dpop_signing_alg_values_supported"
    else:
        return
    endpoint = str(metadata.get("token_endpoint") or oauth.issuer)
    alg = choose_alg(listed)
    if alg is None:
        raise oauth.fail("dpop", endpoint, f"the authorization server takes DPoP proofs signed with "
                         f"{', '.join(map(str, listed)) if isinstance(listed, list) else listed} only, and the "
                         f"inspector signs with {', '.join(PROOF_ALGORITHMS)}", "dpop", io)
    oauth.dpop = DPoP(alg)
    oauth.note_step(Step("dpop", endpoint, "ok", f"DPoP ({why}): a key for this session only ({alg}, thumbprint "
                         f"{oauth.dpop.thumbprint}); each token and MCP request carries a fresh proof",
                         RULES["dpop"]), io)
