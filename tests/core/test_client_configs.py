"""Importing servers from Claude Desktop, Cursor, VS Code and Claude Code config files (samples in
tests/data/configs)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.core.clients.configs import (
    ConfigError,
    ImportCandidate,
    ImportPreview,
    known_config_files,
    read_config,
    strip_json_comments,
)
from inspector.core.clients.profiles import ServerProfile
from inspector.core.redaction import REDACTED

CONFIGS = Path(__file__).resolve().parent.parent / "data" / "configs"


def by_name(preview: ImportPreview) -> dict[str, ImportCandidate]:
    return {c.profile.name: c for c in preview.candidates}


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


# -- the sample files --------------------------------------------------------------------------------------


def test_claude_desktop_servers_become_profiles_with_their_env_as_it_is() -> None:
    path = CONFIGS / "claude_desktop_config.json"
    preview = read_config(path)
    assert preview.client == "Claude Desktop" and preview.source == path
    found = by_name(preview)
    assert list(found) == ["filesystem", "github", "time", "remote-notes"]
    assert found["filesystem"].profile.argv() == [
        "npx", "-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop", "/Users/me/Downloads"]
    github = found["github"].profile
    assert github.env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_exampleSecretValue123",
                          "GITHUB_TOOLSETS": "repos,issues"}
    assert github.redacted().env["GITHUB_PERSONAL_ACCESS_TOKEN"] == REDACTED
    assert github.source == str(path)
    assert found["time"].profile.cwd == "/tmp"
    notes = found["remote-notes"].profile
    assert (notes.kind, notes.url, notes.transport) == ("http", "https://notes.example.com/mcp", "auto")
    assert notes.headers == {"Authorization": "Bearer sk-live-notes-secret"}
    assert all(c.note is None for c in preview.candidates)
    assert preview.skipped == [("broken-no-command", "it has neither a command nor a url"),
                               ("broken-args", "its args are an object, not a list of strings")]


def test_cursor_servers_keep_placeholders_as_text_and_say_so() -> None:
    preview = read_config(CONFIGS / "cursor" / ".cursor" / "mcp.json")
    assert preview.client == "Cursor" and preview.skipped == []
    found = by_name(preview)
    assert found["everything"].profile.env == {"PORT": "3001", "DEBUG": "true"}  # JSON scalars become text
    sse = found["legacy-sse"].profile
    assert (sse.kind, sse.transport, sse.url) == ("http", "sse", "http://localhost:8931/sse")
    assert "lin_secret_123" in found["linear"].profile.url
    assert "lin_secret_123" not in found["linear"].profile.redacted().url
    interpolated = found["env-interpolated"]
    assert interpolated.profile.args == ["${workspaceFolder}/server.js"]
    assert interpolated.profile.env == {"API_KEY": "${env:MY_API_KEY}"}
    assert interpolated.note is not None
    assert "${workspaceFolder}" in interpolated.note and "${env:MY_API_KEY}" in interpolated.note
    assert interpolated.profile.redacted().env == {"API_KEY": "${env:MY_API_KEY}"}  # a placeholder is no secret


def test_vscode_mcp_json_with_comments_inputs_and_trailing_commas_is_read() -> None:
    preview = read_config(CONFIGS / "vscode" / ".vscode" / "mcp.json")
    assert preview.client == "VS Code"
    found = by_name(preview)
    assert list(found) == ["Perplexity", "fetch", "old-sse"]
    perplexity = found["Perplexity"]
    assert perplexity.profile.env == {"PERPLEXITY_API_KEY": "${input:perplexity-key}"}
    assert perplexity.note is not None
    assert "${input:perplexity-key} (Perplexity API Key)" in perplexity.note
    assert "envFile ${workspaceFolder}/.env is not read" in perplexity.note
    fetch = found["fetch"].profile
    assert (fetch.kind, fetch.transport, fetch.url) == ("http", "auto", "http://127.0.0.1:8000/mcp")
    assert fetch.headers == {"Authorization": "Bearer ${env:FETCH_TOKEN}"}
    # comment-like text in strings stays
    assert found["old-sse"].profile.url == "https://example.com/sse/*not-a-comment*/"
    assert found["old-sse"].profile.transport == "sse"
    assert preview.skipped == [
        ("strange", "its type 'carrier-pigeon' is not one the inspector knows (stdio, http, sse)")]


def test_claude_code_project_file_reads_typed_entries() -> None:
    preview = read_config(CONFIGS / "claude-code" / ".mcp.json")
    assert preview.client == "Claude Code"
    found = by_name(preview)
    assert found["shared-db"].profile.argv() == ["/usr/local/bin/db-mcp", "--read-only"]
    assert found["shared-db"].note is not None
    assert "${DATABASE_URL:-postgres://localhost/dev}" in found["shared-db"].note
    assert (found["sentry"].profile.kind, found["sentry"].profile.transport) == ("http", "auto")
    assert found["asana"].profile.transport == "sse"
    assert preview.skipped == [("missing-url", "its url is missing or empty")]


def test_claude_code_user_file_names_project_servers_after_their_project() -> None:
    preview = read_config(CONFIGS / "claude-home" / ".claude.json")
    assert preview.client == "Claude Code"
    assert [c.profile.name for c in preview.candidates] == [
        "memory", "memory (/home/me/code/shop)", "stripe (/home/me/code/shop)"]
    stripe = by_name(preview)["stripe (/home/me/code/shop)"].profile
    assert stripe.headers == {"Authorization": "Bearer rk_test_secret"}
    assert preview.skipped == [("bad (/home/me/code/blog)", "it is a string, not an object with a command or a url")]


@pytest.mark.parametrize(("name", "words"), [
    ("broken-truncated.json", "is not valid JSON: Expecting ',' delimiter at line 5, column 1."),
    ("broken-shape.json", ": mcpServers should be an object of servers by name, not a list."),
    ("broken-toplevel.json", "should contain a JSON object, but it contains a list."),
    ("broken-encoding.json", "is not UTF-8 text"),
    ("not-mcp.json", 'has no "mcpServers" or "servers" section, so it does not look like an MCP config file.'),
])
def test_a_broken_config_file_is_refused_with_a_sentence_naming_it(name: str, words: str) -> None:
    path = CONFIGS / name
    with pytest.raises(ConfigError) as caught:
        read_config(path)
    assert str(caught.value).startswith(str(path))
    assert words in str(caught.value)


def test_a_missing_file_an_empty_file_and_a_folder_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        read_config(tmp_path / "nope.json")
    with pytest.raises(ConfigError, match="is empty"):
        read_config(write(tmp_path / "empty.json", "  \n"))
    with pytest.raises(ConfigError, match="is a folder"):
        read_config(tmp_path)


def test_a_projects_section_of_the_wrong_shape_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match='"projects" should be an object'):
        read_config(write(tmp_path / ".claude.json", {"projects": ["/a"]}))


# -- entries -----------------------------------------------------------------------------------------------


def one(tmp_path: Path, entry: object, file_name: str = "mcp.json") -> ImportPreview:
    return read_config(write(tmp_path / file_name, {"mcpServers": {"s": entry}}))


@pytest.mark.parametrize(("entry", "kind", "transport"), [
    ({"url": "http://h/mcp"}, "http", "auto"),
    ({"type": "http", "url": "http://h/mcp"}, "http", "auto"),
    ({"type": "streamable-http", "url": "http://h/mcp"}, "http", "auto"),
    ({"type": "sse", "url": "http://h/sse"}, "http", "sse"),
    ({"url": "ws://h/mcp"}, "http", "websocket"),
    ({"serverUrl": "https://h/mcp"}, "http", "auto"),
    ({"type": "stdio", "command": "x"}, "stdio", "auto"),
])
def test_each_entry_type_maps_to_a_kind_and_a_transport(tmp_path: Path, entry: dict[str, str], kind: str,
                                                        transport: str) -> None:
    profile = one(tmp_path, entry).candidates[0].profile
    assert (profile.kind, profile.transport) == (kind, transport)


@pytest.mark.parametrize(("entry", "reason"), [
    ("npx server", "it is a string, not an object with a command or a url"),
    ({"command": ""}, "its command is missing or empty"),
    ({"command": ["npx"]}, "its command is a list, not a string"),
    ({"command": "x", "args": [1, {"a": 1}]}, "its args contain an object; they must be strings"),
    ({"command": "x", "env": ["A=1"]}, "its env is a list, not an object of names and values"),
    ({"command": "x", "env": {"A": {"nested": 1}}}, "its env value for 'A' is an object, not a string"),
    ({"command": "x", "cwd": 3}, "its cwd is a number, not a string"),
    ({"url": 3}, "its url is a number, not a string"),
    ({"type": "sse"}, "its url is missing or empty"),
    ({"type": 2, "command": "x"}, 'its "type" is a number, not a string'),
    ({"url": "http://h", "headers": "X: 1"}, "its headers is a string, not an object of names and values"),
    ({"command": "x", "args": "'unclosed"}, "its args are one string that cannot be split"),
])
def test_an_entry_that_cannot_become_a_profile_is_skipped_with_the_reason(tmp_path: Path, entry: object,
                                                                          reason: str) -> None:
    preview = one(tmp_path, entry)
    assert preview.candidates == []
    assert len(preview.skipped) == 1 and preview.skipped[0][0] == "s"
    assert preview.skipped[0][1].startswith(reason)


def test_odd_but_usable_entries_are_imported_with_a_note(tmp_path: Path) -> None:
    split = one(tmp_path, {"command": "x", "args": "--root '/my files'"}).candidates[0]
    assert split.profile.args == ["--root", "/my files"] and "split like a shell would" in (split.note or "")
    both = one(tmp_path, {"command": "x", "url": "http://h"}).candidates[0]
    assert both.profile.kind == "stdio" and "also has a url" in (both.note or "")
    disabled = one(tmp_path, {"command": "x", "disabled": True}).candidates[0]
    assert "disabled" in (disabled.note or "")
    odd_url = one(tmp_path, {"url": "ftp://h/mcp"}).candidates[0]
    assert "does not start with http://" in (odd_url.note or "")
    nulls = one(tmp_path, {"command": "x", "args": None, "env": {"A": None, "B": 1.5}}).candidates[0]
    assert nulls.profile.args == [] and nulls.profile.env == {"B": "1.5"}


def test_a_file_with_an_empty_server_list_gives_an_empty_preview(tmp_path: Path) -> None:
    preview = read_config(write(tmp_path / "claude_desktop_config.json", {"mcpServers": {}}))
    assert (preview.client, preview.candidates, preview.skipped) == ("Claude Desktop", [], [])


def test_vscode_settings_json_with_an_mcp_section_is_read(tmp_path: Path) -> None:
    path = write(tmp_path / "settings.json", '{"editor.tabSize": 2, // mine\n'
                 ' "mcp": {"servers": {"t": {"command": "uvx", "args": ["mcp-server-time"]}}}}')
    preview = read_config(path)
    assert preview.client == "VS Code settings"
    assert preview.candidates[0].profile.argv() == ["uvx", "mcp-server-time"]


def test_a_utf8_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"mcpServers": {"s": {"command": "x"}}}).encode())
    assert read_config(path).candidates[0].profile.command == "x"


def test_imported_profiles_are_valid_profiles_that_survive_the_store_format() -> None:
    for path in [CONFIGS / "claude_desktop_config.json", CONFIGS / "cursor" / ".cursor" / "mcp.json",
                 CONFIGS / "vscode" / ".vscode" / "mcp.json", CONFIGS / "claude-code" / ".mcp.json",
                 CONFIGS / "claude-home" / ".claude.json"]:
        for candidate in read_config(path).candidates:
            assert candidate.profile.problem() is None
            assert ServerProfile.from_json(candidate.profile.to_json()) == candidate.profile


# -- JSON with comments ------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='ab/*,"\\\n}] \t'),
    lambda inner: (st.lists(inner, max_size=4)
                   | st.dictionaries(st.text(alphabet='k/*",]', max_size=4), inner, max_size=4)),
    max_leaves=15)


@given(json_values, st.sampled_from([None, 0, 2]))
def test_stripping_comments_never_changes_plain_json(value: object, indent: int | None) -> None:
    text = json.dumps(value, indent=indent)
    assert json.loads(strip_json_comments(text)) == value


@given(st.dictionaries(st.text(alphabet='ab/*,"', max_size=5), st.text(alphabet='ab/*,"\\', max_size=8), max_size=4))
def test_comments_and_trailing_commas_around_values_are_dropped(value: dict[str, str]) -> None:
    body = "".join(f"  // before\n  {json.dumps(k)}: /* inline */ {json.dumps(v)}, // after\n"
                   for k, v in value.items())
    text = "/* header */\n{\n" + body + "}\n// the end"
    assert json.loads(strip_json_comments(text)) == value


def test_stripping_keeps_line_numbers_so_errors_point_at_the_right_line(tmp_path: Path) -> None:
    path = write(tmp_path / "mcp.json",
                 '{\n  /* two\n  lines */\n  "servers": {\n    "a": {"command": "x"} "b": 1\n  }\n}')
    with pytest.raises(ConfigError, match="at line 5,"):
        read_config(path)


# -- where the files are -----------------------------------------------------------------------------------


def place(path: Path, sample: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(sample, path)
    return path


def test_known_config_files_lists_the_linux_locations_that_exist(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir(parents=True)
    desktop = place(home / ".config" / "Claude" / "claude_desktop_config.json", CONFIGS / "claude_desktop_config.json")
    claude = place(home / ".claude.json", CONFIGS / "claude-home" / ".claude.json")
    cursor = place(home / ".cursor" / "mcp.json", CONFIGS / "cursor" / ".cursor" / "mcp.json")
    code = place(home / ".config" / "Code" / "User" / "mcp.json", CONFIGS / "vscode" / ".vscode" / "mcp.json")
    project = place(cwd / ".mcp.json", CONFIGS / "claude-code" / ".mcp.json")
    workspace = place(cwd / ".vscode" / "mcp.json", CONFIGS / "vscode" / ".vscode" / "mcp.json")
    assert known_config_files(home, cwd=cwd, platform="linux") == [
        ("Claude Desktop", desktop), ("Claude Code", claude), ("Cursor", cursor), ("VS Code", code),
        ("Claude Code (project)", project), ("VS Code (workspace)", workspace)]
    for _client, path in known_config_files(home, cwd=cwd, platform="linux"):
        read_config(path)


def test_known_config_files_is_empty_when_nothing_exists(tmp_path: Path) -> None:
    assert known_config_files(tmp_path, cwd=tmp_path, platform="linux") == []


def test_known_config_files_uses_application_support_on_macos(tmp_path: Path) -> None:
    path = place(tmp_path / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json",
                 CONFIGS / "claude_desktop_config.json")
    place(tmp_path / ".config" / "Claude" / "claude_desktop_config.json", CONFIGS / "claude_desktop_config.json")
    assert known_config_files(tmp_path, cwd=tmp_path / "nowhere", platform="darwin") == [("Claude Desktop", path)]


def test_known_config_files_uses_appdata_on_windows(tmp_path: Path) -> None:
    roaming = tmp_path / "Roaming"
    desktop = place(roaming / "Claude" / "claude_desktop_config.json", CONFIGS / "claude_desktop_config.json")
    code = place(roaming / "Code" / "User" / "mcp.json", CONFIGS / "vscode" / ".vscode" / "mcp.json")
    found = known_config_files(tmp_path / "home", cwd=tmp_path / "nowhere", platform="win32",
                               environ={"APPDATA": str(roaming)})
    assert found == [("Claude Desktop", desktop), ("VS Code", code)]


def test_a_workspace_that_is_the_home_folder_lists_each_file_once(tmp_path: Path) -> None:
    place(tmp_path / ".cursor" / "mcp.json", CONFIGS / "cursor" / ".cursor" / "mcp.json")
    assert known_config_files(tmp_path, cwd=tmp_path, platform="linux") == [
        ("Cursor", tmp_path / ".cursor" / "mcp.json")]
