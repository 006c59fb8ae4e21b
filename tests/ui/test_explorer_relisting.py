"""The window's explorer against a real stdio server that says its tool list changed all the time
(tests/core/servers/list_changed_loop.py): with every tools/list answer, and in a 2.5 s flood.

Issue 25: without declaring tools.listChanged, such a server made the window list its tools 1,538 times in 12 s.
Now an undeclared list_changed lists nothing again (the status line says why), and a declared one at most once a
second. Each test waits for the server's own "flood over" line, not for a length of time."""

from __future__ import annotations

import sys
from itertools import pairwise
from pathlib import Path

import pytest
from explorer_support import wait
from qt_loop import open_test_window

from inspector.core.connect.target import Target

pytestmark = [pytest.mark.integration]

LOOP_SERVER = Path(__file__).resolve().parent.parent / "core" / "servers" / "list_changed_loop.py"


def tools_lists(tab) -> list[float]:
    """When each tools/list request went out (seconds into the session)."""
    return [e.t for e in tab.events if e.kind == "message" and e.dir == "c2s" and e.method == "tools/list"]


def flood_over(tab) -> bool:
    return any(e.kind == "message" and e.dir == "s2c" and e.method == "notifications/message" for e in tab.events)


def loop_tab(win, qloop, *options: str):
    tab = win.open_live(Target(name="loop", argv=[sys.executable, str(LOOP_SERVER), *options], handshake="legacy"))
    wait(qloop, lambda: flood_over(tab), "the server's 2.5 s flood of list_changed to end")
    return tab


def test_the_window_lists_the_tools_once_for_a_server_that_says_they_changed_without_declaring_it(
        qtbot, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        tab = loop_tab(win, qloop)
        assert len(tools_lists(tab)) == 1, tools_lists(tab)
        assert tab.explorer.tools.tool_list.count() == 1
        assert "does not declare tools.listChanged, so its tools are not listed again" in tab.explorer.status.text()


def test_the_window_lists_the_tools_of_a_server_that_declares_list_changed_at_most_once_a_second(
        qtbot, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        tab = loop_tab(win, qloop, "--declare")
        starts = tools_lists(tab)
        assert len(starts) >= 2, "a declared list_changed is acted on"
        gaps = [round(b - a, 3) for a, b in pairwise(starts)]
        assert min(gaps) >= 0.95, gaps  # 1 s between listings, less the jitter between deciding and sending


@pytest.mark.report("faults", "tools/list_changed while arguments are typed in the form", surface="GUI", group="window")
def test_the_arguments_typed_in_the_form_survive_a_relisting_of_the_tools(qtbot, qloop, tmp_path, report):
    """Issue 39: a tools list_changed re-list rebuilt the selected tool's form empty."""
    with open_test_window(qloop, tmp_path) as win:
        tab = win.open_live(Target(name="loop", argv=[sys.executable, str(LOOP_SERVER), "--declare"],
                                   handshake="legacy"))
        tools = tab.explorer.tools

        def answered() -> int:
            return sum(1 for e in tab.events if e.kind == "message" and e.dir == "s2c"
                       and e.data.get("request_method") == "tools/list")

        wait(qloop, lambda: tools.tool_list.count() == 1, "the tool listed")
        assert tools.select_tool("noop")
        field = tools.arguments_editor.editor_at("arguments.text")
        qtbot.keyClicks(field, "typed by hand")
        form = tools.arguments_editor
        before = answered()
        # this server answers every listing with another list_changed: it is listed again each second
        wait(qloop, lambda: answered() >= before + 2, "two more listings answered and shown")
        assert tools.tool is not None and tools.tool["name"] == "noop"
        assert tools.arguments_editor.arguments() == {"text": "typed by hand"}
        assert tools.arguments_editor is form, "the tool listed unchanged keeps its form (and the field its focus)"
    report.saw("the form keeps what was typed in it (\"typed by hand\") through each re-list")
