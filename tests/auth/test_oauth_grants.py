"""The grants without a person (client credentials, JWT bearer, ID-JAG), against the local authorization server
(servers/oauth_server.py --machine, with an enterprise IdP at /idp): what each sends, the steps it records, the
refusals it explains (a wrong key, an expired assertion, a wrong audience, an ID token the IdP does not trust),
and that none of its credentials reaches the capture."""

from __future__ import annotations

import base64
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from auth_support import AuthServer, KeyPair, make_key, record_with_oauth

from inspector.core.auth import assertions
from inspector.core.auth.grants import ID_JAG_TYPE, ID_TOKEN_TYPE, JWT_BEARER, TOKEN_EXCHANGE
from inspector.core.auth.model import RULES
from inspector.core.exits import EXIT_OK


@pytest.fixture
def trusted(tmp_path: Path) -> KeyPair:
    """The key the test servers trust (client assertions, workload assertions, ID tokens)."""
    return make_key(tmp_path / "keys", "trusted")


def machine(auth_server: Callable[..., AuthServer], key: KeyPair, *switches: str) -> AuthServer:
    return auth_server("--machine", "--registration", "pre", "--trust-key", str(key.public), *switches)


def token_requests(server: AuthServer) -> list[dict[str, Any]]:
    return [r for r in server.requests() if r["path"] == "/token"]


def assert_no_secret(server: AuthServer, capture: Path, *more: str) -> None:
    text = capture.read_text(encoding="utf-8")
    secrets = server.secrets() | {m for m in more if m}
    leaked = sorted(s for s in secrets if s in text)
    assert not leaked, f"secrets in the capture: {leaked}"


# -- client credentials -----------------------------------------------------------------------------------------

def test_client_credentials_with_a_secret_authenticate_as_the_metadata_says_and_get_a_token_without_a_person(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted, "--token-auth", "client_secret_basic")
    out = tmp_path / "s.jsonl"
    run = record_with_oauth(server, out, grant="client-credentials", client_id="pre-client",
                            client_secret="pre-secret-Zq81x")
    assert run.result.exit_code == EXIT_OK, run.result.error
    assert run.steps() == [("discovery", "ok"), ("metadata", "ok"), ("registration", "ok"), ("token", "ok")]
    [request] = token_requests(server)
    assert request["form"]["grant_type"] == "client_credentials"
    assert request["form"]["resource"] == server.url and request["form"]["scope"] == "mcp:read"
    basic = base64.b64encode(b"pre-client:pre-secret-Zq81x").decode()
    assert request["headers"]["authorization"] == f"Basic {basic}" and "client_secret" not in request["form"]
    assert not any(r["path"] in ("/authorize", "/register") for r in server.requests())  # no person, no registration
    assert "access token issued by the client_credentials grant (client authentication client_secret_basic)" \
        in run.texts()
    assert "scopes: mcp:read" in out.read_text(encoding="utf-8")  # the call went through with the token
    assert_no_secret(server, out, "pre-secret-Zq81x", basic)


def test_client_credentials_post_the_secret_when_the_metadata_lists_only_client_secret_post(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted, "--token-auth", "client_secret_post")
    run = record_with_oauth(server, tmp_path / "s.jsonl", grant="client-credentials", client_id="pre-client",
                            client_secret="pre-secret-Zq81x")
    assert run.result.exit_code == EXIT_OK, run.result.error
    [request] = token_requests(server)
    assert request["form"]["client_secret"] == "pre-secret-Zq81x" and "authorization" not in request["headers"]
    assert_no_secret(server, tmp_path / "s.jsonl", "pre-secret-Zq81x")


def test_client_credentials_with_a_key_sign_a_fresh_client_assertion_for_the_issuer(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted, "--token-auth", "private_key_jwt")
    out = tmp_path / "s.jsonl"
    run = record_with_oauth(server, out, grant="client-credentials", client_id="pre-client",
                            client_key=str(trusted.private))
    assert run.result.exit_code == EXIT_OK, run.result.error
    [request] = token_requests(server)
    form = request["form"]
    assert form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    claims = assertions.claims_of(form["client_assertion"])
    assert claims is not None and claims["iss"] == claims["sub"] == "pre-client"
    assert claims["aud"] == f"http://127.0.0.1:{server.port}" and 0 < claims["exp"] - time.time() <= 300
    assert assertions.header_of(form["client_assertion"])["alg"] == "ES256"
    text = out.read_text(encoding="utf-8")
    assert f"signing with the ES256 key trusted.pem (thumbprint {trusted.key.thumbprint()})" in text
    pem_lines = [line for line in trusted.private.read_text().splitlines() if "-----" not in line]
    assert not [line for line in pem_lines if line in text], "the key is read, never copied into the capture"
    assert_no_secret(server, out)


