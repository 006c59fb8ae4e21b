"""Tokens without a person: the grants of MCP's official authorization extensions, and the token request every
grant shares (client authentication, DPoP proof, the nonce retry).

* ``client-credentials`` (the OAuth Client Credentials extension; RFC 6749 section 4.4): a pre-registered client
  authenticates with its secret (client_secret_basic or client_secret_post, as the metadata lists) or with a
  key (private_key_jwt, RFC 7523 section 2.2) and gets a token for itself;
* ``jwt-bearer`` (RFC 7523 section 2.1, as workload identity federation uses it): a JWT from the workload's
  identity provider (``--assertion``, or ``--assertion-file`` read at each request) is the grant;
* ``id-jag`` (the Enterprise-Managed Authorization extension): the user's ID token is exchanged at the
  enterprise IdP for an Identity Assertion JWT Authorization Grant (RFC 8693 token exchange, requested token
  type ``urn:ietf:params:oauth:token-type:id-jag``, audience the MCP server's authorization server, resource the
  MCP server), which is then the assertion of the jwt-bearer grant at the MCP server's authorization server,
  with the client's own credentials.

A refused grant is not tried again nor swapped for another (the extensions say: surface the error); its
sentence says what the server answered and, when the assertion shows it, why (expired, another audience).

Extension texts: https://github.com/modelcontextprotocol/ext-auth (oauth-client-credentials,
enterprise-managed-authorization).
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from inspector.core.auth import assertions, discovery
from inspector.core.auth.dpop import AS, wants_nonce_at_token_endpoint
from inspector.core.auth.model import RULES, UNSENDABLE_TOKEN, ClientInfo, Step, TokenSet, sendable

if TYPE_CHECKING:
    from inspector.core.auth.flow import OAuthClient
    from inspector.core.transports.credentials import AuthIO, Reply

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
#: The grant_type each grant sends, and the rule a refusal of it names.
GRANT_TYPES = {"client-credentials": ("client_credentials", "client-credentials"),
               "jwt-bearer": (JWT_BEARER, "jwt-bearer"), "id-jag": (JWT_BEARER, "id-jag")}
FORM_HEADERS = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}


# -- the token request every grant makes ----------------------------------------------------------------------

async def token_request(oauth: OAuthClient, io: AuthIO, client: ClientInfo, endpoint: str, form: dict[str, str],
                        step: str) -> Reply:
    """POST ``form`` to the token endpoint with the client's authentication (none, client_secret_basic,
    client_secret_post, private_key_jwt) and, when the session uses DPoP, a fresh proof; an authorization server
    that answers ``use_dpop_nonce`` gets the request once more with its nonce (RFC 9449 section 8)."""

    async def send() -> Reply:
        headers, sent = dict(FORM_HEADERS), dict(form)
        _authenticate(oauth, client, sent, headers)  # a new client assertion each time: its jti is used once
        if oauth.dpop is not None:
            headers["DPoP"] = oauth.dpop.proof("POST", endpoint, AS)
        reply = await oauth.fetch(io, "POST", endpoint, step, headers, urlencode(sent).encode(), "token_endpoint")
        if oauth.dpop is not None:
            oauth.dpop.observe(AS, endpoint, reply.headers)
        return reply

    reply = await send()
    if oauth.dpop is None or not wants_nonce_at_token_endpoint(reply.status, reply.headers, reply.body):
        return reply
    oauth.note_step(Step("dpop", endpoint, "ok", "the authorization server wants a DPoP nonce (use_dpop_nonce): "
                         "the token request is sent again, once, with it", RULES["dpop-nonce"]), io)
    return await send()


def _authenticate(oauth: OAuthClient, client: ClientInfo, form: dict[str, str], headers: dict[str, str]) -> None:
    if client.auth_method == "client_secret_basic" and client.client_secret:
        # RFC 6749 section 2.3.1: each part form-encoded before Base64
        pair = f"{quote(client.client_id, safe='')}:{quote(client.client_secret, safe='')}"
        basic = base64.b64encode(pair.encode()).decode()
        oauth.secrets.add(basic)
        headers["Authorization"] = f"Basic {basic}"
        return
    form["client_id"] = client.client_id
    if client.auth_method == "client_secret_post" and client.client_secret:
        form["client_secret"] = client.client_secret
    elif client.auth_method == "private_key_jwt" and oauth.client_key is not None:
        signed = assertions.client_assertion(oauth.client_key, client.client_id, oauth.issuer)
        oauth.secrets.add(signed)
        form["client_assertion_type"] = assertions.CLIENT_ASSERTION_TYPE
        form["client_assertion"] = signed


def secret_method(metadata: dict[str, Any]) -> str:
    """How a client secret goes to the token endpoint: client_secret_basic unless the metadata lists only
    client_secret_post (RFC 8414: client_secret_basic is the default when nothing is listed)."""
    methods = metadata.get("token_endpoint_auth_methods_supported")
    listed = methods if isinstance(methods, list) else ["client_secret_basic"]
    if "client_secret_basic" in listed:
        return "client_secret_basic"
    return "client_secret_post" if "client_secret_post" in listed else "client_secret_basic"


# -- the grants without a person ---------------------------------------------------------------------------------

async def obtain(oauth: OAuthClient, io: AuthIO, metadata: dict[str, Any], issuer: str, scope: str | None
                 ) -> TokenSet:
    """The token of the grant ``oauth.options.grant`` names, from the authorization server whose metadata is
    ``metadata``; raises AuthError with one sentence (the step recorded)."""
    grant = oauth.options.grant
    grant_type, rule = GRANT_TYPES[grant]
    endpoint = str(metadata["token_endpoint"])
    client = _client(oauth, io, metadata, issuer)
    form = {"grant_type": grant_type}
    assertion = ""
    if grant == "jwt-bearer":
        assertion = _read_assertion(oauth, io, endpoint)
        form["assertion"] = assertion
    elif grant == "id-jag":
        assertion = await _exchange_at_idp(oauth, io, issuer, scope)
        form["assertion"] = assertion
    if scope:
        form["scope"] = scope
    if oauth.resource:
        form["resource"] = oauth.resource
    reply = await token_request(oauth, io, client, endpoint, form, "token")
    body = reply.json()
    if reply.status != 200 or body is None or not isinstance(body.get("access_token"), str):
        raise oauth.fail("token", endpoint, _refusal(oauth, metadata, reply, body, client, assertion, endpoint),
                         rule, io)
    if not sendable(body["access_token"]):  # never quoted: a token with a line break would end up in stderr
        oauth.secrets.add(body["access_token"])
        raise oauth.fail("token", endpoint, UNSENDABLE_TOKEN, "bearer", io)
    tokens = TokenSet.from_response(body)
    oauth.keep(tokens)
    bound = binding(oauth, tokens)
    oauth.note_step(Step("token", endpoint, "ok", f"access token issued by the {grant_type} grant (client "
                         f"authentication {client.auth_method}{bound})", RULES[rule]), io)
    return tokens


def _client(oauth: OAuthClient, io: AuthIO, metadata: dict[str, Any], issuer: str) -> ClientInfo:
    """The pre-registered client of a grant without a person (no registration: a machine client is known to
    its authorization server beforehand), and how it authenticates."""
    options = oauth.options
    known = oauth.client
    if known is not None and known.client_id == options.client_id and known.issuer == issuer:
        return known  # a renewal: the client (and its key) as the first time
    if not options.client_id:
        raise oauth.fail("registration", issuer, f"the {options.grant} grant needs the client's id at the "
                         "authorization server: give --client-id", "registration", io)
    if options.grant in ("client-credentials", "id-jag") and not (options.client_secret or options.client_key):
        raise oauth.fail("registration", issuer, f"the {options.grant} grant needs the client's secret or key, and "
                         f"none is given for {options.client_id} (a profile keeps its secret in the keyring: enter "
                         "it again in the profile)", "client-credentials" if options.grant == "client-credentials"
                         else "id-jag", io)
    if options.client_key:
        try:
            oauth.client_key = assertions.load_client_key(options.client_key, options.client_key_alg)
        except assertions.CredentialError as exc:
            raise oauth.fail("assertion", issuer, str(exc), "private-key-jwt", io) from None
        method, how = "private_key_jwt", f", signing with the {oauth.client_key.describe()}"
    elif options.client_secret:
        method, how = secret_method(metadata), ""
    else:
        method, how = "none", ""
    client = ClientInfo(options.client_id, options.client_secret, method, "pre-registered", issuer, [])
    oauth.note_step(Step("registration", issuer, "ok", f"pre-registered client {options.client_id} (token "
                         f"endpoint authentication {method}{how})", RULES["registration"]), io)
    return oauth.adopt(client)


def _read_assertion(oauth: OAuthClient, io: AuthIO, endpoint: str) -> str:
    options = oauth.options
    if options.assertion_file:
        try:
            assertion = assertions.read_jwt_file(options.assertion_file, "the assertion file")
        except assertions.CredentialError as exc:
            raise oauth.fail("assertion", endpoint, str(exc), "jwt-bearer", io) from None
        where = f"the assertion file {options.assertion_file}"
    else:
        assertion, where = options.assertion or "", "--assertion"
    oauth.secrets.add(assertion)
    oauth.note_step(Step("assertion", endpoint, "ok", f"the JWT authorization grant from {where}: "
                         f"{assertions.summary(assertion)}", RULES["jwt-bearer"]), io)
    return assertion


async def _exchange_at_idp(oauth: OAuthClient, io: AuthIO, issuer: str, scope: str | None) -> str:
    """RFC 8693 token exchange at the enterprise IdP: the user's ID token for an ID-JAG whose audience is the
    MCP server's authorization server and whose resource is the MCP server."""
    options = oauth.options
    if options.id_token_file:
        try:
            id_token = assertions.read_jwt_file(options.id_token_file, "the ID token file")
        except assertions.CredentialError as exc:
            raise oauth.fail("exchange", options.id_token_file, str(exc), "token-exchange", io) from None
    else:
        id_token = options.id_token or ""
    oauth.secrets.add(id_token)
    endpoint = options.idp_token_endpoint or await _idp_token_endpoint(oauth, io)
    resource = oauth.resource or discovery.canonical_resource(oauth.server_url)
    form = {"grant_type": TOKEN_EXCHANGE, "requested_token_type": ID_JAG_TYPE, "subject_token": id_token,
            "subject_token_type": ID_TOKEN_TYPE, "audience": issuer, "resource": resource}
    if scope:
        form["scope"] = scope
    if options.idp_client_id:
        form["client_id"] = options.idp_client_id
    reply = await oauth.fetch(io, "POST", endpoint, "exchange", dict(FORM_HEADERS), urlencode(form).encode(),
                              "IdP's token endpoint")
    body = reply.json()
    jag = body.get("access_token") if body is not None else None
    if reply.status != 200 or body is None or not isinstance(jag, str) or not jag:
        why = _id_token_problem(id_token, options.idp_issuer)
        raise oauth.fail("exchange", endpoint, f"the IdP did not exchange the ID token for an ID-JAG (HTTP "
                         f"{reply.status}{_oauth_error(body)}){': ' + why if why else ''}", "token-exchange", io)
    oauth.secrets.add(jag)
    issued = body.get("issued_token_type")
    if issued != ID_JAG_TYPE:
        raise oauth.fail("exchange", endpoint, f"the IdP answered a token of type {issued or '(none given)'}, not "
                         f"an ID-JAG ({ID_JAG_TYPE}), so it is not sent to the authorization server",
                         "token-exchange", io)
    oauth.note_step(Step("exchange", endpoint, "ok", f"the IdP exchanged the ID token for an ID-JAG "
                         f"({assertions.summary(jag)}) for the resource {resource}", RULES["token-exchange"]), io)
    return jag


