"""Session > Compare with… "the same server, now" (issue 39): the comparison's session declares the live
session's client capabilities, so a server that shows some tools only to clients able to answer them (as
server-everything does; tests/compare/servers/capability_gated.py here) is not reported as having removed them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from explorer_support import wait
from PySide6.QtWidgets import QInputDialog
from qt_loop import open_test_window

from inspector.core.connect.target import Target
from inspector.ui.compare import run as compare_run
from inspector.ui.compare.view import CompareView

pytestmark = pytest.mark.integration

GATED = Path(__file__).resolve().parents[1] / "compare" / "servers" / "capability_gated.py"


@pytest.mark.report("faults", "Compare with the same server, now, on one that shows some tools only to capable clients",
                    surface="GUI", group="window")
def test_the_same_server_now_lists_the_tools_the_live_session_was_shown_and_finds_no_difference(
        qtbot, qloop, tmp_path, monkeypatch, report):
    with open_test_window(qloop, tmp_path) as win:
        tab = win.open_live(Target(name="gated", argv=[sys.executable, str(GATED)], handshake="legacy"))
        wait(qloop, lambda: tab.explorer.tools.tool_list.count() == 3 and tab.explorer.catalog.settled,
             "the three tools the live session is shown")
        monkeypatch.setattr(QInputDialog, "getItem", lambda *_args: (compare_run.SAME, True))
        win.comparisons.compare_current()
        wait(qloop, lambda: isinstance(win.tabs.currentWidget(), CompareView), "the comparison's tab")
        view = win.tabs.currentWidget()
        listed = [view.items.item(i).text() for i in range(view.items.count())]
        assert not any("removed" in line for line in listed), listed
        assert view.result.differences == 0, listed
    report.saw("compared with the same server, now: no differences (no tool reported removed)")


@pytest.mark.report("faults", "Compare with a server, without a live session to take capabilities from",
                    surface="GUI", group="window")
def test_a_comparison_without_a_live_session_says_it_declared_no_client_capabilities(qtbot, qloop, tmp_path, report):
    with open_test_window(qloop, tmp_path) as win:
        tab = win.open_live(Target(name="gated", argv=[sys.executable, str(GATED)], handshake="legacy"))
        wait(qloop, lambda: tab.explorer.tools.tool_list.count() == 3 and tab.explorer.catalog.settled, "listed")
        tab.live.writer.flush()
        view = qloop.run_until_complete(win.comparisons.run_compare(tab.capture_path, target=tab.live.target))
        assert any("declared no client capabilities" in note for note in view.result.notes), view.result.notes
        listed = [view.items.item(i).text() for i in range(view.items.count())]
        assert any("ask-user removed" in line for line in listed), listed
    report.saw(next(note for note in view.result.notes if "declared no client capabilities" in note))