def test_a_client_assertion_signed_with_another_key_is_refused_once_and_the_sentence_asks_about_the_key(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted, "--token-auth", "private_key_jwt")
    other = make_key(tmp_path / "keys", "other")
    run = record_with_oauth(server, tmp_path / "s.jsonl", grant="client-credentials", client_id="pre-client",
                            client_key=str(other.private))
    assert run.result.exit_code != EXIT_OK
    sentence = run.result.error or ""
    assert "the token endpoint refused the client_credentials grant (HTTP 401: invalid_client)" in sentence
    assert f"was the ES256 key other.pem (thumbprint {other.key.thumbprint()}) registered for the client " \
           "pre-client?" in sentence
    assert sentence.endswith(f"({RULES['client-credentials']})")
    assert len(token_requests(server)) == 1  # a refused grant is not tried again
    assert run.steps()[-1] == ("token", "failed")


def test_a_key_file_that_holds_no_private_key_is_refused_before_anything_is_sent_to_the_token_endpoint(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted, "--token-auth", "private_key_jwt")
    run = record_with_oauth(server, tmp_path / "s.jsonl", grant="client-credentials", client_id="pre-client",
                            client_key=str(trusted.public))
    assert run.result.exit_code != EXIT_OK
    assert f"the client key file {trusted.public} holds no PEM private key" in (run.result.error or "")
    assert token_requests(server) == [] and run.steps()[-1] == ("assertion", "failed")


# -- JWT bearer (workload identity federation) ---------------------------------------------------------------------

def workload(key: KeyPair, server: AuthServer, **claims: Any) -> str:
    return key.mint(**{"iss": "https://idp.example", "sub": "workload-7", "aud": f"http://127.0.0.1:{server.port}",
                       **claims})


def test_a_workload_assertion_file_is_the_jwt_bearer_grant_and_is_read_at_each_token_request(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted)
    grant = workload(trusted, server)
    (tmp_path / "token.jwt").write_text(grant + "\n", encoding="utf-8")
    out = tmp_path / "s.jsonl"
    run = record_with_oauth(server, out, grant="jwt-bearer", client_id="pre-client",
                            assertion_file=str(tmp_path / "token.jwt"))
    assert run.result.exit_code == EXIT_OK, run.result.error
    [request] = token_requests(server)
    assert request["form"]["grant_type"] == JWT_BEARER and request["form"]["assertion"] == grant
    assert request["form"]["client_id"] == "pre-client"
    assert run.steps() == [("discovery", "ok"), ("metadata", "ok"), ("registration", "ok"), ("assertion", "ok"),
                           ("token", "ok")]
    assert f"the JWT authorization grant from the assertion file {tmp_path / 'token.jwt'}: iss https://idp.example, " \
           f"aud http://127.0.0.1:{server.port}, expires in 29" in run.texts()
    assert_no_secret(server, out, grant)


@pytest.mark.parametrize(("claims", "why"), [
    ({"exp": -60}, r"the assertion: it expired 6\d s ago"),  # exp: seconds from now
    ({"aud": "https://wrong.example"}, r"the assertion: its aud is https://wrong\.example, not the authorization "
                                       r"server http://127\.0\.0\.1:\d+ or http://127\.0\.0\.1:\d+/token"),
])
def test_a_refused_assertion_is_explained_and_not_tried_again_nor_swapped_for_another_grant(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path, claims: dict[str, Any],
        why: str) -> None:
    server = machine(auth_server, trusted)
    if "exp" in claims:
        claims = {**claims, "exp": int(time.time()) + claims["exp"]}
    grant = workload(trusted, server, **claims)
    run = record_with_oauth(server, tmp_path / "s.jsonl", grant="jwt-bearer", client_id="pre-client",
                            assertion=grant)
    assert run.result.exit_code != EXIT_OK
    sentence = run.result.error or ""
    assert f"the token endpoint refused the {JWT_BEARER} grant (HTTP 400: invalid_grant" in sentence
    assert re.search(why, sentence), sentence
    assert sentence.endswith(f"({RULES['jwt-bearer']})")
    assert len(token_requests(server)) == 1
    assert not any(r["path"] in ("/authorize", "/register") for r in server.requests())
    assert_no_secret(server, tmp_path / "s.jsonl", grant)


# -- ID-JAG (enterprise-managed authorization) ---------------------------------------------------------------------

def id_token(key: KeyPair, server: AuthServer, **claims: Any) -> str:
    return key.mint(**{"iss": f"http://127.0.0.1:{server.port}/idp", "sub": "ada@example.com",
                       "email": "ada@example.com", "aud": "idp-client", **claims})


