"""What the OAuth flow is made of, for the flow, the transports and a window: options, steps, tokens, errors.

Each rule the flow keeps is named once here (:data:`RULES`) so a refusal says which rule it keeps.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from inspector.core.transports.credentials import CredentialsError
from inspector.core.urls import RULE as URL_RULE

#: How the authorization step is done headless: the system browser and the loopback listener, a redirect
#: URL pasted on standard input, or following the authorization URL without a person (test servers that
#: approve at once, as the conformance suite's does).
AUTHORIZE_MODES = ("browser", "paste", "follow")

#: The redirect URI when nothing listens (``paste`` and ``follow``): the browser's address bar (paste) or the
#: ``Location`` header (follow) carries the answer; no port is opened for it.
NO_LISTENER_REDIRECT = "http://127.0.0.1/callback"

#: How a token is obtained: the authorization code flow (a person signs in), or one of the grants of the
#: official authorization extensions, with no person (:mod:`grants`): client credentials (RFC 6749 section 4.4),
#: a JWT authorization grant (RFC 7523 section 2.1, as workload identity federation uses it), and enterprise-
#: managed authorization (an ID-JAG from the enterprise IdP by RFC 8693 token exchange, then RFC 7523).
GRANTS = ("authorization-code", "client-credentials", "jwt-bearer", "id-jag")

#: What each refusal cites, by key.
RULES = {
    "prm": "MCP authorization (2025-06-18 on): clients must use OAuth 2.0 Protected Resource Metadata "
           "(RFC 9728) to find the authorization server",
    "prm-resource": "RFC 9728 section 3.3: the resource in the metadata must be the protected resource's URL",
    "as-metadata": "MCP authorization: clients must try RFC 8414 and OpenID Connect discovery in the "
                   "spec's order",
    "issuer": "RFC 8414 section 3.3: the issuer in the metadata must be identical to the issuer the metadata "
              "URL was built from, else the metadata must not be used",
    "pkce": "MCP authorization, Authorization Code Protection: clients must verify PKCE support in the "
            "metadata and refuse to proceed without S256 in code_challenge_methods_supported",
    "registration": "MCP authorization, Client Registration: a pre-registered client, a Client ID Metadata "
                    "Document or Dynamic Client Registration (RFC 7591)",
    "state": "MCP authorization, Open Redirection: clients must discard a response whose state is missing or "
             "does not match",
    "iss": "RFC 9207 section 2.4: the iss of the authorization response must equal the recorded issuer, and "
           "must be present when the server advertises authorization_response_iss_parameter_supported",
    "authorize": "OAuth 2.1 section 4.1.2: the authorization response carries the code (or an error)",
    "token": "OAuth 2.1 section 3.2: the token endpoint answers an access_token as JSON",
    "refresh": "OAuth 2.1 section 4.3: a refresh token gets a new access token",
    "step-up": "MCP authorization, Step-Up Authorization Flow: retry with more scope no more than a few times",
    "legacy": "MCP authorization 2025-03-26: without metadata, the authorization base URL is the server's "
              "root and the endpoints are /authorize, /token and /register",
    "https": "MCP authorization: Client ID Metadata Document client_id must be an https URL with a path",
    "url": URL_RULE,
    "bearer": "RFC 6750 section 2.1: the access token is sent as the credentials of Authorization: Bearer, "
              "printable characters without spaces",
    "client-credentials": "RFC 6749 section 4.4 (the OAuth Client Credentials extension of MCP): the client "
                          "authenticates at the token endpoint and gets a token for itself, with no person",
    "private-key-jwt": "RFC 7523 section 2.2 and 3: a client assertion signed with the client's registered key, "
                       "iss and sub the client_id, aud the authorization server's issuer, not expired",
    "jwt-bearer": "RFC 7523 section 2.1 and 3: the assertion must be a JWT whose aud names the authorization "
                  "server, which is not expired and whose signature the server trusts",
    "token-exchange": "RFC 8693 section 2 (MCP Enterprise-Managed Authorization): the IdP exchanges the user's "
                      "ID token for an ID-JAG (issued_token_type urn:ietf:params:oauth:token-type:id-jag)",
    "id-jag": "MCP Enterprise-Managed Authorization: the ID-JAG is presented to the MCP server's authorization "
              "server with the RFC 7523 JWT bearer grant and the client's own credentials",
    "dpop": "RFC 9449 sections 4, 5 and 7: a fresh DPoP proof (typ dpop+jwt, htm, htu, iat, jti, ath) signed by "
            "the session's key on every token and resource request; a DPoP-bound token is sent with the DPoP scheme",
    "dpop-nonce": "RFC 9449 sections 8 and 9: a use_dpop_nonce error carries the nonce to put in the proof; the "
                  "request is sent again once with it",
}


@dataclass
class OAuthOptions:
    """What the user asked for (``--oauth`` and its options, or a profile)."""

    authorize: str = "browser"  #: one of AUTHORIZE_MODES
    client_id: str | None = None  #: a pre-registered client
    client_secret: str | None = None
    client_metadata_url: str | None = None  #: an https URL of our Client ID Metadata Document
    scope: str | None = None  #: scopes to ask for instead of the challenge's or the metadata's
    client_name: str = "mcp-inspector"
    grant: str = "authorization-code"  #: one of GRANTS
    client_key: str | None = None  #: path of a PEM private key: private_key_jwt client authentication (read, kept)
    client_key_alg: str | None = None  #: its JWS algorithm (default: from the key)
    assertion: str | None = None  #: jwt-bearer: the JWT authorization grant itself
    assertion_file: str | None = None  #: jwt-bearer: a file holding it, read at each token request (rotated tokens)
    id_token: str | None = None  #: id-jag: the user's ID token from the enterprise IdP
    id_token_file: str | None = None  #: id-jag: a file holding it, read at each exchange
    idp_token_endpoint: str | None = None  #: id-jag: where the IdP exchanges tokens (else from --idp-issuer)
    idp_client_id: str | None = None  #: id-jag: the client's id at the IdP
    idp_issuer: str | None = None  #: id-jag: the IdP's issuer (its metadata names the token endpoint)
    dpop: bool = False  #: send DPoP proofs even when neither server asks for them (RFC 9449)

    @property
    def by_person(self) -> bool:
        """Whether a person signs in (the authorization code flow) rather than the client alone."""
        return self.grant == "authorization-code"


@dataclass
class Step:
    """One step of the flow as a window lists it."""

    #: discovery, metadata, registration, authorize, token, refresh, retry, step-up, logout; for the grants
    #: without a person: assertion, exchange (at the enterprise IdP), dpop
    name: str
    url: str
    outcome: str  #: ok, failed, tried (a candidate URL that had nothing), skipped
    sentence: str  #: what happened, for a person
    rule: str = ""  #: the rule it keeps or broke (RULES)

    def as_data(self) -> dict[str, Any]:
        data = {"auth_step": self.name, "url": self.url, "outcome": self.outcome, "text": self.sentence}
        if self.rule:
            data["rule"] = self.rule
        return data


class AuthError(CredentialsError):
    """The flow cannot go on: ``str()`` is one sentence that names the rule."""

    def __init__(self, sentence: str, step: Step | None = None) -> None:
        super().__init__(sentence)
        self.step = step


@dataclass
class TokenSet:
    """An access token and what came with it (never written in clear: see :mod:`tokens`)."""

    access_token: str
    token_type: str = "Bearer"
    refresh_token: str | None = None
    expires_at: float | None = None  #: wall clock (time.time()), None when the server did not say
    scope: str | None = None

    #: refresh this long before the announced expiry, so a request does not leave with a token about to lapse
    EARLY = 30.0

    def expired(self, now: float | None = None) -> bool:
        return self.expires_at is not None and (now or time.time()) >= self.expires_at - self.EARLY

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TokenSet | None:
        token = data.get("access_token")
        if not isinstance(token, str) or not token:
            return None
        expires = data.get("expires_at")
        return cls(access_token=token, token_type=str(data.get("token_type") or "Bearer"),
                   refresh_token=data.get("refresh_token") if isinstance(data.get("refresh_token"), str) else None,
                   expires_at=float(expires) if isinstance(expires, (int, float)) else None,
                   scope=data.get("scope") if isinstance(data.get("scope"), str) else None)

    @classmethod
    def from_response(cls, body: dict[str, Any], previous: TokenSet | None = None) -> TokenSet:
        expires_in = body.get("expires_in")
        refresh = body.get("refresh_token")
        return cls(access_token=str(body["access_token"]), token_type=str(body.get("token_type") or "Bearer"),
                   refresh_token=refresh if isinstance(refresh, str) else (previous.refresh_token if previous
                                                                           else None),
                   expires_at=time.time() + float(expires_in) if isinstance(expires_in, (int, float)) else None,
                   scope=body.get("scope") if isinstance(body.get("scope"), str) else None)


@dataclass
class ClientInfo:
    """The client as the authorization server knows it."""

    client_id: str
    client_secret: str | None = None
    auth_method: str = "none"  #: none, client_secret_basic, client_secret_post, private_key_jwt
    how: str = "pre-registered"  #: pre-registered, client-id-metadata-document, dynamic-registration
    issuer: str = ""  #: the authorization server it belongs to (credentials never cross servers)
    redirect_uris: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ClientInfo | None:
        if not isinstance(data.get("client_id"), str):
            return None
        return cls(client_id=data["client_id"], client_secret=data.get("client_secret"),
                   auth_method=str(data.get("auth_method") or "none"), how=str(data.get("how") or ""),
                   issuer=str(data.get("issuer") or ""), redirect_uris=list(data.get("redirect_uris") or []))


UNSENDABLE_TOKEN = "the token endpoint issued an access token that cannot be sent in an Authorization header " \
                   "(it holds a line break, a space or another character outside printable ASCII), so it is not used"


def sendable(token: str) -> bool:
    """Whether ``token`` can be the credentials of ``Authorization: Bearer``: non-empty, printable ASCII without
    spaces (RFC 6750 section 2.1's b64token is narrower still; servers stray from it, but never into a line
    break that would end the header, nor into what an HTTP library refuses to send)."""
    return bool(token) and all("!" <= char <= "~" for char in token)
