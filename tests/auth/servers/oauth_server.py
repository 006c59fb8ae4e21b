"""A protected MCP server and its authorization server, in one process, for the OAuth tests. Standard library.

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

PRE_CLIENT_ID = "pre-client"
PRE_CLIENT_SECRET = "pre-secret-Zq81x"
CIMD_URL = "https://client.example/mcp-inspector.json"

parser = argparse.ArgumentParser()
parser.add_argument("port_file")
parser.add_argument("log_file")
parser.add_argument("--prm", default="header", choices=("header", "path", "root", "none"))
parser.add_argument("--as-path", default="")
parser.add_argument("--as-metadata", default="oauth", choices=("oauth", "oidc", "oidc-append", "none"))
parser.add_argument("--registration", default="dcr", choices=("dcr", "cimd", "pre"))
parser.add_argument("--token-auth", default="none", choices=("none", "client_secret_basic", "client_secret_post"))
parser.add_argument("--no-s256", action="store_true")
parser.add_argument("--wrong-issuer", action="store_true")
parser.add_argument("--iss", choices=("good", "bad", "missing"))
parser.add_argument("--expires-in", type=int, default=3600)
parser.add_argument("--challenge-scope", default="mcp:read")
parser.add_argument("--step-up", action="store_true")
parser.add_argument("--always-403", action="store_true")
parser.add_argument("--offline-access", action="store_true")
OPTS = parser.parse_args()

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
    return "Bearer " + ", ".join(parts)


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
        if client is None or (client["redirect_uris"] is not None and redirect not in client["redirect_uris"]):
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
        client_id = self._client_auth(form)
        if client_id is None:
            self._send(401, {"error": "invalid_client"})
            return
        if form.get("grant_type") == "authorization_code":
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
        refresh = "rt-" + secrets.token_hex(16)
        TOKENS[access] = {"scope": scope, "resource": target, "expires": time.time() + OPTS.expires_in}
        REFRESH[refresh] = {"client_id": client_id, "scope": scope, "resource": target}
        with LOCK, open(OPTS.log_file, "a", encoding="utf-8") as log:
            log.write(json.dumps({"issued": {"access_token": access, "refresh_token": refresh}}) + "\n")
        self._send(200, {"access_token": access, "token_type": "Bearer", "expires_in": OPTS.expires_in,
                         "refresh_token": refresh, "scope": scope}, {"Cache-Control": "no-store"})

    # -- the MCP server -----------------------------------------------------------------------------------------

    def _mcp(self, body: bytes) -> None:
        header = self.headers.get("Authorization") or ""
        token = TOKENS.get(header[7:]) if header.startswith("Bearer ") else None
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
