"""The whole window against real servers: the demo, a misbehaving one, captures saved and reopened."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import warm_python
from helpers import ROOT, until
from PySide6.QtCore import Qt
from qt_loop import open_test_window

from inspector.core.connect.target import Target
from inspector.core.wire.events import Direction, Kind
from inspector.ui.session.live import CLOSED, FAILED, READY
from inspector.ui.session.tab import SessionTab
from inspector.ui.timeline.model import COL_LATENCY, COL_SUMMARY

pytestmark = pytest.mark.integration
JUNK_SERVER = Path(__file__).resolve().parents[1] / "integration" / "servers" / "junk_server.py"
SAMPLE = ROOT / "tests" / "data" / "sample-v1.jsonl"


@pytest.fixture
def window(qapp, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        yield win


def shown_events(tab: SessionTab) -> list:
    return tab.timeline.visible_events()


def test_the_demo_session_shows_the_handshake_and_a_composed_request_paired_with_its_answer(window, qloop):
    async def scenario():
        tab = window.open_demo()
        await until(lambda: tab.live.state == READY, 30, "the demo handshake")
        await until(lambda: any(e.data.get("request_method") == "server/discover" for e in shown_events(tab)),
                    5, "the discover response in the timeline")
        tab.composer.set_text('{"jsonrpc":"2.0","method":"tools/list"}')
        assert tab.composer.send()
        await until(lambda: any(e.data.get("request_method") == "tools/list" for e in shown_events(tab)), 10,
                    "the tools/list response")
        return tab

    tab = qloop.run_until_complete(scenario())
    events = shown_events(tab)
    request = next(e for e in events if e.method == "tools/list" and e.dir == Direction.C2S)
    response = next(e for e in events if e.data.get("reply_to") == request.seq)
    assert response.data["latency"] > 0
    assert tab.timeline.select_seq(response.seq)
    assert tab.model.highlight_row == tab.model.row_of_seq(request.seq)
    tab.timeline.jump_to_pair()
    assert tab.timeline.current_event() is request
    assert "mcp-inspector-demo" in tab.status.text() and "ready" in tab.status.text()
    assert window.tabs.tabText(0) == "mcp-inspector-demo"


def test_junk_on_stdout_is_a_red_row_with_its_reason_and_stderr_fills_the_pane(window, qloop, tmp_path):
    target = Target(name="junk", argv=[sys.executable, str(JUNK_SERVER), "--banner", "--non-utf8"],
                    handshake="legacy")

    async def scenario():
        tab = window.open_live(target)
        await until(lambda: tab.live.state in (READY, FAILED, CLOSED), 30, "the handshake")
        await until(lambda: sum(e.kind == Kind.FRAMING_ERROR for e in shown_events(tab)) >= 2, 5, "junk rows")
        return tab

    tab = qloop.run_until_complete(scenario())
    assert tab.live.state == READY
    junk = [e for e in shown_events(tab) if e.kind == Kind.FRAMING_ERROR]
    assert all(e.reason for e in junk)
    tab.problems_only.setChecked(True)
    assert all(e.kind == Kind.FRAMING_ERROR for e in shown_events(tab))
    tab.table.setCurrentIndex(tab.proxy.index(0, 0))
    assert tab.detail.info.toPlainText().startswith("Why this is a framing error:")
    assert "framing errors" in tab.status.text()


def test_stderr_lines_appear_in_the_pane_without_ansi_codes(window, qloop):
    script = ("import sys; sys.stderr.write('\\x1b[31mred alert\\x1b[0m\\n'); sys.stderr.flush(); "
              "sys.stdin.read()")
    target = Target(name="stderr", argv=[sys.executable, "-c", script], handshake="none")

    async def scenario():
        tab = window.open_live(target)
        await until(lambda: "red alert" in tab.stderr.text(), 20, "the stderr line in the pane")
        return tab

    tab = qloop.run_until_complete(scenario())
    assert "\x1b" not in tab.stderr.text()
    assert any(e.kind == Kind.STDERR for e in shown_events(tab))


def pairing(tab: SessionTab) -> list[tuple[int, int | None, str]]:
    """Each row's paired row and its latency cell, as the timeline shows them."""
    model = tab.model
    return [(row, model.pair_row(row), model.index(row, COL_LATENCY).data()) for row in range(model.rowCount())]


