"""Moving around the timeline the way a person does (issue 27): Ctrl+J says why it cannot jump when the filter
hides the partner row, and a row the person clicks stays under the pointer (follow stops)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import until
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from qt_loop import open_test_window

from inspector.core.wire.events import Direction, Kind

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample-v1.jsonl"


@pytest.fixture
def sample_tab(qapp, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as window:
        tab = window.open_capture(SAMPLE)
        qloop.run_until_complete(until(lambda: not tab.loading, 10, "the capture loaded"))
        yield tab


def first_answered_request(tab):
    model = tab.model
    for row in range(model.rowCount()):
        event = model.event(row)
        if event.kind == Kind.MESSAGE and event.dir == Direction.C2S and model.pair_row(row) is not None:
            return row
    raise AssertionError("no answered request in the sample")


def test_ctrl_j_says_the_filter_hides_the_partner_instead_of_doing_nothing(sample_tab):
    tab = sample_tab
    row = first_answered_request(tab)
    response = tab.model.event(tab.model.pair_row(row))
    tab.timeline.show_s2c.setChecked(False)  # the responses are filtered out
    assert tab.timeline.select_row(row)
    tab.timeline.jump_to_pair()
    assert tab.timeline.current_row() == row
    assert tab.status.text() == f"its response (#{response.seq}) is hidden by the filter: clear the filter to jump " \
                                "to it"
    tab.timeline.show_s2c.setChecked(True)
    tab.timeline.jump_to_pair()
    assert tab.timeline.current_row() == tab.model.pair_row(row)


def test_a_row_the_person_clicks_stops_follow_so_new_rows_do_not_scroll_it_away(sample_tab):
    tab = sample_tab
    tab.show()
    assert tab.follow.isChecked()
    row = first_answered_request(tab)
    rect = tab.table.visualRect(tab.model.index(row, 1))
    QTest.mousePress(tab.table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    QTest.mouseRelease(tab.table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    assert tab.timeline.current_row() == row
    assert not tab.follow.isChecked()


@pytest.mark.report("faults", "F8 on the last problem of the timeline", surface="GUI", group="window")
def test_f8_after_the_last_problem_goes_back_to_the_first_and_says_so(sample_tab, report):
    """Issue 39: F8 on the last problem did nothing and said nothing."""
    tab = sample_tab
    problems = [r for r in range(tab.model.rowCount()) if tab.model.columns.next_problem(r, r + 1) == r]
    assert problems, "the sample has problem rows"
    assert tab.timeline.select_row(problems[-1])
    tab.timeline.next_problem()
    assert tab.timeline.current_row() == problems[0]
    assert tab.status.text() == "no problem after this row: back to the first"
    report.saw(tab.status.text())


@pytest.mark.report("faults", "F8 in a timeline without problems", surface="GUI", group="window")
def test_f8_in_a_timeline_without_problems_says_there_is_none(sample_tab, report):
    tab = sample_tab
    tab.timeline.show_s2c.setChecked(False)
    tab.timeline.show_c2s.setChecked(False)
    tab.timeline.show_stderr.setChecked(False)
    tab.timeline.show_transport.setChecked(False)
    tab.timeline.next_problem()
    assert tab.status.text() == "no problem in the rows the filter shows: nothing to go to"
    report.saw(tab.status.text())
