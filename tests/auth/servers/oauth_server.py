"""A protected MCP server and its authorization server (and an enterprise IdP), in one process, for the OAuth
tests. Standard library, and joserfc for the JWTs of the grants without a person and for DPoP.

    python oauth_server.py PORT_FILE LOG_FILE [switches]

Listens on 127.0.0.1 on an ephemeral port (written to PORT_FILE); every request is appended to LOG_FILE as a
JSON line (method, path, query, headers, form or JSON body) so tests can check what the client sent. The
MCP endpoint is /mcp (JSON answers, no session); GET /authorize approves at once by redirecting with a code.

Switches (each a discovery path, registration mode or misbehaviour):
  --prm header|path|root|none   where the protected resource metadata is (none: a 2025-03-26 server)
  --as-path PATH                the authorization server's issuer path (e.g. /tenant1; default none)
  --as-metadata oauth|oidc|oidc-append|none   which well-known URL serves its metadata
  --registration dcr|cimd|pre   dynamic registration, Client ID Metadata Documents, pre-registered only
  --token-auth none|client_secret_basic|client_secret_post   what the token endpoint requires
  --no-s256                     the metadata lists only "plain"
  --wrong-issuer                the metadata names another issuer
  --iss good|bad|missing        advertise RFC 9207 and put the right, a wrong, or no iss in the redirect
  --expires-in S                access tokens' lifetime (refresh tokens are issued)
  --challenge-scope SCOPE       the scope of the 401 challenge (default: mcp:read)
  --step-up                     tools/call needs mcp:write: 403 insufficient_scope until the token has it
  --always-403                  tools/call is always refused with 403 insufficient_scope
  --offline-access              the authorization server lists offline_access in scopes_supported
  --machine                     the metadata lists client_credentials and the JWT bearer grant (RFC 7523)
  --trust-key PEMFILE           the public key the servers trust: pre-client's client assertions
                                (private_key_jwt), workload assertions (jwt-bearer), ID tokens (at the IdP)
  --dpop                        DPoP (RFC 9449): the metadata lists ES256, the 401 challenge is DPoP, a token
                                request with a valid proof gets a bound token that /mcp takes only with a proof
  --dpop-nonce                  with --dpop: the token endpoint and /mcp want a nonce (use_dpop_nonce)

The enterprise IdP is at /idp (issuer BASE/idp, OpenID metadata, /idp/token): it exchanges an ID token signed
by the trusted key (aud idp-client) for an ID-JAG signed by its own key (RFC 8693), which the authorization
server takes with the JWT bearer grant from pre-client authenticated by its secret.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, parse_qsl, unquote, urlencode, urlsplit

from joserfc import jws, jwt
from joserfc.errors import JoseError
from joserfc.jwk import ECKey, RSAKey, import_key

PRE_CLIENT_ID = "pre-client"
PRE_CLIENT_SECRET = "pre-secret-Zq81x"
CIMD_URL = "https://client.example/mcp-inspector.json"
IDP_CLIENT_ID = "idp-client"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
CLIENT_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
AS_NONCE, RS_NONCE = "as-nonce-7", "rs-nonce-9"

parser = argparse.ArgumentParser()
parser.add_argument("port_file")
parser.add_argument("log_file")
parser.add_argument("--prm", default="header", choices=("header", "path", "root", "none"))
parser.add_argument("--as-path", default="")
parser.add_argument("--as-metadata", default="oauth", choices=("oauth", "oidc", "oidc-append", "none"))
parser.add_argument("--registration", default="dcr", choices=("dcr", "cimd", "pre"))
parser.add_argument("--token-auth", default="none",
                    choices=("none", "client_secret_basic", "client_secret_post", "private_key_jwt"))
parser.add_argument("--no-s256", action="store_true")
parser.add_argument("--wrong-issuer", action="store_true")
parser.add_argument("--iss", choices=("good", "bad", "missing"))
parser.add_argument("--expires-in", type=int, default=3600)
parser.add_argument("--challenge-scope", default="mcp:read")
parser.add_argument("--step-up", action="store_true")
parser.add_argument("--always-403", action="store_true")
parser.add_argument("--offline-access", action="store_true")
parser.add_argument("--machine", action="store_true")
parser.add_argument("--trust-key")
parser.add_argument("--dpop", action="store_true")
parser.add_argument("--dpop-nonce", action="store_true")
OPTS = parser.parse_args()


def trusted_key(path: str | None) -> Any:
    """The public key in a PEM file: EC or RSA."""
    if not path:
        return None
    data = Path(path).read_bytes()
    for kind in (ECKey, RSAKey):
        try:
            return kind.import_key(data)
        except (JoseError, ValueError, TypeError):
            continue
    raise SystemExit(f"{path}: no EC or RSA public key")


TRUSTED = trusted_key(OPTS.trust_key)
IDP_KEY = ECKey.generate_key("P-256")  # signs the ID-JAGs
JTIS: set[str] = set()  # DPoP proofs seen (RFC 9449 section 11.1: a jti is used once)

LOCK = threading.Lock()
CLIENTS: dict[str, dict[str, Any]] = {}  # client_id -> {secret, redirect_uris}
CODES: dict[str, dict[str, Any]] = {}  # code -> what the authorization request said
TOKENS: dict[str, dict[str, Any]] = {}  # access token -> {scope, resource, expires}
REFRESH: dict[str, dict[str, Any]] = {}  # refresh token -> {client_id, scope, resource}
BASE = ""  # http://127.0.0.1:PORT


def issuer() -> str:
    return BASE + OPTS.as_path


def resource() -> str:
    return BASE + "/mcp"


def prm_url() -> str:
    return {"header": BASE + "/meta/resource.json", "path": BASE + "/.well-known/oauth-protected-resource/mcp",
            "root": BASE + "/.well-known/oauth-protected-resource"}.get(OPTS.prm, "")


def metadata_path() -> str:
    path = OPTS.as_path
    return {"oauth": "/.well-known/oauth-authorization-server" + path,
            "oidc": "/.well-known/openid-configuration" + path,
            "oidc-append": path + "/.well-known/openid-configuration"}.get(OPTS.as_metadata, "")


def metadata() -> dict[str, Any]:
    data: dict[str, Any] = {
        "issuer": "https://elsewhere.example" if OPTS.wrong_issuer else issuer(),
        "authorization_endpoint": issuer() + "/authorize",
        "token_endpoint": issuer() + "/token",
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["plain"] if OPTS.no_s256 else ["S256"],
        "token_endpoint_auth_methods_supported": [OPTS.token_auth],
    }
    if OPTS.machine:
        data["grant_types_supported"] = ["client_credentials", JWT_BEARER]
    if OPTS.token_auth == "private_key_jwt":
        data["token_endpoint_auth_signing_alg_values_supported"] = ["ES256"]
    if OPTS.dpop:
        data["dpop_signing_alg_values_supported"] = ["ES256"]
    if OPTS.registration == "dcr":
        data["registration_endpoint"] = issuer() + "/register"
    if OPTS.registration == "cimd":
        data["client_id_metadata_document_supported"] = True
    if OPTS.iss:
        data["authorization_response_iss_parameter_supported"] = True
    if OPTS.offline_access:
        data["scopes_supported"] = ["mcp:read", "mcp:write", "offline_access"]
    return data


def challenge(error: str = "", scope: str = "") -> str:
    parts = []
    if error:
        parts.append(f'error="{error}"')
    parts.append(f'scope="{scope or OPTS.challenge_scope}"')
    if OPTS.prm == "header":
        parts.append(f'resource_metadata="{prm_url()}"')
    return ("DPoP " if OPTS.dpop else "Bearer ") + ", ".join(parts)


# -- JWTs -------------------------------------------------------------------------------------------------------

def verified(token: str, key: Any, audiences: list[str]) -> tuple[dict[str, Any] | None, str]:
    """The claims of a JWT signed by ``key``, with an aud among ``audiences`` and not expired; else the error."""
    try:
        alg = str(jws.extract_compact(token.encode()).headers().get("alg"))
        claims = jwt.decode(token, key, algorithms=[alg]).claims
    except (JoseError, ValueError) as exc:
        return None, f"the signature does not verify ({exc.__class__.__name__})"
    aud = claims.get("aud")
    named = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
    if not any(isinstance(a, str) and a.rstrip("/") in [x.rstrip("/") for x in audiences] for a in named):
        return None, f"aud {aud} is not this server"
    if not isinstance(claims.get("exp"), (int, float)) or claims["exp"] < time.time():
        return None, "the JWT is expired"
    return claims, ""


def dpop_proof(value: str, method: str, url: str, nonce: str, token: str | None = None) -> tuple[str, str]:
    """(RFC 7638 thumbprint of the proof's key, "") for a valid DPoP proof, else ("", what is wrong)."""
    try:
        header = dict(jws.extract_compact(value.encode()).headers())
        jwk = header.get("jwk")
        if header.get("typ") != "dpop+jwt" or not isinstance(jwk, dict) or "d" in jwk:
            return "", "typ must be dpop+jwt with a public jwk"
        key = import_key(jwk, jwk.get("kty"))
        claims = jwt.decode(value, key, algorithms=[str(header.get("alg"))]).claims
    except (JoseError, ValueError, TypeError) as exc:
        return "", f"the proof does not verify ({exc.__class__.__name__})"
    if claims.get("htm") != method or claims.get("htu") != url:
        return "", f"htm/htu {claims.get('htm')} {claims.get('htu')} are not {method} {url}"
    if not isinstance(claims.get("iat"), int) or abs(claims["iat"] - time.time()) > 300:
        return "", "iat is not now"
    if claims.get("jti") in JTIS or not isinstance(claims.get("jti"), str):
        return "", "the jti was used before"
    if token is not None:
        digest = base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()).rstrip(b"=").decode()
        if claims.get("ath") != digest:
            return "", "ath is not the token's hash"
    if OPTS.dpop_nonce and claims.get("nonce") != nonce:
        return "", "use_dpop_nonce"
    JTIS.add(claims["jti"])
    return key.thumbprint(), ""