def test_a_saved_capture_reopens_read_only_with_the_same_events_and_the_same_pairing(window, qloop):
    async def scenario():
        tab = window.open_demo()
        await until(lambda: tab.live.state == READY, 30, "the demo handshake")
        tab.composer.set_text('{"jsonrpc":"2.0","method":"tools/list"}')
        assert tab.composer.send()
        await until(lambda: any(e.data.get("request_method") == "tools/list" for e in shown_events(tab)), 10,
                    "the tools/list response")
        await tab.close()
        return tab

    tab = qloop.run_until_complete(scenario())
    live_events = list(tab.events)
    live_pairing = pairing(tab)
    reopened = window.open_capture(tab.capture_path)
    assert reopened is not None and reopened.read_only
    qloop.run_until_complete(until(lambda: reopened.model.index_of_file.done, 10, "the capture indexed"))
    reopened.model.catch_up()
    assert [(e.seq, e.kind, e.dir, e.raw, e.eol, dict(e.data), list(e.findings)) for e in reopened.events] == \
        [(e.seq, e.kind, e.dir, e.raw, e.eol, dict(e.data), list(e.findings)) for e in live_events]
    # the subscriptions/listen stream the Explorer opens on a 2026-07-28 server is answered by no response (the
    # demo acknowledges it and keeps it open until the tab's close cancels it): every other request is answered
    requests = [row for row, event in enumerate(live_events)
                if event.dir == Direction.C2S and event.rpc is not None and event.rpc.kind == "request"
                and event.rpc.method != "subscriptions/listen"]
    assert len(requests) >= 2, "the handshake's request and tools/list"
    reopened_pairing = pairing(reopened)
    for row in requests:
        assert live_pairing[row][1] is not None, f"row {row} was answered live"
        assert reopened_pairing[row][1] == live_pairing[row][1], f"row {row} pairs with the same response"
        latency = reopened_pairing[row][2]
        assert latency.endswith((" ms", " s")), f"row {row} shows its latency, not {latency!r}"
    assert [pair for _, pair, _ in reopened_pairing] == [pair for _, pair, _ in live_pairing]
    reopened.timeline.select_row(requests[-1])
    assert reopened.model.highlight_row == live_pairing[requests[-1]][1]
    reopened.timeline.jump_to_pair()
    assert reopened.timeline.current_row() == live_pairing[requests[-1]][1]
    reopened.timeline.jump_to_pair()
    assert reopened.timeline.current_row() == requests[-1], "Ctrl+J jumps back from the response to its request"
    assert not reopened.composer.isEnabled() or not reopened.composer.can_send()
    assert str(tab.capture_path) in window.files.recent_files()


def test_server_text_that_looks_like_html_is_shown_literally(window, qloop):
    payload = "<b>x</b><img src=q>"

    async def scenario():
        tab = window.open_demo()
        await until(lambda: tab.live.state == READY, 30, "the demo handshake")
        tab.composer.set_text(json.dumps({"jsonrpc": "2.0", "method": "tools/call",
                                          "params": {"name": "echo", "arguments": {"text": payload}}}))
        assert tab.composer.send()
        await until(lambda: any(e.data.get("request_method") == "tools/call" for e in shown_events(tab)), 10,
                    "the echo answer")
        return tab

    tab = qloop.run_until_complete(scenario())
    answer = next(e for e in shown_events(tab) if e.data.get("request_method") == "tools/call")
    assert tab.timeline.select_seq(answer.seq)
    # the answer's text, as typed (not escaped, not rendered) in the detail view and in its timeline row
    assert payload in tab.detail.pretty.toPlainText()
    row = tab.model.row_of_seq(answer.seq)
    cells = [tab.model.data(tab.model.index(row, column)) for column in range(tab.model.columnCount())]
    assert any(payload in str(cell) for cell in cells), cells
    # the labels that show what the server and its events say (the status line shows the server's name and
    # version, the detail's headline an event's reasons) take their text as plain text, never as markup
    assert "mcp-inspector-demo" in tab.status.text()
    for label in (tab.status, tab.detail.banner):
        assert label.textFormat() == Qt.TextFormat.PlainText, label.text()


