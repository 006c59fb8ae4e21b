"""``mcp-inspector wrap`` / ``unwrap`` on the sample configs of every client: stdio entries run through tap,
URL entries are listed as not tappable, only command and args change, and unwrap gives back the same bytes."""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest
from helpers import ROOT, cli

from inspector.core.clients import wrap as wrap_module
from inspector.core.clients.configs import read_config, strip_json_comments
from inspector.core.clients.wrap import (
    TAP_PREFIX,
    WrapError,
    load,
    parse_with_positions,
    sidecar_path,
    wrap_config,
)

CONFIGS = ROOT / "tests" / "data" / "configs"
SAMPLES = {
    "claude_desktop_config.json": ("Claude Desktop", {"filesystem", "github", "time"}, {"remote-notes"}),
    "cursor/.cursor/mcp.json": ("Cursor", {"everything", "env-interpolated"}, {"legacy-sse", "linear"}),
    "vscode/.vscode/mcp.json": ("VS Code", {"Perplexity"}, {"fetch", "old-sse"}),
    "claude-code/.mcp.json": ("Claude Code", {"shared-db"}, {"sentry", "asana"}),
    "claude-home/.claude.json": ("Claude Code", {"memory", "memory (/home/me/code/shop)"},
                                 {"stripe (/home/me/code/shop)"}),
}


@pytest.fixture
def configs(tmp_path: Path) -> Path:
    shutil.copytree(CONFIGS, tmp_path / "configs")
    return tmp_path / "configs"


def loose_json(path: Path) -> dict:
    return json.loads(strip_json_comments(path.read_text()))


def servers_of(data: dict) -> dict[str, dict]:
    """Every server entry of a parsed config, by display name (as client_configs names them)."""
    if "projects" in data:
        found = dict(data.get("mcpServers", {}))
        for project, settings in data["projects"].items():
            for name, entry in settings.get("mcpServers", {}).items():
                found[f"{name} ({project})"] = entry
        return found
    return data.get("mcpServers") or data.get("servers")


def backups_of(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".mcp-inspector-backup-*"))


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_wrap_all_routes_every_stdio_entry_through_tap_and_unwrap_gives_back_the_same_bytes(configs, sample):
    path = configs / sample
    original = path.read_bytes()
    client, stdio, urls = SAMPLES[sample]
    before = servers_of(loose_json(path))

    wrapped = cli("wrap", str(path), "--all")
    assert wrapped.returncode == 0, wrapped.stderr
    assert f"{client} config {path}:" in wrapped.stdout
    after = servers_of(loose_json(path))
    for name in stdio:
        entry, old = after[name], before[name]
        old_args = old.get("args", [])
        assert entry["command"] == os.path.abspath(sys.executable)
        assert entry["args"] == [*TAP_PREFIX, "--name", name.split(" (")[0], "--", old["command"],
                                 *[str(a) for a in old_args]]
        assert {k: v for k, v in entry.items() if k not in ("command", "args")} == \
            {k: v for k, v in old.items() if k not in ("command", "args")}  # env, cwd, type... kept
        assert f"  {name} now runs through tap: " in wrapped.stdout
    for name in set(after) - stdio:
        assert after[name] == before[name]  # URL and broken entries untouched
    for name in urls:
        assert f"  {name} not tappable yet (a URL server; tap relays stdio servers)" in wrapped.stdout
    # the client itself still reads the file, and now starts tap
    profiles = {c.profile.name: c.profile for c in read_config(path).candidates}
    assert {n for n, p in profiles.items() if p.kind == "stdio" and p.args[:3] == TAP_PREFIX} == stdio
    [backup] = backups_of(path)
    assert backup.read_bytes() == original

    unwrapped = cli("unwrap", str(path))
    assert unwrapped.returncode == 0, unwrapped.stderr
    assert path.read_bytes() == original
    assert all(f"  {name} restored as it was: " in unwrapped.stdout for name in stdio)
    assert not sidecar_path(path).exists()  # nothing left to remember


def test_wrapping_twice_changes_nothing_the_second_time(configs):
    path = configs / "claude_desktop_config.json"
    assert cli("wrap", str(path), "--all").returncode == 0
    once = path.read_bytes()
    sidecar = sidecar_path(path).read_bytes()
    again = cli("wrap", str(path), "--all")
    assert again.returncode == 0
    assert path.read_bytes() == once and sidecar_path(path).read_bytes() == sidecar
    assert "  filesystem already runs through tap: npx -y" in again.stdout
    assert "Nothing changed." in again.stdout
    assert len(backups_of(path)) == 1  # no backup when nothing is written


def test_comments_and_trailing_commas_of_a_vscode_file_survive_wrapping(configs):
    path = configs / "vscode" / ".vscode" / "mcp.json"
    original = path.read_text()
    assert cli("wrap", str(path), "--all").returncode == 0
    text = path.read_text()
    for line in original.splitlines():
        if "//" in line or "/*" in line or line.strip() in ("},", "],"):
            assert line in text
    assert text.count("\n") == original.count("\n")  # only the command and args lines changed


def test_only_the_named_server_is_wrapped_and_an_unknown_name_is_a_sentence(configs):
    path = configs / "claude_desktop_config.json"
    one = cli("wrap", str(path), "--server", "time")
    assert one.returncode == 0
    entries = servers_of(json.loads(path.read_text()))
    assert entries["time"]["args"][:3] == TAP_PREFIX
    assert entries["filesystem"]["command"] == "npx"
    missing = cli("wrap", str(path), "--server", "nope")
    assert missing.returncode == 1
    assert missing.stderr == ("mcp-inspector wrap: no server named nope in this file (its servers: filesystem, "
                              "github, time, remote-notes, broken-no-command, broken-args).\n")
    url = cli("wrap", str(path), "--server", "remote-notes")
    assert url.returncode == 1
    assert "remote-notes not tappable yet" in url.stdout


