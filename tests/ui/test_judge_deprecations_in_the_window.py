"""A deprecated feature in a 2026-07-28 session, in the window: the Python SDK's ``summarize`` asks for sampling
(with includeContext "thisServer") and roots in an input_required round; the sampling is answered through the
Server requests form, and the round's answer carries the judge's information findings, shown in the detail pane's
Findings, never as a problem (no red row). A screenshot in the test's folder. One coroutine on the window's loop
(see test_explorer_tasks.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import warm_python
from explorer_support import BOUND, rows, shown_text
from helpers import until
from qt_loop import open_test_window

from inspector.core.connect.target import Target
from inspector.ui.timeline.model import COL_SEQ

pytestmark = [pytest.mark.integration]
SERVER = Path(__file__).resolve().parents[1] / "core" / "servers" / "sdk_modern_server.py"


def test_sampling_and_roots_asked_in_a_2026_session_are_information_in_the_findings(qtbot, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        tab = win.open_live(Target(name="sdk", argv=warm_python.command(SERVER), roots=[str(tmp_path)]))
        explorer = tab.explorer
        panel = tab.requests

        async def scenario() -> None:
            await until(lambda: explorer.tools.tool_list.count() >= 5 and explorer.catalog.settled, BOUND,
                        "the tools listed")
            tab.window().resize(1600, 1000)
            explorer.tools.call_tool("summarize", {})
            await until(lambda: panel.current() is not None and panel.current().method == "sampling/createMessage",
                        BOUND, "the sampling request")
            panel.sampling_text.setPlainText("short")
            panel.answer_button.click()
            await until(lambda: "short (1 roots)" in shown_text(explorer.tools.tool_result), BOUND, "the tool's result")
            await until(lambda: tab.model.rowCount() == len(tab.events), BOUND, "the timeline caught up")
            asked = next(e for e in rows(tab, "tools/call") if e.dir == "s2c" and b"input_required" in e.raw)
            await until(lambda: len(tab.judge.of(asked.seq)) == 3, BOUND, "the judge's findings")

        qloop.run_until_complete(asyncio.wait_for(scenario(), 3 * BOUND))
        asked = next(e for e in rows(tab, "tools/call") if e.dir == "s2c" and b"input_required" in e.raw)
        assert {f.severity for f in tab.judge.of(asked.seq)} == {"info"}
        row = tab.model.row_of_seq(asked.seq)
        assert tab.model.cell(row, COL_SEQ, 8) is not None  # the span's band, not the problem band
        assert tab.model.cell(row, COL_SEQ, 9) is None  # no red text either (ForegroundRole)
        tab.detail.show_event(asked)
        findings = tab.detail.info.toPlainText()
        assert "info [deprecated-feature]: sampling is deprecated in 2026-07-28" in findings
        assert "info [deprecated-feature]: roots are deprecated" in findings and "includeContext" in findings
        tab.detail.tabs.setCurrentWidget(tab.detail.info)
        assert tab.grab().save(str(tmp_path / "deprecation-findings.png"))
