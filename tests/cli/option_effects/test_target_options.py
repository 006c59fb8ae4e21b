"""The ways to reach a server, shared by record, call (and the other one-shot commands), replay and check: each
option proven through each of the four commands, observed by the server (its log) or in what the command wrote.

One run proves several options; each option's effect is asserted on its own."""

from __future__ import annotations

import base64
import json
import sys

import pytest
from option_effects_support import (
    MEMORY_TOKENS,
    TARGET_COMMANDS,
    HttpServer,
    ProbeLog,
    capture_text,
    events_of,
    http_requests,
    inspector,
    log_length,
    oauth_requests,
    probe,
    run_command,
    unaccepting_port,
)

from inspector.core.exits import EXIT_CANNOT_CONNECT, EXIT_TIMEOUT
from inspector.core.redaction import REDACTED
from inspector.core.wire.events import Direction, Event, Kind

# Every test here runs the CLI end to end against servers in subprocesses: CI's second step runs them, the
# quick suite does not (issue 39: it stays under two minutes as the suite grows).
pytestmark = pytest.mark.integration

CIMD_URL = "https://client.example/mcp-inspector.json"  #: the document tests/auth/servers/oauth_server.py knows
PRE_CLIENT, PRE_SECRET = "pre-client", "pre-secret-Zq81x"  #: its pre-registered client


@pytest.mark.parametrize("command", TARGET_COMMANDS)
def test_cwd_env_no_redact_and_max_message_reach_the_server_and_the_capture(command, tmp_path, replay_source):
    """--cwd and --env: the server starts there, with that variable; --no-redact: a secret variable is kept in
    the capture; --max-message 10K: the server's 30 KB tools/list answer is a framing error that names it."""
    log = ProbeLog(tmp_path / "server.log")
    workdir = tmp_path / "server-cwd"
    workdir.mkdir()
    run = run_command(command, tmp_path / "out", [
        "--cwd", str(workdir), "--env", "PROBE_VALUE=seen-by-the-server", "--env", "PROBE_TOKEN=tok-Kq7xW",
        "--env", "PROBE_PAD=30000", "--no-redact", "--max-message", "10K", "--", *probe(log.path)],
        replay_source=replay_source, tool=("where",))
    assert run.captures, run.explain()
    # --cwd
    assert log.start()["cwd"] == str(workdir)
    # --env
    assert log.start()["env"]["PROBE_VALUE"] == "seen-by-the-server"
    # --no-redact: the secret variable is in the capture as it was given
    assert "tok-Kq7xW" in capture_text(run.captures), run.explain()
    # --max-message 10K: tools/list's answer (over 30 KB) is a framing error; the sentence names the limit
    oversize = [e for e in events_of(run.captures) if e.kind == Kind.FRAMING_ERROR and "oversize" in e.data]
    assert oversize, run.explain()
    assert all(e.dir == Direction.S2C and e.data["oversize"]["total_bytes"] > 30_000 for e in oversize)
    assert "over the size limit (10 KiB per message)" in (oversize[0].reason or "")


@pytest.mark.parametrize("command", ["replay", "check"])  # record's and call's: test_config_server_option.py
def test_config_and_server_run_the_named_entry_of_a_client_config(command, tmp_path, replay_source):
    """--config FILE --server NAME: the entry named runs (with the env its entry gives), not the other one; its
    secret variable is redacted in the capture (no --no-redact)."""
    config = tmp_path / "claude_desktop_config.json"
    entries = {name: {"command": sys.executable, "args": probe(tmp_path / f"{name}.log")[1:],
                      "env": {"PROBE_VALUE": f"entry {name}", "PROBE_TOKEN": f"tok-{name}-9f3"}}
               for name in ("alpha", "beta")}
    config.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    run = run_command(command, tmp_path / "out", ["--config", str(config), "--server", "beta"],
                      replay_source=replay_source)
    assert run.captures, run.explain()
    assert ProbeLog(tmp_path / "beta.log").start()["env"]["PROBE_VALUE"] == "entry beta"
    assert ProbeLog(tmp_path / "alpha.log").starts() == []
    text = capture_text(run.captures)
    assert "tok-beta-9f3" not in text and REDACTED in text


