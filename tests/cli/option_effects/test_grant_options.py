"""The options of the grants without a person (issue 29), proven through call, replay and check: each option's
effect on what the authorization server and its IdP received (tests/auth/servers/oauth_server.py, its log);
record's own proof is tests/auth/test_oauth_grant_options.py.

One server for the module: it knows only pre-client, which authenticates with a private_key_jwt client
assertion signed by the RSA key it trusts (``--client-key`` in every run), and takes the JWT bearer grant
(``--machine``); its IdP at /idp exchanges an ID token of that key for an ID-JAG. It does not ask for DPoP
(no DPoP challenge, no ``dpop_signing_alg_values_supported``), so a proof comes from ``--dpop`` alone.

Four runs a command, each proving several options (each asserted on its own). The inline forms (--assertion,
--id-token with --idp-token-endpoint) and the file forms (--assertion-file, --id-token-file with --idp-issuer)
need a run each. ``replay`` replays the stdio capture of the option-effect tests against the server named by
--url; ``replay-yes`` replays the same requests from a capture whose header names the server, with --yes and no
--url (the path that once dropped the URL options given on the command line).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from joserfc import jws, jwt
from joserfc.jwk import RSAKey, import_key
from option_effects_support import (
    MEMORY_TOKENS,
    HttpServer,
    Run,
    capture_text,
    log_length,
    oauth_requests,
    oauth_server,
    run_command,
)

# Every test here runs the CLI end to end against servers in subprocesses: CI's second step runs them, the
# quick suite does not (issue 39: it stays under two minutes as the suite grows).
pytestmark = pytest.mark.integration

CLIENT = "pre-client"  #: the client servers/oauth_server.py knows
IDP_CLIENT = "idp-client"  #: the client its IdP requires in a token exchange
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"


class Grants:
    """The module's server, the RSA key it trusts (``pem``: the private key file), and JWTs signed with it."""

    def __init__(self, server: HttpServer, key: RSAKey, pem: Path) -> None:
        self.server, self.key, self.pem = server, key, pem

    @property
    def issuer(self) -> str:
        return self.server.url("")

    def mint(self, **claims: Any) -> str:
        now = int(time.time())
        return jwt.encode({"alg": "RS256", "typ": "JWT"}, {"iat": now, "exp": now + 300, **claims}, self.key)

    def workload_assertion(self) -> str:
        """A JWT bearer grant for the authorization server."""
        return self.mint(iss="https://workload.example", sub="job-7", aud=self.issuer)

    def id_token(self) -> str:
        """A user's ID token from the IdP, for the IdP's client."""
        return self.mint(iss=self.server.url("/idp"), sub="ada", aud=IDP_CLIENT)


@pytest.fixture(scope="module")
def grants(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Grants]:
    folder = tmp_path_factory.mktemp("grants")
    key = RSAKey.generate_key(2048)
    (folder / "client.pem").write_bytes(key.as_pem(private=True))
    (folder / "client.pub.pem").write_bytes(key.as_pem(private=False))
    with oauth_server(folder / "server", "--machine", "--registration", "pre", "--token-auth", "private_key_jwt",
                      "--trust-key", str(folder / "client.pub.pem")) as server:
        yield Grants(server, key, folder / "client.pem")


