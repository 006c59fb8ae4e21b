"""A live session in the window keeps a bounded window of events in memory (issue 17): with the window made
small, a real demo server's session runs far past it, and its oldest rows still show what the capture holds,
filter by method and by text, select into the detail pane, pair with their answers and show their latency,
while the Event objects alive stay bounded."""

from __future__ import annotations

import asyncio
import gc
import json
import sys

import pytest
from helpers import DEMO, ROOT, until
from qt_loop import call_tool, latency_cell, open_test_window

from inspector.core.capture import index as index_module
from inspector.core.capture import live as live_module
from inspector.core.capture import read_capture
from inspector.core.connect.target import Target
from inspector.core.wire.events import Event, Kind
from inspector.ui.session.live import READY
from inspector.ui.timeline.model import COL_METHOD, EVENT_ROLE

pytestmark = pytest.mark.integration
RING = 64
CACHE = 128
FLOOD = 3000


def alive_events() -> int:
    gc.collect()
    gc.unfreeze()  # the bridge freezes old objects; get_objects() does not list frozen ones
    return sum(1 for obj in gc.get_objects() if isinstance(obj, Event))


def test_a_live_session_past_its_memory_window_still_shows_filters_selects_and_pairs_old_rows(
        qapp, qloop, tmp_path, monkeypatch):
    monkeypatch.setattr(live_module, "RING_EVENTS", RING)
    monkeypatch.setattr(index_module, "EVENT_CACHE", CACHE)

    before = alive_events()  # what other tests of this worker process left alive is not this session's

    async def scenario(window):
        tab = window.open_live(Target(name="demo", argv=DEMO))
        await until(lambda: tab.live.state == READY, 60, "the demo's handshake")
        first = await call_tool(tab, "echo", {"text": "oldmarker h\u00e9"})
        await call_tool(tab, "flood", {"count": FLOOD})
        await until(lambda: tab.live.session.counts["s2c"] > FLOOD + 2, 60, "the flood and its answer")
        last = await call_tool(tab, "echo", {"text": "newest"})
        await until(lambda: tab.model.pair_row(tab.model.row_of_seq(last.seq)) is not None, 30,
                    "the last answer")
        tab.feed.flush_now()
        model = tab.model
        index = tab.live.index
        assert index.held > 0 and model.row_of_seq(first.seq) < index.held  # the first call is read back

        # every row is the capture's event, the old ones read back from the file
        tab.live.writer.flush()
        saved = read_capture(tab.capture_path).events
        assert model.rowCount() == len(saved) > FLOOD
        assert [model.event(row).seq for row in range(model.rowCount())] == [e.seq for e in saved]
        old = model.row_of_seq(first.seq)
        assert model.event(old) == saved[old]

        # select the old request: the detail pane shows it, its answer is paired and highlighted
        assert tab.timeline.select_row(old)
        assert tab.detail.current is not None and tab.detail.current.seq == first.seq
        answer = tab.timeline.pair_row()
        assert answer is not None and answer > old and model.highlight_row == answer
        assert "oldmarker" in model.event(answer).raw.decode()
        assert latency_cell(tab, first).endswith("ms")
        tab.timeline.jump_to_pair()
        assert tab.timeline.current_row() == answer

        # a method filter over the columns, then a text search that reads the file
        tab.filter_method.setText("tools/call")
        calls = [e.seq for e in saved if e.kind == Kind.MESSAGE
                 and (e.method == "tools/call" or e.data.get("request_method") == "tools/call")]
        assert [tab.proxy.data(tab.proxy.index(r, 0), EVENT_ROLE).seq
                for r in range(tab.proxy.rowCount())] == calls
        assert tab.proxy.data(tab.proxy.index(0, COL_METHOD)) == "tools/call"
        tab.filter_method.setText("")
        for needle in ("oldmarker", "h\u00e9"):  # ASCII: found in the file; not ASCII: each event decoded
            tab.filter_text.setText(needle)
            await until(lambda: not tab.proxy.searching, 30, f"the search for {needle}")
            found = [tab.proxy.data(tab.proxy.index(r, 0), EVENT_ROLE).seq for r in range(tab.proxy.rowCount())]
            assert first.seq in found and answer is not None and model.event(answer).seq in found, needle
        tab.filter_text.setText("")

        # the session keeps no list of its events, and the Event objects alive stay bounded
        del saved  # (the test's own copy of the capture)
        tab.feed.flush_now()  # a line the server wrote since (its stderr) reaches the rows at once, no await between
        assert tab.live.session.events == [] and len(index) == model.rowCount()
        alive = alive_events() - before
        assert alive < RING + CACHE + 400 < FLOOD, alive

    with open_test_window(qloop, tmp_path) as window:
        qloop.run_until_complete(scenario(window))


def test_a_tap_past_its_memory_window_reads_its_old_rows_back_from_the_taps_capture(qapp, qloop, tmp_path,
                                                                                      monkeypatch):
    monkeypatch.setattr(live_module, "RING_EVENTS", RING)
    socket_path = tmp_path / "run" / "tap.sock"
    capture = tmp_path / "tap.jsonl"
    script = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "scripted", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "old"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "flood", "arguments": {"count": 500}}},
    ]

    async def scenario(window):
        await until(lambda: window.tap_watcher.listener is not None, 10, "the listener")
        client = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "inspector", "tap", "--name", "scripted/demo", "--socket", str(socket_path),
            "--capture", str(capture), "--", *DEMO, cwd=ROOT,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        assert client.stdin is not None and client.stdout is not None
        await until(lambda: window.taps.count() == 1, 20, "the tap in the sidebar")
        tab = window.tabs.currentWidget()
        client.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in script))
        await client.stdin.drain()
        while json.loads(await asyncio.wait_for(client.stdout.readline(), 30)).get("id") != 3:
            pass
        client.stdin.close()
        assert await asyncio.wait_for(client.wait(), 30) == 0
        await until(lambda: "(ended)" in window.taps.item(0).text(), 20, "the end of the tap")
        return tab

    with open_test_window(qloop, tmp_path) as window:
        window.tap_watcher.socket = socket_path
        window.tasks.spawn(window.tap_watcher.listen(), "listening for taps")
        tab = qloop.run_until_complete(scenario(window))
        model, index = tab.model, tab.feed.index
        saved = {e.seq: e for e in read_capture(capture).events}
        assert model.rowCount() > 500 and index.held > 0
        echo = next(row for row in range(index.held) if model.event(row).method == "tools/call")
        assert model.event(echo) == saved[model.event(echo).seq]  # read back from the tap's capture
        assert tab.timeline.select_row(echo) and tab.detail.current.seq == model.event(echo).seq
        answer = tab.timeline.pair_row()
        assert answer is not None and b'"old"' in model.event(answer).raw
        assert all(model.event(row).seq in saved for row in range(0, model.rowCount(), 17))
        window.close()  # stops listening for taps
