"""``mcp-inspector wrap`` / ``unwrap`` on the sample configs of every client: stdio entries run through tap (only
command and args change), URL entries go through an HTTP tap the user runs (only the URL changes, to the tap's),
and unwrap gives back the same bytes."""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from helpers import ROOT, cli

from inspector.core.clients.configs import read_config, strip_json_comments
from inspector.core.tap import wrap as wrap_module
from inspector.core.tap.wrap import (
    TAP_PREFIX,
    WrapError,
    load,
    parse_with_positions,
    sidecar_path,
    wrap_config,
)
from inspector.core.wire.events import Kind

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
    for name in set(after) - stdio - urls:
        assert after[name] == before[name]  # broken entries untouched
    sidecar = {tuple(r["path"]): r for r in json.loads(sidecar_path(path).read_text())["entries"]}
    for name in urls:
        entry, old = after[name], before[name]
        key = next(k for k in ("url", "serverUrl", "httpUrl") if k in old)
        tap = next(r["tap"] for r in sidecar.values() if r.get("tap", {}).get("name") == name.split(" (")[0]
                   and r["tap"]["url"] == old[key])
        port = int(tap["listen"].rsplit(":", 1)[1])
        parts = urlsplit(old[key])
        assert entry[key] == tap["local"] == urlunsplit(("http", f"127.0.0.1:{port}", parts.path or "/", parts.query,
                                                         ""))
        assert {k: v for k, v in entry.items() if k != key} == {k: v for k, v in old.items() if k != key}
        assert tap["command"] == [os.path.abspath(sys.executable), *TAP_PREFIX, "--url", old[key], "--listen",
                                  f"127.0.0.1:{port}", "--name", name.split(" (")[0],
                                  *(["--transport", "sse"] if old.get("type") == "sse" else [])]
        assert f"  {name} now goes through an HTTP tap; run it while the client runs: " in wrapped.stdout
    assert "Run the tap command of each URL server above while" in wrapped.stdout
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
        if '"url"' in line:  # its value is now the tap's; what follows the value (a comment) stays
            value_start = line.index('"', line.index(":")) + 1
            assert line[line.index('"', value_start) + 1:] in text
        elif "//" in line or "/*" in line or line.strip() in ("},", "],"):
            assert line in text
    assert text.count("\n") == original.count("\n")  # only the command, args and url lines changed


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
    assert url.returncode == 0, url.stderr
    assert "remote-notes now goes through an HTTP tap; run it while the client runs: " in url.stdout
    assert "--url https://notes.example.com/mcp --listen 127.0.0.1:" in url.stdout
    assert json.loads(path.read_text())["mcpServers"]["remote-notes"]["url"].startswith("http://127.0.0.1:")


def test_wrap_without_a_choice_lists_the_servers_and_changes_nothing(configs):
    path = configs / "claude-code" / ".mcp.json"
    original = path.read_bytes()
    listing = cli("wrap", str(path))
    assert listing.returncode == 2
    assert "  shared-db: stdio, can be wrapped" in listing.stdout
    assert "  sentry: URL, can be wrapped (through an HTTP tap you run while the client runs)" in listing.stdout
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
    after = json.loads(path.read_text())
    for name in ("everything", "env-interpolated"):  # JSON-identical (the bytes of args may differ in spacing)
        assert after["mcpServers"][name] == before["mcpServers"][name]
    # a URL entry's original URL was only in the sidecar: it stays the tap's, and unwrap does not pretend
    assert after["mcpServers"]["linear"]["url"].startswith("http://127.0.0.1:")
    assert "linear" not in result.stdout


def test_the_sidecar_is_private_and_the_config_keeps_its_mode(configs):
    path = configs / "claude-home" / ".claude.json"
    os.chmod(path, 0o600)
    assert cli("wrap", str(path), "--all").returncode == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(sidecar_path(path).stat().st_mode) == 0o600
    record = json.loads(sidecar_path(path).read_text())
    assert record["format"] == "mcp-inspector-wrap"
    assert [e["path"] for e in record["entries"]] == [["mcpServers", "memory"],
                                                      ["projects", "/home/me/code/shop", "mcpServers", "memory"],
                                                      ["projects", "/home/me/code/shop", "mcpServers", "stripe"]]


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
    assert "  legacy-sse now goes through an HTTP tap; run it while the client runs: " in result.stdout
    assert "Dry run: 4 entries would change; the file was not touched." in result.stdout
    assert path.read_bytes() == original and backups_of(path) == [] and not sidecar_path(path).exists()


