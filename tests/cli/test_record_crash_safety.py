"""Killing `record` with SIGKILL while a server floods loses at most the last flush window."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
import warm_cli
from helpers import DEMO, ROOT, wait_until

from inspector.core.capture import read_capture
from inspector.core.capture.writer import DEFAULT_FLUSH_INTERVAL
from inspector.core.wire.events import Kind

#: Slack on top of the flush interval for a loaded 2-core machine (the loop may run the timer late).
SCHEDULING_SLACK = 0.4


@pytest.mark.report("crash", "record killed with SIGKILL during a flood", surface="CLI")
def test_a_capture_killed_with_sigkill_during_a_flood_still_loads_with_all_but_the_last_moments(tmp_path, report):
    script = tmp_path / "flood.jsonl"
    script.write_text(json.dumps({"method": "tools/call",
                                  "params": {"name": "flood", "arguments": {"count": 1_000_000}}}) + "\n")
    out = tmp_path / "capture.jsonl"
    recorder = warm_cli.Popen(
        [sys.executable, "-m", "inspector", "record", "--out", str(out), "--send", str(script),
         "--handshake", "legacy", "--timeout", "120", "--", *DEMO],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_until(lambda: recorder.poll() is not None or (out.exists() and out.stat().st_size > 2_000_000), 60,
                   "2 MB of flood in the capture")
        assert recorder.poll() is None, "record ended before the flood could be interrupted"
        killed_at = time.time()
        recorder.send_signal(signal.SIGKILL)
        recorder.wait(timeout=10)
    finally:
        if recorder.poll() is None:
            recorder.kill()
            recorder.wait(timeout=10)
    capture = read_capture(out)
    spawned = next(e for e in capture.events if e.data.get("what") == "spawned")
    try:
        os.killpg(spawned.data["pid"], signal.SIGKILL)  # the orphaned demo server, in its own group
    except ProcessLookupError:
        pass
    assert capture.header["format"] == "mcp-inspector-capture"
    assert [e.seq for e in capture.events] == list(range(1, len(capture.events) + 1))
    floods = [e for e in capture.events if e.kind == Kind.MESSAGE and e.method == "notifications/message"]
    assert len(floods) > 1000
    lost_window = killed_at - capture.events[-1].wall
    report.figure("events saved", len(capture.events))
    report.figure("last saved event before the kill", f"{lost_window * 1000:.0f} ms")
    report.figure("flush window", f"{DEFAULT_FLUSH_INTERVAL * 1000:.0f} ms")
    assert lost_window < DEFAULT_FLUSH_INTERVAL + SCHEDULING_SLACK, (
        f"last saved event {lost_window:.3f} s before the kill")
    assert all(w.startswith("the last line") for w in capture.warnings), capture.warnings
