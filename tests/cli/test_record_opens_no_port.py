"""`record` opens no listening TCP port, and leaves no process of the server's group behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import warm_cli
from helpers import ROOT, wait_until

from inspector.core.capture import read_capture
from inspector.core.capture.format import CaptureError
from inspector.core.exits import EXIT_TIMEOUT
from inspector.core.transports.process_group import group_members

SILENT_SERVER = [sys.executable, "-c", "import sys; sys.stdin.read()"]  # reads until EOF, never answers
TCP_LISTEN = "0A"


def socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def listening_tcp_inodes() -> set[str]:
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not Path(table).exists():
            continue
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if fields[3] == TCP_LISTEN:
                inodes.add(fields[9])
    return inodes


def initialize_sent(capture: Path) -> bool:
    """The capture (still being written) holds the initialize request: record is now waiting for the answer."""
    if not capture.exists():
        return False
    try:
        events = read_capture(capture).events
    except CaptureError:
        return False  # not even the header yet
    return any(event.method == "initialize" for event in events)


def test_record_holds_no_listening_tcp_socket_while_it_waits_and_leaves_no_process(tmp_path):
    out = tmp_path / "c.jsonl"
    recorder = warm_cli.Popen(
        [sys.executable, "-m", "inspector", "record", "--out", str(out), "--handshake", "legacy", "--timeout", "3",
         "--", *SILENT_SERVER], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: initialize_sent(out), 30, "the initialize request in the capture")
        held = socket_inodes(recorder.pid)
        assert held, "expected at least the event loop's own (Unix) socket pair"
        assert held.isdisjoint(listening_tcp_inodes())
        stdout, stderr = recorder.communicate(timeout=30)
    finally:
        if recorder.poll() is None:
            recorder.kill()
            recorder.communicate(timeout=10)
    assert recorder.returncode == EXIT_TIMEOUT
    assert "no response to initialize within 3 s" in stderr
    spawned_pid = int(out.read_text().split('"pid":', 1)[1].split(",", 1)[0])
    assert group_members(spawned_pid) == []