# -- URL entries: an HTTP tap the user runs ------------------------------------------------------------------


@pytest.mark.integration
def test_a_wrapped_url_entry_reaches_its_server_through_the_tap_that_wrap_says_to_run(tmp_path, http_server):
    from http_tap_support import http_support, running_tap

    server = http_server([sys.executable, str(http_support.SERVERS / "misbehaving_http_server.py"), "good"],
                         "misbehaving server (good)")
    path = tmp_path / ".mcp.json"
    original = json.dumps({"mcpServers": {"remote": {"type": "http", "url": server.url("/mcp"),
                                                     "headers": {"X-Team": "core"}}}}, indent=2)
    path.write_text(original)
    wrapped = cli("wrap", str(path), "--server", "remote")
    assert wrapped.returncode == 0, wrapped.stderr
    [record] = json.loads(sidecar_path(path).read_text())["entries"]
    command = record["tap"]["command"]
    assert command[:4] == [os.path.abspath(sys.executable), *TAP_PREFIX] and f"  remote now goes through an HTTP " \
        f"tap; run it while the client runs: {' '.join(command)}" in wrapped.stdout
    entry = json.loads(path.read_text())["mcpServers"]["remote"]
    assert entry == {"type": "http", "url": record["tap"]["local"], "headers": {"X-Team": "core"}}
    # the user runs the command wrap printed; the client reads its config as always
    listen = command[command.index("--listen") + 1]
    with running_tap(command[command.index("--url") + 1], tmp_path / "tap.jsonl", "--name", "remote",
                     listen=listen) as tap:
        assert tap.url == entry["url"]
        client = cli("record", "--config", str(path), "--server", "remote", "--out", str(tmp_path / "client.jsonl"),
                     "--handshake", "legacy")
        assert client.returncode == 0, client.stderr
    assert tap.capture.header["tap"]["name"] == "remote"
    sent = [e for e in tap.capture.events if e.kind == Kind.HTTP and e.data.get("method") == "POST"]
    assert sent and all(e.data["request_headers"]["x-team"] == "core" for e in sent)  # the entry's headers came
    assert [e.data["purpose"] for e in sent][:2] == ["initialize", "notifications/initialized"]
    unwrapped = cli("unwrap", str(path))
    assert unwrapped.returncode == 0 and path.read_text() == original


def test_a_url_entry_edited_after_wrapping_gets_back_its_url_and_keeps_the_edit(tmp_path):
    path = tmp_path / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {"remote": {"type": "http", "url": "https://api.example.com/mcp"}}}))
    assert cli("wrap", str(path), "--all").returncode == 0
    data = json.loads(path.read_text())
    data["mcpServers"]["remote"]["headers"] = {"X-Added": "later"}
    path.write_text(json.dumps(data))
    result = cli("unwrap", str(path))
    assert result.returncode == 0
    assert "remote got its URL back: https://api.example.com/mcp; it changed since it was wrapped" in result.stdout
    assert json.loads(path.read_text())["mcpServers"]["remote"] == {
        "type": "http", "url": "https://api.example.com/mcp", "headers": {"X-Added": "later"}}


def test_a_url_entry_whose_url_has_placeholders_is_skipped_with_a_reason(tmp_path):
    path = tmp_path / ".mcp.json"
    original = json.dumps({"mcpServers": {"remote": {"url": "https://${input:host}/mcp"}}})
    path.write_text(original)
    result = cli("wrap", str(path), "--server", "remote")
    assert result.returncode == 1
    assert "remote skipped: its url has placeholders the client fills in" in result.stdout
    assert path.read_text() == original
