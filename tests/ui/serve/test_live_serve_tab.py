"""A client talks to `mcp-inspector serve CAPTURE`; the window shows the served session live, read-only, in a tab
named "serve: CAPTURE", a request the capture has no answer to marked with the closest recorded request."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from helpers import ROOT, until
from listening_window_support import listening_window
from PySide6.QtCore import Qt

from inspector.core.serve.stdio import UNMATCHED
from inspector.core.wire.events import Direction, Kind
from inspector.ui.session.tab import SessionTab
from inspector.ui.timeline.model import COL_SUMMARY

pytestmark = pytest.mark.integration

CLIENT = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "script", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 4}}},
]


def test_a_served_session_streams_live_to_a_serve_tab_with_the_unmatched_call_marked(qapp, qloop, settings,
                                                                                        tmp_path, demo_capture):
    window, socket_path = listening_window(settings, tmp_path)

    async def scenario():
        await until(lambda: window.tap_watcher.listener is not None or window.tap_watcher.problem is not None, 10,
                    "the listener")
        assert window.tap_watcher.problem is None
        twin = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "inspector", "serve", str(demo_capture), "--socket", str(socket_path), cwd=ROOT,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        assert twin.stdin is not None and twin.stdout is not None
        try:
            await until(lambda: window.taps.count() == 1, 20, "the served session in the sidebar")
            tab = window.tabs.currentWidget()
            assert isinstance(tab, SessionTab) and tab.read_only
            title = window.tabs.tabText(window.tabs.currentIndex())
            for message in CLIENT:
                twin.stdin.write(json.dumps(message).encode() + b"\n")
            await twin.stdin.drain()
            answers = [json.loads(await asyncio.wait_for(twin.stdout.readline(), 20)) for _ in range(3)]
            await until(lambda: any(UNMATCHED in (f.code for f in e.findings) for e in tab.timeline.visible_events()),
                        10, "the unmatched call in the tab")
            live_status = tab.status.text()
            twin.stdin.close()
            code = await asyncio.wait_for(twin.wait(), 20)
            await until(lambda: "(ended)" in window.taps.item(0).text(), 10, "the end of the served session")
        finally:  # a failed step above must not leave the twin running
            if twin.returncode is None:
                twin.kill()
                await twin.wait()
        return tab, title, answers, code, live_status

    tab, title, answers, code, live_status = qloop.run_until_complete(scenario())
    assert code == 0
    assert title == "serve: demo.jsonl" and window.taps.item(0).text() == "serve: demo.jsonl (ended)"
    assert [a["id"] for a in answers] == [1, 2, 3]
    assert "closest recorded request" in answers[2]["error"]["message"]
    assert live_status.startswith("serve demo.jsonl (live) · read-only: the client drives, the capture answers")
    assert "ended: the client closed the session" in tab.status.text()
    events = tab.timeline.visible_events()
    assert {e.dir for e in events if e.kind == Kind.MESSAGE} == {Direction.C2S, Direction.S2C}
    assert [e.method for e in events if e.dir == Direction.C2S and e.kind == Kind.MESSAGE] == [
        "initialize", "notifications/initialized", "tools/list", "tools/call"]
    call = next(e for e in events if e.method == "tools/call")
    finding = next(f for f in call.findings if f.code == UNMATCHED)
    assert "params.arguments.b (recorded 3, here 4)" in finding.text
    row = tab.model.row_of_seq(call.seq)
    summary = tab.model.data(tab.model.index(row, COL_SUMMARY))
    assert summary.startswith(finding.text)  # the row leads with the closest recorded request and what differs
    assert tab.model.data(tab.model.index(row, COL_SUMMARY), Qt.ItemDataRole.ForegroundRole) is not None  # amber
    tab.timeline.next_problem()  # F8 finds it
    assert tab.timeline.current_event() is not None and tab.timeline.current_event().seq == call.seq
    tab.detail.show_event(call)
    assert f"[{UNMATCHED}]: {finding.text}" in tab.detail.info.toPlainText()
    assert not tab.composer.can_send()
    window.close()


ADD = {"method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}


@pytest.mark.report("faults", "error-rate turned on and off in a serve tab while a client talks to the twin",
                    surface="GUI", group="window")
def test_error_rate_turned_on_in_the_serve_tab_faults_the_next_call_and_turned_off_the_next_is_as_recorded(
        qapp, qloop, settings, tmp_path, demo_capture, report):
    window, socket_path = listening_window(settings, tmp_path)

    async def scenario():
        await until(lambda: window.tap_watcher.listener is not None, 10, "the listener")
        twin = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "inspector", "serve", str(demo_capture), "--socket", str(socket_path), cwd=ROOT,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        assert twin.stdin is not None and twin.stdout is not None

        async def ask(message):
            twin.stdin.write(json.dumps(message).encode() + b"\n")
            await twin.stdin.drain()
            return json.loads(await asyncio.wait_for(twin.stdout.readline(), 20))

        try:
            await until(lambda: window.taps.count() == 1, 20, "the served session in the sidebar")
            tab = window.tabs.currentWidget()
            assert isinstance(tab, SessionTab)
            await until(lambda: tab.serve_faults is not None and tab.serve_faults.control.seed is not None, 20,
                        "the twin's fault link and what it has in force")
            panel = tab.serve_faults
            control = panel.control
            assert tab.side.currentWidget() is panel and control.in_force == {}
            await ask(CLIENT[0])
            twin.stdin.write(json.dumps(CLIENT[1]).encode() + b"\n")
            recorded = await ask({"jsonrpc": "2.0", "id": 2, **ADD})
            panel.fields["error-rate"].setText("1")
            panel.boxes["error-rate"].click()
            await until(lambda: control.in_force == {"error-rate": "1"}, 20, "the twin to put error-rate=1 in force")
            on_state = (panel.boxes["error-rate"].isChecked(), panel.message.text())
            faulted = await ask({"jsonrpc": "2.0", "id": 3, **ADD})
            panel.boxes["error-rate"].click()
            await until(lambda: control.in_force == {}, 20, "the twin to clear error-rate")
            off_state = (panel.boxes["error-rate"].isChecked(), panel.message.text())
            again = await ask({"jsonrpc": "2.0", "id": 4, **ADD})
            twin.stdin.close()
            code = await asyncio.wait_for(twin.wait(), 20)
            await until(lambda: control.ended, 10, "the end of the link")
            await until(lambda: "(ended)" in window.taps.item(0).text(), 10, "the end of the served session")
        finally:  # a failed step above must not leave the twin running
            if twin.returncode is None:
                twin.kill()
                await twin.wait()
        return tab, recorded, on_state, faulted, off_state, again, code

    tab, recorded, on_state, faulted, off_state, again, code = qloop.run_until_complete(scenario())
    assert code == 0
    assert recorded["id"] == 2 and "result" in recorded
    assert on_state == (True, "in force: 100% of requests answered with an internal error")
    assert faulted["id"] == 3 and faulted["error"]["code"] == -32603
    assert "a fault injected by mcp-inspector serve (--fault error-rate=1)" in faulted["error"]["message"]
    assert off_state == (False, "no fault in force: the twin answers as recorded")
    assert again == {**recorded, "id": 4}
    notes = [e.data.get("text", "") for e in tab.timeline.visible_events() if e.kind == Kind.NOTE]
    assert any("the window changed the faults: faults in force from here on: 100% of requests" in n for n in notes)
    assert not tab.serve_faults.boxes["error-rate"].isEnabled()  # the twin has ended: nothing to toggle
    report.saw(f"the client's call got {recorded['result']['content'][0]['text']!r} as recorded, then error "
               f"{faulted['error']['code']} with error-rate=1 turned on in the tab, then the recorded answer again")
    window.close()
