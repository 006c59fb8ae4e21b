"""Protocol findings in the window: an opened capture is judged in the background; a tools/list result
without inputSchema shows its schema finding on its row (red), in the detail pane's Findings and in the
Problems panel, whose click jumps to the message and whose mute takes the colour away."""

from __future__ import annotations

import html
import json
import sys

import warm_cli
from helpers import ROOT
from qt_loop import open_test_window

from inspector.ui.timeline.model import COL_SUMMARY

BROKEN = ROOT / "tests" / "integration" / "servers" / "broken_protocol_server.py"
#: one record run of a stdlib server: interpreter start-up and a handful of round trips
BOUND = 60
SCHEMA_TEXT = 'result.tools[0] is missing the required field "inputSchema" (schema 2025-06-18, ListToolsResult)'


def record_broken(tmp_path):
    send = tmp_path / "send.jsonl"
    send.write_text(json.dumps({"jsonrpc": "2.0", "method": "tools/list", "params": {}}) + "\n")
    out = tmp_path / "broken.jsonl"
    done = warm_cli.run([sys.executable, "-m", "inspector", "record", "--out", str(out), "--send", str(send),
                           "--handshake", "legacy", "--protocol-version", "2025-11-25", "--root", "file:///tmp",
                           "--idle", "0.2", "--", sys.executable, str(BROKEN)], capture_output=True, timeout=BOUND,
                          cwd=ROOT)
    assert out.is_file(), done.stderr.decode()
    return out


def test_an_opened_capture_shows_the_schema_finding_on_its_row_in_findings_and_in_problems(qapp, qloop, qtbot,
                                                                                          tmp_path):
    from PySide6.QtCore import Qt

    out = record_broken(tmp_path)
    with open_test_window(qloop, tmp_path) as window:
        tab = window.open_capture(out)
        assert tab is not None
        qtbot.waitUntil(lambda: "schema" in tab.problems.counts, timeout=10_000)
        model = tab.model
        row = next(r for r in range(model.rowCount())
                   if model.event(r).data.get("request_method") == "tools/list")
        assert model.index(row, COL_SUMMARY).data(Qt.ItemDataRole.BackgroundRole) is not None
        assert SCHEMA_TEXT in html.unescape(model.index(row, COL_SUMMARY).data(Qt.ItemDataRole.ToolTipRole))

        group = next(tab.problems.tree.topLevelItem(i) for i in range(tab.problems.tree.topLevelItemCount())
                     if tab.problems.tree.topLevelItem(i).text(0).startswith("schema "))
        assert group.text(1) == "1"
        tab.problems.tree.itemClicked.emit(group.child(0), 0)
        assert tab.timeline.current_row() == row
        assert SCHEMA_TEXT in tab.detail.info.toPlainText()
        tab.side.setCurrentWidget(tab.problems)
        tab.problems.tree.expandAll()
        tab.grab().save(str(tmp_path / "problems.png"))

        tab.problems.set_muted("schema", True)
        assert model.index(row, COL_SUMMARY).data(Qt.ItemDataRole.BackgroundRole) is None
        assert SCHEMA_TEXT not in tab.detail.info.toPlainText()
        assert "muted" in tab.problems.summary.text()
