"""Copy as curl on an HTTP capture (issue 18 point 4): the copied line, run by a real curl against the same
server, gets the same answer."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before Qt starts: no display here

import pytest
from helpers import until
from http_support import record_url
from PySide6.QtGui import QGuiApplication
from qt_loop import open_test_window
from qt_loop import qloop as qloop  # the shared fixture (re-exported so pytest finds it here)

from inspector.core.wire.events import Direction, Kind

CURL = shutil.which("curl")


@pytest.mark.skipif(CURL is None, reason="curl is not installed")
def test_the_copied_curl_command_gets_the_same_answer_from_the_server(qapp, qloop, sdk_streamable,
                                                                      tmp_path):
    call = {"method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}
    recorded = record_url(tmp_path, "add", sdk_streamable.url(), "--handshake", "modern", send=[call])
    assert recorded.returncode == 0, recorded.stderr
    with open_test_window(qloop, tmp_path) as window:
        tab = window.open_capture(recorded.out)
        qloop.run_until_complete(until(lambda: not tab.loading, 10, "the capture loaded"))
        row = next(r for r in range(tab.model.rowCount()) if tab.model.event(r).kind == Kind.MESSAGE
                   and tab.model.event(r).dir == Direction.C2S and b'"add"' in tab.model.event(r).raw)
        assert tab.timeline.select_row(row)
        assert tab.copier.copy("curl")
        line = QGuiApplication.clipboard().text()
    assert line.startswith("curl -sS -N -X POST http://127.0.0.1:")
    assert "mcp-protocol-version: 2026-07-28" in line.lower()
    done = subprocess.run(["sh", "-c", line], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.split("data: ")[-1] if "data: " in done.stdout else done.stdout)
    assert answer["result"]["content"][0]["text"] == "5"
