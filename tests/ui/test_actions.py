"""The window's actions are declared once (inspector/ui/actions.py): no key is bound twice in one window, and
each shortcut the user guide documents does its job when pressed on the real window."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from helpers import ROOT, until
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog
from qt_loop import open_test_window

from inspector.core.wire.events import Direction
from inspector.ui.actions import ACTIONS, WIDGET_SHORTCUTS, keys_of
from inspector.ui.main_window import MainWindow
from inspector.ui.panels.detail import pretty
from inspector.ui.session.live import READY
from inspector.ui.session.tab import SessionTab

SAMPLE = ROOT / "tests" / "data" / "sample-v1.jsonl"
GUIDE = ROOT / "docs" / "user-guide.md"
WINDOW_WIDE = (Qt.ShortcutContext.WindowShortcut, Qt.ShortcutContext.ApplicationShortcut)


@pytest.fixture
def window(qapp, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        win.activateWindow()
        QTest.qWaitForWindowActive(win)
        yield win


def key_text(sequence: QKeySequence) -> str:
    return sequence.toString(QKeySequence.SequenceFormat.PortableText)


def bindings(win: MainWindow) -> list[tuple[str, Qt.ShortcutContext, object]]:
    """Every enabled key binding in the window: (key, context, owner)."""
    found = []
    for action in win.findChildren(QAction):
        if action.isEnabled():
            found.extend((key_text(key), action.shortcutContext(), action) for key in action.shortcuts()
                         if not key.isEmpty())
    for shortcut in win.findChildren(QShortcut):
        if shortcut.isEnabled():
            found.extend((key_text(key), shortcut.context(), shortcut) for key in shortcut.keys() if not key.isEmpty())
    return found


def documented_shortcuts() -> list[str]:
    """The keys of the user guide's shortcut table (its first column, split on commas)."""
    keys = []
    for line in GUIDE.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\| ((?:Ctrl|Alt|F\d)[^|]*) \|", line)
        if match:
            keys.extend(part.strip() for part in match.group(1).split(","))
    return keys


def press(win: MainWindow, key: str) -> None:
    """Press ``key`` as a user would: a key event to the window's focus widget, through Qt's shortcut map."""
    sequence = QKeySequence(key)
    combination = sequence[0]
    target = QApplication.focusWidget() or win
    QTest.keyClick(target, combination.key(), combination.keyboardModifiers())  # delivered synchronously


def first_problem_after(capture: Path, seq: int) -> int:
    """The seq of the first event after ``seq`` that the capture's lines say is a problem: a framing error, or an
    event with a finding of severity error."""
    for line in capture.read_text(encoding="utf-8").splitlines()[1:]:
        event = json.loads(line)
        if event["seq"] > seq and (event["kind"] == "framing_error" or any(
                finding.get("severity", "error") == "error" for finding in event.get("findings", []))):
            return int(event["seq"])
    raise AssertionError(f"no problem after #{seq} in {capture}")


def open_two_tabs(win: MainWindow, tmp_path: Path) -> SessionTab:
    copy = tmp_path / "copy.jsonl"
    shutil.copyfile(SAMPLE, copy)
    assert win.open_capture(copy) is not None
    tab = win.open_capture(SAMPLE)
    assert tab is not None
    tab.model.index_of_file.scan_all()
    tab.model.catch_up()
    return tab


def test_no_two_enabled_window_wide_shortcuts_share_a_key_with_two_tabs_open(window, tmp_path):
    open_two_tabs(window, tmp_path)
    window_wide: dict[str, list[object]] = {}
    scoped: dict[str, list[object]] = {}
    for key, context, owner in bindings(window):
        (window_wide if context in WINDOW_WIDE else scoped).setdefault(key, []).append(owner)
    clashes = {key: owners for key, owners in window_wide.items() if len(owners) > 1}
    assert clashes == {}
    shadowed = sorted(set(window_wide) & set(scoped))
    assert shadowed == [], "a key bound window-wide and inside a widget is ambiguous while that widget has focus"
    assert {"Ctrl+J", "F8", "Ctrl+Shift+C", "Ctrl+Shift+X"} <= set(window_wide)


