"""The OAuth 2.1 flow of an MCP client, one step at a time, every request through the transport's recorder.

Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization, with what the other
revisions add or keep: 2025-03-26 (no protected resource metadata: the authorization base URL is the
server's root, default endpoints /authorize, /token, /register), 2025-06-18 (RFC 9728 discovery, RFC 8707
resource), 2026-07-28 (RFC 9207 ``iss``, issuer match, ``offline_access``, scope union on step-up).

:class:`OAuthClient` holds what one server's authorization needs (metadata, client, tokens) and runs:

1. protected resource metadata: the challenge's ``resource_metadata``, else the path-aware then the root
   well-known URL (RFC 9728); none at all means a 2025-03-26 server;
2. authorization server metadata: RFC 8414 and OpenID Connect discovery in the spec's order; the issuer must
   match; ``S256`` must be in ``code_challenge_methods_supported``;
3. registration: pre-registered id (and secret), a Client ID Metadata Document when the server says
   ``client_id_metadata_document_supported``, else Dynamic Client Registration (RFC 7591);
4. authorization: PKCE S256, ``state``, ``resource`` (RFC 8707), scope (the challenge's, else the
   resource's ``scopes_supported``, else none; ``offline_access`` when the server lists it), done by an
   :class:`~inspector.core.auth.authorize.Authorizer` (browser, paste, follow); ``state`` and ``iss`` checked;
5. token: authorization code grant, client authentication none, client_secret_basic or client_secret_post;
   refresh with the refresh token when the access token expires or is refused.

The grants without a person (client credentials, JWT bearer, ID-JAG: ``OAuthOptions.grant``) share steps 1 and
2 and then take their token in :mod:`grants`; DPoP (:mod:`dpop`) adds a proof to every token and resource
request once either server asks for it (or ``--dpop``).

Each step is a :class:`Step` given to ``AuthIO.note`` (the transport makes it a ``note`` event) and kept in
``steps``; a refusal raises :class:`AuthError` with one sentence that names the rule.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

from inspector.core.auth import discovery, grants
from inspector.core.auth.assertions import ClientKey
from inspector.core.auth.authorize import Authorizer, default_authorizer
from inspector.core.auth.challenge import Challenge, parse_challenge
from inspector.core.auth.dpop import RS, DPoP, start_dpop, wants_nonce_at_resource
from inspector.core.auth.model import (
    RULES,
    UNSENDABLE_TOKEN,
    AuthError,
    ClientInfo,
    OAuthOptions,
    Step,
    TokenSet,
    sendable,
)
from inspector.core.auth.pkce import challenge_of, make_state, make_verifier
from inspector.core.auth.tokens import TokenStore, default_store
from inspector.core.transports.credentials import AuthIO, CredentialsError, Reply
from inspector.core.urls import shown_url, url_refusal

#: How many step-up authorizations one request may cause before it fails for good ("no more than a few").
MAX_STEP_UPS = 2
#: Why an access token is refused that cannot go into an ``Authorization`` header as it came (the token
#: itself is never repeated: sentences reach the terminal and the capture).

@dataclass
class _Pending:
    """What one authorization request must be matched against (kept with the PKCE verifier)."""

    verifier: str
    state: str
    issuer: str
    redirect_uri: str
    scope: str | None
    metadata: dict[str, Any] = field(default_factory=dict)


class OAuthClient:
    """One MCP server's authorization: discovery results, the client, the tokens, the steps so far."""

    def __init__(self, server_url: str, options: OAuthOptions, store: TokenStore | None = None,
                 authorizer: Callable[[OAuthOptions], Authorizer] | None = None) -> None:
        self.server_url = server_url
        self.options = options
        self.store = store or default_store()
        self.make_authorizer = authorizer or default_authorizer
        self.steps: list[Step] = []
        self.listeners: list[Callable[[Step], None]] = []  #: a window's Auth panel
        self.client: ClientInfo | None = None
        self.tokens: TokenSet | None = None
        self.metadata: dict[str, Any] = {}
        self.issuer = ""
        self.resource: str | None = None
        self.requested_scope: str | None = None
        self.generation = 0  #: bumped whenever the access token changes
        self.secrets: set[str] = set()  #: values that must never reach a capture (tokens, codes, ...)
        self.dpop: DPoP | None = None  #: the session's DPoP key, once a server asked for proofs
        self.client_key: ClientKey | None = None  #: the private_key_jwt key, read at login
        self._lock: asyncio.Lock | None = None
        self._load_stored()
        self.secrets.update(s for s in (options.client_secret, options.assertion, options.id_token) if s)

    # -- what the transport asks -----------------------------------------------------------------------

    def header(self) -> str | None:
        """The ``Authorization`` value to send, or None before a token is held."""
        if self.tokens is None:
            return None
        return f"{'DPoP' if self._bound() else 'Bearer'} {self.tokens.access_token}"

    def request_headers(self, method: str, url: str) -> dict[str, str]:
        """The headers a request to the MCP server carries: ``Authorization`` and, with a DPoP-bound token, a
        fresh ``DPoP`` proof for this method and URL (RFC 9449 section 7)."""
        header = self.header()
        if header is None or self.tokens is None:
            return {}
        if self.dpop is not None and self._bound():
            return {"Authorization": header, "DPoP": self.dpop.proof(method, url, RS, self.tokens.access_token)}
        return {"Authorization": header}

    def resource_nonce(self, status: int, headers: Mapping[str, str], url: str) -> bool:
        """Keep a DPoP nonce the MCP server sent; True when it answered ``use_dpop_nonce`` (RFC 9449 section 9):
        the request is to be sent again, once, with the nonce (:meth:`note_nonce_retry` says so)."""
        if self.dpop is None:
            return False
        self.dpop.observe(RS, url, headers)
        return self._bound() and wants_nonce_at_resource(status, headers)  # only a proof can carry the nonce

    def note_nonce_retry(self, url: str, io: AuthIO) -> None:
        self._record(Step("dpop", url, "ok", "the MCP server wants a DPoP nonce (use_dpop_nonce): the request is "
                          "sent again, once, with it", RULES["dpop-nonce"]), io)

    #: how many step-up authorizations one request may cause (the transport counts them)
    max_step_ups = MAX_STEP_UPS

    def challenge_of(self, www_authenticate: str) -> Challenge:
        """A response's ``WWW-Authenticate`` header read (RFC 6750 section 3, RFC 9728 ``resource_metadata``)."""
        return parse_challenge(www_authenticate)

    def handles(self, status: int, challenge: Challenge) -> bool:
        """Whether a response calls for the flow: 401, or 403 with ``insufficient_scope``."""
        return status == 401 or (status == 403 and challenge.error == "insufficient_scope")

    async def before_request(self, io: AuthIO) -> None:
        """Refresh an access token that has expired, if a refresh token is held."""
        if self.tokens is not None and self.tokens.expired() and self.tokens.refresh_token:
            async with self._guard():
                if self.tokens is not None and self.tokens.expired():
                    await self.refresh(io)
        elif self.tokens is not None and self.tokens.expired() and not self.options.by_person and self.metadata:
            async with self._guard():  # a grant without a person is asked again, as before, when its token lapses
                if self.tokens is not None and self.tokens.expired():
                    await grants.obtain(self, io, self.metadata, self.issuer, self.requested_scope)

    async def on_challenge(self, status: int, challenge: Challenge, sent_generation: int, io: AuthIO) -> None:
        """A 401 or 403 ``insufficient_scope``: get a token that should pass, then the caller retries once.
        Raises AuthError with the sentence when there is none to get."""
        async with self._guard():
            if self.generation != sent_generation and status == 401:
                return  # another request already got a new token meanwhile
            if status == 403:
                self._record(Step("step-up", self.server_url, "ok",
                                  f"403 insufficient_scope: authorizing again with the scope "
                                  f"{_union(self.requested_scope, challenge.scope) or '(none)'}", RULES["step-up"]))
                await self.login(io, challenge, step_up=True)
                return
            if self.tokens is not None and self.tokens.refresh_token and self.generation == sent_generation:
                if await self.refresh(io):
                    return
            await self.login(io, challenge)

    def give_up_step_up(self, io: AuthIO) -> AuthError:
        """The error once a request got 403 insufficient_scope after MAX_STEP_UPS step-ups."""
        return self._fail("step-up", self.server_url, f"the server still answers 403 insufficient_scope after "
                          f"{MAX_STEP_UPS} step-up authorizations, so the inspector stops asking", "step-up", io)

    def logout(self) -> None:
        """Forget the tokens (memory and keyring) of this server; the next request starts a new login, with the
        client registered before (a registration is no credential: each login registered one more client)."""
        self.store.forget(self.server_url, registrations=False)
        self.tokens = None
        self.generation += 1
        self._record(Step("logout", self.server_url, "ok", "logged out: the tokens of this server are forgotten"))

    # -- the flow ---------------------------------------------------------------------------------------

    async def login(self, io: AuthIO, challenge: Challenge | None = None, *, step_up: bool = False) -> TokenSet:
        """The whole flow, from discovery to a token; raises AuthError with one sentence."""
        challenge = challenge or Challenge()
        prm = await self.discover(io, challenge)
        metadata, issuer = self.metadata, self.issuer
        start_dpop(self, io, challenge, metadata)
        scope = self._choose_scope(challenge, prm, metadata, step_up)
        if not self.options.by_person:
            tokens = await grants.obtain(self, io, metadata, issuer, scope)
            self.requested_scope = scope
            return tokens
        authorizer = self.make_authorizer(self.options)
        redirect_uri = await authorizer.open()
        try:
            client = await self._register(io, metadata, issuer, redirect_uri)
            pending = _Pending(make_verifier(), make_state(), issuer, redirect_uri, scope, metadata)
            self.secrets.update({pending.verifier, pending.state})
            url = self._authorization_url(client, pending)
            refusal = url_refusal(url)
            if refusal is not None:
                raise self._fail("authorize", shown_url(url), f"the authorization_endpoint of the server's metadata "
                                 f"was refused: {refusal}", "url", io)
            self._record(Step("authorize", _no_query(url), "ok",
                              f"authorization request ({authorizer.describe()}): PKCE S256, "
                              f"resource {self.resource or '(none: 2025-03-26 server)'}, scope {scope or '(none)'}",
                              RULES["authorize"]), io)
            redirect = await authorizer.obtain(url, pending.state, io)
        except AuthError as exc:
            if exc.step is not None:
                self._record(exc.step, io)
            raise
        finally:
            await authorizer.close()
        code = self._check_redirect(redirect, pending, io)
        self.secrets.add(code)
        self.requested_scope = scope
        return await self._redeem(io, client, pending, code)

    async def discover(self, io: AuthIO, challenge: Challenge | None = None) -> dict[str, Any] | None:
        """Discovery alone, each step recorded: the protected resource metadata (RFC 9728), then its authorization
        server's metadata (RFC 8414, OpenID), kept in :attr:`metadata` and :attr:`issuer`; returns the protected
        resource metadata (None for a 2025-03-26 server). Raises AuthError with one sentence. ``login`` starts
        with it; the doctor runs it alone to say where a server's sign-in would go."""
        challenge = challenge or Challenge()
        prm = await self._resource_metadata(io, challenge)
        if prm is not None:
            issuer = str(prm["authorization_servers"][0])
            metadata = await self._server_metadata(io, issuer, legacy=False)
        else:
            issuer = discovery.origin(self.server_url)
            metadata = await self._server_metadata(io, issuer, legacy=True)
        if prm is None and isinstance(metadata.get("issuer"), str):
            issuer = metadata["issuer"]  # the issuer an RFC 9207 iss is compared with
        self.metadata, self.issuer = metadata, issuer
        return prm

    async def refresh(self, io: AuthIO) -> bool:
        """The refresh token grant; True when a new access token came. A refused refresh forgets it."""
        if self.tokens is None or not self.tokens.refresh_token or not self.client:
            return False
        endpoint = str(self.metadata.get("token_endpoint") or "")
        if not endpoint:
            return False
        form = {"grant_type": "refresh_token", "refresh_token": self.tokens.refresh_token}
        if self.resource:
            form["resource"] = self.resource
        reply = await self._token_request(io, self.client, endpoint, form, "refresh")
        body = reply.json()
        if reply.status == 200 and body is not None and isinstance(body.get("access_token"), str) \
                and not sendable(body["access_token"]):
            self.secrets.add(body["access_token"])
            raise self._fail("refresh", endpoint, UNSENDABLE_TOKEN, "bearer", io)
        if reply.status != 200 or body is None or not isinstance(body.get("access_token"), str):
            self._record(Step("refresh", endpoint, "failed",
                              f"the refresh token was refused (HTTP {reply.status}{_oauth_error(body)}): logging in "
                              "again", RULES["refresh"]), io)
            self.tokens = None
            return False
        self._keep(TokenSet.from_response(body, self.tokens))
        self._record(Step("refresh", endpoint, "ok", "a new access token from the refresh token", RULES["refresh"]),
                     io)
        return True

    # -- discovery --------------------------------------------------------------------------------------

    async def _resource_metadata(self, io: AuthIO, challenge: Challenge) -> dict[str, Any] | None:
        """RFC 9728: the challenge's URL, else the well-known ones in order; None when there is none (a
        2025-03-26 server)."""
        if challenge.resource_metadata:
            candidates = [_join(self.server_url, challenge.resource_metadata)]
            where = "from the WWW-Authenticate challenge"
        else:
            candidates = discovery.prm_candidates(self.server_url)
            where = "at the well-known URL"
        for url in candidates:
            reply = await self._fetch(io, "GET", url, "discovery", {"Accept": "application/json"}, None,
                                      "protected resource metadata URL")
            document = reply.json()
            if reply.status != 200 or document is None:
                self._record(Step("discovery", url, "tried",
                                  f"no protected resource metadata {where} (HTTP {reply.status})", RULES["prm"]), io)
                continue
            servers = document.get("authorization_servers")
            if not isinstance(servers, list) or not servers or not isinstance(servers[0], str):
                raise self._fail("discovery", url, "the protected resource metadata lists no authorization_servers, "
                                 "so there is no authorization server to ask", "prm", io)
            resource = document.get("resource")
            if isinstance(resource, str) and not discovery.resource_covers(resource, self.server_url):
                raise self._fail("discovery", url, f"the protected resource metadata is for {resource}, not for "
                                 f"{self.server_url}, so its authorization server must not be used", "prm-resource",
                                 io)
            self.resource = resource if isinstance(resource, str) else discovery.canonical_resource(self.server_url)
            self._record(Step("discovery", url, "ok", f"protected resource metadata {where}: authorization server "
                              f"{servers[0]}", RULES["prm"]), io)
            return document
        if challenge.resource_metadata:
            raise self._fail("discovery", candidates[0], "the resource_metadata URL of the challenge has no "
                             "protected resource metadata", "prm", io)
        self.resource = None
        self._record(Step("discovery", self.server_url, "skipped", "no protected resource metadata: treating the "
                          "server as a 2025-03-26 one (authorization server at its root)", RULES["legacy"]), io)
        return None

    async def _server_metadata(self, io: AuthIO, issuer: str, *, legacy: bool) -> dict[str, Any]:
        candidates = discovery.as_metadata_candidates(issuer)
        if legacy:
            candidates = candidates[:1]  # 2025-03-26: RFC 8414 at the authorization base URL only
        for url, kind in candidates:
            reply = await self._fetch(io, "GET", url, "metadata", {"Accept": "application/json"}, None,
                                      "authorization server metadata URL")
            document = reply.json()
            if reply.status != 200 or document is None:
                self._record(Step("metadata", url, "tried", f"no {_kind(kind)} metadata here (HTTP {reply.status})",
                                  RULES["as-metadata"]), io)
                continue
            # 2025-03-26 builds the URL from the server, not from an issuer: there is none to match
            if not legacy and not discovery.same_issuer(document.get("issuer"), issuer):
                raise self._fail("metadata", url, f"the metadata at {url} says its issuer is "
                                 f"{document.get('issuer')!r}, not {issuer!r}, so it must not be used", "issuer", io)
            methods = document.get("code_challenge_methods_supported")
            if self.options.by_person and (not isinstance(methods, list) or "S256" not in methods):
                listed = "lists no S256 in" if isinstance(methods, list) else "has no"
                raise self._fail("metadata", url, f"the authorization server metadata {listed} "
                                 "code_challenge_methods_supported: the client must refuse to continue", "pkce", io)
            for name in ("authorization_endpoint", "token_endpoint") if self.options.by_person else ("token_endpoint",):
                if not isinstance(document.get(name), str):
                    raise self._fail("metadata", url, f"the authorization server metadata has no {name}",
                                     "as-metadata", io)
            said = "PKCE S256 supported" if self.options.by_person else f"token endpoint {document['token_endpoint']}"
            self._record(Step("metadata", url, "ok", f"{_kind(kind)} metadata of {issuer}: {said}",
                              RULES["as-metadata"]), io)
            return document
        if legacy:
            endpoints = discovery.legacy_endpoints(self.server_url)
            self._record(Step("metadata", issuer, "ok", "no metadata at the server's root: using the 2025-03-26 "
                              "default endpoints /authorize, /token and /register", RULES["legacy"]), io)
            return {"issuer": issuer, **endpoints, "code_challenge_methods_supported": ["S256"], "_defaults": True}
        raise self._fail("metadata", candidates[0][0], f"the authorization server {issuer} publishes no metadata at "
                         "any of its well-known URLs", "as-metadata", io)

    def _choose_scope(self, challenge: Challenge, prm: dict[str, Any] | None, metadata: dict[str, Any],
                      step_up: bool) -> str | None:
        if self.options.scope:
            scope: str | None = self.options.scope
        elif step_up:
            scope = _union(self.requested_scope, challenge.scope)
        elif challenge.scope:
            scope = challenge.scope
        elif prm is not None and isinstance(prm.get("scopes_supported"), list) and prm["scopes_supported"]:
            scope = " ".join(str(s) for s in prm["scopes_supported"])
        else:
            scope = None
        supported = metadata.get("scopes_supported")
        if scope and isinstance(supported, list) and "offline_access" in supported:
            scope = _union(scope, "offline_access")  # 2026-07-28: for a refresh token, when the server lists it
        return scope

    # -- registration -------------------------------------------------------------------------------------

    async def _register(self, io: AuthIO, metadata: dict[str, Any], issuer: str, redirect_uri: str) -> ClientInfo:
        methods = metadata.get("token_endpoint_auth_methods_supported")
        options = self.options
        if options.client_id:
            secret = options.client_secret
            method = "none"
            if secret:
                listed = methods if isinstance(methods, list) else ["client_secret_basic"]
                method = "client_secret_basic" if "client_secret_basic" in listed else \
                    "client_secret_post" if "client_secret_post" in listed else "client_secret_basic"
            client = ClientInfo(options.client_id, secret, method, "pre-registered", issuer, [redirect_uri])
            self._record(Step("registration", issuer, "ok", f"pre-registered client {options.client_id} "
                              f"(token endpoint authentication {method})", RULES["registration"]), io)
            return self._adopt(client)
        if options.client_metadata_url and metadata.get("client_id_metadata_document_supported") is True:
            parts = urlsplit(options.client_metadata_url)
            if parts.scheme != "https" or parts.path in ("", "/"):
                raise self._fail("registration", options.client_metadata_url, "a Client ID Metadata Document "
                                 "client_id must be an https URL with a path", "https", io)
            client = ClientInfo(options.client_metadata_url, None, "none", "client-id-metadata-document", issuer,
                                [redirect_uri])
            self._record(Step("registration", options.client_metadata_url, "ok", "the server supports Client ID "
                              "Metadata Documents: the client_id is the document's URL", RULES["registration"]), io)
            return self._adopt(client)
        stored = self.store.load_client(self.server_url, issuer)
        if stored is not None and (redirect_uri in stored.redirect_uris
                                   or any(loopback_alike(redirect_uri, uri) for uri in stored.redirect_uris)):
            self._record(Step("registration", issuer, "ok", f"reusing the client {stored.client_id} registered "
                              "earlier with this authorization server", RULES["registration"]), io)
            return self._adopt(stored)
        endpoint = metadata.get("registration_endpoint")
        if not isinstance(endpoint, str):
            why = " (and no --client-metadata-url was given)" if metadata.get("client_id_metadata_document_supported") \
                else ""
            raise self._fail("registration", issuer, "the authorization server offers no registration_endpoint"
                             f"{why}: give a pre-registered client with --client-id", "registration", io)
        request = {"client_name": options.client_name, "redirect_uris": [redirect_uri],
                   "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                   "token_endpoint_auth_method": "none", "application_type": "native"}
        reply = await self._fetch(io, "POST", endpoint, "registration",
                                  {"Content-Type": "application/json", "Accept": "application/json"},
                                  json.dumps(request).encode(), "registration_endpoint")
        body = reply.json()
        if reply.status not in (200, 201) or body is None or not isinstance(body.get("client_id"), str):
            raise self._fail("registration", endpoint, f"dynamic client registration failed (HTTP {reply.status}"
                             f"{_oauth_error(body)})", "registration", io)
        secret = body.get("client_secret") if isinstance(body.get("client_secret"), str) else None
        method = str(body.get("token_endpoint_auth_method") or ("client_secret_basic" if secret else "none"))
        client = ClientInfo(body["client_id"], secret, method, "dynamic-registration", issuer, [redirect_uri])
        self.store.save_client(self.server_url, client)
        self._record(Step("registration", endpoint, "ok", f"registered as client {client.client_id} (RFC 7591, "
                          f"token endpoint authentication {method})", RULES["registration"]), io)
        return self._adopt(client)

    def _adopt(self, client: ClientInfo) -> ClientInfo:
        if client.client_secret:
            self.secrets.add(client.client_secret)
        if self.client is None or self.client.client_id != client.client_id:
            stored = self.store.load(self.server_url, client.client_id)
            if stored is not None and self.tokens is None:
                self.tokens = stored
        self.client = client
        return client

    # -- authorization ------------------------------------------------------------------------------------

    def _authorization_url(self, client: ClientInfo, pending: _Pending) -> str:
        params = {"response_type": "code", "client_id": client.client_id, "redirect_uri": pending.redirect_uri,
                  "code_challenge": challenge_of(pending.verifier), "code_challenge_method": "S256",
                  "state": pending.state}
        if self.resource:
            params["resource"] = self.resource
        if pending.scope:
            params["scope"] = pending.scope
        endpoint = str(pending.metadata["authorization_endpoint"])
        separator = "&" if urlsplit(endpoint).query else "?"
        return endpoint + separator + urlencode(params, quote_via=quote)

    def _check_redirect(self, redirect: str, pending: _Pending, io: AuthIO) -> str:
        """The code of the authorization response, after the state and RFC 9207 checks."""
        endpoint = str(pending.metadata.get("authorization_endpoint"))
        params = dict(parse_qsl(urlsplit(redirect.strip()).query, keep_blank_values=True))
        if params.get("state") != pending.state:
            raise self._fail("authorize", endpoint, "the authorization response's state is missing or does not "
                             "match the request's, so it is discarded", "state", io)
        iss = params.get("iss")
        advertised = pending.metadata.get("authorization_response_iss_parameter_supported") is True
        if iss is None and advertised:
            raise self._fail("authorize", endpoint, "the authorization response has no iss although the server "
                             "advertises authorization_response_iss_parameter_supported", "iss", io)
        if iss is not None and iss != pending.issuer:
            raise self._fail("authorize", endpoint, f"the authorization response comes from issuer {iss!r}, not from "
                             f"{pending.issuer!r} (a mix-up attack?), so its code is not used", "iss", io)
        if "error" in params:
            description = params.get("error_description")
            raise self._fail("authorize", endpoint, f"the authorization server refused: {params['error']}"
                             f"{': ' + description if description else ''}", "authorize", io)
        code = params.get("code")
        if not code:
            raise self._fail("authorize", endpoint, "the authorization response carries no code", "authorize", io)
        checked = "state and iss checked" if iss is not None else "state checked"
        self._record(Step("authorize", endpoint, "ok", f"authorization code received ({checked})",
                          RULES["authorize"]), io)
        return code

    # -- requests -------------------------------------------------------------------------------------------

    async def _fetch(self, io: AuthIO, method: str, url: str, step: str, headers: dict[str, str],
                     body: bytes | None, what: str) -> Reply:
        """Every request of the flow: refused, before anything is sent, unless ``url`` keeps the URL rule
        (:func:`inspector.core.urls.url_refusal`); ``what`` names where the URL came from, for the sentence."""
        refusal = url_refusal(url)
        if refusal is not None:
            raise self._fail(step, shown_url(url), f"the {what} was refused: {refusal}", "url", io)
        try:
            return await io.fetch(method, url, step, headers, body)
        except AuthError:
            raise
        except CredentialsError as exc:  # the transport's sentence for a network failure
            raise AuthError(str(exc)) from None

    # -- tokens ---------------------------------------------------------------------------------------------

    async def _redeem(self, io: AuthIO, client: ClientInfo, pending: _Pending, code: str) -> TokenSet:
        endpoint = str(pending.metadata["token_endpoint"])
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": pending.redirect_uri,
                "code_verifier": pending.verifier}
        if self.resource:
            form["resource"] = self.resource
        reply = await self._token_request(io, client, endpoint, form, "token")
        body = reply.json()
        if reply.status != 200 or body is None or not isinstance(body.get("access_token"), str):
            raise self._fail("token", endpoint, f"the token endpoint did not issue a token (HTTP {reply.status}"
                             f"{_oauth_error(body)})", "token", io)
        if not sendable(body["access_token"]):
            self.secrets.add(body["access_token"])
            raise self._fail("token", endpoint, UNSENDABLE_TOKEN, "bearer", io)
        tokens = TokenSet.from_response(body)
        self._keep(tokens)
        refresh = " and a refresh token" if tokens.refresh_token else ""
        self._record(Step("token", endpoint, "ok", f"access token issued{refresh} (client authentication "
                          f"{client.auth_method}{grants.binding(self, tokens)})", RULES["token"]), io)
        return tokens

    async def _token_request(self, io: AuthIO, client: ClientInfo, endpoint: str, form: dict[str, str],
                             step: str) -> Reply:
        return await grants.token_request(self, io, client, endpoint, form, step)

    def _keep(self, tokens: TokenSet) -> None:
        self.tokens = tokens
        self.generation += 1
        self.secrets.add(tokens.access_token)
        if tokens.refresh_token:
            self.secrets.add(tokens.refresh_token)
        # a DPoP-bound token is worth nothing without this session's key, which is never stored
        if self.client is not None and not self._bound():
            self.store.save(self.server_url, self.client.client_id, tokens)

    def _bound(self) -> bool:
        """Whether the held token is DPoP-bound (RFC 9449 section 5: ``token_type`` DPoP)."""
        return self.tokens is not None and self.tokens.token_type.lower() == "dpop"

    def _load_stored(self) -> None:
        client_id = self.options.client_metadata_url or self.options.client_id
        if client_id:
            self.tokens = self.store.load(self.server_url, client_id)
        if self.tokens is not None:
            self.secrets.add(self.tokens.access_token)
            if self.tokens.refresh_token:
                self.secrets.add(self.tokens.refresh_token)

    # -- reporting --------------------------------------------------------------------------------------------

    def _record(self, step: Step, io: AuthIO | None = None) -> None:
        self.steps.append(step)
        if io is not None:
            io.note(step)
        for listener in list(self.listeners):
            listener(step)

    def _fail(self, name: str, url: str, sentence: str, rule: str, io: AuthIO | None = None) -> AuthError:
        """The error to raise (its step recorded now when ``io`` is given, else by the caller)."""
        step = Step(name, url, "failed", sentence, RULES[rule])
        if io is not None:
            self._record(step, io)
            return AuthError(f"OAuth {name}: {sentence} ({RULES[rule]})")
        return AuthError(f"OAuth {name}: {sentence} ({RULES[rule]})", step)

    def _guard(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    # what grants.py and dpop.py use of the flow: report a step, fail with a rule, keep a token, adopt a client,
    # and request (every request of the flow keeps the URL rule)
    fetch = _fetch
    note_step = _record
    fail = _fail
    keep = _keep
    adopt = _adopt


def _union(first: str | None, second: str | None) -> str | None:
    words: list[str] = []
    for text in (first, second):
        for word in (text or "").split():
            if word not in words:
                words.append(word)
    return " ".join(words) or None


def _join(base: str, url: str) -> str:
    from urllib.parse import urljoin

    return urljoin(base, url)


def _no_query(url: str) -> str:
    return url.split("?", 1)[0]


def _kind(kind: str) -> str:
    return "OAuth 2.0 authorization server (RFC 8414)" if kind == "oauth" else "OpenID Connect discovery"


def _oauth_error(body: dict[str, Any] | None) -> str:
    if not body or not isinstance(body.get("error"), str):
        return ""
    description = body.get("error_description")
    return f": {body['error']}" + (f", {description}" if isinstance(description, str) else "")


def loopback_alike(uri: str, registered: str) -> bool:
    """Whether ``uri`` is the loopback redirect URI ``registered`` on another port: RFC 8252 section 7.3 has the
    authorization server allow any port for a loopback IP redirect URI, as a native client's listener gets a
    new one at each login (https://www.rfc-editor.org/rfc/rfc8252#section-7.3)."""
    a, b = urlsplit(uri), urlsplit(registered)
    return a.scheme == b.scheme == "http" and a.hostname == b.hostname and a.hostname in ("127.0.0.1", "::1") \
        and a.path == b.path and a.query == b.query
