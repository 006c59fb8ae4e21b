"""Caching hints and trace context in the window, against the Python SDK's 2026-07-28 server
(tests/core/servers/sdk_modern_server.py: tools/list fresh for 60 s and public, resources/read 5 s and private):
the Explorer's caching line says how long each list and the resource read are fresh, and the detail pane says a
selected answer's hints and a message's traceparent. Screenshots in the test's folder. One coroutine on the
window's loop (see test_explorer_tasks.py)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import warm_python
from explorer_support import BOUND, rows
from helpers import until
from qt_loop import open_test_window

from inspector.core.connect.target import Target
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Event, Kind

pytestmark = [pytest.mark.integration]
SERVER = Path(__file__).resolve().parents[1] / "core" / "servers" / "sdk_modern_server.py"
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def test_the_explorer_and_the_detail_say_how_long_results_are_fresh_and_what_trace_they_carry(qtbot, qloop,
                                                                                              tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        tab = win.open_live(Target(name="sdk", argv=warm_python.command(SERVER)))
        explorer = tab.explorer
        caching = explorer.extensions.caching

        async def scenario() -> None:
            await until(lambda: explorer.catalog.settled and "prompts" in caching.text(), BOUND,
                        "every list's hints")
            assert "tools fresh 60 s, public" in caching.text() and "resources stale, private" in caching.text()
            explorer.read("test://greeting")
            await until(lambda: "read test://greeting: fresh 5 s, private" in caching.text(), BOUND,
                        "the read's hints")

        qloop.run_until_complete(asyncio.wait_for(scenario(), 3 * BOUND))
        tab.window().resize(1600, 1000)
        if not explorer.isVisible():
            tab.explorer_toggle.click()
        answer = next(e for e in rows(tab, "tools/list") if e.dir == "s2c")
        tab.detail.show_event(answer)
        assert "cache: fresh for 60 s, public" in tab.detail.notes.text()
        tab.detail.layout().activate()
        assert tab.grab().save(str(tmp_path / "detail-caching.png"))

        obj = {"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {
            "name": "echo", "arguments": {"message": "hi"}, "_meta": {"traceparent": TRACEPARENT,
                                                                     "baggage": "userId=alice"}}}
        info, _ = jsonrpc.classify(obj)
        tab.detail.show_event(Event(Kind.MESSAGE, json.dumps(obj).encode(), "c2s", rpc=info, seq=99))
        notes = tab.detail.notes
        assert f"trace: traceparent {TRACEPARENT} (trace 4bf92f3577b34da6a3ce929d0e0e4736" in notes.text()
        assert "trace: baggage userId=alice" in notes.text()
        tab.detail.layout().activate()  # as the window's next layout pass does
        assert notes.isVisible() and notes.height() >= 2 * notes.fontMetrics().lineSpacing()  # both lines shown
        assert tab.detail.grab().save(str(tmp_path / "detail-trace.png"))
