"""What the seat returns holds no secret of its target: the values the inspector's redaction hides (secret
flags, environment variables and headers, URL credentials), found in the target and hidden in every string of a
tool's result; the saved servers list_servers shows are redacted too. No subprocess: the tools end to end are
in tests/cli/test_seat_cmd.py."""

from __future__ import annotations

import dataclasses
import io
import json
from typing import Any

import pytest

from inspector.core.clients.profiles import ProfileStore, ServerProfile
from inspector.core.seat import server as seat_server
from inspector.core.seat.secrets import scrub, target_secrets
from inspector.core.seat.server import SeatServer
from inspector.core.seat.targets import known_servers, resolve
from inspector.core.seat.tools import text_result

KEY = "sk-ant-api03-abcDEF123456"
TOKEN = "ghp_0123456789abcdefABCDEF"


def test_the_secret_flags_env_headers_and_url_credentials_of_a_target_are_found():
    command = {"command": ["server", "--api-key", KEY, "--token=tok-98765432", "--verbose", "--port", "8080"],
               "env": {"GITHUB_TOKEN": TOKEN, "DEBUG": "1", "LOG_LEVEL": "info"}}
    found = target_secrets(command)
    assert {KEY, "tok-98765432", TOKEN} <= found
    assert not {"server", "--verbose", "8080", "1", "info"} & found
    url = {"url": "https://alice:pa55word-x@example.test/mcp?api_key=q-secret-42&page=2",
           "headers": {"Authorization": f"Bearer {TOKEN}", "Accept": "text/event-stream"}}
    found = target_secrets(url)
    assert {"pa55word-x", "q-secret-42", f"Bearer {TOKEN}", TOKEN} <= found
    assert not {"example.test", "text/event-stream", "2"} & found


def test_plain_values_under_secret_names_and_placeholders_are_not_hidden_everywhere():
    found = target_secrets({"command": ["s"], "env": {"AUTH_MODE": "required", "PASSWORD": "${input:pw}",
                                                      "API_KEY": "abc"}})
    assert found == set()


def test_scrub_hides_each_secret_in_every_string_of_a_result_and_keeps_its_json_readable():
    secrets = target_secrets({"command": ["server", "--api-key", KEY]})
    result = text_result(f"diff of server --api-key {KEY}\n" + json.dumps({"b": {"source": f"server --api-key {KEY}"}}),
                         {"b": {"source": f"server --api-key {KEY}"}, "same": True})
    hidden = scrub(result, secrets)
    assert KEY not in json.dumps(hidden)
    assert hidden["structuredContent"] == {"b": {"source": "server --api-key [redacted]"}, "same": True}
    assert json.loads(hidden["content"][0]["text"].split("\n", 1)[1])["b"]["source"] == "server --api-key [redacted]"


def test_a_saved_servers_secrets_are_found_through_its_name_and_list_servers_shows_them_redacted(
        tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    ProfileStore().save([ServerProfile(name="gh", kind="stdio", command="gh-mcp", args=["--token", TOKEN],
                                       env={"GITHUB_TOKEN": TOKEN}),
                         ServerProfile(name="web", kind="http", url=f"https://example.test/mcp?token={TOKEN}")])
    assert TOKEN in target_secrets(resolve({"server": "gh"}))
    listed = json.dumps(known_servers())
    assert TOKEN not in listed and "gh-mcp" in listed and "example.test" in listed


def test_a_tool_result_that_echoes_the_targets_secret_comes_back_redacted(tmp_path, monkeypatch):
    def echo(arguments: dict[str, Any], captures: Any) -> dict[str, Any]:
        return text_result(f"ran {arguments['target']['command']}", {"argv": arguments["target"]["command"]})

    tool = seat_server.TOOLS_BY_NAME["list_tools"]
    monkeypatch.setitem(seat_server.TOOLS_BY_NAME, "list_tools", dataclasses.replace(tool, run=echo))
    out = io.BytesIO()
    server = SeatServer(tmp_path, out)
    server.handle_line(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "list_tools", "arguments": {"target": {"command": ["server", "--api-key", KEY]}}}}).encode())
    server.join()
    answer = out.getvalue().decode()
    assert KEY not in answer
    assert json.loads(answer)["result"]["structuredContent"] == {"argv": ["server", "--api-key", "[redacted]"]}


@pytest.mark.parametrize("target", [{"server": "nothing-knows-this"}, {"command": ["x"]}])
def test_a_target_without_secrets_or_unknown_hides_nothing(target, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    assert seat_server._secrets_of({"target": target}) == set()


def test_a_profile_that_lets_the_agent_see_its_secrets_gets_them_back(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    ProfileStore().save([ServerProfile(name="mine", kind="stdio", command="srv", args=["--token", TOKEN],
                                       agent_sees_secrets=True),
                         ServerProfile(name="theirs", kind="stdio", command="srv", args=["--token", TOKEN])])
    assert ProfileStore().load()[0].agent_sees_secrets is True  # saved and read back
    assert seat_server._secrets_of({"target": {"server": "mine"}}) == set()
    assert TOKEN in seat_server._secrets_of({"target": {"server": "theirs"}})
    shown = {server["name"]: server["command"] for server in known_servers()}
    assert shown == {"mine": ["srv", "--token", TOKEN], "theirs": ["srv", "--token", "[redacted]"]}
