"""Copy as JSON-RPC, as an mcp-inspector command and as curl: lines a shell takes back unchanged."""

from __future__ import annotations

import json
import shlex
import sys

import warm_cli
from helpers import ROOT

from inspector.core.auth.model import OAuthOptions
from inspector.core.connect.target import Target
from inspector.core.interop.copy_as import as_command, as_curl, as_jsonrpc

CALL = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "get-sum", "arguments": {"a": 2, "b": 3.5, "flag": True, "note": "it's $HOME",
                                                    "items": [1, 2], "multi": "a\nb"},
                   "_meta": {"progressToken": "x"}}}


def test_a_tool_call_becomes_a_call_command_whose_words_come_back_unchanged():
    line = as_command(CALL, ["--", "node", "/opt/my server/index.js", "stdio"])
    words = shlex.split(line)
    assert words[:3] == ["mcp-inspector", "call", "get-sum"]
    assert {"a=2", "b=3.5", "flag=true", "note=it's $HOME"} <= set(words)
    assert json.loads(words[words.index("--args") + 1]) == {"items": [1, 2], "multi": "a\nb"}
    assert words[-4:] == ["--", "node", "/opt/my server/index.js", "stdio"]
    assert "_meta" not in line


def test_other_methods_become_read_prompt_or_request_against_a_url():
    read = as_command({"method": "resources/read", "params": {"uri": "test://static/resource/1"}},
                      ["--url", "http://127.0.0.1:3001/mcp"])
    assert shlex.split(read) == ["mcp-inspector", "read", "test://static/resource/1", "--url",
                                 "http://127.0.0.1:3001/mcp"]
    other = shlex.split(as_command({"method": "logging/setLevel", "params": {"level": "debug"}}, ["--", "srv"]))
    assert other[:3] == ["mcp-inspector", "request", "logging/setLevel"]
    assert json.loads(other[3]) == {"level": "debug"}


def test_curl_keeps_the_session_headers_and_says_when_one_was_redacted():
    body = json.dumps(CALL).encode()
    line = as_curl(body, "http://127.0.0.1:3001/mcp", {"host": "127.0.0.1:3001", "content-type": "application/json",
                                                       "mcp-session-id": "abc", "authorization": "[redacted]"})
    words = shlex.split(line.split("  # ")[0])
    assert words[:6] == ["curl", "-sS", "-N", "-X", "POST", "http://127.0.0.1:3001/mcp"]
    assert "mcp-session-id: abc" in words and "host: 127.0.0.1:3001" not in words
    assert json.loads(words[words.index("--data-raw") + 1]) == CALL
    assert line.endswith("# replace [redacted] with the real value")


def test_as_jsonrpc_is_the_message_indented():
    assert json.loads(as_jsonrpc(CALL)) == CALL and "\n  " in as_jsonrpc(CALL)


def test_a_copied_command_keeps_every_option_the_session_needs_and_its_secrets_only_when_asked():
    """Copy as mcp-inspector command of an OAuth session kept only --url, and the command then failed with 401
    (issue 27): the options that reach the server come from the target itself."""
    target = Target(url="https://mcp.example/mcp", transport="streamable-http", handshake="legacy",
                    protocol_version="2025-06-18", headers={"X-Team": "blue", "Authorization": "Bearer abc"},
                    origin="https://app.example", bearer="tok-123",
                    oauth=OAuthOptions(client_id="inspector-1", client_secret="s3cret", scope="read write"))
    shared = shlex.split(as_command(CALL, target.command_options()))
    assert shared[shared.index("--url"):] == [
        "--url", "https://mcp.example/mcp", "--transport", "streamable-http", "-H", "X-Team: blue",
        "--origin", "https://app.example", "--oauth", "--client-id", "inspector-1", "--scope", "read write"]
    assert shared[shared.index("--handshake"):shared.index("--url")] == [
        "--handshake", "legacy", "--protocol-version", "2025-06-18"]
    assert not {"tok-123", "s3cret", "Authorization: Bearer abc"} & set(shared)
    own = shlex.split(as_command(CALL, target.command_options(secrets=True)))
    assert {"tok-123", "s3cret", "Authorization: Bearer abc"} <= set(own)
    machine = Target(url="https://mcp.example/mcp", oauth=OAuthOptions(
        grant="jwt-bearer", client_id="wif", assertion="eyJhbGciOiJ.x.y", client_key="/keys/k.pem", dpop=True))
    words = machine.command_options()
    assert words[words.index("--oauth"):] == ["--oauth", "--oauth-grant", "jwt-bearer", "--client-id", "wif",
                                              "--client-key", "/keys/k.pem", "--dpop"]
    assert "eyJhbGciOiJ.x.y" in machine.command_options(secrets=True)
    stdio = Target(argv=["python", "server.py"], cwd="/srv", env={"MODE": "dev", "API_TOKEN": "t0ken"})
    assert stdio.command_options() == ["--cwd", "/srv", "--env", "MODE=dev", "--", "python", "server.py"]


def test_a_copied_command_parses_as_the_command_it_names():
    """Every option command_options gives is one the command takes (its parser accepts the line)."""
    target = Target(url="http://127.0.0.1:9/mcp", transport="sse", headers={"X-Team": "blue"}, origin="http://a",
                    handshake="legacy", protocol_version="2025-06-18",
                    oauth=OAuthOptions(client_id="c", scope="s", grant="client-credentials", client_key="/k.pem",
                                       client_key_alg="ES256", dpop=True))
    words = shlex.split(as_command(CALL, target.command_options()))[1:]
    done = warm_cli.run([sys.executable, "-c", "import sys; from inspector.cli.main import build_parser; "
                         "from inspector.cli.main import split_command; own, command = split_command(sys.argv[1:]); "
                         "build_parser().parse_args(own)", *words], cwd=ROOT, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