@pytest.mark.parametrize("command", ["call", "replay", "check"])  # record's: test_record_progress_and_cancel.py
def test_timeout_turns_a_slow_answer_into_a_timeout_naming_it(command, tmp_path, replay_source):
    """--timeout 0.5: an answer 5 s late is given up after 0.5 s, and the sentence says so (record, call: exit
    4; replay: the difference; check: the ping check)."""
    log = ProbeLog(tmp_path / "server.log")
    run = run_command(command, tmp_path / "out", ["--timeout", "0.5", "--env", "PROBE_SLOW_FIRST_PING=5",
                                                  "--", *probe(log.path)],
                      replay_source=replay_source, tool=("slow", "seconds=5"))
    if command == "call":
        assert run.returncode == EXIT_TIMEOUT, run.explain()
        assert "no response to tools/call within 0.5 s" in run.stderr
    elif command == "replay":
        assert "no response to ping within 0.5 s" in run.said, run.explain()
    else:
        assert run.report is not None
        [ping] = [r for r in json.loads(run.report.read_text())["results"] if r["id"] == "ping"]
        assert ping["status"] == "failed" and "within 0.5 s" in ping["sentence"], ping


@pytest.mark.parametrize("command", TARGET_COMMANDS)
def test_url_transport_headers_origin_and_bearer_reach_an_http_server(command, tmp_path, replay_source,
                                                                      http_probe: HttpServer):
    """--url with --transport sse: the HTTP+SSE stream is opened with GET; -H and --header add headers, --origin
    the Origin and --bearer the Authorization of every request."""
    tag = f"http-{command}"
    run = run_command(command, tmp_path / "out", [
        "--url", http_probe.url(f"/{tag}/sse"), "--transport", "sse", "-H", "X-Probe-One: one",
        "--header", "X-Probe-Two: two", "--origin", "http://origin.example", "--bearer", "tok-D4v"],
        replay_source=replay_source)
    requests = http_requests(http_probe, tag)
    assert requests, run.explain()
    # --url, --transport sse: the first request opens the event stream of the legacy transport
    assert (requests[0]["method"], requests[0]["path"]) == ("GET", f"/{tag}/sse")
    assert requests[0]["headers"]["accept"] == "text/event-stream"
    assert any(r["path"].startswith(f"/{tag}/messages?session=") for r in requests), run.explain()
    for request in requests:
        headers = request["headers"]
        assert headers.get("x-probe-one") == "one"  # -H
        assert headers.get("x-probe-two") == "two"  # --header
        assert headers.get("origin") == "http://origin.example"  # --origin
        assert headers.get("authorization") == "Bearer tok-D4v"  # --bearer


@pytest.mark.parametrize("command", TARGET_COMMANDS)
def test_connect_timeout_bounds_a_connection_that_never_completes(command, tmp_path, replay_source):
    """--connect-timeout 0.3: a server whose connection never completes is given up after 0.3 s (the default
    waits 10 s; --timeout is 20 so that it is not what ends the wait)."""
    with unaccepting_port() as port:
        run = run_command(command, tmp_path / "out", ["--url", f"http://127.0.0.1:{port}/mcp",
                                                      "--connect-timeout", "0.3", "--timeout", "20"],
                          replay_source=replay_source)
    assert f"no connection to 127.0.0.1:{port} within the connect timeout" in run.said, run.explain()
    if command in ("record", "call"):
        assert run.returncode == EXIT_CANNOT_CONNECT, run.explain()
    # each attempt was given up well before the default 10 s: the time from a message sent to its failure
    waits = connect_waits(events_of(run.captures))
    assert waits and max(waits) < 5, (waits, run.explain())