async def _idp_token_endpoint(oauth: OAuthClient, io: AuthIO) -> str:
    """The IdP's token endpoint from its metadata (RFC 8414, OpenID Connect discovery) at ``--idp-issuer``."""
    idp = oauth.options.idp_issuer or ""
    for url, _kind in discovery.as_metadata_candidates(idp):
        reply = await oauth.fetch(io, "GET", url, "metadata", {"Accept": "application/json"}, None, "IdP's metadata")
        document = reply.json()
        if reply.status == 200 and document is not None and isinstance(document.get("token_endpoint"), str):
            oauth.note_step(Step("metadata", url, "ok", f"the IdP {idp} exchanges tokens at "
                                 f"{document['token_endpoint']}", RULES["as-metadata"]), io)
            return str(document["token_endpoint"])
        oauth.note_step(Step("metadata", url, "tried", f"no IdP metadata here (HTTP {reply.status})",
                             RULES["as-metadata"]), io)
    raise oauth.fail("exchange", idp, f"the IdP {idp} publishes no metadata with a token_endpoint: give "
                     "--idp-token-endpoint", "token-exchange", io)


def _id_token_problem(id_token: str, idp_issuer: str | None) -> str:
    claims = assertions.claims_of(id_token)
    if claims is None:
        return "the ID token is not a JWT"
    problems = []
    if idp_issuer and isinstance(claims.get("iss"), str) and claims["iss"].rstrip("/") != idp_issuer.rstrip("/"):
        problems.append(f"the ID token was issued by {claims['iss']}, not by the IdP {idp_issuer}")
    expiry = assertions.summary(id_token)
    if "expired" in expiry:
        problems.append(f"the ID token {expiry.rsplit(', ', 1)[-1]}")
    return " and ".join(problems)