def test_a_missing_command_fails_with_one_sentence_in_the_status_line(window, qloop):
    async def scenario():
        tab = window.open_live(Target(name="nope", argv=["mcp-inspector-no-such-server"]))
        await until(lambda: tab.live.state == FAILED and tab.live.finished, 10, "the failure, shut down")
        return tab

    tab = qloop.run_until_complete(scenario())
    assert "command not found: mcp-inspector-no-such-server" in tab.status.text()
    assert ") — check the command's spelling, or give its full path. · " in tab.status.text(), tab.status.text()
    assert "profile" not in tab.status.text(), "no profile was used, so none is named"
    # nothing to explore (issue 39: the Explorer's tabs stayed enabled): only the user's own Roots and History
    pages = tab.explorer.pages
    assert [pages.tabText(i) for i in range(pages.count()) if pages.isTabEnabled(i)] == ["Roots", "History"]


def test_a_failure_is_red_in_the_status_line_and_the_timeline_and_a_plain_note_is_not(window, qloop):
    async def scenario():
        tab = window.open_live(Target(name="nope", argv=["mcp-inspector-no-such-server"]))
        await until(lambda: tab.live.state == FAILED and tab.live.finished, 10, "the failure, shut down")
        tab.feed.flush_now()
        return tab

    tab = qloop.run_until_complete(scenario())
    status = tab.status.palette().color(tab.status.foregroundRole())
    assert status.red() > 180 and status.green() < 100, status.name()
    note = next(row for row in range(tab.model.rowCount()) if tab.model.event(row).kind == Kind.NOTE)
    assert tab.model.event(note).data["failure"] is True
    colour = tab.model.index(note, COL_SUMMARY).data(Qt.ItemDataRole.ForegroundRole).color()
    assert colour.red() > 200 and colour.blue() < 100, f"the failure note is red, not {colour.name()}"


def test_a_missing_command_from_a_profile_says_to_check_the_profile(window, qloop):
    from inspector.core.clients.profiles import ServerProfile
    profile = ServerProfile(name="broken", kind="stdio", command="mcp-inspector-no-such-server")

    async def scenario():
        tab = window.open_live(Target.from_profile(profile))
        await until(lambda: tab.live.state == FAILED and tab.live.finished, 10, "the failure, shut down")
        return tab

    tab = qloop.run_until_complete(scenario())
    assert ") — check the command in the server's profile. · " in tab.status.text(), tab.status.text()


@pytest.mark.parametrize("stderr", [False, True])
def test_a_server_that_exits_at_once_points_to_the_stderr_tab_only_when_it_wrote_there(window, qloop, stderr):
    script = ("import sys; " + ("sys.stderr.write('cannot open the database\\n'); " if stderr else "")
              + "sys.exit(3)")

    async def scenario():
        tab = window.open_live(Target(name="exits", argv=[sys.executable, "-c", script], handshake="legacy"))
        await until(lambda: tab.live.state == FAILED and tab.live.finished, 30, "the failure, shut down")
        return tab

    text = qloop.run_until_complete(scenario()).status.text()
    assert "exited with code 3" in text, text
    if stderr:
        assert "cannot open the database" in text and "its stderr is in the stderr tab" in text, text
    else:
        assert "wrote nothing to stderr" in text and "stderr tab" not in text, text