@pytest.mark.parametrize("command", TARGET_COMMANDS)
def test_ca_file_trusts_a_self_signed_server_and_insecure_verifies_nothing(command, tmp_path, replay_source,
                                                                          https_self_signed):
    """--ca-file: the self-signed certificate in the file is trusted, so the session's answers come (without it the
    run fails on the certificate); --insecure: no certificate is verified, which stderr says once and the capture's
    header records."""
    port, certificate = https_self_signed
    url = f"https://127.0.0.1:{port}/mcp"
    refused = run_command(command, tmp_path / "refused", ["--url", url], replay_source=replay_source)
    assert "the server's certificate was refused (self-signed certificate)" in refused.said, refused.explain()
    # --ca-file
    trusted = run_command(command, tmp_path / "trusted", ["--url", url, "--ca-file", str(certificate.cert)],
                          replay_source=replay_source)
    answers = [e for e in events_of(trusted.captures) if e.kind == Kind.MESSAGE and e.dir == Direction.S2C]
    assert answers, trusted.explain()
    assert "certificate was refused" not in trusted.said
    assert all(header_target(path).get("ca_file") == str(certificate.cert) for path in trusted.captures)
    # --insecure
    unverified = run_command(command, tmp_path / "insecure", ["--url", url, "--insecure"], replay_source=replay_source)
    answers = [e for e in events_of(unverified.captures) if e.kind == Kind.MESSAGE and e.dir == Direction.S2C]
    assert answers, unverified.explain()
    assert unverified.stderr.count("--insecure: TLS certificates are not verified") == 1, unverified.stderr
    assert unverified.captures and all(header_target(path).get("insecure") is True for path in unverified.captures)
    assert all("insecure" not in header_target(path) for path in trusted.captures)


def header_target(path) -> dict:
    """The ``target`` of a capture's header line."""
    with open(path, encoding="utf-8") as capture:
        return json.loads(capture.readline())["target"]


def connect_waits(events: list[Event]) -> list[float]:
    """For each request that failed, the seconds from sending its message to its failure."""
    waits, sent = [], None
    for event in events:
        if event.kind == Kind.MESSAGE and event.dir == Direction.C2S:
            sent = event.t
        elif event.kind == Kind.LIFECYCLE and event.data.get("what") == "request_failed" and sent is not None:
            waits.append(event.t - sent)
    return waits


@pytest.mark.parametrize("command", TARGET_COMMANDS)
def test_oauth_with_scope_and_follow_signs_in_after_the_stale_bearer_of_bearer_env(
        command, tmp_path, replay_source, oauth_servers):
    """--oauth: a 401 starts the OAuth flow (here with dynamic registration); --oauth-authorize follow: the
    inspector fetches the authorization URL itself; --scope: the scopes asked for; --bearer-env: the token
    first sent is read from that variable."""
    server = oauth_servers["dcr"]
    since = log_length(server)
    run = run_command(command, tmp_path / "out", ["--url", server.url("/mcp"), "--oauth", "--oauth-authorize",
                                                  "follow", "--scope", "mcp:read probe:extra",
                                                  "--bearer-env", "PROBE_STALE"],
                      replay_source=replay_source, tool=("whoami",),
                      env={**MEMORY_TOKENS, "PROBE_STALE": "stale-tok-3x"})
    requests = oauth_requests(server, since)
    mcp = [r for r in requests if r["path"] == "/mcp" and r["method"] == "POST"]
    assert mcp, run.explain()
    # --bearer-env: the first request carries the variable's token (the server answers 401: it is not one of its)
    assert mcp[0]["headers"].get("authorization") == "Bearer stale-tok-3x"
    # --oauth: the 401 started the flow: registration, authorization, token, and the request again with it
    paths = [r["path"] for r in requests]
    assert "/register" in paths and "/token" in paths, paths
    assert mcp[-1]["headers"]["authorization"].startswith("Bearer at-"), run.explain()
    # --oauth-authorize follow: the inspector itself fetched the authorization URL; --scope: what it asked for
    authorizes = [r for r in requests if r["path"] == "/authorize"]  # check signs in once per session
    assert authorizes, run.explain()
    assert all(r["headers"]["user-agent"] == "mcp-inspector" for r in authorizes)
    assert all(r["query"]["scope"] == "mcp:read probe:extra" for r in authorizes)