def test_every_documented_shortcut_is_declared_once(window):
    declared = {key for spec in ACTIONS if spec.shortcut is not None for key in keys_of(spec.shortcut)}
    widget_keys = set(WIDGET_SHORTCUTS)
    documented = documented_shortcuts()
    assert len(documented) >= 15, documented
    missing = [key for key in documented if key not in declared | widget_keys]
    assert missing == []
    keys = [key for spec in ACTIONS if spec.shortcut is not None for key in keys_of(spec.shortcut)]
    assert len(keys) == len(set(keys))


def test_the_tab_shortcuts_do_their_job_on_the_real_window_and_nothing_is_ambiguous(window, tmp_path, qtlog):
    tab = open_two_tabs(window, tmp_path)
    model = tab.model
    request = next(row for row in range(model.rowCount()) if model.pair_row(row) is not None
                   and model.event(row).dir == Direction.C2S)
    response = model.pair_row(request)
    tab.table.setFocus()
    tab.timeline.select_row(request)

    press(window, "Ctrl+J")
    assert tab.timeline.current_row() == response
    press(window, "Ctrl+J")
    assert tab.timeline.current_row() == request

    # F8's answer, read from the capture file itself (not from the columns F8 itself uses)
    expected_seq = first_problem_after(SAMPLE, model.event(request).seq)
    press(window, "F8")
    assert model.event(tab.timeline.current_row()).seq == expected_seq

    tab.timeline.select_row(request)
    QGuiApplication.clipboard().clear()
    press(window, "Ctrl+Shift+C")
    assert QGuiApplication.clipboard().text() == pretty(model.event(request).raw)

    press(window, "Ctrl+F")
    assert tab.filter_text.hasFocus()

    count = window.tabs.count()
    press(window, "Ctrl+W")
    assert window.tabs.count() == count - 1
    assert not [r.message for r in qtlog.records if "Ambiguous" in r.message]


def test_the_file_shortcuts_open_and_save_captures(window, tmp_path, monkeypatch):
    saved = tmp_path / "saved.jsonl"
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(SAMPLE), ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(saved), ""))
    press(window, "Ctrl+O")
    assert window.tabs.count() == 1 and window.current_tab().title.startswith("sample-v1.jsonl")
    window.current_tab().table.setFocus()
    press(window, "Ctrl+S")
    assert saved.read_bytes() == SAMPLE.read_bytes()
    quit_called = []
    monkeypatch.setattr(QApplication, "quit", lambda: quit_called.append(True))
    press(window, "Ctrl+Q")
    assert quit_called and not window.isVisible()


def test_the_session_shortcuts_cancel_resend_and_restart_a_live_session(window, qloop, qtlog):
    async def scenario():
        tab = window.open_demo()
        await until(lambda: tab.live.state == READY, 30, "the demo handshake")
        tab.composer.set_text('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"slow_count",'
                              '"arguments":{"count":50,"delay_ms":200}}}')
        assert tab.composer.send()
        await until(lambda: any(e.method == "tools/call" for e in tab.timeline.visible_events()), 10, "the slow call")
        call = next(e for e in tab.timeline.visible_events() if e.method == "tools/call")
        tab.table.setFocus()
        tab.timeline.select_seq(call.seq)
        press(window, "Ctrl+Shift+X")
        await until(lambda: any(e.method == "notifications/cancelled" for e in tab.timeline.visible_events()), 10,
                    "the cancellation sent by Ctrl+Shift+X")
        tab.composer.set_text("")
        tab.table.setFocus()
        tab.timeline.select_seq(call.seq)
        press(window, "Ctrl+Shift+E")
        assert '"slow_count"' in tab.composer.text()
        tab.table.setFocus()
        press(window, "Ctrl+R")
        new = window.current_tab()
        assert new is not tab
        await until(lambda: new.live.state == READY, 30, "the restarted handshake")
        return call, new

    call, new = qloop.run_until_complete(scenario())
    assert window.tabs.count() == 1
    assert not [r.message for r in qtlog.records if "Ambiguous" in r.message]