def test_reconnecting_from_a_capture_names_exactly_what_would_run(tmp_path):
    header_target = {"transport": "stdio", "argv": ["python", "-m", "evil"], "cwd": "/tmp", "env": {}}
    target = Target.from_capture_header({"target": header_target}, "x")
    assert target.argv == ["python", "-m", "evil"] and target.cwd == "/tmp" and not target.is_http
    assert target.describe_lines() == ["command: python -m evil", "working directory: /tmp",
                                       "environment overrides: none"]
    nothing = Target.from_capture_header({"target": {"transport": "stdio"}}, "x")
    assert not (nothing.argv or nothing.url)


def capture_of(path: Path, target: Target) -> Path:
    """A capture whose header names ``target`` as a recording of it would (secrets redacted), and no event."""
    from inspector.core.capture.writer import CaptureWriter, make_header

    CaptureWriter(path, make_header(target.to_capture_target())).close()
    return path


@pytest.mark.parametrize(("kind", "hidden"), [("stdio", "API_TOKEN=[redacted]"), ("http", "Authorization: [redacted]")])
def test_reconnecting_to_a_capture_that_kept_its_secrets_out_is_refused_and_starts_nothing(
        window, tmp_path, monkeypatch, kind, hidden):
    # Reconnect started the server with the literal "[redacted]" values, where replay and check refuse
    from PySide6.QtWidgets import QMessageBox

    from inspector.ui.session.live import LiveSession

    marker = tmp_path / "the-command-ran"
    target = (Target(name="x", argv=[sys.executable, "-c", f"open({str(marker)!r}, 'w')"],
                     env={"API_TOKEN": "s3cr3t-value"}) if kind == "stdio" else
              Target(name="x", url="http://127.0.0.1:9/mcp", transport="streamable-http",
                     headers={"Authorization": "Bearer s3cr3t-value"}))
    capture = capture_of(tmp_path / "shared.jsonl", target)
    assert "s3cr3t-value" not in capture.read_text(encoding="utf-8")
    said: list[tuple[str, str]] = []

    def exec_box(box: QMessageBox) -> QMessageBox.StandardButton:
        said.append((box.windowTitle(), box.text()))
        return QMessageBox.StandardButton.Yes  # whatever it asks, the person agrees: only a refusal stops it

    monkeypatch.setattr(QMessageBox, "exec", exec_box)
    assert window.open_capture(capture) is not None
    window.runs.reconnect_current()
    assert window.findChildren(LiveSession) == [] and not marker.exists()
    [(title, text)] = said
    assert title == "Reconnect", said
    assert text.startswith("the capture's target was saved with secrets redacted (") and hidden in text, text
    assert text.endswith("so it cannot be rerun as recorded: use a saved server (a profile) instead."), text


def test_a_capture_that_cannot_be_saved_there_is_one_sentence_in_the_status_line(window, tmp_path, monkeypatch):
    # the copy's OSError escaped the menu handler
    from PySide6.QtWidgets import QFileDialog

    tab = window.open_capture(SAMPLE)
    assert tab is not None
    where = tmp_path / "no-such-folder" / "copy.jsonl"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(where), "Captures (*.jsonl)"))
    window.menu_actions["save_as"].trigger()
    assert window.statusBar().currentMessage() == \
        f"cannot save the capture as {where}: No such file or directory"
    assert not where.exists()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "copy.jsonl"), ""))
    window.menu_actions["save_as"].trigger()  # the control: a folder that is there
    assert (tmp_path / "copy.jsonl").read_bytes() == SAMPLE.read_bytes()
    assert window.statusBar().currentMessage() == f"saved {tmp_path / 'copy.jsonl'}"