def test_wrap_without_a_choice_lists_the_servers_and_changes_nothing(configs):
    path = configs / "claude-code" / ".mcp.json"
    original = path.read_bytes()
    listing = cli("wrap", str(path))
    assert listing.returncode == 2
    assert "  shared-db: stdio, can be wrapped" in listing.stdout
    assert "  sentry: not tappable yet (a URL server)" in listing.stdout
    assert "name the servers with --server NAME" in listing.stderr
    assert path.read_bytes() == original and backups_of(path) == []


def test_an_entry_edited_after_wrapping_gets_back_its_command_and_args_and_keeps_the_edit(configs):
    path = configs / "claude_desktop_config.json"
    assert cli("wrap", str(path), "--server", "time").returncode == 0
    data = json.loads(path.read_text())
    data["mcpServers"]["time"]["env"] = {"TZ": "UTC"}  # the user edits the wrapped entry
    path.write_text(json.dumps(data, indent=2))
    result = cli("unwrap", str(path))
    assert result.returncode == 0
    assert "time restored from its tap command line: uvx mcp-server-time --local-timezone=Europe/Paris; " \
           "it changed since it was wrapped" in result.stdout
    assert json.loads(path.read_text())["mcpServers"]["time"] == {
        "command": "uvx", "args": ["mcp-server-time", "--local-timezone=Europe/Paris"], "cwd": "/tmp",
        "env": {"TZ": "UTC"}}


def test_without_the_sidecar_unwrap_still_restores_command_and_args_from_the_tap_command_line(configs):
    path = configs / "cursor" / ".cursor" / "mcp.json"
    before = json.loads(path.read_text())
    assert cli("wrap", str(path), "--all").returncode == 0
    sidecar_path(path).unlink()
    result = cli("unwrap", str(path))
    assert result.returncode == 0
    assert "its original was not kept (no sidecar record)" in result.stdout
    assert json.loads(path.read_text()) == before  # JSON-identical (the bytes of args may differ in spacing)


def test_the_sidecar_is_private_and_the_config_keeps_its_mode(configs):
    path = configs / "claude-home" / ".claude.json"
    os.chmod(path, 0o600)
    assert cli("wrap", str(path), "--all").returncode == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(sidecar_path(path).stat().st_mode) == 0o600
    record = json.loads(sidecar_path(path).read_text())
    assert record["format"] == "mcp-inspector-wrap"
    assert [e["path"] for e in record["entries"]] == [["mcpServers", "memory"],
                                                      ["projects", "/home/me/code/shop", "mcpServers", "memory"]]


def test_a_file_changed_by_someone_else_while_wrapping_is_left_alone(configs, monkeypatch):
    path = configs / "claude_desktop_config.json"
    real_load = wrap_module.load

    def load_then_client_writes(target):
        loaded = real_load(target)
        path.write_text(path.read_text().replace("Ctrl+Space", "Ctrl+Alt+Space"))
        return loaded

    monkeypatch.setattr(wrap_module, "load", load_then_client_writes)
    with pytest.raises(WrapError, match="changed while it was being edited"):
        wrap_config(path)
    assert "Ctrl+Alt+Space" in path.read_text() and '"npx"' in path.read_text()


def test_an_entry_without_args_gets_them_on_its_own_line_with_the_same_indentation(tmp_path):
    path = tmp_path / "claude_desktop_config.json"
    original = '{\n  "mcpServers": {\n    "bare": {\n      "command": "my-server"\n    }\n  }\n}\n'
    path.write_text(original)
    wrap_config(path, python="/opt/py/bin/python")
    assert path.read_text() == ('{\n  "mcpServers": {\n    "bare": {\n      "command": "/opt/py/bin/python",\n'
                                '      "args": ["-m", "inspector", "tap", "--name", "bare", "--", "my-server"]\n'
                                '    }\n  }\n}\n')
    wrap_module.unwrap_config(path)
    assert path.read_text() == original


def test_a_broken_config_is_refused_with_a_sentence(configs):
    result = cli("wrap", str(configs / "broken-truncated.json"), "--all")
    assert result.returncode == 1
    assert result.stderr.startswith("mcp-inspector wrap: ")
    assert "is not valid JSON" in result.stderr


def test_positions_point_at_each_value_through_comments_and_trailing_commas():
    text = '// c\n{"a": /* x */ [1, 2,], "b": {"c": "d" // e\n,}, "a": true,}'
    root = parse_with_positions(text)
    assert root.value == {"a": True, "b": {"c": "d"}}
    assert [(key, text[node.start:node.end]) for key, _, node in root.members] == \
        [("a", "[1, 2,]"), ("b", '{"c": "d" // e\n,}'), ("a", "true")]
    assert text[root.member("a")[0]:].startswith('"a": true')
    with pytest.raises(WrapError, match="line 1, column 6"):
        parse_with_positions('{"a" 1}')
    assert load(CONFIGS / "claude_desktop_config.json").client == "Claude Desktop"


def test_a_dry_run_says_what_would_change_and_touches_nothing(configs):
    path = configs / "cursor" / ".cursor" / "mcp.json"
    original = path.read_bytes()
    result = cli("wrap", str(path), "--all", "--dry-run")
    assert result.returncode == 0
    assert "  everything now runs through tap: npx -y @modelcontextprotocol/server-everything" in result.stdout
    assert "Dry run: 2 entries would change; the file was not touched." in result.stdout
    assert path.read_bytes() == original and backups_of(path) == [] and not sidecar_path(path).exists()
