"""The Explorer's tool list driven by the keyboard alone, against the bundled demo server (issue 39): arrows and
type-ahead keep the focus in the list, so typing a tool's name selects that tool and Ctrl+Enter calls it; a
click goes on to the tool's form."""

from __future__ import annotations

import sys

import pytest
from explorer_support import wait
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from qt_loop import open_test_window, sent_calls

from inspector.core.connect.target import Target

pytestmark = [pytest.mark.integration]


def demo_explorer(win, qloop):
    tab = win.open_live(Target(name="demo", argv=[sys.executable, "-m", "inspector.demo"]))
    if not tab.explorer.isVisible():
        tab.explorer_toggle.click()
    wait(qloop, lambda: tab.explorer.tools.tool_list.count() > 0 and tab.explorer.catalog.settled, "the tools")
    return tab


def type_keys(text: str) -> None:
    """Each key to whichever widget has the focus then, as a keyboard delivers it.

    A list's type-ahead starts over when keys come more than ``keyboardInputInterval`` apart (400 ms); on a busy
    machine the layout between two keys can take that long, and "stderr" became a search for "r". The interval is
    widened while the keys are typed: what is tested is where the focus stays, not how fast a person types."""
    interval = QApplication.keyboardInputInterval()
    QApplication.setKeyboardInputInterval(60_000)
    try:
        for char in text:
            target = QApplication.focusWidget()
            assert target is not None, "nothing has the focus"
            QTest.keyClick(target, char)
            QApplication.processEvents()  # the window lays out what the key changed, as a person sees
    finally:
        QApplication.setKeyboardInputInterval(interval)


@pytest.mark.report("faults", "typing a tool's name in the Explorer's list, then Ctrl+Enter",
                    surface="GUI", group="window")
def test_typing_a_tools_name_in_the_list_selects_it_and_ctrl_enter_calls_that_tool(qtbot, qloop, tmp_path, report):
    with open_test_window(qloop, tmp_path) as win:
        win.activateWindow()
        tab = demo_explorer(win, qloop)
        tools = tab.explorer.tools
        tools.tool_list.setFocus()
        qtbot.waitUntil(tools.tool_list.hasFocus)
        type_keys("stderr")
        assert tools.tool is not None and tools.tool["name"] == "stderr_burst", tools.tool
        assert tools.tool_list.hasFocus(), QApplication.focusWidget()
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Down)
        assert tools.tool["name"] == "flood" and tools.tool_list.hasFocus()
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Up)
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        wait(qloop, lambda: bool(sent_calls(tab)), "the call sent")
        assert [c.json()["params"]["name"] for c in sent_calls(tab)] == ["stderr_burst"]
    report.saw("the list keeps the focus while a name is typed; Ctrl+Enter calls the tool selected (stderr_burst)")


def test_a_click_on_a_tool_goes_on_to_its_form(qtbot, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        win.activateWindow()
        tab = demo_explorer(win, qloop)
        tools = tab.explorer.tools
        rect = tools.tool_list.visualItemRect(tools.tool_list.item(1))
        qtbot.mouseClick(tools.tool_list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        assert tools.tool["name"] == "add"
        QApplication.processEvents()
        assert QApplication.focusWidget() is tools.arguments_editor.editor_at("arguments.a"), \
            QApplication.focusWidget()
        QTest.keyClicks(QApplication.focusWidget(), "2")
        assert tools.arguments_editor.arguments() == {"a": 2}