@pytest.fixture(scope="module")
def capture_of_the_server(replay_source: Path, grants: Grants, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The requests of ``replay_source`` in a capture whose header names the module's server (as a capture recorded
    there would): what ``replay --yes`` runs again without --url."""
    header, *events = replay_source.read_text(encoding="utf-8").splitlines(keepends=True)
    named = {**json.loads(header), "target": {"transport": "auto", "url": grants.server.url("/mcp"), "headers": {}}}
    path = tmp_path_factory.mktemp("capture-of-the-server") / "recorded-there.jsonl"
    path.write_text(json.dumps(named) + "\n" + "".join(events), encoding="utf-8")
    return path


def run_grant(command: str, folder: Path, grants: Grants, options: list[str], replay_source: Path,
              capture_of_the_server: Path) -> tuple[Run, list[dict[str, Any]]]:
    """``command`` (call, replay, replay-yes or check) with the grant ``options`` (and pre-client's key) against the
    module's server: the run, and the requests the server got during it."""
    since = log_length(grants.server)
    given = ["--client-id", CLIENT, "--client-key", str(grants.pem), *options]
    if command == "replay-yes":
        run = run_command("replay", folder, ["--yes", *given], replay_source=capture_of_the_server,
                          env=MEMORY_TOKENS)
    else:
        run = run_command(command, folder, ["--url", grants.server.url("/mcp"), *given],
                          replay_source=replay_source, tool=("whoami",), env=MEMORY_TOKENS)
    return run, oauth_requests(grants.server, since)


def token_forms(requests: list[dict[str, Any]], path: str = "/token") -> list[dict[str, str]]:
    return [r.get("form", {}) for r in requests if r["method"] == "POST" and r["path"] == path]


def assert_the_token_was_used(run: Run, requests: list[dict[str, Any]]) -> None:
    """The grant worked: a token request, then an MCP request with the token the server issued."""
    assert token_forms(requests), run.explain()
    mcp = [r for r in requests if r["path"] == "/mcp" and r["method"] == "POST"]
    assert mcp and mcp[-1]["headers"].get("authorization", "").startswith("Bearer at-"), run.explain()


def secrets_kept_out(run: Run, *secrets: str) -> None:
    """A credential given on the command line is in no capture and no output."""
    written = capture_text(run.captures) + run.said
    assert run.captures, run.explain()
    assert not [s for s in secrets if s in written], "a credential reached the capture or the output"


def header(token: str) -> dict[str, Any]:
    return dict(jws.extract_compact(token.encode()).headers())


@pytest.mark.parametrize("command", ["call", "replay", "check"])
def test_jwt_bearer_with_assertion_client_key_alg_and_dpop_reaches_the_token_endpoint(
        command, tmp_path, grants, replay_source, capture_of_the_server):
    """--oauth-grant jwt-bearer: the token request's grant; --assertion: the JWT it carries; --client-key: the
    private_key_jwt client assertion, signed with the file's key (the server verifies it); --client-key-alg
    PS256: the algorithm it is signed with (RS256 without the option: the other tests of this module); --dpop: a
    DPoP proof on the token request, though the server did not ask for one (none without it)."""
    assertion = grants.workload_assertion()
    run, requests = run_grant(command, tmp_path / "out", grants, [
        "--oauth-grant", "jwt-bearer", "--assertion", assertion, "--client-key-alg", "PS256", "--dpop"],
        replay_source, capture_of_the_server)
    assert_the_token_was_used(run, requests)
    forms = token_forms(requests)
    # --oauth-grant jwt-bearer
    assert {f["grant_type"] for f in forms} == {JWT_BEARER}, run.explain()
    # --assertion
    assert {f["assertion"] for f in forms} == {assertion}
    # --client-key: a client assertion of pre-client that verifies with the public half of the file's key
    for form in forms:
        claims = jwt.decode(form["client_assertion"], grants.key, algorithms=["PS256", "RS256"]).claims
        assert claims["iss"] == claims["sub"] == CLIENT
    # --client-key-alg PS256
    assert {header(f["client_assertion"])["alg"] for f in forms} == {"PS256"}
    # --dpop: each token request carries a proof for itself, signed with the key it names
    tokens = [r for r in requests if r["path"] == "/token"]
    for request in tokens:
        proof = request["headers"].get("dpop")
        assert proof, run.explain()
        assert header(proof)["typ"] == "dpop+jwt"
        claims = jwt.decode(proof, import_key(header(proof)["jwk"]), algorithms=[header(proof)["alg"]]).claims
        assert (claims["htm"], claims["htu"]) == ("POST", grants.server.url("/token"))
    secrets_kept_out(run, assertion)


@pytest.mark.parametrize("command", ["call", "replay-yes", "check"])
def test_jwt_bearer_with_assertion_file_sends_the_jwt_in_the_file(
        command, tmp_path, grants, replay_source, capture_of_the_server):
    """--assertion-file: the file's JWT (without the blank around it) is the grant; without --client-key-alg the
    client assertion is signed RS256 and without --dpop no request carries a proof."""
    assertion = grants.workload_assertion()
    (tmp_path / "workload.jwt").write_text(f"  {assertion}\n", encoding="utf-8")
    run, requests = run_grant(command, tmp_path / "out", grants, [
        "--oauth-grant", "jwt-bearer", "--assertion-file", str(tmp_path / "workload.jwt")],
        replay_source, capture_of_the_server)
    assert_the_token_was_used(run, requests)
    forms = token_forms(requests)
    # --assertion-file
    assert {(f["grant_type"], f["assertion"]) for f in forms} == {(JWT_BEARER, assertion)}, run.explain()
    # what --client-key-alg and --dpop changed in the test above
    assert {header(f["client_assertion"])["alg"] for f in forms} == {"RS256"}
    assert not [r for r in requests if "dpop" in r["headers"]]
    secrets_kept_out(run, assertion)


@pytest.mark.parametrize("command", ["call", "replay", "check"])
def test_id_jag_with_id_token_idp_token_endpoint_and_idp_client_id_exchanges_at_that_endpoint(
        command, tmp_path, grants, replay_source, capture_of_the_server):
    """--oauth-grant id-jag: the ID token is exchanged at the IdP (RFC 8693) for an ID-JAG, which is the JWT
    bearer grant; --id-token: the token exchanged; --idp-token-endpoint: where (no IdP metadata is fetched);
    --idp-client-id: the client the exchange names (this IdP refuses an exchange without it)."""
    id_token = grants.id_token()
    run, requests = run_grant(command, tmp_path / "out", grants, [
        "--oauth-grant", "id-jag", "--id-token", id_token, "--idp-token-endpoint", grants.server.url("/idp/token"),
        "--idp-client-id", IDP_CLIENT], replay_source, capture_of_the_server)
    assert_the_token_was_used(run, requests)
    exchanges = token_forms(requests, "/idp/token")
    # --oauth-grant id-jag: a token exchange for an ID-JAG, then the JWT bearer grant with it
    assert exchanges, run.explain()
    assert {f["grant_type"] for f in exchanges} == {TOKEN_EXCHANGE}
    forms = token_forms(requests)
    assert {f["grant_type"] for f in forms} == {JWT_BEARER}
    assert {header(f["assertion"])["typ"] for f in forms} == {"oauth-id-jag+jwt"}
    # --id-token
    assert {f["subject_token"] for f in exchanges} == {id_token}
    # --idp-token-endpoint: the exchange went there, and the IdP's metadata was never asked for
    assert not [r for r in requests if r["path"].startswith("/idp/.well-known")]
    # --idp-client-id
    assert {f.get("client_id") for f in exchanges} == {IDP_CLIENT}
    secrets_kept_out(run, id_token)


@pytest.mark.parametrize("command", ["call", "replay-yes", "check"])
def test_id_jag_with_id_token_file_and_idp_issuer_finds_the_token_endpoint_in_the_idp_metadata(
        command, tmp_path, grants, replay_source, capture_of_the_server):
    """--id-token-file: the file's ID token is exchanged; --idp-issuer: the IdP's token endpoint is read from that
    issuer's OpenID metadata (no --idp-token-endpoint); --idp-client-id as above."""
    id_token = grants.id_token()
    (tmp_path / "id.jwt").write_text(f"{id_token}\n", encoding="utf-8")
    run, requests = run_grant(command, tmp_path / "out", grants, [
        "--oauth-grant", "id-jag", "--id-token-file", str(tmp_path / "id.jwt"), "--idp-issuer",
        grants.server.url("/idp"), "--idp-client-id", IDP_CLIENT], replay_source, capture_of_the_server)
    assert_the_token_was_used(run, requests)
    exchanges = token_forms(requests, "/idp/token")
    # --id-token-file
    assert exchanges and {f["subject_token"] for f in exchanges} == {id_token}, run.explain()
    # --idp-issuer: the metadata of that issuer (OpenID discovery, path appended) before the exchange
    paths = [f"{r['method']} {r['path']}" for r in requests]
    assert "GET /idp/.well-known/openid-configuration" in paths, paths
    assert paths.index("GET /idp/.well-known/openid-configuration") < paths.index("POST /idp/token")
    # --idp-client-id
    assert {f.get("client_id") for f in exchanges} == {IDP_CLIENT}
    secrets_kept_out(run, id_token)
