"""The seat's MCP server in this process, on bytes in and bytes out: both eras' handshakes, the ten tools'
listing, arguments checked against each tool's schema (-32602 with the schema's sentence), captures as
resources newest first, and targets turned into the inspector's options. No subprocess: what the tools run is
tested end to end in tests/cli/test_seat_cmd.py."""

from __future__ import annotations

import json
import os

import pytest
from seat_support import ask

from inspector.core.clients.profiles import ProfileStore, ServerProfile
from inspector.core.seat.targets import TargetError, known_servers, target_options

TEN = ["list_servers", "list_tools", "call_tool", "read_resource", "check_server", "doctor", "record_session",
       "show_capture", "diff", "context_cost"]
MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}}


def test_the_seat_answers_initialize_with_a_legacy_revision_it_knows(seat):
    answer = ask(seat, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                       "clientInfo": {"name": "t", "version": "1"}})
    assert answer["result"]["protocolVersion"] == "2025-06-18"
    assert answer["result"]["serverInfo"]["name"] == "mcp-inspector-seat"


def test_the_seat_answers_server_discover_with_both_eras_and_caching_hints(seat):
    result = ask(seat, "server/discover", {"_meta": MODERN_META})["result"]
    assert result["supportedVersions"][0] == "2026-07-28" and "2025-06-18" in result["supportedVersions"]
    assert result["resultType"] == "complete" and result["ttlMs"] == 0 and result["cacheScope"] == "private"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "mcp-inspector-seat"


def test_an_unknown_modern_revision_is_refused_with_the_supported_ones(seat):
    answer = ask(seat, "tools/list", {"_meta": {**MODERN_META, "io.modelcontextprotocol/protocolVersion": "9"}})
    assert answer["error"]["code"] == -32022 and "2026-07-28" in answer["error"]["data"]["supported"]


def test_the_seat_lists_its_ten_tools_each_with_an_object_schema(seat):
    tools = ask(seat, "tools/list")["result"]["tools"]
    assert [tool["name"] for tool in tools] == TEN
    assert all(tool["inputSchema"]["type"] == "object" and tool["description"] for tool in tools)


def test_arguments_that_break_the_schema_are_refused_with_its_sentence(seat):
    answer = ask(seat, "tools/call", {"name": "call_tool", "arguments": {"target": {"command": ["x"]}}})
    assert answer["error"]["code"] == -32602
    assert answer["error"]["message"] == "Invalid arguments for call_tool: 'tool' is a required property."


def test_a_target_in_no_known_shape_is_refused_before_anything_starts(seat):
    answer = ask(seat, "tools/call", {"name": "doctor", "arguments": {"target": {"cmd": "rm -rf /"}}})
    assert answer["error"]["code"] == -32602 and "target" in answer["error"]["message"]


def test_an_unknown_tool_is_refused_as_invalid_params(seat):
    assert ask(seat, "tools/call", {"name": "shell", "arguments": {}})["error"]["code"] == -32602


def test_a_server_name_nothing_knows_is_a_tool_error_not_a_crash(seat, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    result = ask(seat, "tools/call", {"name": "list_tools", "arguments": {"target": {"server": "nope"}}})["result"]
    assert result["isError"] is True and "list_servers" in result["content"][0]["text"]


def test_captures_are_resources_newest_first_and_readable(seat, tmp_path):
    old, new = tmp_path / "captures" / "old.jsonl", tmp_path / "captures" / "new.jsonl"
    old.write_text('{"old": 1}\n')
    new.write_text('{"new": 1}\n')
    os.utime(old, (1_000_000, 1_000_000))
    resources = ask(seat, "resources/list")["result"]["resources"]
    assert [resource["uri"] for resource in resources][:2] == ["capture://new.jsonl", "capture://old.jsonl"]
    assert [r["uri"] for r in resources[2:] if not r["uri"].startswith("inspector-docs://")] == []
    contents = ask(seat, "resources/read", {"uri": "capture://old.jsonl"})["result"]["contents"]
    assert contents[0]["text"] == '{"old": 1}\n'


def test_a_capture_uri_cannot_reach_outside_the_captures_folder(seat, tmp_path):
    (tmp_path / "secret.jsonl").write_text("{}\n")
    answer = ask(seat, "resources/read", {"uri": "capture://../secret.jsonl"})
    assert answer["error"]["code"] == -32602 and answer["error"]["data"]["uri"] == "capture://../secret.jsonl"


def test_notifications_and_invalid_json_never_stop_the_seat(seat):
    server, out = seat
    server.handle_line(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    assert out.getvalue() == b""
    server.handle_line(b"not json")
    assert json.loads(out.getvalue())["error"]["code"] == -32700


def test_a_command_target_becomes_options_and_an_argv_after_the_separator():
    options = target_options({"command": ["python", "-m", "srv", "--flag"], "cwd": "/srv", "env": {"K": "v"}})
    assert options == ["--cwd", "/srv", "--env", "K=v", "--", "python", "-m", "srv", "--flag"]


def test_a_url_target_becomes_the_url_and_its_headers():
    assert target_options({"url": "http://127.0.0.1:1/mcp", "headers": {"X-A": "b"}}) == \
        ["--url", "http://127.0.0.1:1/mcp", "-H", "X-A: b"]


def test_a_saved_profile_is_a_target_and_a_known_server(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    ProfileStore().save([ServerProfile(name="weather", kind="stdio", command="python", args=["-m", "weather"])])
    assert target_options({"server": "weather"}) == ["--", "python", "-m", "weather"]
    assert {"name": "weather", "source": "profile", "command": ["python", "-m", "weather"]} in known_servers()
    with pytest.raises(TargetError, match="list_servers"):
        target_options({"server": "other"})


def test_the_seat_declares_the_skills_extension_and_lists_its_skill_verifiably(seat):
    from inspector.core.skills.entries import entry_of

    capabilities = ask(seat, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})["result"]
    assert "io.modelcontextprotocol/skills" in capabilities["capabilities"]["extensions"]
    listed = ask(seat, "skills/list")["result"]["skills"]
    entry = entry_of(listed[0])
    assert entry.problem is None and entry.name == "debug-mcp-server"
    text = ask(seat, "resources/read", {"uri": entry.uri})["result"]["contents"][0]["text"]
    assert entry.files is not None and entry.files[0].size == len(text.encode("utf-8"))
    assert ask(seat, "skills/get", {"uri": entry.uri})["result"]["skill"] == listed[0]
    assert ask(seat, "skills/get", {"uri": "skill://other/SKILL.md"})["error"]["code"] == -32602


def test_the_skill_file_written_to_disk_is_the_one_served(tmp_path):
    from inspector.core.seat.skill import skill_bytes, write_skill
    from inspector.core.skills.frontmatter import split

    path = write_skill(tmp_path / "skills")
    assert path == tmp_path / "skills" / "debug-mcp-server" / "SKILL.md"
    assert path.read_bytes() == skill_bytes()
    frontmatter, body = split(path.read_text(encoding="utf-8"))
    assert frontmatter["name"] == "debug-mcp-server" and "doctor" in body