def _refusal(oauth: OAuthClient, metadata: dict[str, Any], reply: Reply, body: dict[str, Any] | None,
             client: ClientInfo, assertion: str, endpoint: str) -> str:
    grant = oauth.options.grant
    grant_type = GRANT_TYPES[grant][0]
    sentence = f"the token endpoint refused the {grant_type} grant (HTTP {reply.status}{_oauth_error(body)})"
    clues = []
    if assertion:
        why = assertions.why_refused(assertion, [oauth.issuer, endpoint])
        if why:
            clues.append(f"the {'ID-JAG' if grant == 'id-jag' else 'assertion'}: {why}")
    listed = metadata.get("grant_types_supported")
    if isinstance(listed, list) and grant_type not in listed:
        clues.append(f"the authorization server's metadata does not list {grant_type} in grant_types_supported")
    if client.auth_method == "private_key_jwt" and oauth.client_key is not None and (
            body is None or body.get("error") == "invalid_client" or reply.status == 401):
        clues.append(f"was the {oauth.client_key.describe()} registered for the client {client.client_id}?")
        algs = metadata.get("token_endpoint_auth_signing_alg_values_supported")
        if isinstance(algs, list) and oauth.client_key.alg not in algs:
            clues.append(f"the server lists {', '.join(map(str, algs))} for client assertions, not "
                         f"{oauth.client_key.alg}")
    return sentence + ("; " + "; ".join(clues) if clues else "")


def binding(oauth: OAuthClient, tokens: TokenSet) -> str:
    """What a token step says of DPoP: ``, bound to the DPoP key T``, a token the server did not bind, or ``""``
    without DPoP."""
    if oauth.dpop is None:
        return ""
    if tokens.token_type.lower() == "dpop":
        return f", bound to the DPoP key {oauth.dpop.thumbprint}"
    return f", but the server issued a {tokens.token_type} token, not bound to the DPoP proof"


def _oauth_error(body: dict[str, Any] | None) -> str:
    if not body or not isinstance(body.get("error"), str):
        return ""
    description = body.get("error_description")
    return f": {body['error']}" + (f", {json.dumps(description)[1:-1]}" if isinstance(description, str) else "")
