"""Done when: ``mcp-inspector record --url URL --oauth --oauth-authorize follow --send calls.jsonl --out s.jsonl``
completes against a local protected server, ``show s.jsonl`` lists the discovery, registration,
authorization and token exchanges, and no secret of the session is in the file."""

from __future__ import annotations

import json
from pathlib import Path

from auth_support import CALLS
from helpers import cli

from inspector.core.exits import EXIT_OK

MEMORY = {"MCP_INSPECTOR_TOKEN_STORE": "memory"}


def write_calls(path: Path) -> Path:
    path.write_text("".join(json.dumps(call) + "\n" for call in CALLS), encoding="utf-8")
    return path


def test_record_with_oauth_follow_completes_and_show_lists_every_exchange_of_the_flow_without_a_secret(
        auth_server, tmp_path: Path) -> None:
    server = auth_server("--registration", "dcr")
    out = tmp_path / "s.jsonl"
    run = cli("record", "--url", server.url, "--oauth", "--oauth-authorize", "follow",
              "--send", str(write_calls(tmp_path / "calls.jsonl")), "--out", str(out), env=MEMORY)
    assert run.returncode == EXIT_OK, run.stderr
    shown = cli("show", str(out))
    assert shown.returncode == 0, shown.stderr
    for line in ("GET http://127.0.0.1:{port}/meta/resource.json (OAuth discovery) → 200",
                 "GET http://127.0.0.1:{port}/.well-known/oauth-authorization-server (OAuth metadata) → 200",
                 "POST http://127.0.0.1:{port}/register (OAuth registration) → 201",
                 "GET http://127.0.0.1:{port}/authorize?",
                 "POST http://127.0.0.1:{port}/token (OAuth token) → 200",
                 "registered as client dcr-", "authorization code received (state checked)",
                 "access token issued and a refresh token"):
        assert line.format(port=server.port) in shown.stdout, shown.stdout
    assert "scopes: mcp:read" in shown.stdout  # the call went through with the token
    as_json = [json.loads(line) for line in cli("show", "--json", str(out)).stdout.splitlines() if line.strip()]
    exchanges = [(e["data"]["auth_step"], e["data"].get("status")) for e in as_json
                 if e.get("kind") == "http" and "auth_step" in e.get("data", {})]
    assert exchanges == [("discovery", 200), ("metadata", 200), ("registration", 201), ("authorize", 302),
                         ("token", 200)]
    text = out.read_text(encoding="utf-8")
    secrets = server.secrets()
    assert len(secrets) >= 5  # code, verifier, state, access and refresh tokens at least
    leaked = sorted(s for s in secrets if s in text)
    assert not leaked, f"secrets in the capture: {leaked}"


def test_a_pre_registered_client_secret_never_reaches_the_capture_or_the_output(auth_server, tmp_path: Path
                                                                               ) -> None:
    server = auth_server("--registration", "pre", "--token-auth", "client_secret_basic")
    out = tmp_path / "s.jsonl"
    run = cli("record", "--url", server.url, "--client-id", "pre-client", "--client-secret", "pre-secret-Zq81x",
              "--oauth-authorize", "follow", "--send", str(write_calls(tmp_path / "calls.jsonl")), "--out", str(out),
              env=MEMORY)
    assert run.returncode == EXIT_OK, run.stderr
    text = out.read_text(encoding="utf-8")
    secrets = server.secrets() | {"pre-secret-Zq81x"}
    assert not sorted(s for s in secrets if s in text + run.stdout + run.stderr)
    assert "pre-registered client pre-client (token endpoint authentication client_secret_basic)" in text


def test_without_oauth_a_401_says_how_to_log_in(auth_server, tmp_path: Path) -> None:
    server = auth_server()
    run = cli("record", "--url", server.url, "--handshake", "legacy", "--out", str(tmp_path / "s.jsonl"), env=MEMORY)
    assert run.returncode != EXIT_OK
    assert "401" in run.stderr and "--oauth" in run.stderr
    assert not any(r["path"] == "/authorize" for r in server.requests())