def test_the_id_token_is_exchanged_at_the_idp_for_an_id_jag_that_the_authorization_server_takes(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted, "--token-auth", "client_secret_basic")
    token = id_token(trusted, server)
    out = tmp_path / "s.jsonl"
    run = record_with_oauth(server, out, grant="id-jag", client_id="pre-client", client_secret="pre-secret-Zq81x",
                            id_token=token, idp_token_endpoint=f"http://127.0.0.1:{server.port}/idp/token",
                            idp_client_id="idp-client")
    assert run.result.exit_code == EXIT_OK, run.result.error
    [exchange] = [r for r in server.requests() if r["path"] == "/idp/token"]
    assert exchange["form"] == {"grant_type": TOKEN_EXCHANGE, "requested_token_type": ID_JAG_TYPE,
                                "subject_token": token, "subject_token_type": ID_TOKEN_TYPE,
                                "audience": f"http://127.0.0.1:{server.port}", "resource": server.url,
                                "scope": "mcp:read", "client_id": "idp-client"}
    [request] = token_requests(server)
    assert request["form"]["grant_type"] == JWT_BEARER
    assert assertions.header_of(request["form"]["assertion"])["typ"] == "oauth-id-jag+jwt"
    assert request["headers"]["authorization"].startswith("Basic ")
    assert run.steps() == [("discovery", "ok"), ("metadata", "ok"), ("registration", "ok"), ("exchange", "ok"),
                           ("token", "ok")]
    assert "the IdP exchanged the ID token for an ID-JAG" in run.texts()
    assert "ada@example.com" not in out.read_text(encoding="utf-8")  # the person's identity stays out too
    assert_no_secret(server, out, token)


def test_an_id_token_the_idp_does_not_trust_stops_at_the_exchange_with_the_rule(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted, "--token-auth", "client_secret_basic")
    stranger = make_key(tmp_path / "keys", "stranger")
    token = id_token(stranger, server)
    run = record_with_oauth(server, tmp_path / "s.jsonl", grant="id-jag", client_id="pre-client",
                            client_secret="pre-secret-Zq81x", id_token=token,
                            idp_issuer=f"http://127.0.0.1:{server.port}/idp", idp_client_id="idp-client")
    assert run.result.exit_code != EXIT_OK
    sentence = run.result.error or ""
    assert "the IdP did not exchange the ID token for an ID-JAG (HTTP 400: invalid_grant" in sentence
    assert sentence.endswith(f"({RULES['token-exchange']})")
    assert token_requests(server) == []  # nothing reaches the MCP server's authorization server
    # the IdP's token endpoint came from its metadata at --idp-issuer
    assert ("metadata", "ok") in run.steps() and run.steps()[-1] == ("exchange", "failed")
    assert_no_secret(server, tmp_path / "s.jsonl", token)


def test_an_expired_id_token_is_named_as_the_likely_cause_of_the_refusal(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted, "--token-auth", "client_secret_basic")
    token = id_token(trusted, server, exp=int(time.time()) - 120)
    run = record_with_oauth(server, tmp_path / "s.jsonl", grant="id-jag", client_id="pre-client",
                            client_secret="pre-secret-Zq81x", id_token=token,
                            idp_token_endpoint=f"http://127.0.0.1:{server.port}/idp/token", idp_client_id="idp-client")
    assert run.result.exit_code != EXIT_OK
    assert re.search(r"the ID token expired 1[23]\d s ago", run.result.error or ""), run.result.error


def test_a_grant_without_a_person_does_not_ask_the_metadata_for_pkce_which_it_never_uses(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted, "--no-s256", "--token-auth", "client_secret_basic")
    run = record_with_oauth(server, tmp_path / "s.jsonl", grant="client-credentials", client_id="pre-client",
                            client_secret="pre-secret-Zq81x")
    assert run.result.exit_code == EXIT_OK, run.result.error
    assert f"metadata of http://127.0.0.1:{server.port}: token endpoint http://127.0.0.1:{server.port}/token" \
        in run.texts()


def test_a_client_credentials_token_about_to_lapse_is_replaced_before_the_request_without_a_401(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    # tokens for 20 s: inside TokenSet.EARLY (30 s), so each is due for renewal before the next request leaves
    server = machine(auth_server, trusted, "--token-auth", "client_secret_basic", "--expires-in", "20")
    run = record_with_oauth(server, tmp_path / "s.jsonl", grant="client-credentials", client_id="pre-client",
                            client_secret="pre-secret-Zq81x")
    assert run.result.exit_code == EXIT_OK, run.result.error
    mcp = [r for r in server.requests() if r["path"] == "/mcp" and r["method"] == "POST"]
    assert len(token_requests(server)) == len(mcp)  # the first after the 401, then one before each request
    assert [e.data.get("status") for e in run.events if e.data.get("exchange") and e.data.get("status") == 401
            and "auth_step" not in e.data] == [401]  # only the first request, before any token, was refused
    renewals = [s for s in run.steps() if s[0] == "token"]
    assert len(renewals) == len(mcp) and run.steps().count(("registration", "ok")) == 1  # a renewal is the token step
