"""The tap's two relay paths carry the same bytes: the zero-copy one (Linux, ``tee``/``splice`` between pipes,
inspector/core/tap/splice.py) and the copying one (anything else, or ``MCP_INSPECTOR_TAP_SPLICE=0``). Both
give the server and the client exactly what the other sent, a UTF-8 character split across writes, a line
far larger than a pipe, the end of each stream, and the capture has the same bytes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from helpers import ROOT, wait_until
from tap_support import TIMEOUT, lifecycle, stop, tap, wire

from inspector.core.capture import read_capture
from inspector.core.tap import splice

#: Echoes what it reads, chunk by chunk, without looking at it.
ECHO = [sys.executable, "-c", "import os\nwhile data := os.read(0, 65536):\n    os.write(1, data)\n"]
#: A line bigger than the relay's pipes (1 MiB), so it takes many reads and writes.
HUGE = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"' + b"x" * (5 << 20) + b'"}}\n'
#: "é" is C3 A9: the first write ends after C3, the second starts with A9.
HEAD = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"note":"caf\xc3'
TAIL = b'\xa9"}}\n' + HUGE + b'{"jsonrpc":"2.0","id":2,"method":"last, without newline"}'

PATHS = [
    pytest.param("1", ["stdin", "stdout"], id="zero-copy",
                 marks=pytest.mark.skipif(not splice.available(), reason="tee/splice between pipes is Linux only")),
    pytest.param("0", [], id="copying"),
]


def relay_through_tap(tmp_path: Path, setting: str, stdout: int | None = subprocess.PIPE
                      ) -> tuple[bytes, Path, int]:
    """Send HEAD, wait until its echo is back (so the split character really is split on the wire), send TAIL,
    close stdin; returns what came back on stdout, the capture, and the exit status."""
    capture = tmp_path / "c.jsonl"
    env = {**os.environ, splice.SPLICE_ENV: setting}
    process = subprocess.Popen(tap(*ECHO, capture=capture), stdin=subprocess.PIPE, stdout=stdout,
                               stderr=subprocess.PIPE, cwd=ROOT, env=env)
    received = bytearray()
    out_path = tmp_path / "out.bin"

    def collect() -> None:
        assert process.stdout is not None
        while chunk := os.read(process.stdout.fileno(), 1 << 20):
            received.extend(chunk)

    def echoed() -> bytes:
        return bytes(received) if process.stdout is not None else out_path.read_bytes()

    reader = threading.Thread(target=collect, daemon=True) if process.stdout is not None else None
    try:
        if reader is not None:
            reader.start()
        assert process.stdin is not None
        process.stdin.write(HEAD)
        process.stdin.flush()
        wait_until(lambda: echoed() == HEAD, TIMEOUT, "the first half of the split character to come back")
        process.stdin.write(TAIL)
        process.stdin.close()
        status = process.wait(timeout=TIMEOUT)
        if reader is not None:
            reader.join(TIMEOUT)
            assert not reader.is_alive(), "stdout did not reach EOF"
        return echoed(), capture, status
    finally:
        stop(process)


@pytest.mark.parametrize(("setting", "zero_copy"), PATHS)
def test_both_relay_paths_pass_a_split_character_a_huge_line_and_the_end_unchanged(tmp_path, setting, zero_copy):
    echoed, capture_path, status = relay_through_tap(tmp_path, setting)
    assert status == 0
    assert echoed == HEAD + TAIL  # every byte back, in order, and EOF after the last line without newline
    capture = read_capture(capture_path)
    assert capture.warnings == []
    assert wire(capture, "c2s") == HEAD + TAIL
    assert wire(capture, "s2c") == HEAD + TAIL
    spawned = lifecycle(capture, "spawned")
    assert len(spawned) == 1 and spawned[0].data["zero_copy"] == zero_copy  # the path we meant to test
    assert lifecycle(capture, "stdin_closed") and lifecycle(capture, "exited")


@pytest.mark.skipif(not splice.available(), reason="tee/splice between pipes is Linux only")
def test_a_client_stdout_that_is_a_file_is_copied_while_its_stdin_pipe_is_spliced(tmp_path):
    with (tmp_path / "out.bin").open("wb") as out:
        echoed, capture_path, status = relay_through_tap(tmp_path, "1", stdout=out.fileno())
    assert status == 0
    assert echoed == HEAD + TAIL
    capture = read_capture(capture_path)
    assert wire(capture, "c2s") == wire(capture, "s2c") == HEAD + TAIL
    assert lifecycle(capture, "spawned")[0].data["zero_copy"] == ["stdin"]
