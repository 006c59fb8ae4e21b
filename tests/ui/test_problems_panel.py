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


def f8_rows(tab):
    """The rows F8 (View > Next problem) stops at, from the top."""
    tab.timeline.select_row(0)
    rows = [0] if tab.model.columns.is_problem(0) else []
    while True:
        tab.timeline.next_problem()
        current = tab.timeline.current_row()
        if current is None or (rows and current <= rows[-1]):
            return rows
        rows.append(current)


def test_a_schema_finding_is_one_problem_for_f8_problems_only_the_panel_and_the_export(qapp, qloop, qtbot,
                                                                                     tmp_path):
    """Three notions of problem disagreed (issue 27): a schema finding coloured its row and was in the Problems
    panel, but F8 and "problems only" never reached it. Now one rule (core/wire/problems.py) decides for all;
    muting the rule takes the row out of them all, unmuting brings it back."""
    from inspector.core.interop.convert import export_capture
    from inspector.core.wire.problems import event_is_problem

    out = record_broken(tmp_path)
    with open_test_window(qloop, tmp_path) as window:
        tab = window.open_capture(out)
        qtbot.waitUntil(lambda: "schema" in tab.problems.counts, timeout=10_000)
        model = tab.model
        row = next(r for r in range(model.rowCount())
                   if model.event(r).data.get("request_method") == "tools/list")
        assert not event_is_problem(model.event(row)), "the wire alone says nothing wrong with this row"
        assert row in f8_rows(tab)
        tab.problems_only.setChecked(True)
        assert row in [tab.proxy.mapToSource(tab.proxy.index(r, 0)).row() for r in range(tab.proxy.rowCount())]
        rules = {f.rule for f in tab.marks.book.of(model.event(row).seq)}  # schema, and what else the row breaks
        assert "schema" in rules
        for rule in rules:
            tab.problems.set_muted(rule, True)
        assert row not in [tab.proxy.mapToSource(tab.proxy.index(r, 0)).row() for r in range(tab.proxy.rowCount())]
        tab.problems_only.setChecked(False)
        assert row not in f8_rows(tab)
        tab.problems.set_muted("schema", False)
        assert row in f8_rows(tab)
    report = b"".join(export_capture(out, "markdown")).decode()
    assert 'is missing the required field \\"inputSchema\\"' in report or "inputSchema" in report.split(
        "## Timeline")[0], "the export's Problems section names the schema finding"


def test_the_problems_panel_is_readable_at_once_and_links_to_the_rules_spec_page(qapp, qloop, qtbot, tmp_path,
                                                                               monkeypatch):
    from inspector.ui.panels import problems as problems_panel

    opened = []
    monkeypatch.setattr(problems_panel.QDesktopServices, "openUrl", lambda url: opened.append(url.toString()))
    out = record_broken(tmp_path)
    with open_test_window(qloop, tmp_path) as window:
        tab = window.open_capture(out)
        qtbot.waitUntil(lambda: "schema" in tab.problems.counts, timeout=10_000)
        tab.side.setCurrentWidget(tab.problems)
        panel = tab.problems
        group = next(panel.tree.topLevelItem(i) for i in range(panel.tree.topLevelItemCount())
                     if panel.tree.topLevelItem(i).text(0).startswith("schema "))
        panel.tree.setCurrentItem(group)
        title_width = panel.tree.fontMetrics().horizontalAdvance("schema · MUST")
        assert panel.tree.columnWidth(0) >= title_width, "the rule column is readable without dragging"
        assert panel.tree.columnWidth(0) > panel.tree.columnWidth(1)
        assert panel.rule_text.isVisible() and "href=" in panel.rule_text.text()
        link = problems_panel.BY_ID["schema"].link
        panel.rule_text.linkActivated.emit(link)
        assert opened == [link]
        assert not problems_panel.open_spec_link("https://attacker.example/x")  # only the rules' own pages
        assert opened == [link]
        tab.grab().save(str(tmp_path / "problems-panel.png"))
