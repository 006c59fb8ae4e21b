"""The scenario server's stdio loop in this process, on pipes: a session recorded both ways to the capture with
its last note; a held answer sent on time though the client says nothing; a client that floods it stopped, the
verdict saying so."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from inspector.core.capture import read_capture
from inspector.core.clientbench.checks import FAILED
from inspector.core.clientbench.scenarios import make
from inspector.core.clientbench.server import FLOOD_MESSAGES, NOTE_END, Recorder, serve_scenario
from inspector.core.clientbench.verdicts import Outcome, judge

INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def run(name: str, data: bytes, capture: Path) -> tuple[int, bytes]:
    """Serve ``name`` with ``data`` on stdin (then its end); the status and everything written on stdout."""
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    written = bytearray()

    def feed() -> None:
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(stdin_w, view):]
        except BrokenPipeError:
            pass
        os.close(stdin_w)

    def drain() -> None:
        while chunk := os.read(stdout_r, 1 << 16):
            written.extend(chunk)

    threads = [threading.Thread(target=feed, daemon=True), threading.Thread(target=drain, daemon=True)]
    for thread in threads:
        thread.start()
    try:
        status = serve_scenario(make(name), Recorder(capture, name, ["test"]), stdin_fd=stdin_r, stdout_fd=stdout_w)
    finally:
        os.close(stdout_w)
        threads[1].join(10)
        os.close(stdin_r)
        os.close(stdout_r)
    return status, bytes(written)


def lines(*messages: dict) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


def test_a_session_is_answered_and_recorded_both_ways_with_the_servers_last_note(tmp_path: Path) -> None:
    capture = tmp_path / "handshake.jsonl"
    status, out = run("handshake", lines(INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                                          {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}), capture)
    assert status == 0
    answers = [json.loads(line) for line in out.splitlines()]
    assert [a["id"] for a in answers] == [0, 1]
    events = read_capture(capture).events
    assert [e.dir for e in events if e.rpc is not None] == ["c2s", "s2c", "c2s", "c2s", "s2c"]
    assert events[-1].data.get(NOTE_END)


def test_a_client_that_floods_the_scenario_server_is_stopped_and_fails_no_flood(tmp_path: Path) -> None:
    capture = tmp_path / "flood.jsonl"
    flood = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n' * (FLOOD_MESSAGES + 10)
    status, _ = run("handshake", lines(INITIALIZE) + flood, capture)
    assert status == 3
    checks = {c.id: c for c in judge("handshake", read_capture(capture).events, Outcome(exit_code=0), 30.0)}
    assert checks["no-flood"].status == FAILED
