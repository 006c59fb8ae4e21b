"""Opening a capture never starts the command it names without the user's say-so (README: "a capture from
someone else never starts a command silently").

The capture names a "server" whose only effect is to create a marker file: if it ever runs, the marker says so.
In the window: opening the capture starts nothing (no live session exists at all); Session > Reconnect and
Session > Replay show exactly what would run, in plain text, and start nothing when the user cancels; only Yes
starts it (the control). On the command line: ``replay CAPTURE`` without a target prints the command and runs it
only with ``--yes``.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, cli, until
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QMessageBox
from qt_loop import open_test_window

from inspector.ui.main_window import MainWindow
from inspector.ui.session.live import CLOSED, FAILED, LiveSession

SAMPLE = ROOT / "tests" / "data" / "sample-v1.jsonl"


def capture_naming(path: Path, marker: Path) -> list[str]:
    """Write a copy of the sample capture whose recorded command creates ``marker``; returns that command."""
    argv = [sys.executable, "-c", f"open({str(marker)!r}, 'w')"]
    header, *events = SAMPLE.read_text().splitlines()
    target = json.loads(header)
    target["target"] = {"transport": "stdio", "argv": argv, "cwd": None, "env": {}, "redacted": True}
    path.write_text("\n".join([json.dumps(target), *events]) + "\n")
    return argv


@pytest.fixture
def window(qapp, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        yield win


def live_sessions(window: MainWindow) -> list[LiveSession]:
    return window.findChildren(LiveSession)


@pytest.mark.report("security", "opening a capture starts nothing; Reconnect and Replay show the exact command and "
                                "start it only after Yes", surface="GUI")
def test_opening_a_capture_starts_nothing_and_reconnect_or_replay_start_its_command_only_after_yes(
        window, qloop, tmp_path, monkeypatch, report):
    marker = tmp_path / "the-command-ran"
    capture = tmp_path / "from-someone-else.jsonl"
    argv = capture_naming(capture, marker)
    asked: list[tuple[str, Qt.TextFormat]] = []
    answer = {"button": QMessageBox.StandardButton.Cancel}

    def exec_box(box: QMessageBox) -> Any:
        asked.append((box.text(), box.textFormat()))
        return answer["button"]

    monkeypatch.setattr(QMessageBox, "exec", exec_box)
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: ("the same server", True))

    tab = window.open_capture(capture)
    assert tab is not None and tab.read_only and live_sessions(window) == []
    window.runs.reconnect_current()  # answered Cancel
    window.runs.replay_current()  # answered Cancel
    assert live_sessions(window) == [] and not marker.exists()
    assert len(asked) == 2
    for text, text_format in asked:
        assert text_format == Qt.TextFormat.PlainText
        assert shlex.join(argv) in text or " ".join(argv) in text, text  # the exact command is shown
    asked_before_yes = len(asked)

    answer["button"] = QMessageBox.StandardButton.Yes  # the control: with Yes it does start
    window.tabs.setCurrentWidget(tab)
    window.runs.reconnect_current()
    [live] = live_sessions(window)

    async def ran() -> None:  # and its session is over (the "server" exits at once), all within the loop
        await until(marker.exists, 30, "the command to run after Yes")
        await until(lambda: live.state in (CLOSED, FAILED), 30, "the session to end")
        await live.parent().close()

    qloop.run_until_complete(ran())
    report.saw(f"open: no session, nothing ran; Reconnect and Replay each asked first ({asked_before_yes} plain-text "
               "boxes quoting the command), Cancel started nothing; Yes started it")


@pytest.mark.report("security", "replay without a target runs the capture's command only with --yes, after "
                                "printing it", surface="CLI")
def test_replay_without_a_target_prints_the_captures_command_and_runs_it_only_with_yes(tmp_path, report):
    marker = tmp_path / "the-command-ran"
    capture = tmp_path / "from-someone-else.jsonl"
    argv = capture_naming(capture, marker)
    refused = cli("replay", str(capture), "--out", str(tmp_path / "r1.jsonl"), timeout=60)
    assert refused.returncode == 2
    assert "never run without confirmation" in refused.stderr and "--yes" in refused.stderr
    assert "command:" in refused.stdout and "open(" in refused.stdout
    assert not marker.exists() and not (tmp_path / "r1.jsonl").exists()
    ran = cli("replay", str(capture), "--yes", "--timeout", "5", "--out", str(tmp_path / "r2.jsonl"), timeout=60)
    assert "command:" in ran.stdout and marker.exists(), (ran.stdout, ran.stderr)  # the control
    report.saw(f"without --yes: exit 2, the command ({Path(argv[0]).name} -c ...) printed and not run: "
               f"{refused.stderr.strip()}; with --yes it ran")
