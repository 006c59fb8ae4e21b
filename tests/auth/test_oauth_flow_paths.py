"""The OAuth flow against a real protected server on 127.0.0.1, one discovery path, registration mode or
refusal at a time (in-process ``record`` with ``--oauth-authorize follow``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from auth_support import record_with_oauth

from inspector.core.exits import EXIT_OK

PRE_SECRET = "pre-secret-Zq81x"


def answered_call(run) -> bool:
    return any(e.method is None and e.kind == "message" and "scopes:" in e.raw.decode("utf-8", "replace")
               for e in run.events)


@pytest.mark.parametrize("prm, expected", [
    ("header", ["discovery ok"]),
    ("path", ["discovery ok"]),
    ("root", ["discovery tried", "discovery ok"]),
])
def test_protected_resource_metadata_is_found_from_the_challenge_or_the_path_aware_then_root_well_known_url(
        auth_server, tmp_path: Path, prm: str, expected: list[str]) -> None:
    server = auth_server("--prm", prm)
    run = record_with_oauth(server, tmp_path / "c.jsonl")
    assert run.result.exit_code == EXIT_OK, run.result.error
    assert [f"{name} {outcome}" for name, outcome in run.steps() if name == "discovery"] == expected
    wanted = {"header": "/meta/resource.json", "path": "/.well-known/oauth-protected-resource/mcp",
              "root": "/.well-known/oauth-protected-resource"}[prm]
    assert f"GET {wanted}" in server.paths()
    assert answered_call(run)


@pytest.mark.parametrize("kind, path_tried", [
    ("oauth", ["/.well-known/oauth-authorization-server/tenant1"]),
    ("oidc", ["/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1"]),
    ("oidc-append", ["/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1",
                     "/tenant1/.well-known/openid-configuration"]),
])
def test_authorization_server_metadata_is_tried_in_the_spec_order_for_an_issuer_with_a_path(
        auth_server, tmp_path: Path, kind: str, path_tried: list[str]) -> None:
    server = auth_server("--as-path", "/tenant1", "--as-metadata", kind)
    run = record_with_oauth(server, tmp_path / "c.jsonl")
    assert run.result.exit_code == EXIT_OK, run.result.error
    tried = [p.split(" ", 1)[1] for p in server.paths() if ".well-known/o" in p and "protected" not in p]
    assert tried == path_tried


def test_dynamic_registration_then_pkce_resource_and_challenge_scope_reach_the_authorization_server(
        auth_server, tmp_path: Path) -> None:
    server = auth_server("--registration", "dcr", "--challenge-scope", "mcp:read")
    run = record_with_oauth(server, tmp_path / "c.jsonl")
    assert run.result.exit_code == EXIT_OK, run.result.error
    authorize = next(r for r in server.requests() if r["path"] == "/authorize")["query"]
    assert authorize["code_challenge_method"] == "S256" and authorize["resource"] == server.url
    assert authorize["scope"] == "mcp:read"
    token = next(r for r in server.requests() if r["path"] == "/token")["form"]
    assert token["resource"] == server.url and token["code_verifier"]
    assert [name for name, outcome in run.steps() if outcome == "ok"] == [
        "discovery", "metadata", "registration", "authorize", "authorize", "token"]


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_a_pre_registered_client_authenticates_at_the_token_endpoint_as_the_server_asks(
        auth_server, tmp_path: Path, method: str) -> None:
    server = auth_server("--registration", "pre", "--token-auth", method)
    run = record_with_oauth(server, tmp_path / "c.jsonl", client_id="pre-client", client_secret=PRE_SECRET)
    assert run.result.exit_code == EXIT_OK, run.result.error
    token = next(r for r in server.requests() if r["path"] == "/token")
    if method == "client_secret_basic":
        assert token["headers"]["authorization"].startswith("Basic ") and "client_secret" not in token["form"]
    else:
        assert token["form"]["client_secret"] == PRE_SECRET and "authorization" not in token["headers"]
    assert not any(r["path"] == "/register" for r in server.requests())
    assert PRE_SECRET not in (tmp_path / "c.jsonl").read_text()


def test_a_client_id_metadata_document_url_is_the_client_id_when_the_server_supports_them(
        auth_server, tmp_path: Path) -> None:
    server = auth_server("--registration", "cimd")
    run = record_with_oauth(server, tmp_path / "c.jsonl",
                            client_metadata_url="https://client.example/mcp-inspector.json")
    assert run.result.exit_code == EXIT_OK, run.result.error
    authorize = next(r for r in server.requests() if r["path"] == "/authorize")["query"]
    assert authorize["client_id"] == "https://client.example/mcp-inspector.json"
    assert not any(r["path"] == "/register" for r in server.requests())


@pytest.mark.parametrize("switches, step, words", [
    (["--no-s256"], "metadata",
     "lists no S256 in code_challenge_methods_supported: the client must refuse to continue"),
    (["--wrong-issuer"], "metadata", "says its issuer is 'https://elsewhere.example'"),
    (["--iss", "bad"], "authorize", "comes from issuer 'https://attacker.example'"),
    (["--iss", "missing"], "authorize",
     "has no iss although the server advertises authorization_response_iss_parameter_supported"),
])
def test_the_flow_refuses_with_one_sentence_naming_the_rule(auth_server, tmp_path: Path, switches: list[str],
                                                              step: str, words: str) -> None:
    server = auth_server(*switches)
    run = record_with_oauth(server, tmp_path / "c.jsonl")
    assert run.result.exit_code != EXIT_OK
    assert words in (run.result.error or ""), run.result.error
    assert "(RFC" in (run.result.error or "") or "MCP authorization" in (run.result.error or "")
    assert "\n" not in (run.result.error or "")
    assert not any(r["path"] == "/token" for r in server.requests()), "no code may be redeemed after a refusal"
    assert (step, "failed") in run.steps()


def test_an_rfc_9207_iss_that_matches_is_accepted(auth_server, tmp_path: Path) -> None:
    run = record_with_oauth(auth_server("--iss", "good"), tmp_path / "c.jsonl")
    assert run.result.exit_code == EXIT_OK, run.result.error
    assert "state and iss checked" in run.texts()


@pytest.mark.parametrize("switches, endpoints", [
    (["--prm", "none", "--as-metadata", "oauth"], "metadata at the root"),
    (["--prm", "none", "--as-metadata", "none"], "default endpoints"),
])
def test_a_2025_03_26_server_without_resource_metadata_is_authorized_at_its_root(
        auth_server, tmp_path: Path, switches: list[str], endpoints: str) -> None:
    server = auth_server(*switches)
    run = record_with_oauth(server, tmp_path / "c.jsonl")
    assert run.result.exit_code == EXIT_OK, run.result.error
    assert ("discovery", "skipped") in run.steps()
    if endpoints == "default endpoints":
        assert "2025-03-26 default endpoints /authorize, /token and /register" in run.texts()
    assert "resource" not in next(r for r in server.requests() if r["path"] == "/authorize")["query"]


def test_an_expired_access_token_is_refreshed_with_the_refresh_token(auth_server, tmp_path: Path) -> None:
    server = auth_server("--expires-in", "5")  # within TokenSet.EARLY: expired as soon as it is issued
    run = record_with_oauth(server, tmp_path / "c.jsonl")
    assert run.result.exit_code == EXIT_OK, run.result.error
    grants = [r["form"]["grant_type"] for r in server.requests() if r["path"] == "/token"]
    assert grants[0] == "authorization_code" and "refresh_token" in grants[1:]
    assert grants.count("authorization_code") == 1
    assert ("refresh", "ok") in run.steps()


def test_a_403_insufficient_scope_steps_up_with_the_union_of_scopes_and_the_call_succeeds(
        auth_server, tmp_path: Path) -> None:
    server = auth_server("--step-up")
    run = record_with_oauth(server, tmp_path / "c.jsonl")
    assert run.result.exit_code == EXIT_OK, run.result.error
    scopes = [r["query"].get("scope") for r in server.requests() if r["path"] == "/authorize"]
    assert scopes == ["mcp:read", "mcp:read mcp:write"]
    assert answered_call(run)


def test_step_up_stops_after_its_retry_limit(auth_server, tmp_path: Path) -> None:
    from inspector.core.auth.flow import MAX_STEP_UPS

    server = auth_server("--always-403")
    run = record_with_oauth(server, tmp_path / "c.jsonl")
    assert run.result.exit_code != EXIT_OK
    assert f"after {MAX_STEP_UPS} step-up authorizations" in (run.result.error or "")
    calls = [r for r in server.requests() if r["path"] == "/mcp" and "tools/call" in r.get("body", "")]
    assert len(calls) == MAX_STEP_UPS + 1


def test_the_offline_access_scope_is_added_when_the_authorization_server_lists_it(auth_server, tmp_path: Path
                                                                                  ) -> None:
    server = auth_server("--offline-access")
    run = record_with_oauth(server, tmp_path / "c.jsonl")
    assert run.result.exit_code == EXIT_OK, run.result.error
    assert next(r for r in server.requests() if r["path"] == "/authorize")["query"]["scope"] == \
        "mcp:read offline_access"