def same_redirect(asked: str, registered: str) -> bool:
    """The redirect URI matches the registered one; a loopback IP one on any port (RFC 8252 section 7.3: "The
    authorization server MUST allow any port to be specified at the time of the request for loopback IP redirect
    URIs")."""
    if asked == registered:
        return True
    a, b = urlsplit(asked), urlsplit(registered)
    return a.scheme == b.scheme == "http" and a.hostname == b.hostname == "127.0.0.1" and a.path == b.path \
        and a.query == b.query

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    #: headers and body are two writes: without TCP_NODELAY the body waits for the client's delayed ACK (40 ms)
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # -- plumbing ---------------------------------------------------------------------------------------------

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _log(self, body: bytes) -> None:
        parts = urlsplit(self.path)
        entry: dict[str, Any] = {"method": self.command, "path": parts.path, "query": dict(parse_qsl(parts.query)),
                                 "headers": {k.lower(): v for k, v in self.headers.items()}}
        if body:
            text = body.decode("utf-8", "replace")
            entry["form" if "urlencoded" in (self.headers.get("Content-Type") or "") else "body"] = (
                dict(parse_qsl(text)) if "urlencoded" in (self.headers.get("Content-Type") or "") else text)
        with LOCK, open(OPTS.log_file, "a", encoding="utf-8") as log:
            log.write(json.dumps(entry) + "\n")

    def _send(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
        data = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        self.send_response(status)
        if body is not None and not isinstance(body, bytes):
            self.send_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._log(b"")
        path = urlsplit(self.path).path
        if prm_url() and BASE + path == prm_url():
            self._send(200, {"resource": resource(), "authorization_servers": [issuer()],
                             "scopes_supported": ["mcp:read"], "bearer_methods_supported": ["header"]})
        elif path == metadata_path() and OPTS.as_metadata != "none":
            self._send(200, metadata())
        elif path == OPTS.as_path + "/authorize":
            self._authorize()
        elif path == "/idp/.well-known/openid-configuration":
            self._send(200, {"issuer": BASE + "/idp", "token_endpoint": BASE + "/idp/token",
                             "grant_types_supported": [TOKEN_EXCHANGE]})
        elif path == "/mcp":
            self._send(405, b"", {"Allow": "POST"})
        else:
            self._send(404, b"not found", {"Content-Type": "text/plain"})

    def do_POST(self) -> None:
        body = self._body()
        self._log(body)
        path = urlsplit(self.path).path
        if path == "/mcp":
            self._mcp(body)
        elif path == OPTS.as_path + "/token":
            self._token(dict(parse_qsl(body.decode())))
        elif path == "/idp/token":
            self._exchange(dict(parse_qsl(body.decode())))
        elif path == OPTS.as_path + "/register" and OPTS.registration == "dcr":
            self._register(json.loads(body or b"{}"))
        else:
            self._send(404, b"not found", {"Content-Type": "text/plain"})

    def do_DELETE(self) -> None:
        self._log(b"")
        self._send(405, b"", {"Allow": "POST"})

    # -- authorization server ---------------------------------------------------------------------------------

    def _register(self, request: dict[str, Any]) -> None:
        client_id = "dcr-" + secrets.token_hex(6)
        method = request.get("token_endpoint_auth_method") or "client_secret_basic"
        secret = "dcr-secret-" + secrets.token_hex(8) if method != "none" else None
        CLIENTS[client_id] = {"secret": secret, "redirect_uris": request.get("redirect_uris") or []}
        answer = {"client_id": client_id, "redirect_uris": CLIENTS[client_id]["redirect_uris"],
                  "token_endpoint_auth_method": method}
        if secret:
            answer["client_secret"] = secret
            with LOCK, open(OPTS.log_file, "a", encoding="utf-8") as log:
                log.write(json.dumps({"issued": {"client_secret": secret}}) + "\n")
        self._send(201, answer)

    def _known_client(self, client_id: str) -> dict[str, Any] | None:
        if client_id == PRE_CLIENT_ID:
            return {"secret": PRE_CLIENT_SECRET, "redirect_uris": None}
        if client_id == CIMD_URL and OPTS.registration == "cimd":
            return {"secret": None, "redirect_uris": None}
        return CLIENTS.get(client_id)

    def _authorize(self) -> None:
        query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
        client = self._known_client(query.get("client_id", ""))
        redirect = query.get("redirect_uri", "")
        if client is None or (client["redirect_uris"] is not None
                              and not any(same_redirect(redirect, r) for r in client["redirect_uris"])):
            self._send(400, {"error": "invalid_request", "error_description": "unknown client or redirect_uri"})
            return
        if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
            self._send(400, {"error": "invalid_request", "error_description": "PKCE S256 is required"})
            return
        code = "code-" + secrets.token_hex(12)
        CODES[code] = query
        params = {"code": code, "state": query.get("state", "")}
        if OPTS.iss == "good":
            params["iss"] = issuer()
        elif OPTS.iss == "bad":
            params["iss"] = "https://attacker.example"
        location = redirect + ("&" if "?" in redirect else "?") + urlencode(params)
        # a body that repeats the Location, as Express's res.redirect writes it: it must not reach a capture
        self._send(302, f"Found. Redirecting to {location}".encode(),
                   {"Location": location, "Content-Type": "text/plain; charset=utf-8"})

    def _client_auth(self, form: dict[str, str]) -> str | None:
        """The authenticated client id, or None."""
        header = self.headers.get("Authorization") or ""
        if OPTS.token_auth == "private_key_jwt":
            if form.get("client_assertion_type") != CLIENT_ASSERTION or form.get("client_id") != PRE_CLIENT_ID:
                return None
            claims, _ = verified(form.get("client_assertion", ""), TRUSTED, [issuer(), issuer() + "/token"])
            ok = claims is not None and claims.get("iss") == claims.get("sub") == PRE_CLIENT_ID
            return PRE_CLIENT_ID if ok else None
        if OPTS.token_auth == "client_secret_basic" or header.startswith("Basic "):
            if not header.startswith("Basic "):
                return None
            client_id, _, secret = base64.b64decode(header[6:]).decode().partition(":")
            client_id, secret = unquote(client_id), unquote(secret)
        elif OPTS.token_auth == "client_secret_post":
            client_id, secret = form.get("client_id", ""), form.get("client_secret", "")
        else:
            client_id, secret = form.get("client_id", ""), ""
        client = self._known_client(client_id)
        if client is None:
            return None
        if OPTS.token_auth != "none" and client["secret"] != secret:
            return None
        return client_id

    def _token(self, form: dict[str, str]) -> None:
        jkt = ""
        if OPTS.dpop and self.headers.get("DPoP"):
            jkt, wrong = dpop_proof(self.headers["DPoP"], "POST", issuer() + "/token", AS_NONCE)
            if wrong == "use_dpop_nonce":
                self._send(400, {"error": "use_dpop_nonce"}, {"DPoP-Nonce": AS_NONCE})
                return
            if wrong:
                self._send(400, {"error": "invalid_dpop_proof", "error_description": wrong})
                return
        client_id = self._client_auth(form)
        if client_id is None:
            self._send(401, {"error": "invalid_client"})
            return
        refresh: str | None = "rt-" + secrets.token_hex(16)
        if form.get("grant_type") == "client_credentials" and OPTS.machine:
            scope, target, refresh = form.get("scope", ""), form.get("resource"), None
        elif form.get("grant_type") == JWT_BEARER and OPTS.machine:
            claims, wrong = self._grant_assertion(form.get("assertion", ""), client_id)
            if claims is None:
                self._send(400, {"error": "invalid_grant", "error_description": wrong})
                return
            scope, target, refresh = form.get("scope", ""), form.get("resource"), None
        elif form.get("grant_type") == "authorization_code":
            request = CODES.pop(form.get("code", ""), None)
            if request is None or request.get("client_id") != client_id:
                self._send(400, {"error": "invalid_grant", "error_description": "unknown or used code"})
                return
            verifier = form.get("code_verifier", "")
            digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
            if digest != request.get("code_challenge") or form.get("redirect_uri") != request.get("redirect_uri"):
                self._send(400, {"error": "invalid_grant", "error_description": "PKCE or redirect_uri mismatch"})
                return
            if form.get("resource") != request.get("resource"):
                self._send(400, {"error": "invalid_target", "error_description": "resource differs"})
                return
            scope, target = request.get("scope", ""), request.get("resource")
        elif form.get("grant_type") == "refresh_token":
            grant = REFRESH.pop(form.get("refresh_token", ""), None)
            if grant is None or grant["client_id"] != client_id:
                self._send(400, {"error": "invalid_grant"})
                return
            scope, target = grant["scope"], grant["resource"]
        else:
            self._send(400, {"error": "unsupported_grant_type"})
            return
        access = "at-" + secrets.token_hex(16)
        TOKENS[access] = {"scope": scope, "resource": target, "expires": time.time() + OPTS.expires_in, "jkt": jkt}
        answer = {"access_token": access, "token_type": "DPoP" if jkt else "Bearer", "expires_in": OPTS.expires_in,
                  "scope": scope}
        if refresh:
            REFRESH[refresh] = {"client_id": client_id, "scope": scope, "resource": target}
            answer["refresh_token"] = refresh
        with LOCK, open(OPTS.log_file, "a", encoding="utf-8") as log:
            log.write(json.dumps({"issued": {"access_token": access, "refresh_token": refresh}}) + "\n")
        self._send(200, answer, {"Cache-Control": "no-store"})

    def _grant_assertion(self, assertion: str, client_id: str) -> tuple[dict[str, Any] | None, str]:
        """The claims of a JWT bearer grant: an ID-JAG of the IdP for this client, else a workload assertion
        signed by the trusted key."""
        try:
            typ = jws.extract_compact(assertion.encode()).headers().get("typ")
        except (JoseError, ValueError):
            return None, "the assertion is not a JWT"
        if typ == "oauth-id-jag+jwt":
            claims, wrong = verified(assertion, IDP_KEY, [issuer()])
            if claims is not None and (claims.get("client_id") != client_id or claims.get("resource") != resource()):
                return None, "the ID-JAG is for another client or resource"
            return claims, wrong
        return verified(assertion, TRUSTED, [issuer()])

    # -- the enterprise IdP -----------------------------------------------------------------------------------

    def _exchange(self, form: dict[str, str]) -> None:
        """RFC 8693: an ID token of the trusted key (aud idp-client) for an ID-JAG."""
        wanted = {"grant_type": TOKEN_EXCHANGE, "requested_token_type": ID_JAG, "subject_token_type": ID_TOKEN,
                  "client_id": IDP_CLIENT_ID, "audience": issuer(), "resource": resource()}
        wrong = [name for name, value in wanted.items() if form.get(name) != value]
        if wrong:
            self._send(400, {"error": "invalid_request", "error_description": f"wrong {', '.join(wrong)}"})
            return
        claims, why = verified(form.get("subject_token", ""), TRUSTED, [IDP_CLIENT_ID])
        if claims is None:
            self._send(400, {"error": "invalid_grant", "error_description": f"the ID token: {why}"})
            return
        now = int(time.time())
        jag = jwt.encode({"alg": "ES256", "typ": "oauth-id-jag+jwt"},
                         {"iss": BASE + "/idp", "sub": claims.get("sub"), "aud": issuer(), "client_id": PRE_CLIENT_ID,
                          "resource": resource(), "iat": now, "exp": now + 300, "jti": secrets.token_hex(8)}, IDP_KEY)
        with LOCK, open(OPTS.log_file, "a", encoding="utf-8") as log:
            log.write(json.dumps({"issued": {"id_jag": jag}}) + "\n")
        self._send(200, {"access_token": jag, "issued_token_type": ID_JAG, "token_type": "N_A"})

    # -- the MCP server -----------------------------------------------------------------------------------------

    def _mcp(self, body: bytes) -> None:
        header = self.headers.get("Authorization") or ""
        scheme, _, value = header.partition(" ")
        token = TOKENS.get(value) if scheme in ("Bearer", "DPoP") else None
        if token is not None and (token["jkt"] or scheme == "DPoP"):  # a bound token goes with its proof only
            jkt, wrong = dpop_proof(self.headers.get("DPoP") or "", "POST", resource(), RS_NONCE, value)
            if wrong == "use_dpop_nonce":
                self._send(401, {"error": "use_dpop_nonce"}, {"DPoP-Nonce": RS_NONCE, "WWW-Authenticate":
                                                             'DPoP error="use_dpop_nonce", algs="ES256"'})
                return
            if wrong or scheme != "DPoP" or jkt != token["jkt"]:
                self._send(401, {"error": "invalid_dpop_proof", "error_description": wrong or "not bound"},
                           {"WWW-Authenticate": 'DPoP error="invalid_dpop_proof"'})
                return
        legacy = OPTS.prm == "none"
        if token is None or token["expires"] < time.time() or (not legacy and token["resource"] != resource()):
            self._send(401, {"error": "unauthorized"}, {"WWW-Authenticate": challenge()})
            return
        message = json.loads(body)
        method = message.get("method")
        scopes = set((token["scope"] or "").split())
        if method == "tools/call" and (OPTS.always_403 or (OPTS.step_up and "mcp:write" not in scopes)):
            self._send(403, {"error": "insufficient_scope"},
                       {"WWW-Authenticate": challenge("insufficient_scope", "mcp:write")})
            return
        if "id" not in message:
            self._send(202)
            return
        if method == "initialize":
            result: dict[str, Any] = {"protocolVersion": message["params"].get("protocolVersion", "2025-11-25"),
                                      "capabilities": {"tools": {}},
                                      "serverInfo": {"name": "oauth-test-server", "version": "1"}}
        elif method == "tools/list":
            result = {"tools": [{"name": "whoami", "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": f"scopes: {token['scope']}"}]}
        else:
            self._send(200, {"jsonrpc": "2.0", "id": message["id"],
                             "error": {"code": -32601, "message": f"no method {method}"}})
            return
        self._send(200, {"jsonrpc": "2.0", "id": message["id"], "result": result})


def main() -> None:
    global BASE
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    BASE = f"http://127.0.0.1:{server.server_address[1]}"
    Path(OPTS.port_file).write_text(str(server.server_address[1]), encoding="ascii")
    print(f"listening on {BASE}", file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
