"""Killing the window with SIGKILL while a server floods it loses at most the last flush window of its capture.

The app runs as a real separate process (tests/ui/gui_driver.py runs ``mcp-inspector --demo`` offscreen and
calls the demo's ``flood`` tool from the composer), with its data folder in a temporary HOME, where the live
session's capture is saved as it runs. The twin of tests/cli/test_record_crash_safety.py.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import ROOT, wait_until
from inspector.core.capture import read_capture
from inspector.core.capture.writer import DEFAULT_FLUSH_INTERVAL
from inspector.core.events import Kind

DRIVER = Path(__file__).resolve().parent / "gui_driver.py"
#: Slack on top of the flush interval for a loaded 2-core machine (as for record: the loop may run late).
SCHEDULING_SLACK = 0.4
FLOOD = json.dumps({"jsonrpc": "2.0", "method": "tools/call",
                    "params": {"name": "flood", "arguments": {"count": 1_000_000}}})


def private_env(home: Path) -> dict[str, str]:
    """The app's environment with every per-user folder inside ``home``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    return {**env, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_CACHE_HOME": str(home / "cache"), "QT_QPA_PLATFORM": "offscreen"}


class Lines:
    """The driver's stdout, one JSON object per line, read as they come (bounded by the caller's waits)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        self.fd = process.stdout.fileno()
        os.set_blocking(self.fd, False)
        self.items: list[dict] = []
        self._partial = b""

    def poll(self) -> list[dict]:
        try:
            self._partial += os.read(self.fd, 65536)
        except BlockingIOError:
            pass
        *complete, self._partial = self._partial.split(b"\n")
        self.items += [json.loads(line) for line in complete if line.startswith(b"{")]
        return self.items

    def find(self, key: str) -> dict | None:
        return next((item for item in self.poll() if key in item), None)


@pytest.mark.report("crash", "window killed with SIGKILL during a flood", surface="GUI")
def test_the_window_killed_with_sigkill_during_a_flood_leaves_a_capture_that_loads_with_all_but_the_last_moments(
        tmp_path, report):
    home = tmp_path / "home"
    app = subprocess.Popen([sys.executable, str(DRIVER), "--call", FLOOD, "--", "--demo"], cwd=ROOT,
                           env=private_env(home), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = Lines(app)
    try:
        wait_until(lambda: app.poll() is not None or out.find("sent") is not None, 60, "the flood to be asked for")
        ready = out.find("state")
        assert ready is not None and ready["state"] == "ready", out.items
        capture_path = Path(ready["capture"])
        assert capture_path.parent == home / "data" / "mcp-inspector" / "captures"
        wait_until(lambda: app.poll() is not None or capture_path.stat().st_size > 3_000_000, 60,
                   "3 MB of flood in the window's capture")
        assert app.poll() is None, "the window ended before the flood could be interrupted"
        killed_at = time.time()
        app.send_signal(signal.SIGKILL)
        app.wait(timeout=10)
    finally:
        if app.poll() is None:
            app.kill()
            app.wait(timeout=10)
        app.stdout.close()  # type: ignore[union-attr]
    capture = read_capture(capture_path)
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
    report.figure("capture size", f"{capture_path.stat().st_size / 1e6:.1f} MB")
    report.figure("last saved event before the kill", f"{lost_window * 1000:.0f} ms")
    report.figure("flush window", f"{DEFAULT_FLUSH_INTERVAL * 1000:.0f} ms")
    assert lost_window < DEFAULT_FLUSH_INTERVAL + SCHEDULING_SLACK, f"last saved event {lost_window:.3f} s before the kill"
    assert all(w.startswith("the last line") for w in capture.warnings), capture.warnings