def test_a_pending_request_can_be_cancelled_and_the_session_restarted(window, qloop):
    async def scenario():
        tab = window.open_demo()
        await until(lambda: tab.live.state == READY, 30, "the demo handshake")
        tab.composer.set_text('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"slow_count",'
                              '"arguments":{"count":50,"delay_ms":200}}}')
        assert tab.composer.send()
        await until(lambda: any(e.method == "tools/call" for e in shown_events(tab)), 10, "the slow call")
        call = next(e for e in shown_events(tab) if e.method == "tools/call")
        tab.timeline.select_seq(call.seq)
        assert tab.cancel_selected()
        await until(lambda: any(e.method == "notifications/cancelled" for e in shown_events(tab)), 10,
                    "the cancellation")
        cancelled = next(e for e in shown_events(tab) if e.method == "notifications/cancelled").json()
        old_capture = tab.capture_path
        window.restart_current()
        new = window.current_tab()
        await until(lambda: new.live.state == READY, 30, "the restarted handshake")
        return cancelled, call, old_capture, new

    cancelled, call, old_capture, new = qloop.run_until_complete(scenario())
    assert cancelled["params"]["requestId"] == call.rpc.id
    assert window.tabs.count() == 1 and new.capture_path != old_capture


def test_replaying_a_session_shows_each_message_and_marks_a_changed_answer(window, qloop, tmp_path):
    from inspector.ui.panels.replay import ReplayView

    async def scenario():
        tab = window.open_demo()
        await until(lambda: tab.live.state == READY, 30, "the demo handshake")
        tab.composer.set_text('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":'
                              '{"text":"first"}}}')
        assert tab.composer.send()
        await until(lambda: any(e.data.get("request_method") == "tools/call" for e in shown_events(tab)), 10,
                    "the echo answer")
        source = tab.capture_path
        await tab.close()
        # the same session against a server that answers differently: echo through the changed demo
        changed = Target(name="changed", argv=[sys.executable, "-c",
                         "import sys, runpy; sys.argv=['demo']; "
                         "import inspector.demo.tools as t; "
                         "orig = t.text_result; t.text_result = lambda text, **k: orig(text.upper(), **k); "
                         "runpy.run_module('inspector.demo', run_name='__main__')"])
        demo = Target(name="demo", argv=warm_python.module_command("inspector.demo"))
        same = await window.runs.run_replay(source, demo)
        different = await window.runs.run_replay(source, changed)
        return same, different

    same, different = qloop.run_until_complete(scenario())
    assert isinstance(same, ReplayView) and isinstance(different, ReplayView)
    assert same.result.exit_code == 0, same.result.lines()
    assert different.result.exit_code == 1
    assert "FIRST" in different.now.toPlainText() and "first" in different.recorded.toPlainText()
    assert any('"text":' in line for line in different.marked_lines(different.now))
    assert different.result.out is not None and different.result.out.exists()


def test_a_session_started_from_a_profile_keeps_the_profiles_name_on_its_tab(window, qloop):
    from inspector.core.clients.profiles import ServerProfile
    profile = ServerProfile(name="my demo", kind="stdio", command=sys.executable, args=["-m", "inspector.demo"])

    async def scenario():
        tab = window.open_live(Target.from_profile(profile))
        await until(lambda: tab.live.state == READY, 30, "the demo handshake")
        return tab

    tab = qloop.run_until_complete(scenario())
    assert tab.live.server.name == "mcp-inspector-demo"  # what the server calls itself...
    assert window.tabs.tabText(window.tabs.indexOf(tab)) == "my demo"  # ...and what the user called it


