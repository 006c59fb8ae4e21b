"""``mcp-inspector add-to CLIENT``: the seat goes into a client's real config file (HOME pointed at tmp_path), with
the diff first, a backup, and never twice; a config that cannot be read is left as it was."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.cli.seat_cmd import ADD_TO_CLIENTS, ADD_TO_NAME
from inspector.core.clients.configs import read_config
from inspector.core.seat.add_to import CLIENTS, DEFAULT_NAME

SEAT = [os.path.abspath(sys.executable), "-m", "inspector", "mcp"]


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("inspector.core.tap.wrap.tap_runs_anywhere", lambda python=None: True)
    return tmp_path


def run(*argv: str) -> int:
    return main(["add-to", *argv])


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".mcp-inspector-backup-*"))


CURSOR_CONFIG = """{
    // the user's own server, with a comment the edit must keep
    "mcpServers": {
        "fs": {"command": "npx", "args": ["-y", "server-fs"], "env": {"TOKEN": "s3cret"}}
    }
}
"""


def test_add_to_writes_the_seat_into_the_users_cursor_config_keeping_every_other_byte_and_a_backup(home, capsys):
    config = home / ".cursor" / "mcp.json"
    config.parent.mkdir()
    config.write_text(CURSOR_CONFIG)
    config.chmod(0o640)
    assert run("cursor", "--yes") == 0
    out = capsys.readouterr().out
    assert "+        \"inspector\": {" in out and "Backup of the previous file" in out
    text = config.read_text()
    assert text.startswith(CURSOR_CONFIG[:CURSOR_CONFIG.index("}}\n") + 2] + ",\n")  # the old text, comment too
    profiles = {c.profile.name: c.profile for c in read_config(config).candidates}
    assert [profiles["inspector"].command, *profiles["inspector"].args] == SEAT
    assert profiles["fs"].env == {"TOKEN": "s3cret"}
    [backup] = backups(config)
    assert backup.read_text() == CURSOR_CONFIG
    assert config.stat().st_mode & 0o777 == 0o640


def test_add_to_twice_adds_the_seat_once_and_says_it_is_already_there(home, capsys):
    config = home / ".cursor" / "mcp.json"
    assert run("cursor", "--yes") == 0
    first = config.read_text()
    capsys.readouterr()
    assert run("cursor", "--yes") == 0
    assert "already there as 'inspector'" in capsys.readouterr().out
    assert config.read_text() == first
    assert backups(config) == []  # the first run created the file; the second wrote nothing


def test_a_seat_under_another_name_or_program_counts_as_already_there(home, capsys):
    config = home / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"mine": {"command": "/opt/bin/mcp-inspector", "args": ["mcp"]}}}))
    assert run("claude-code", "--project", "--yes") == 0
    assert "already there as 'mine'" in capsys.readouterr().out
    assert backups(config) == []


def test_dry_run_prints_the_diff_and_touches_nothing(home, capsys):
    config = home / ".config" / "Claude" / "claude_desktop_config.json"
    config.parent.mkdir(parents=True)
    config.write_text('{\n  "mcpServers": {}\n}\n')
    assert run("claude-desktop", "--dry-run") == 0
    out = capsys.readouterr().out
    assert '-  "mcpServers": {}\n+  "mcpServers": {\n+    "inspector": {\n' in out and "Dry run" in out
    assert config.read_text() == '{\n  "mcpServers": {}\n}\n' and backups(config) == []


def test_without_yes_and_no_one_to_answer_nothing_is_written(home, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    config = home / ".cursor" / "mcp.json"
    assert run("cursor") == 2
    assert "pass --yes" in capsys.readouterr().err
    assert not config.exists()


def test_a_config_with_a_syntax_error_is_refused_in_a_sentence_and_left_untouched(home, capsys):
    config = home / ".claude.json"
    broken = '{"mcpServers": {"a": {"command": "x",}\n'
    config.write_text(broken)
    assert run("claude-code", "--yes") == 1
    err = capsys.readouterr().err
    assert err.startswith("mcp-inspector add-to: ") and "is not valid JSON" in err and err.count("\n") == 1
    assert config.read_text() == broken and backups(config) == []


def test_an_unreadable_config_is_refused_in_a_sentence(home, capsys):
    config = home / ".cursor" / "mcp.json"
    config.mkdir(parents=True)  # a folder where the file should be
    assert run("cursor", "--yes") == 1
    assert "is a folder, not a config file" in capsys.readouterr().err


def test_an_unknown_client_is_a_usage_error(home, capsys):
    with pytest.raises(SystemExit) as exit_:
        run("notepad")
    assert exit_.value.code == 2
    assert "invalid choice: 'notepad'" in capsys.readouterr().err


def test_a_server_of_the_same_name_that_is_not_the_seat_is_never_replaced(home, capsys):
    config = home / ".cursor" / "mcp.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"mcpServers": {"inspector": {"command": "other"}}}))
    assert run("cursor", "--yes") == 1
    assert "pick another name with --name" in capsys.readouterr().err
    assert run("cursor", "--yes", "--name", "mcp-inspector") == 0
    assert set(json.loads(config.read_text())["mcpServers"]) == {"inspector", "mcp-inspector"}


def test_vscode_gets_a_typed_entry_under_servers_in_a_file_created_for_it(home):
    assert run("vscode", "--yes") == 0
    config = home / ".config" / "Code" / "User" / "mcp.json"
    assert json.loads(config.read_text()) == {"servers": {"inspector": {"type": "stdio", "command": SEAT[0],
                                                                        "args": SEAT[1:]}}}


def test_remove_takes_the_seat_out_leaving_the_file_as_it_was_before_add_to(home, capsys):
    config = home / ".cursor" / "mcp.json"
    config.parent.mkdir()
    config.write_text(CURSOR_CONFIG)
    assert run("cursor", "--yes") == 0
    assert run("cursor", "--remove", "--yes") == 0
    assert config.read_text() == CURSOR_CONFIG
    assert len(backups(config)) == 2
    capsys.readouterr()
    assert run("cursor", "--remove", "--yes") == 0
    assert "not there; nothing to do" in capsys.readouterr().out


def test_windsurf_and_claude_codes_project_file_get_the_seat_in_their_own_place(home):
    assert run("windsurf", "--yes") == 0
    assert run("claude-code", "--project", "--yes") == 0
    windsurf = json.loads((home / ".codeium" / "windsurf" / "mcp_config.json").read_text())
    assert windsurf["mcpServers"]["inspector"] == {"command": SEAT[0], "args": SEAT[1:]}
    project = json.loads((home / ".mcp.json").read_text())
    assert project["mcpServers"]["inspector"]["type"] == "stdio"


def test_claude_desktop_has_no_project_file(home, capsys):
    assert run("claude-desktop", "--project", "--yes") == 1
    assert "has no project config file" in capsys.readouterr().err


def test_config_names_the_file_to_edit_instead_of_the_clients_usual_one(home):
    elsewhere = home / "work" / "claude_desktop_config.json"
    elsewhere.parent.mkdir()
    elsewhere.write_text('{"mcpServers": {}}')
    assert run("claude-desktop", "--config", str(elsewhere), "--yes") == 0
    assert json.loads(elsewhere.read_text())["mcpServers"]["inspector"]["args"] == SEAT[1:]
    assert not (home / ".config" / "Claude").exists()


def test_the_parsers_clients_and_default_name_are_the_cores():
    assert (ADD_TO_CLIENTS, ADD_TO_NAME) == (tuple(CLIENTS), DEFAULT_NAME)
