"""``mcp-inspector --watch PATH -- CMD`` (issue 45): what the window is asked to watch is checked before anything
else, the display included; a path that is not there is one sentence and status 2."""

from __future__ import annotations

import sys

from inspector.cli.main import main


def test_a_watched_path_that_does_not_exist_is_one_sentence_and_status_2(tmp_path, capsys):
    missing = tmp_path / "no-such-server.py"
    assert main(["--watch", str(missing), "--", sys.executable, "-c", "pass"]) == 2
    err = capsys.readouterr().err
    assert err == f"mcp-inspector: --watch {missing}: there is no such file or folder.\n"


def test_watch_needs_a_server_command_to_restart(tmp_path, capsys):
    assert main(["--watch", str(tmp_path), "--url", "http://127.0.0.1:9/mcp"]) == 2
    assert "--watch needs a server command after --" in capsys.readouterr().err


def test_watch_ignore_without_watch_is_refused(capsys):
    assert main(["--watch-ignore", "*.log", "--", sys.executable, "-c", "pass"]) == 2
    assert capsys.readouterr().err == "mcp-inspector: --watch-ignore needs --watch PATH.\n"


def test_the_watched_paths_reach_the_window_checked_and_absolute(tmp_path, monkeypatch):
    seen = {}
    monkeypatch.setattr("inspector.ui.app.run_gui", lambda **kwargs: seen.update(kwargs) or 0)
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "server.py").write_text("", encoding="utf-8")
    assert main(["--watch", "server.py", "--watch-ignore", "*.log", "--", sys.executable, "server.py"]) == 0
    assert seen["watch"] == [tmp_path.resolve() / "server.py"] and seen["watch_ignore"] == ["*.log"]