def test_replaying_a_capture_with_nothing_sent_says_so_as_the_command_line_does(window, qloop, tmp_path,
                                                                                  monkeypatch):
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps({"format": "mcp-inspector-capture", "version": 1, "created": "x",
                                 "target": {"transport": "stdio", "argv": ["x"]}}) + "\n")
    warned: list[str] = []
    monkeypatch.setattr(window, "warn", lambda title, text: warned.append(text))
    view = qloop.run_until_complete(window.runs.run_replay(empty, Target(name="demo", argv=[sys.executable, "-m",
                                                                                       "inspector.demo"])))
    assert view is None
    assert warned == [f"cannot replay {empty}: the capture has no message sent to the server, so there is "
                      "nothing to replay"]
    assert window.tabs.count() == 0, "nothing was started"


def test_an_unexpected_error_in_a_session_is_said_in_its_status_line_not_lost(window, qloop, monkeypatch):
    from inspector.core.session.session import Session

    async def broken_handshake(self, *args, **kwargs):
        raise RuntimeError("a bug in the handshake")  # stands for a bug of ours: nothing real raises this

    monkeypatch.setattr(Session, "handshake", broken_handshake)

    async def scenario():
        tab = window.open_demo()
        await until(lambda: tab.live.state in (FAILED, CLOSED), 30, "the failure")
        return tab

    tab = qloop.run_until_complete(scenario())
    assert tab.live.state == FAILED
    assert "unexpected error (RuntimeError: a bug in the handshake)" in tab.status.text()


def _number_columns_fit(tab, widest: dict[int, str]) -> list[tuple[int, str]]:
    from PySide6.QtWidgets import QStyle

    header, metrics = tab.table.horizontalHeader(), tab.table.fontMetrics()
    margin = 2 * (tab.table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, tab.table) + 1)
    return [(column, text) for column, text in widest.items()
            if header.sectionSize(column) < metrics.horizontalAdvance(text) + margin]


def test_the_number_columns_are_wide_enough_for_their_widest_numbers(window, qloop, tmp_path):
    """Qt cuts a cell's text that does not fit to "…": a number cut that way is a lie (the issue saw
    "+25580.9…" and "pending 14.…"). Each column fits the longest text it can show; ``#`` and Time fit the
    largest value the capture holds."""
    from inspector.ui.timeline.model import COL_DELTA, COL_KIND, COL_SEQ, COL_SIZE, COL_TIME

    window.resize(1600, 900)  # a table with room (a narrow one shrinks columns: tests/ui/test_small_screens.py)
    widest = {COL_DELTA: "+59.9 min", COL_KIND: "notification", COL_LATENCY: "pending 59.9 min",
              COL_SIZE: "1023.9 KB"}
    small = window.open_capture(Path(__file__).resolve().parents[1] / "data" / "sample-v1.jsonl")
    small.timeline.fit_columns()
    assert _number_columns_fit(small, {**widest, COL_SEQ: "9999", COL_TIME: "999.999"}) == []
    # a long session: the ten-millionth event, 28 hours in
    capture = tmp_path / "long.jsonl"
    lines = ['{"format":"mcp-inspector-capture","version":1,"target":{"transport":"stdio","argv":["x"]}}',
             '{"seq":9999998,"t":101234.5,"wall":1796208310.9,"kind":"stderr","dir":"s2c","raw":"a"}',
             '{"seq":9999999,"t":101234.567,"wall":1796208311.0,"kind":"stderr","dir":"s2c","raw":"b"}']
    capture.write_text("\n".join(lines) + "\n")
    long = window.open_capture(capture)
    qloop.run_until_complete(until(lambda: not long.loading, 10, "the capture loaded"))
    assert _number_columns_fit(long, {**widest, COL_SEQ: "9999999", COL_TIME: "101234.567"}) == []
    assert _number_columns_fit(small, {COL_SEQ: "9999999"}) != [], "a short capture's # column is not 7 digits"


