"""Caching hints and trace context in the window, against the Python SDK's 2026-07-28 server
(tests/core/servers/sdk_modern_server.py: tools/list fresh for 60 s and public, resources/read 5 s and private):
the Explorer's caching line says how long each list and the resource read are fresh, and the detail pane says a
selected answer's hints and a message's traceparent. Screenshots in the test's folder."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from explorer_support import rows, wait
from qt_loop import open_test_window

from inspector.core.session.target import Target
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Event, Kind

pytestmark = [pytest.mark.integration]
SERVER = Path(__file__).resolve().parents[1] / "core" / "servers" / "sdk_modern_server.py"
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def test_the_explorer_and_the_detail_say_how_long_results_are_fresh_and_what_trace_they_carry(qtbot, qloop,
                                                                                              tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        tab = win.open_live(Target(name="sdk", argv=[sys.executable, str(SERVER)]))
        explorer = tab.explorer
        caching = explorer.extensions.caching
        wait(qloop, lambda: explorer.catalog.settled and "prompts" in caching.text(), "every list's hints")
        assert "tools fresh 60 s, public" in caching.text() and "resources stale, private" in caching.text()
        explorer.read("test://greeting")
        wait(qloop, lambda: "read test://greeting: fresh 5 s, private" in caching.text(), "the read's hints")
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
        banner = tab.detail.notes.text()
        assert f"trace: traceparent {TRACEPARENT} (trace 4bf92f3577b34da6a3ce929d0e0e4736" in banner
        assert "trace: baggage userId=alice" in banner
        tab.detail.layout().activate()  # as the window's next layout pass does
        notes = tab.detail.notes
        assert notes.isVisible() and notes.height() >= 2 * notes.fontMetrics().lineSpacing()  # both lines shown
        assert tab.detail.grab().save(str(tmp_path / "detail-trace.png"))