@pytest.mark.parametrize("command", ["call", "replay", "check"])  # record's: tests/auth/test_oauth_record_cli.py
def test_client_id_and_client_secret_are_the_pre_registered_client_that_signs_in(
        command, tmp_path, replay_source, oauth_servers):
    """--client-id: the client id of the authorization request; --client-secret: its secret, sent to the token
    endpoint with HTTP Basic (the server requires client_secret_basic)."""
    server = oauth_servers["pre"]
    since = log_length(server)
    run = run_command(command, tmp_path / "out", ["--url", server.url("/mcp"), "--client-id", PRE_CLIENT,
                                                  "--client-secret", PRE_SECRET, "--oauth-authorize", "follow"],
                      replay_source=replay_source, tool=("whoami",), env=MEMORY_TOKENS)
    requests = oauth_requests(server, since)
    authorizes = [r for r in requests if r["path"] == "/authorize"]
    assert authorizes, run.explain()
    assert authorizes[0]["query"]["client_id"] == PRE_CLIENT  # --client-id
    tokens = [r for r in requests if r["path"] == "/token"]
    assert tokens, run.explain()
    for token in tokens:  # --client-secret
        basic = token["headers"]["authorization"].removeprefix("Basic ")
        assert base64.b64decode(basic).decode() == f"{PRE_CLIENT}:{PRE_SECRET}"


@pytest.mark.parametrize("command", TARGET_COMMANDS)
def test_client_metadata_url_is_the_client_id_where_the_server_supports_it(command, tmp_path, replay_source,
                                                                            oauth_servers):
    """--client-metadata-url: with a server that supports Client ID Metadata Documents, the URL is the client
    id (no registration)."""
    server = oauth_servers["cimd"]
    since = log_length(server)
    run = run_command(command, tmp_path / "out", ["--url", server.url("/mcp"), "--client-metadata-url", CIMD_URL,
                                                  "--oauth-authorize", "follow"],
                      replay_source=replay_source, tool=("whoami",), env=MEMORY_TOKENS)
    requests = oauth_requests(server, since)
    authorizes = [r for r in requests if r["path"] == "/authorize"]
    assert authorizes, run.explain()
    assert authorizes[0]["query"]["client_id"] == CIMD_URL
    assert not [r for r in requests if r["path"] == "/register"]


def test_the_http_options_reach_a_url_server_named_by_a_client_config(tmp_path, http_probe: HttpServer):
    """--config naming a URL server: --transport, --bearer, --origin and -H apply to it as to --url (they were
    dropped: only -H reached it)."""
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "web": {"url": http_probe.url("/from-config/sse"), "headers": {"X-From-Config": "kept"}},
        "other": {"command": "never-run"}}}), encoding="utf-8")
    done, _ = inspector("call", "echo", "--config", str(config), "--server", "web", "--transport", "sse",
                        "--bearer-env", "PROBE_BEARER", "--origin", "http://origin.example", "-H", "X-Probe-One: one",
                        env={"PROBE_BEARER": "tok-from-env"})
    requests = http_requests(http_probe, "from-config")
    assert requests, done.stderr
    assert (requests[0]["method"], requests[0]["path"]) == ("GET", "/from-config/sse")  # --transport sse
    for request in requests:
        headers = request["headers"]
        assert (headers.get("x-from-config"), headers.get("x-probe-one")) == ("kept", "one")
        assert headers.get("origin") == "http://origin.example"
        assert headers.get("authorization") == "Bearer tok-from-env"
    assert done.returncode == 0, done.stderr