def test_resend_takes_a_fresh_id_and_keeping_the_id_of_a_request_in_flight_is_warned_about(window, qloop):
    slow = ('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"slow_count",'
            '"arguments":{"count":50,"delay_ms":200}}}')

    def calls(tab):
        return [e for e in shown_events(tab) if e.method == "tools/call" and e.dir == Direction.C2S]

    async def scenario():
        tab = window.open_demo()
        await until(lambda: tab.live.state == READY, 30, "the demo handshake")
        tab.composer.set_text(slow)
        assert tab.composer.send()
        await until(lambda: len(calls(tab)) == 1, 10, "the slow call")
        first = calls(tab)[0]
        tab.timeline.select_seq(first.seq)
        assert tab.resend_selected()
        fresh_status = tab.composer.status.text()
        assert tab.composer.send()
        await until(lambda: len(calls(tab)) == 2, 10, "the resent call")
        tab.timeline.select_seq(first.seq)
        assert tab.resend_selected()
        tab.composer.keep_id.setChecked(True)
        kept_status = tab.composer.status.text()
        assert tab.composer.send()
        await until(lambda: len(calls(tab)) == 3, 10, "the call with the kept id")
        return first, calls(tab), fresh_status, kept_status

    first, sent, fresh_status, kept_status = qloop.run_until_complete(scenario())
    assert "in flight" not in fresh_status and "a fresh id replaces" in fresh_status
    assert sent[1].rpc.id != first.rpc.id, "Resend took a fresh id"
    assert f"is already in flight (request #{first.seq} has no answer yet)" in kept_status, kept_status
    assert sent[2].rpc.id == first.rpc.id
    assert [f.code for f in sent[2].findings] == ["id-reused"], "the duplicate is what the user asked for"


def test_the_explorer_folds_away_in_a_narrow_window_comes_back_when_it_widens_and_then_obeys_the_user(window, qloop):
    window.showNormal()
    window.resize(900, 700)
    tab = window.open_demo()
    qloop.run_until_complete(until(lambda: tab.live.state == READY, 30, "the demo handshake"))
    assert not tab.explorer.isVisible() and not tab.explorer_toggle.isChecked(), "too narrow for both: folded"
    assert tab.table.horizontalScrollBar().maximum() == 0, "every timeline column on screen"

    window.resize(1800, 900)
    qloop.run_until_complete(until(lambda: tab.explorer.isVisible(), 5, "the explorer beside the timeline"))
    assert tab.explorer_toggle.isChecked()
    assert tab.beside.sizes()[0] >= tab.timeline.min_width(), "the timeline keeps its columns"

    window.menu_actions["explorer"].trigger()  # View > Explorer: the user folds it
    assert not tab.explorer.isVisible() and not tab.explorer_toggle.isChecked()
    window.resize(1900, 900)
    qloop.run_until_complete(until(lambda: tab.width() > 1500, 5, "the wider tab"))
    assert not tab.explorer.isVisible(), "the user's choice outlasts a resize"

    window.resize(900, 700)
    tab.explorer_toggle.click()  # and shows it in a narrow window: it is theirs to ask for
    qloop.run_until_complete(until(lambda: tab.width() < 800, 5, "the narrower tab"))
    assert tab.explorer.isVisible()


def test_an_opened_captures_warning_stays_in_the_status_line_while_the_judge_goes_through_it(window, qloop, tmp_path):
    # the warnings used to be left out whenever the line named a state, "judging 40%" included, so what a damaged
    # capture lost vanished for as long as the judge took (and a test that read the line then saw no warning)
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_bytes((ROOT / "tests" / "data" / "sample-v1.jsonl").read_bytes() + b"this line is not JSON\n")
    tab = window.open_capture(damaged)
    qloop.run_until_complete(until(lambda: not tab.loading, 30, "the capture loaded"))
    warning = tab.status.text().split(" · ")[-1]
    assert "not JSON" in warning or "skipped" in warning, tab.status.text()
    tab._capture_status("judging 40%")  # as the background judge says its progress
    assert tab.status.text().startswith("judging 40%: ") and tab.status.text().endswith(" · " + warning)
    assert " so far" not in tab.status.text(), "every event is loaded: only the judging goes on"
