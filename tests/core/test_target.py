"""The one target model: built from the command line, a profile, a client config entry and a capture header,
back to the header's "target" object, and the one transport factory behind all of them."""

from __future__ import annotations

import asyncio
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from inspector.cli.main import build_parser, split_command
from inspector.core.capture import read_capture
from inspector.core.clients.configs import ConfigError
from inspector.core.clients.profiles import ServerProfile
from inspector.core.connect.target import InputError, Target, make_transport
from inspector.core.record.run import RecordOptions, record
from inspector.core.redaction import REDACTED
from inspector.core.transports.base import TransportError

ROOT = Path(__file__).resolve().parents[2]
DEMO = [sys.executable, "-m", "inspector.demo"]


def parsed(*argv: str) -> tuple[object, list[str]]:
    """What the real parser makes of a command line: (namespace, the command after --)."""
    own, command = split_command(list(argv))
    return build_parser().parse_args(own), command


def record_target(*argv: str) -> Target:
    args, command = parsed("record", "--out", "unused.jsonl", *argv)
    return Target.from_args(args, command)  # type: ignore[arg-type]  # argparse's Namespace


# -- the command line --------------------------------------------------------------------------------------


def test_a_record_command_line_becomes_a_stdio_target_with_its_session_settings():
    target = record_target("--cwd", "/srv", "--env", "MODE=x", "--env", "API_KEY=k", "--handshake", "legacy",
                           "--protocol-version", "2025-06-18", "--timeout", "12", "--", "python", "-m", "srv")
    assert (target.argv, target.cwd, target.env) == (["python", "-m", "srv"], "/srv", {"MODE": "x", "API_KEY": "k"})
    assert (target.handshake, target.protocol_version, target.timeout, target.redact) == \
        ("legacy", "2025-06-18", 12.0, True)
    assert not target.is_http and target.name == "python"


def test_a_record_url_becomes_a_url_target_with_headers_token_and_timeouts(monkeypatch):
    monkeypatch.setenv("MY_TOKEN", "s3cret")
    target = record_target("--url", "http://127.0.0.1:8000/mcp", "--transport", "sse", "-H", "X-Team: core",
                           "--bearer-env", "MY_TOKEN", "--origin", "http://evil.example", "--connect-timeout", "3",
                           "--timeout", "20")
    assert target.is_http and (target.url, target.transport) == ("http://127.0.0.1:8000/mcp", "sse")
    assert (target.headers, target.bearer, target.origin) == ({"X-Team": "core"}, "s3cret", "http://evil.example")
    options = target.http_options()
    assert (options.connect_timeout, options.response_timeout) == (3.0, 25.0)  # the session's bound comes first
    assert options.base_headers()["Authorization"] == "Bearer s3cret"


@pytest.mark.parametrize(("argv", "sentence"), [
    (("--env", "NOEQUALS", "--", "srv"), "--env 'NOEQUALS' must look like NAME=VALUE"),
    (("--url", "htp:/x"), "'htp:/x' is not an http://, https:// (or ws://, wss://) URL"),
    (("--url", "http://h/mcp", "-H", "X-Api-Key"), "-H 'X-Api-Key' must look like 'Name: value'"),
    (("--url", "http://h/mcp", "--bearer-env", "MCP_INSPECTOR_NO_SUCH_VARIABLE"),
     "--bearer-env MCP_INSPECTOR_NO_SUCH_VARIABLE: that environment variable is not set or empty"),
])
def test_a_bad_option_is_one_sentence_as_an_input_error(argv, sentence):
    with pytest.raises(InputError) as caught:
        record_target(*argv)
    assert str(caught.value) == sentence


