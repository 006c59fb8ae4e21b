"""The timeline model over real captures: Qt's model tester, lazy batches, pairing, pending, plain text."""

from __future__ import annotations

from helpers import ROOT
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtTest import QAbstractItemModelTester

from inspector.core.capture import read_capture
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import decode_line
from inspector.ui.timeline.filter import TimelineFilter
from inspector.ui.timeline.model import (
    COL_KIND,
    COL_LATENCY,
    COL_METHOD,
    COL_SUMMARY,
    EVENT_ROLE,
    TimelineModel,
)

SAMPLE = ROOT / "tests" / "data" / "sample-v1.jsonl"


def text(model, row: int, column: int) -> str:
    return model.data(model.index(row, column), Qt.ItemDataRole.DisplayRole)


def test_the_model_passes_qts_model_tester_on_a_real_capture(qapp):
    events = read_capture(SAMPLE).events
    model = TimelineModel(events, live=False)
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    assert model.rowCount() == len(events)
    assert model.rowCount(model.index(0, 0)) == 0  # a table: rows have no children


def test_a_live_model_shows_new_rows_only_when_it_catches_up_in_one_batch(qapp):
    events: list[Event] = []
    model = TimelineModel(events, live=True)
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    inserted: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda parent, first, last: inserted.append((first, last)))
    for seq, line in enumerate([b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}', b"banner"], start=1):
        event = decode_line(line, Direction.S2C)
        event.seq = seq
        events.append(event)
    assert model.rowCount() == 0
    assert model.catch_up() == 2
    assert inserted == [(0, 1)] and model.rowCount() == 2
    assert model.catch_up() == 0


def test_responses_show_latency_requests_and_framing_errors_show_their_reason(qapp):
    events = read_capture(SAMPLE).events
    model = TimelineModel(events, live=False)
    rows = {model.data(model.index(r, 0), EVENT_ROLE).seq: r for r in range(model.rowCount())}
    response = next(e for e in events if e.data.get("request_method") == "initialize")
    assert text(model, rows[response.seq], COL_METHOD) == "initialize"
    assert text(model, rows[response.seq], COL_LATENCY).endswith(" ms")
    junk = next(e for e in events if e.kind == Kind.FRAMING_ERROR)
    assert text(model, rows[junk.seq], COL_KIND) == "FRAMING"
    assert text(model, rows[junk.seq], COL_SUMMARY) == junk.reason
    red = model.data(model.index(rows[junk.seq], 0), Qt.ItemDataRole.ForegroundRole).color()
    assert red.red() > 200 and red.green() < 100


def test_a_request_without_an_answer_is_shown_pending_and_stops_being_pending_when_answered(qapp):
    events: list[Event] = []
    model = TimelineModel(events, live=True, t0=0.0)
    request = decode_line(b'{"jsonrpc":"2.0","id":7,"method":"tools/call"}', Direction.C2S)
    request.seq, request.t = 1, 0.0
    events.append(request)
    model.catch_up()
    assert text(model, 0, COL_LATENCY).startswith("pending ")
    response = decode_line(b'{"jsonrpc":"2.0","id":7,"result":{}}', Direction.S2C)
    response.seq, response.t = 2, 0.5
    response.put(reply_to=1, latency=0.5)
    events.append(response)
    changed: list[int] = []
    model.dataChanged.connect(lambda top, bottom: changed.append(top.row()))
    model.catch_up()
    assert 0 in changed
    assert text(model, 0, COL_LATENCY) == "500 ms", "an answered request shows its latency"
    assert text(model, 1, COL_LATENCY) == "500 ms"


def test_server_text_that_looks_like_html_is_plain_in_cells_and_escaped_in_tooltips(qapp):
    line = b'{"jsonrpc":"2.0","id":1,"result":{"x":"<b>x</b><img src=q>"}}'
    event = decode_line(line, Direction.S2C)
    event.seq = 1
    event.add_finding("unknown-id", "answers <b>x</b><img src=q>")
    model = TimelineModel([event], live=False)
    assert "<b>x</b><img src=q>" in text(model, 0, COL_SUMMARY)
    tooltip = model.data(model.index(0, 0), Qt.ItemDataRole.ToolTipRole)
    assert "&lt;b&gt;x&lt;/b&gt;&lt;img src=q&gt;" in tooltip and "<img" not in tooltip


def test_the_filter_keeps_directions_kinds_methods_and_text_apart(qapp):
    events = read_capture(SAMPLE).events
    model = TimelineModel(events, live=False)
    proxy = TimelineFilter()
    proxy.setSourceModel(model)
    QAbstractItemModelTester(proxy, QAbstractItemModelTester.FailureReportingMode.Fatal)

    def shown() -> list[Event]:
        return [proxy.data(proxy.index(r, 0), EVENT_ROLE) for r in range(proxy.rowCount(QModelIndex()))]

    proxy.set(method="tools/call")
    assert {e.method or e.data.get("request_method") for e in shown()} == {"tools/call"}
    proxy.set(method="", show_stderr=False, show_transport=False, directions={"c2s"})
    assert {e.dir for e in shown()} == {"c2s"} and all(e.kind == Kind.MESSAGE for e in shown())
    proxy.set(directions={"c2s", "s2c"}, problems_only=True)
    assert [e.kind for e in shown()] == [Kind.FRAMING_ERROR] * 3
    proxy.set(problems_only=False, show_stderr=True, show_transport=True, text="img src")
    assert [e.method or e.data.get("request_method") for e in shown()] == ["tools/call", "tools/call"]


def test_the_id_column_writes_ids_as_json_so_7_and_the_string_7_differ():
    from inspector.ui.timeline.model import id_text

    assert [id_text(v) for v in (7, "7", None, "a\u00e9")] == ["7", '"7"', "null", '"a\u00e9"']


def _numbered(events: list[Event]) -> list[Event]:
    for seq, event in enumerate(events, start=1):
        event.seq = seq
    return events


def _foreground(model, row: int):
    brush = model.data(model.index(row, COL_SUMMARY), Qt.ItemDataRole.ForegroundRole)
    return None if brush is None else brush.color()


def test_a_failure_note_and_a_tool_error_are_red_a_plain_note_is_plain_and_a_warning_is_amber(qapp):
    from inspector.core.wire.correlation import Correlator

    correlator = Correlator()
    call = decode_line(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}', Direction.C2S)
    failed = decode_line(b'{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}', Direction.S2C)
    crlf = decode_line(b'{"jsonrpc":"2.0","method":"notifications/message"}', Direction.S2C, b"\r\n")
    events = _numbered([Event(Kind.NOTE, data={"text": "probing with server/discover"}),
                        Event(Kind.NOTE, data={"text": "command not found: x", "failure": True}),
                        call, failed, crlf])
    for event in events:
        correlator.observe(event)
    model = TimelineModel(events, live=False)
    assert _foreground(model, 0) is None, "a note says what happened: the palette's text colour"
    red = _foreground(model, 1)
    assert red.red() > 200 and red.green() < 100 and red.blue() < 100
    assert [f.code for f in failed.findings] == ["tool-error"]
    assert _foreground(model, 3) == red, "a tool error is a failure"
    assert model.data(model.index(3, 0), Qt.ItemDataRole.BackgroundRole) is None, \
        "but not a protocol problem: no red band"
    assert text(model, 3, COL_SUMMARY).startswith("the tool failed: ")
    amber = _foreground(model, 4)
    assert [f.code for f in crlf.findings] == ["crlf"] and amber is not None and amber != red
    assert amber.red() > amber.blue() and amber.green() > amber.blue(), amber.name()


def test_times_are_compact_so_a_long_gap_or_wait_is_never_cut(qapp):
    import time

    from inspector.ui.timeline.model import COL_DELTA

    first = decode_line(b'{"jsonrpc":"2.0","id":1,"method":"ping"}', Direction.C2S)
    second = decode_line(b'{"jsonrpc":"2.0","id":2,"method":"tools/call"}', Direction.C2S)
    first.t, second.t = 1.0, 1.0 + 25.5809
    events = _numbered([first, second])
    model = TimelineModel(events, live=True, t0=time.monotonic() - second.t - 14.3)
    model.catch_up()
    assert text(model, 0, COL_DELTA) == "+0"
    assert text(model, 1, COL_DELTA) == "+25.6 s"
    assert text(model, 1, COL_LATENCY) == "pending 14 s"
