"""Breakpoints in the window against the demo server, end to end: a breakpoint pauses a live tools/call, the
person edits its arguments and forwards it, and the server's answer says what was edited; a paused call dropped
or answered with an error; the status line counts what waits; closing the tab forwards what waits unchanged; a
paused request's timeout clock stops while it waits.
"""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from helpers import until
from PySide6.QtCore import QPoint, Qt
from qt_loop import latency_cell, open_test_window

from inspector.core.capture.reader import read_capture
from inspector.core.connect.target import Target
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.intercepted import describe, mark_of
from inspector.ui.session.live import READY
from inspector.ui.session.tab import SessionTab
from inspector.ui.timeline.model import COL_SUMMARY

pytestmark = pytest.mark.integration
DEMO = [sys.executable, "-m", "inspector.demo"]


@pytest.fixture
def window(qapp, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        yield win


async def ready(window, timeout: float | None = None) -> SessionTab:
    target = Target(name="demo", argv=DEMO)
    tab = window.open_live(window.session_settings.with_request_timeout(target))
    await until(lambda: tab.live.state == READY, 60, "the demo's handshake")
    if timeout is not None:
        window.session_settings.set_request_timeout(timeout)
    return tab


def answers(tab: SessionTab) -> list[Event]:
    return [e for e in tab.events if e.kind == Kind.MESSAGE and e.dir == Direction.S2C and e.rpc is not None
            and e.rpc.kind in ("response", "error") and e.data.get("request_method") == "tools/call"]


def text_of(event: Event) -> str:
    body = event.json()
    return body["result"]["content"][0]["text"] if "result" in body else body["error"]["message"]


async def paused_call(tab: SessionTab, text: str) -> None:
    """Break on calls to echo (the Explorer's "Break on calls to this tool") and call it from the composer: it
    waits in the queue."""
    await until(lambda: tab.explorer.tools.select_tool("echo"), 15, "the Explorer to list echo")
    tab.explorer.tools.break_action.trigger()
    assert tab.side.currentWidget() is tab.breakpoints
    assert [rule.label() for rule in tab.live.intercept.breakpoints.rules.rules][-1].endswith("(pause)")
    tab.composer.set_text(json.dumps({"jsonrpc": "2.0", "method": "tools/call",
                                      "params": {"name": "echo", "arguments": {"text": text}}}))
    assert tab.composer.send()
    await until(lambda: len(tab.live.intercept.queue) == 1, 10, "the call to wait in the Intercepted queue")


@pytest.mark.report("faults", "a tools/call edited at a breakpoint: its original row in the timeline", surface="GUI",
                    group="window")
def test_a_paused_tool_call_edited_and_forwarded_gets_the_answer_to_the_edit(window, qloop, report):
    async def scenario():
        tab = await ready(window)
        await paused_call(tab, "as typed")
        queue = tab.intercepted
        assert tab.side.currentWidget() is queue
        assert tab.side.tabText(tab.side.indexOf(queue)) == "Intercepted (1)"
        assert "1 message paused at a breakpoint" in tab.status.text()
        assert '"as typed"' in queue.editor.toPlainText()
        assert not answers(tab)  # the server never got it
        queue.editor.setPlainText(queue.editor.toPlainText().replace("as typed", "as edited"))
        assert queue.status.property("severity") == "ok", queue.status.text()
        assert queue.decide("forward", edited=True)
        await until(lambda: answers(tab), 10, "the server's answer")
        tab.feed.flush_now()
        return tab

    tab = qloop.run_until_complete(scenario())
    assert text_of(answers(tab)[-1]) == "as edited"
    assert len(tab.live.intercept.queue) == 0
    assert "paused at a breakpoint" not in tab.status.text()
    calls = [e for e in tab.events if e.dir == Direction.C2S and e.method == "tools/call"]
    roles = [mark_of(e.data)["role"] for e in calls]
    assert roles == ["original", "changed"]  # the capture keeps both, marked
    assert "as typed" in calls[0].raw.decode() and "as edited" in calls[1].raw.decode()
    said = [e for e in tab.events if e.kind == Kind.NOTE and "intercept_rules" in e.data]  # what was in force
    assert said[-1].data["intercept_rules"] == [{"when": {"dir": "c2s", "method": "tools/call", "tool": "echo"},
                                                 "do": "pause"}]
    assert latency_cell(tab, calls[0]) == "never delivered"  # not "pending": the server never got it
    report.saw(f"the original's Latency says \"{latency_cell(tab, calls[0])}\" and the answer to the edit is "
               f"\"{text_of(answers(tab)[-1])}\"")
    assert latency_cell(tab, calls[1]).endswith("ms")
    row = tab.model.row_of_seq(calls[1].seq)
    assert tab.model.cell(row, COL_SUMMARY, Qt.ItemDataRole.DisplayRole).startswith("[changed]")
    assert "changed by rule 1 (pause)" in tab.model.cell(row, COL_SUMMARY, Qt.ItemDataRole.ToolTipRole)
    tab.detail.show_event(calls[0])
    assert tab.detail.notes.text().startswith("intercepted: original, never delivered: rule 1 (pause) changed it")
    # the timeline's menu on the answer: break on answers like it (its request's method and tool)
    assert tab.timeline.select_seq(answers(tab)[-1].seq)
    menu = tab.copier.menu(QPoint(0, 0))
    next(a for a in menu.actions() if a.text() == "Break on messages like this").trigger()
    menu.close()
    assert tab.live.intercept.breakpoints.rules.rules[-1].to_json() == {
        "when": {"dir": "s2c", "method": "tools/call", "tool": "echo"}, "do": "pause"}


def test_a_paused_tool_call_dropped_never_reaches_the_server_and_one_answered_with_an_error_gets_it(window, qloop):
    async def scenario():
        tab = await ready(window)
        await paused_call(tab, "to drop")
        assert tab.intercepted.decide("drop")
        await until(lambda: len(tab.live.intercept.queue) == 0, 5, "the queue to empty")
        tab.composer.set_text(json.dumps({"jsonrpc": "2.0", "method": "tools/call",
                                          "params": {"name": "echo", "arguments": {"text": "to refuse"}}}))
        assert tab.composer.send()
        await until(lambda: len(tab.live.intercept.queue) == 1, 10, "the second call to wait")
        tab.intercepted.error_code.setValue(-32001)
        tab.intercepted.error_message.setText("refused at a breakpoint")
        assert tab.intercepted.decide("error")
        await until(lambda: answers(tab), 10, "the inspector's answer")
        tab.feed.flush_now()
        return tab

    tab = qloop.run_until_complete(scenario())
    answer = answers(tab)[-1]
    assert answer.json()["error"] == {"code": -32001, "message": "refused at a breakpoint"}
    assert mark_of(answer.data)["role"] == "answer"
    sent = [(mark_of(e.data) or {}).get("role") for e in tab.events
            if e.dir == Direction.C2S and e.method == "tools/call"]
    assert sent == ["dropped", "held"]
    assert len(answers(tab)) == 1  # the dropped call got no answer at all


@pytest.mark.report("faults", "a tools/call paused at a breakpoint longer than the request timeout", surface="GUI",
                    group="window")
def test_a_paused_request_does_not_time_out_while_it_waits(window, qloop, report):
    async def scenario():
        tab = await ready(window, timeout=1.0)
        await paused_call(tab, "after a wait")
        loop = asyncio.get_running_loop()
        start = loop.time()
        await until(lambda: loop.time() > start + 2.5, 10, "more than the timeout to pass")
        assert len(tab.live.intercept.queue) == 1
        assert tab.intercepted.decide("forward")
        await until(lambda: answers(tab), 10, "the answer")
        tab.feed.flush_now()
        return tab

    tab = qloop.run_until_complete(scenario())
    assert text_of(answers(tab)[-1]) == "after a wait"
    assert not [e for e in tab.events if e.kind == Kind.NOTE and e.data.get("gave_up")]
    report.saw(f"paused 2.5 s with a 1 s timeout, forwarded, answered \"{text_of(answers(tab)[-1])}\"; no timeout")


@pytest.mark.report("faults", "closing a tab while a message waits at a breakpoint", surface="GUI", group="window")
def test_closing_the_tab_forwards_what_waits_unchanged(window, qloop, report):
    async def scenario():
        tab = await ready(window)
        await paused_call(tab, "still waiting")
        await tab.close()
        return tab

    tab = qloop.run_until_complete(scenario())
    calls = [e for e in read_capture(tab.capture_path).events if e.dir == Direction.C2S and e.method == "tools/call"]
    assert [b"still waiting" in e.raw for e in calls] == [True]
    assert mark_of(calls[0].data)["role"] == "delayed"  # delivered after its pause, as it came
    report.saw("the paused tools/call went to the server unchanged before the session ended (capture: "
               f"{describe(mark_of(calls[0].data))})")


def test_a_paused_answer_edited_is_what_the_client_gets_and_a_delayed_one_comes_later(window, qloop):
    async def scenario():
        tab = await ready(window)
        panel = tab.breakpoints
        panel.direction.setCurrentIndex(panel.direction.findData("s2c"))
        panel.method.setText("tools/call")
        panel.tool.setText("echo")
        assert panel.add_from_form()
        tab.composer.set_text(json.dumps({"jsonrpc": "2.0", "method": "tools/call",
                                          "params": {"name": "echo", "arguments": {"text": "the server says"}}}))
        assert tab.composer.send()
        await until(lambda: len(tab.live.intercept.queue) == 1, 10, "the answer to wait")
        queue = tab.intercepted
        assert queue.current().title() == "← response #" + str(queue.current().msg_id)
        queue.editor.setPlainText(queue.editor.toPlainText().replace("the server says", "the client sees"))
        assert queue.decide("forward", edited=True)
        await until(lambda: answers(tab), 10, "the edited answer")
        tab.composer.set_text(json.dumps({"jsonrpc": "2.0", "method": "tools/call",
                                          "params": {"name": "echo", "arguments": {"text": "later"}}}))
        assert tab.composer.send()
        await until(lambda: len(tab.live.intercept.queue) == 1, 10, "the second answer to wait")
        queue.delay_ms.setValue(300)
        assert queue.decide("delay")
        await until(lambda: len(answers(tab)) >= 2, 10, "the delayed answer")
        tab.feed.flush_now()
        return tab

    tab = qloop.run_until_complete(scenario())
    got = [e for e in tab.events if e.kind == Kind.MESSAGE and e.dir == Direction.S2C and e.rpc is not None
           and e.rpc.kind == "response" and b'"content"' in e.raw]
    assert [(mark_of(e.data) or {}).get("role") for e in got] == ["original", "changed", "delayed"]
    assert text_of(got[0]) == "the server says" and text_of(got[1]) == "the client sees"
    assert got[1].data.get("reply_to") is not None and got[0].data.get("reply_to") is None  # the changed one paired
    assert mark_of(got[2].data)["ms"] >= 300 and text_of(got[2]) == "later"