def test_the_windows_own_command_and_url_become_targets_and_nothing_given_is_none():
    args, command = parsed("--", sys.executable, "-m", "inspector.demo")
    target = Target.from_window_args(args, command)  # type: ignore[arg-type]  # argparse's Namespace
    assert target is not None and target.argv == DEMO and target.name == Path(sys.executable).name
    args, command = parsed("--url", "http://127.0.0.1:9/mcp", "--transport", "streamable-http", "-H", "A: b")
    target = Target.from_window_args(args, command)  # type: ignore[arg-type]  # argparse's Namespace
    assert target is not None and (target.url, target.transport, target.headers) == \
        ("http://127.0.0.1:9/mcp", "streamable-http", {"A": "b"})
    assert Target.from_window_args(*parsed()) is None  # type: ignore[arg-type]  # argparse's Namespace
    with pytest.raises(InputError, match="has no host name"):
        Target.from_window_args(*parsed("--url", "http:///mcp"))  # type: ignore[arg-type]  # argparse's Namespace


def test_ca_file_and_insecure_reach_a_url_target_from_every_command_line_and_are_refused_for_a_command(tmp_path):
    ca = tmp_path / "ca.pem"
    ca.write_text(Path(certifi_where()).read_text(encoding="utf-8").split("-----END CERTIFICATE-----")[0]
                  + "-----END CERTIFICATE-----\n", encoding="utf-8")
    target = record_target("--url", "https://127.0.0.1:9/mcp", "--ca-file", str(ca))
    assert (target.ca_file, target.insecure) == (str(ca), False)
    assert target.to_capture_target()["ca_file"] == str(ca) and "insecure" not in target.to_capture_target()
    assert target.command_options()[-2:] == ["--ca-file", str(ca)]
    insecure = record_target("--url", "https://127.0.0.1:9/mcp", "--insecure")
    assert insecure.insecure and insecure.to_capture_target()["insecure"] is True
    assert insecure.command_options()[-1] == "--insecure"
    window = Target.from_window_args(*parsed("--url", "https://127.0.0.1:9/mcp", "--insecure"))  # type: ignore[arg-type]
    assert window is not None and window.insecure
    window = Target.from_window_args(*parsed("--url", "https://127.0.0.1:9/mcp", "--ca-file", str(ca)))  # type: ignore[arg-type]
    assert window is not None and window.ca_file == str(ca)
    for refused in (lambda: record_target("--insecure", "--", "srv"),
                    lambda: Target.from_window_args(*parsed("--insecure", "--", "srv"))):  # type: ignore[arg-type]
        with pytest.raises(InputError, match="not for a command run over stdio"):
            refused()


def certifi_where() -> str:
    import certifi

    return certifi.where()


# -- capture headers ----------------------------------------------------------------------------------------


def test_a_stdio_target_goes_to_the_capture_header_and_back_unchanged():
    target = record_target("--no-redact", "--cwd", "/srv", "--env", "API_KEY=k", "--", "srv", "--token", "t")
    header = target.to_capture_target()
    assert header == {"transport": "stdio", "argv": ["srv", "--token", "t"], "cwd": "/srv", "env": {"API_KEY": "k"},
                      "redacted": False}
    back = Target.from_capture_header({"target": header})
    assert (back.argv, back.cwd, back.env, back.is_http) == (target.argv, target.cwd, target.env, False)
    assert back.rerun_problem() is None
    assert back.redact, "whether secrets are kept is the new run's choice, never the capture's"
    assert replace(back, redact=False).to_capture_target() == header


def test_a_url_target_goes_to_the_capture_header_and_back_sending_the_same_headers():
    target = record_target("--no-redact", "--url", "http://127.0.0.1:8000/mcp", "--transport", "streamable-http",
                           "-H", "X-Team: core", "--bearer", "tok", "--origin", "http://o.example")
    header = target.to_capture_target()
    assert header == {"transport": "streamable-http", "url": "http://127.0.0.1:8000/mcp", "redacted": False,
                      "headers": {"User-Agent": "mcp-inspector", "Origin": "http://o.example",
                                  "Authorization": "Bearer tok", "X-Team": "core"}}
    back = Target.from_capture_header({"target": header}, "again")
    assert (back.url, back.transport, back.name) == (target.url, target.transport, "again")
    assert back.sent_headers() == target.sent_headers()
    assert back.rerun_problem() is None
    assert replace(back, redact=False).to_capture_target() == header


