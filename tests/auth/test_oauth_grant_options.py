"""The options of the grants without a person, as a user gives them to ``mcp-inspector record`` (a process of its
own, against servers/oauth_server.py): each option's effect on what the servers are sent, and one sentence for
each combination that cannot work. Option-to-effect registry: each ``test_*`` here names the option it proves."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from auth_support import CALLS, AuthServer, KeyPair, make_key
from helpers import cli

from inspector.cli.main import build_parser
from inspector.core.auth.assertions import claims_of, exposed_key_file, header_of
from inspector.core.connect.target import InputError, oauth_from_args
from inspector.core.exits import EXIT_OK

MEMORY = {"MCP_INSPECTOR_TOKEN_STORE": "memory"}
RECORD = ["record", "--out", "s.jsonl", "--url", "http://127.0.0.1:9/mcp"]


@pytest.fixture
def trusted(tmp_path: Path) -> KeyPair:
    return make_key(tmp_path / "keys", "trusted")


def record(server: AuthServer, folder: Path, *options: str) -> Any:
    calls = folder / "calls.jsonl"
    calls.write_text("".join(json.dumps(c) + "\n" for c in CALLS), encoding="utf-8")
    return cli("record", "--url", server.url, "--handshake", "legacy", "--send", str(calls), "--out",
               str(folder / "s.jsonl"), *options, env=MEMORY)


def forms(server: AuthServer, path: str) -> list[dict[str, str]]:
    return [r.get("form", {}) for r in server.requests() if r["path"] == path]


def machine(auth_server: Callable[..., AuthServer], key: KeyPair | Path, *switches: str) -> AuthServer:
    public = key.public if isinstance(key, KeyPair) else key
    return auth_server("--machine", "--registration", "pre", "--trust-key", str(public), *switches)


def test_oauth_grant_client_credentials_gets_the_token_with_the_client_credentials_grant_and_no_person(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted, "--token-auth", "client_secret_basic")
    run = record(server, tmp_path, "--oauth-grant", "client-credentials", "--client-id", "pre-client",
                 "--client-secret", "pre-secret-Zq81x")
    assert run.returncode == EXIT_OK, run.stderr
    assert [f["grant_type"] for f in forms(server, "/token")] == ["client_credentials"]
    assert not any(r["path"] in ("/authorize", "/register") for r in server.requests())
    assert "pre-secret-Zq81x" not in (tmp_path / "s.jsonl").read_text() + run.stdout + run.stderr


def test_client_key_signs_a_private_key_jwt_client_assertion_with_the_key_in_the_file(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted, "--token-auth", "private_key_jwt")
    run = record(server, tmp_path, "--oauth-grant", "client-credentials", "--client-id", "pre-client",
                 "--client-key", str(trusted.private))
    assert run.returncode == EXIT_OK, run.stderr
    [form] = forms(server, "/token")
    assert claims_of(form["client_assertion"])["iss"] == "pre-client"  # type: ignore[index]
    assert form["client_assertion"] not in (tmp_path / "s.jsonl").read_text()


@pytest.mark.parametrize(("mode", "says"), [(0o644, "can be read by other users (permissions 0644)"),
                                            (0o640, "can be read by its group (permissions 0640)"),
                                            (0o622, "can be changed by other users (permissions 0622)"),
                                            (0o666, "can be read and changed by other users (permissions 0666)"),
                                            (0o600, None), (0o400, None)])
def test_a_client_key_file_others_can_read_is_said_to_be_exposed_as_ssh_would(tmp_path: Path, mode: int,
                                                                             says: str | None) -> None:
    key = make_key(tmp_path, "k").private
    key.chmod(mode)
    found = exposed_key_file(str(key))
    if says is None:
        assert found is None
    else:
        assert found == f"the client key file {key} {says}; a private key should be yours alone: chmod 600 {key}"
    assert exposed_key_file(str(tmp_path / "missing.pem")) is None  # reading it says why, later


@pytest.mark.report("security", "--client-key names a private key file other users can read", surface="CLI",
                    group="hostile", advice="Make the key file yours alone: chmod 600 FILE.")
def test_client_key_warns_once_in_one_sentence_when_others_can_read_the_key(tmp_path: Path, report) -> None:  # type: ignore[no-untyped-def]
    key = make_key(tmp_path, "k").private
    key.chmod(0o644)
    done = cli(*RECORD, "--oauth-grant", "client-credentials", "--client-id", "c", "--client-key", str(key),
               "--timeout", "2", cwd=tmp_path, env=MEMORY)
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert warnings == [f"mcp-inspector: warning: the client key file {key} can be read by other users (permissions "
                        f"0644); a private key should be yours alone: chmod 600 {key}"], done.stderr
    key.chmod(0o600)
    private = cli(*RECORD, "--oauth-grant", "client-credentials", "--client-id", "c", "--client-key", str(key),
                  "--timeout", "2", cwd=tmp_path, env=MEMORY)
    assert "warning" not in private.stderr, private.stderr
    report.saw(warnings[0])


def test_client_key_alg_picks_the_algorithm_the_client_assertion_is_signed_with(
        auth_server: Callable[..., AuthServer], tmp_path: Path) -> None:
    from joserfc.jwk import RSAKey

    key = RSAKey.generate_key(2048)
    (tmp_path / "rsa.pem").write_bytes(key.as_pem(private=True))
    (tmp_path / "rsa.pub.pem").write_bytes(key.as_pem(private=False))
    server = machine(auth_server, tmp_path / "rsa.pub.pem", "--token-auth", "private_key_jwt")
    run = record(server, tmp_path, "--oauth-grant", "client-credentials", "--client-id", "pre-client",
                 "--client-key", str(tmp_path / "rsa.pem"), "--client-key-alg", "PS256")
    assert run.returncode == EXIT_OK, run.stderr
    [form] = forms(server, "/token")
    assert header_of(form["client_assertion"])["alg"] == "PS256"  # RS256 without the option
    refused = record(server, tmp_path, "--oauth-grant", "client-credentials", "--client-id", "pre-client",
                     "--client-key", str(tmp_path / "rsa.pem"), "--client-key-alg", "ES256")
    assert refused.returncode != EXIT_OK
    assert f"--client-key-alg ES256 does not fit the RSA key in {tmp_path / 'rsa.pem'}: it signs with RS256" \
        in refused.stderr


def test_assertion_is_the_jwt_bearer_grant_sent_to_the_token_endpoint(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted)
    grant = trusted.mint(iss="https://idp.example", sub="w", aud=f"http://127.0.0.1:{server.port}")
    run = record(server, tmp_path, "--oauth-grant", "jwt-bearer", "--client-id", "pre-client", "--assertion", grant)
    assert run.returncode == EXIT_OK, run.stderr
    assert [f["assertion"] for f in forms(server, "/token")] == [grant]
    assert grant not in (tmp_path / "s.jsonl").read_text() + run.stdout + run.stderr


def test_assertion_file_is_read_and_its_jwt_sent_as_the_grant(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted)
    grant = trusted.mint(iss="https://idp.example", sub="w", aud=f"http://127.0.0.1:{server.port}")
    (tmp_path / "workload.jwt").write_text(f"  {grant}\n", encoding="utf-8")
    run = record(server, tmp_path, "--oauth-grant", "jwt-bearer", "--client-id", "pre-client",
                 "--assertion-file", str(tmp_path / "workload.jwt"))
    assert run.returncode == EXIT_OK, run.stderr
    assert [f["assertion"] for f in forms(server, "/token")] == [grant]


def test_id_token_idp_token_endpoint_and_idp_client_id_make_the_token_exchange_at_the_idp(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted, "--token-auth", "client_secret_basic")
    token = trusted.mint(iss=f"http://127.0.0.1:{server.port}/idp", sub="ada", aud="idp-client")
    run = record(server, tmp_path, "--oauth-grant", "id-jag", "--client-id", "pre-client", "--client-secret",
                 "pre-secret-Zq81x", "--id-token", token, "--idp-token-endpoint",
                 f"http://127.0.0.1:{server.port}/idp/token", "--idp-client-id", "idp-client")
    assert run.returncode == EXIT_OK, run.stderr
    [exchange] = forms(server, "/idp/token")
    assert exchange["subject_token"] == token and exchange["client_id"] == "idp-client"
    assert [f["grant_type"] for f in forms(server, "/token")] == ["urn:ietf:params:oauth:grant-type:jwt-bearer"]
    assert not any(r["path"].startswith("/idp/.well-known") for r in server.requests())  # the endpoint was given
    assert token not in (tmp_path / "s.jsonl").read_text() + run.stdout + run.stderr


def test_id_token_file_and_idp_issuer_find_the_idp_token_endpoint_in_its_metadata(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted, "--token-auth", "client_secret_basic")
    token = trusted.mint(iss=f"http://127.0.0.1:{server.port}/idp", sub="ada", aud="idp-client")
    (tmp_path / "id.jwt").write_text(token, encoding="utf-8")
    run = record(server, tmp_path, "--oauth-grant", "id-jag", "--client-id", "pre-client", "--client-secret",
                 "pre-secret-Zq81x", "--id-token-file", str(tmp_path / "id.jwt"), "--idp-issuer",
                 f"http://127.0.0.1:{server.port}/idp", "--idp-client-id", "idp-client")
    assert run.returncode == EXIT_OK, run.stderr
    assert "GET /idp/.well-known/openid-configuration" in server.paths()  # OpenID discovery, path appended
    assert [f["subject_token"] for f in forms(server, "/idp/token")] == [token]


def test_without_idp_client_id_the_exchange_names_no_client_and_this_idp_refuses_it(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted, "--token-auth", "client_secret_basic")
    token = trusted.mint(iss=f"http://127.0.0.1:{server.port}/idp", sub="ada", aud="idp-client")
    run = record(server, tmp_path, "--oauth-grant", "id-jag", "--client-id", "pre-client", "--client-secret",
                 "pre-secret-Zq81x", "--id-token", token, "--idp-token-endpoint",
                 f"http://127.0.0.1:{server.port}/idp/token")
    assert run.returncode != EXIT_OK
    assert "client_id" not in forms(server, "/idp/token")[0]
    assert "the IdP did not exchange the ID token for an ID-JAG (HTTP 400: invalid_request" in run.stderr


def test_dpop_sends_a_proof_to_a_server_that_did_not_ask_for_one(auth_server: Callable[..., AuthServer],
                                                                 tmp_path: Path) -> None:
    server = auth_server()
    run = record(server, tmp_path, "--oauth", "--oauth-authorize", "follow", "--dpop")
    assert run.returncode == EXIT_OK, run.stderr
    [token] = [r for r in server.requests() if r["path"] == "/token"]
    assert header_of(token["headers"]["dpop"])["typ"] == "dpop+jwt"
    plain = auth_server()
    assert record(plain, tmp_path, "--oauth", "--oauth-authorize", "follow").returncode == EXIT_OK
    assert not any("dpop" in r["headers"] for r in plain.requests())  # without --dpop (and a server asking): none


# -- combinations that cannot work: one sentence, before anything is sent ---------------------------------------------

@pytest.mark.parametrize(("options", "sentence"), [
    (["--oauth-grant", "client-credentials"], "--oauth-grant client-credentials needs --client-id"),
    (["--oauth-grant", "client-credentials", "--client-id", "a"],
     "--oauth-grant client-credentials needs --client-secret or --client-key"),
    (["--oauth-grant", "client-credentials", "--client-id", "a", "--client-secret", "s", "--client-key", "k.pem"],
     "give --client-secret or --client-key, not both"),
    (["--oauth-grant", "jwt-bearer", "--client-id", "a"], "--oauth-grant jwt-bearer needs the JWT grant"),
    (["--oauth-grant", "jwt-bearer", "--client-id", "a", "--assertion", "x", "--assertion-file", "f"],
     "--oauth-grant jwt-bearer needs the JWT grant: --assertion JWT or --assertion-file FILE (one of them)"),
    (["--oauth-grant", "id-jag", "--client-id", "a", "--client-secret", "s", "--id-token", "t"],
     "--oauth-grant id-jag needs the IdP"),
    (["--oauth-grant", "id-jag", "--client-id", "a", "--idp-issuer", "https://idp.example", "--id-token", "t"],
     "--oauth-grant id-jag needs --client-secret"),
    (["--oauth", "--assertion", "x"], "--assertion is not used by --oauth-grant authorization-code"),
    (["--oauth-grant", "client-credentials", "--client-id", "a", "--client-secret", "s", "--id-token", "t"],
     "--id-token is not used by --oauth-grant client-credentials"),
    (["--oauth", "--client-id", "a", "--client-key-alg", "ES256"], "--client-key-alg is not used by"),
    (["--oauth-grant", "client-credentials", "--client-id", "a", "--client-secret", "s",
      "--client-metadata-url", "https://c.example/m.json"], "--client-metadata-url is for a person's sign-in"),
])
def test_a_grant_given_what_it_cannot_use_or_without_what_it_needs_is_one_sentence(
        options: list[str], sentence: str) -> None:
    args = build_parser().parse_args([*RECORD, *options])
    with pytest.raises(InputError) as refused:
        oauth_from_args(args)
    assert str(refused.value).startswith(sentence), str(refused.value)


def test_a_grant_without_a_person_implies_oauth_and_file_options_become_absolute_paths(tmp_path: Path,
                                                                                     monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    args = build_parser().parse_args([*RECORD, "--oauth-grant", "jwt-bearer", "--client-id", "a", "--assertion-file",
                                      "token.jwt"])
    options = oauth_from_args(args)
    assert options is not None and options.grant == "jwt-bearer"
    assert options.assertion_file == str(tmp_path / "token.jwt")
    assert oauth_from_args(build_parser().parse_args(RECORD)) is None


def test_a_missing_key_file_is_one_sentence_on_stderr_and_nothing_reaches_the_token_endpoint(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted, "--token-auth", "private_key_jwt")
    run = record(server, tmp_path, "--oauth-grant", "client-credentials", "--client-id", "pre-client",
                 "--client-key", str(tmp_path / "nowhere.pem"))
    assert run.returncode != EXIT_OK
    assert f"the client key file {tmp_path / 'nowhere.pem'} does not exist" in run.stderr
    assert "Traceback" not in run.stderr and forms(server, "/token") == []


def test_every_command_that_connects_takes_the_grant_options_the_one_shot_tools_listing_too(
        auth_server: Callable[..., AuthServer], trusted: KeyPair, tmp_path: Path) -> None:
    server = machine(auth_server, trusted, "--token-auth", "private_key_jwt")
    run = cli("tools", "--url", server.url, "--oauth-grant", "client-credentials", "--client-id", "pre-client",
              "--client-key", str(trusted.private), env=MEMORY)
    assert run.returncode == EXIT_OK, run.stderr
    assert "whoami" in run.stdout
    assert [f["grant_type"] for f in forms(server, "/token")] == ["client_credentials"]
