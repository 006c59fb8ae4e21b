"""A deprecated feature in a 2026-07-28 session, in the window: the Python SDK's ``summarize`` asks for sampling
(with includeContext "thisServer") and roots in an input_required round; the sampling is answered through the
Server requests form, and the round's answer carries the judge's information findings, shown in the detail pane's
Findings, never as a problem (no red row). A screenshot in the test's folder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from explorer_support import rows, shown_text, wait
from PySide6.QtCore import Qt
from qt_loop import open_test_window

from inspector.core.session.target import Target
from inspector.ui.timeline.model import COL_SEQ

pytestmark = [pytest.mark.integration]
SERVER = Path(__file__).resolve().parents[1] / "core" / "servers" / "sdk_modern_server.py"


def test_sampling_and_roots_asked_in_a_2026_session_are_information_in_the_findings(qtbot, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        tab = win.open_live(Target(name="sdk", argv=[sys.executable, str(SERVER)], roots=[str(tmp_path)]))
        explorer = tab.explorer
        wait(qloop, lambda: explorer.tool_list.count() >= 5 and explorer.catalog.settled, "the tools listed")
        tab.window().resize(1600, 1000)
        explorer.call_tool("summarize", {})
        panel = tab.requests
        wait(qloop, lambda: panel.current() is not None and panel.current().method == "sampling/createMessage",
             "the sampling request")
        panel.sampling_text.setFocus()
        qtbot.keyClicks(panel.sampling_text, "short")
        qtbot.keyClick(panel.sampling_text, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        wait(qloop, lambda: "short (1 roots)" in shown_text(explorer.tool_result), "the tool's result")
        wait(qloop, lambda: tab.model.rowCount() == len(tab.events), "the timeline caught up")
        asked = next(e for e in rows(tab, "tools/call") if e.dir == "s2c" and b"input_required" in e.raw)
        wait(qloop, lambda: len(tab.judge.of(asked.seq)) == 3, "the judge's findings")
        assert {f.severity for f in tab.judge.of(asked.seq)} == {"info"}
        row = tab.model.row_of_seq(asked.seq)
        assert tab.model.cell(row, COL_SEQ, 8) is not None  # the span's band, not the problem band
        tab.detail.show_event(asked)
        findings = tab.detail.info.toPlainText()
        assert "info [deprecated-feature]: sampling is deprecated in 2026-07-28" in findings
        assert "info [deprecated-feature]: roots are deprecated" in findings and "includeContext" in findings
        tab.detail.tabs.setCurrentWidget(tab.detail.info)
        assert tab.grab().save(str(tmp_path / "deprecation-findings.png"))