def test_the_capture_header_keeps_secrets_out_as_it_always_did_and_such_a_target_cannot_rerun():
    stdio = record_target("--env", "API_KEY=k", "--", "srv", "--token", "t")
    assert stdio.to_capture_target() == {"transport": "stdio", "argv": ["srv", "--token", REDACTED], "cwd": None,
                                         "env": {"API_KEY": REDACTED}, "redacted": True}
    url = record_target("--url", "http://user:pw@127.0.0.1:8000/mcp", "--bearer", "tok")
    header = url.to_capture_target()
    assert header["url"] == f"http://{REDACTED}@127.0.0.1:8000/mcp"
    assert header["headers"]["Authorization"] == REDACTED and "tok" not in str(header)
    for target in (stdio, url):
        assert "saved with secrets redacted" in (Target.from_capture_header({"target": target.to_capture_target()})
                                                 .rerun_problem() or "")


def test_what_record_writes_in_the_header_reads_back_as_the_same_target(tmp_path):
    target = record_target("--cwd", str(ROOT), "--env", "MODE=demo", "--handshake", "none", "--", *DEMO)
    out = tmp_path / "s.jsonl"
    result = asyncio.run(record(RecordOptions(target, out, idle=0)))
    assert result.exit_code == 0, result.error
    header = read_capture(out).header
    assert header["target"] == target.to_capture_target()
    back = Target.from_capture_header(header)
    assert (back.argv, back.cwd, back.env) == (DEMO, str(ROOT), {"MODE": "demo"})


# -- profiles and client configs -------------------------------------------------------------------------


def test_a_profile_becomes_a_target_that_keeps_its_name_and_timeout():
    stdio = ServerProfile(name="files", kind="stdio", command="npx", args=["-y", "srv"], env={"A": "1"}, cwd="/w",
                          timeout=120.0)
    target = Target.from_profile(stdio)
    assert (target.name, target.argv, target.env, target.cwd, target.timeout, target.named_by_user) == \
        ("files", ["npx", "-y", "srv"], {"A": "1"}, "/w", 120.0, True)
    http = ServerProfile(name="remote", kind="http", url="https://h/mcp", transport="sse", headers={"X": "y"})
    target = Target.from_profile(http)
    assert (target.url, target.transport, target.headers, target.timeout) == ("https://h/mcp", "sse", {"X": "y"}, 30.0)


def test_a_client_config_entry_becomes_a_target_as_an_import_reads_it():
    target = Target.from_config_entry("fs", {"command": "npx", "args": ["-y", "srv"], "env": {"TOKEN": "t"}})
    assert (target.name, target.argv, target.env, target.is_http) == ("fs", ["npx", "-y", "srv"], {"TOKEN": "t"},
                                                                      False)
    assert Target.from_config_entry("old", {"type": "sse", "url": "http://h/sse"}).transport == "sse"
    assert Target.from_config_entry("ws", {"url": "ws://h/mcp", "headers": {"A": "b"}}).transport == "websocket"
    with pytest.raises(ConfigError, match="The server 'empty' cannot be used: it has neither a command nor a url."):
        Target.from_config_entry("empty", {"env": {}})


# -- the transport factory ---------------------------------------------------------------------------------


def test_the_one_factory_makes_stdio_for_a_command_and_asks_the_registry_for_a_url():
    assert make_transport(Target(argv=DEMO)).name == "stdio"
    names = {name: make_transport(Target(url="http://127.0.0.1:9/mcp", transport=name)).name
             for name in ("auto", "streamable-http", "sse")}
    assert names == {"auto": "auto", "streamable-http": "streamable-http", "sse": "sse"}
    # a plug-in, registered through its entry point
    assert make_transport(Target(url="ws://127.0.0.1:9/mcp", transport="websocket")).name == "websocket"
    with pytest.raises(TransportError, match=r"^unknown transport 'carrier-pigeon'; known: auto, streamable-http"):
        make_transport(Target(url="http://127.0.0.1:9/mcp", transport="carrier-pigeon"))
    with pytest.raises(TransportError, match="no command given"):
        make_transport(Target())
