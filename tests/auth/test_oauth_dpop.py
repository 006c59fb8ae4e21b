"""DPoP (RFC 9449) against the local authorization server with ``--dpop`` (and ``--dpop-nonce``): a proof on every
token and MCP request, the DPoP scheme for a bound token, the servers' nonces honoured with one retry each, a
bound token never kept past the session, no proof in the capture; and the proofs themselves."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from auth_support import AuthServer, make_key, record_with_oauth

from inspector.core.auth import dpop
from inspector.core.auth.assertions import claims_of, header_of
from inspector.core.auth.challenge import Challenge
from inspector.core.auth.flow import OAuthClient
from inspector.core.auth.model import RULES, AuthError, OAuthOptions, Step
from inspector.core.auth.tokens import TokenStore
from inspector.core.exits import EXIT_OK
from inspector.core.transports.credentials import AuthIO


def proofs(server: AuthServer, path: str) -> list[dict[str, Any]]:
    """(headers, claims) of each request to ``path`` that carried a DPoP proof."""
    return [{"headers": r["headers"], "claims": claims_of(r["headers"]["dpop"]),
             "header": header_of(r["headers"]["dpop"])} for r in server.requests()
            if r["path"] == path and "dpop" in r["headers"]]


def assert_no_secret(server: AuthServer, capture: Path) -> None:
    text = capture.read_text(encoding="utf-8")
    leaked = sorted(s for s in server.secrets() if s in text)
    assert not leaked, f"secrets in the capture: {leaked}"


def test_a_dpop_server_gets_a_proof_on_the_token_request_and_each_mcp_request_with_the_dpop_scheme(
        auth_server: Callable[..., AuthServer], tmp_path: Path) -> None:
    server = auth_server("--dpop")
    out = tmp_path / "s.jsonl"
    run = record_with_oauth(server, out)
    assert run.result.exit_code == EXIT_OK, run.result.error
    [token] = proofs(server, "/token")
    assert token["claims"]["htm"] == "POST" and token["claims"]["htu"] == f"http://127.0.0.1:{server.port}/token"
    assert "ath" not in token["claims"] and token["header"]["typ"] == "dpop+jwt" and "d" not in token["header"]["jwk"]
    mcp = proofs(server, "/mcp")
    assert len(mcp) >= 3  # initialize, initialized, tools/list, tools/call: every one with its proof
    assert all(p["headers"]["authorization"].startswith("DPoP ") for p in mcp)
    jtis = [p["claims"]["jti"] for p in [token, *mcp]]
    assert len(set(jtis)) == len(jtis), "a fresh proof each time"
    assert {p["header"]["jwk"]["x"] for p in [token, *mcp]} == {token["header"]["jwk"]["x"]}, "one key per session"
    assert "scopes: mcp:read" in out.read_text(encoding="utf-8")
    assert ("dpop", "ok") in run.steps()
    assert "DPoP (the MCP server challenges with the DPoP scheme): a key for this session only (ES256" in run.texts()
    assert ", bound to the DPoP key " in run.texts()
    # a bound token is worth nothing without the key, which dies with the session: it is not kept
    assert TokenStore().holds(server.url) is None
    assert_no_secret(server, out)


def test_the_servers_nonces_are_honoured_with_one_retry_each_and_sent_from_then_on(
        auth_server: Callable[..., AuthServer], tmp_path: Path) -> None:
    server = auth_server("--dpop", "--dpop-nonce")
    out = tmp_path / "s.jsonl"
    run = record_with_oauth(server, out)
    assert run.result.exit_code == EXIT_OK, run.result.error
    token = proofs(server, "/token")
    assert [p["claims"].get("nonce") for p in token] == [None, "as-nonce-7"]
    mcp = proofs(server, "/mcp")
    assert [p["claims"].get("nonce") for p in mcp][:2] == [None, "rs-nonce-9"]
    assert all(p["claims"].get("nonce") == "rs-nonce-9" for p in mcp[1:])  # no second challenge
    nonce_steps = [s for s in run.events if s.data.get("auth_step") == "dpop" and "nonce" in s.data.get("text", "")]
    assert [s.data["text"].split(" wants")[0] for s in nonce_steps] == ["the authorization server", "the MCP server"]
    assert all(s.data["rule"] == RULES["dpop-nonce"] for s in nonce_steps)
    assert_no_secret(server, out)


def test_dpop_forced_on_a_server_that_does_not_bind_says_the_token_is_not_bound_and_sends_it_as_bearer(
        auth_server: Callable[..., AuthServer], tmp_path: Path) -> None:
    server = auth_server()
    run = record_with_oauth(server, tmp_path / "s.jsonl", dpop=True)
    assert run.result.exit_code == EXIT_OK, run.result.error
    assert len(proofs(server, "/token")) == 1  # the proof went with the token request
    assert proofs(server, "/mcp") == []  # and the Bearer token goes alone
    assert "DPoP (--dpop)" in run.texts()
    assert "but the server issued a Bearer token, not bound to the DPoP proof" in run.texts()


def test_a_grant_without_a_person_gets_a_bound_token_too(auth_server: Callable[..., AuthServer],
                                                         tmp_path: Path) -> None:
    key = make_key(tmp_path / "keys")
    server = auth_server("--machine", "--registration", "pre", "--trust-key", str(key.public), "--dpop",
                         "--token-auth", "client_secret_basic")
    run = record_with_oauth(server, tmp_path / "s.jsonl", grant="client-credentials", client_id="pre-client",
                            client_secret="pre-secret-Zq81x")
    assert run.result.exit_code == EXIT_OK, run.result.error
    assert len(proofs(server, "/token")) == 1 and proofs(server, "/mcp")
    assert "(client authentication client_secret_basic, bound to the DPoP key " in run.texts()


# -- the proofs ------------------------------------------------------------------------------------------------------

def test_a_proof_names_the_method_and_the_url_without_its_query_and_binds_the_token() -> None:
    key = dpop.DPoP()
    proof = key.proof("post", "https://mcp.example/mcp?session=1#x", dpop.RS, "the-token", now=1000)
    claims, header = claims_of(proof), header_of(proof)
    assert claims is not None
    assert claims["htm"] == "POST" and claims["htu"] == "https://mcp.example/mcp" and claims["iat"] == 1000
    assert claims["ath"] == dpop.token_hash("the-token") == "wqc_z2HfvcrceaELozCy7162b8Cmc17Wm3lrs8l7l64"
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256" and set(header["jwk"]) == {"kty", "crv", "x", "y"}
    assert "nonce" not in claims


def test_a_nonce_is_kept_per_server_and_role() -> None:
    key = dpop.DPoP()
    assert key.observe(dpop.AS, "https://as.example/token", {"dpop-nonce": "n-as"}) == "n-as"
    key.observe(dpop.RS, "https://as.example/mcp", {"dpop-nonce": "n-rs"})
    key.observe(dpop.RS, "https://other.example/mcp", {})

    def nonce(role: str, url: str) -> Any:
        claims = claims_of(key.proof("POST", url, role))
        return claims.get("nonce") if claims else None

    assert nonce(dpop.AS, "https://as.example/token") == "n-as"
    assert nonce(dpop.RS, "https://AS.example/mcp") == "n-rs"  # same server, another role: its own nonce
    assert nonce(dpop.RS, "https://other.example/mcp") is None


def test_use_dpop_nonce_is_read_from_a_json_error_or_a_dpop_challenge_with_the_nonce_header() -> None:
    assert dpop.wants_nonce_at_token_endpoint(400, {"dpop-nonce": "n"}, b'{"error":"use_dpop_nonce"}')
    assert not dpop.wants_nonce_at_token_endpoint(400, {}, b'{"error":"use_dpop_nonce"}')
    assert not dpop.wants_nonce_at_token_endpoint(400, {"dpop-nonce": "n"}, b'{"error":"invalid_grant"}')
    challenge = 'Bearer realm="x", DPoP error="use_dpop_nonce", algs="ES256"'
    assert dpop.wants_nonce_at_resource(401, {"dpop-nonce": "n", "www-authenticate": challenge})
    assert not dpop.wants_nonce_at_resource(401, {"dpop-nonce": "n", "www-authenticate": 'Bearer error="x"'})
    assert not dpop.wants_nonce_at_resource(403, {"dpop-nonce": "n", "www-authenticate": challenge})


@pytest.mark.parametrize(("listed", "alg"), [(None, "ES256"), ([], "ES256"), (["RS256", "ES384"], "ES384"),
                                             (["PS256"], "PS256"), (["HS256"], None)])
def test_the_proof_algorithm_is_the_first_the_server_lists_that_the_inspector_signs_with(
        listed: Any, alg: str | None) -> None:
    assert dpop.choose_alg(listed) == alg


def test_a_server_that_takes_only_proofs_the_inspector_cannot_sign_is_refused_with_the_rule() -> None:
    steps: list[Step] = []
    oauth = OAuthClient("http://127.0.0.1:9/mcp", OAuthOptions(), store=TokenStore(use_keyring=False))

    async def fetch(*_: Any) -> Any:
        raise AssertionError("nothing is sent")

    with pytest.raises(AuthError) as refused:
        dpop.start_dpop(oauth, AuthIO(fetch, steps.append), Challenge(scheme="DPoP"),
                        {"token_endpoint": "http://127.0.0.1:9/token", "dpop_signing_alg_values_supported": ["HS256"]})
    assert "takes DPoP proofs signed with HS256 only" in str(refused.value)
    assert str(refused.value).endswith(f"({RULES['dpop']})") and steps[-1].outcome == "failed"
    assert oauth.dpop is None
