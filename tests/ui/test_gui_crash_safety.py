"""Killing the window with SIGKILL while a server floods it loses at most the last flush window of its capture.

The app runs as a real separate process (tests/ui/gui_driver.py runs ``mcp-inspector --demo`` offscreen and
calls the demo's ``flood`` tool from the composer), with its data folder in a temporary HOME, where the live
session's capture is saved as it runs. The twin of tests/cli/test_record_crash_safety.py.
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest
from gui_process import GuiApp, private_env
from helpers import wait_until

from inspector.core.capture import read_capture
from inspector.core.capture.writer import DEFAULT_FLUSH_INTERVAL
from inspector.core.wire.events import Kind

#: Slack on top of the flush interval for a loaded 2-core machine (as for record: the loop may run late).
SCHEDULING_SLACK = 0.4
FLOOD = json.dumps({"jsonrpc": "2.0", "method": "tools/call",
                    "params": {"name": "flood", "arguments": {"count": 1_000_000}}})


@pytest.mark.integration  # end to end through subprocesses, 7-13 s: CI's second step
@pytest.mark.report("crash", "window killed with SIGKILL during a flood", surface="GUI")
def test_the_window_killed_with_sigkill_during_a_flood_leaves_a_capture_that_loads_with_all_but_the_last_moments(
        tmp_path, report):
    home = tmp_path / "home"
    app = GuiApp(["--demo"], private_env(home), call=FLOOD)
    try:
        capture_path = Path(app.ready()["capture"])
        assert capture_path.parent == home / "data" / "mcp-inspector" / "captures"
        app.wait_for("sent")
        wait_until(lambda: app.process.poll() is not None or capture_path.stat().st_size > 3_000_000, 60,
                   "3 MB of flood in the window's capture")
        assert app.process.poll() is None, "the window ended before the flood could be interrupted"
        killed_at = time.time()
        app.process.send_signal(signal.SIGKILL)
        app.process.wait(timeout=10)
    finally:
        app.stop()  # and the orphaned demo server's group
    capture = read_capture(capture_path)
    assert capture.header["format"] == "mcp-inspector-capture"
    assert [e.seq for e in capture.events] == list(range(1, len(capture.events) + 1))
    floods = [e for e in capture.events if e.kind == Kind.MESSAGE and e.method == "notifications/message"]
    assert len(floods) > 1000
    lost_window = killed_at - capture.events[-1].wall
    report.figure("events saved", len(capture.events))
    report.figure("capture size", f"{capture_path.stat().st_size / 1e6:.1f} MB")
    report.figure("last saved event before the kill", f"{lost_window * 1000:.0f} ms")
    report.figure("flush window", f"{DEFAULT_FLUSH_INTERVAL * 1000:.0f} ms")
    assert lost_window < DEFAULT_FLUSH_INTERVAL + SCHEDULING_SLACK, (
        f"last saved event {lost_window:.3f} s before the kill")
    assert all(w.startswith("the last line") for w in capture.warnings), capture.warnings
