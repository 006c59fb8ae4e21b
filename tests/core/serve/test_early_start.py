"""A big capture's initialize is answered from the capture's start while the whole capture is indexed in a thread,
exactly as the twin of the whole capture answers it; anything else, and an initialize whose answer more of the
capture could change, waits for the whole index."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from lines_capture import write_lines

from inspector.core.capture import index as capture_index
from inspector.core.serve import early as early_module
from inspector.core.serve.early import EarlyStart
from inspector.core.serve.index import IndexStopped, ServeIndex
from inspector.core.serve.stdio import serve_stdio
from inspector.core.serve.twin import Twin
from inspector.core.wire.events import Direction
from inspector.core.wire.framing import decode_line

C, S = Direction.C2S, Direction.S2C
WAIT = 30.0


@pytest.fixture(autouse=True)
def small_pieces(tmp_path, monkeypatch):
    """Any capture is served early, its start read in small chunks; caches go to this test's folder."""
    monkeypatch.setattr(early_module, "EARLY_FROM_BYTES", 1)
    monkeypatch.setattr(capture_index, "CHUNK_BYTES", 512)
    monkeypatch.setenv("MCP_INSPECTOR_CACHE", str(tmp_path / "cache"))


def initialize(number: int = 0, version: str = "2025-11-25") -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": number, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}).encode()


def initialized() -> bytes:
    return b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


def answer(number: int, version: str = "2025-11-25") -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": number, "result": {
        "protocolVersion": version, "capabilities": {"tools": {"listChanged": True}},
        "serverInfo": {"name": "s", "version": "1"}}}).encode()


def call(number: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": number, "method": "tools/call",
                       "params": {"name": "echo", "arguments": {"n": number, "pad": "x" * 200}}}).encode()


def result(number: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": number, "result": {"content": [
        {"type": "text", "text": f"answer {number}"}]}}).encode()


LIST_CHANGED = b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}'


write = write_lines


def calls(first: int, last: int) -> list[tuple[str, bytes]]:
    return [line for n in range(first, last) for line in ((C, call(n)), (S, result(n)))]


def session(path: Path) -> Path:
    """A handshake (a list_changed after the client's initialized), then 40 calls: many chunks."""
    return write(path, [(C, initialize()), (S, answer(0)), (C, initialized()), (S, LIST_CHANGED), *calls(1, 41)])


class Gate:
    """A build of the whole index that waits until the test opens the gate."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.open = threading.Event()
        self.started = threading.Event()

    def __call__(self, stop: threading.Event) -> ServeIndex:
        self.started.set()
        assert self.open.wait(WAIT)
        return ServeIndex(self.path, stop=stop)


def client(lines: list[bytes]) -> int:
    """A pipe that holds the client's lines, then its end: the read side."""
    read, write_side = os.pipe()
    os.write(write_side, b"".join(line + b"\n" for line in lines))
    os.close(write_side)
    return read


def keeping(sent: list[bytes]) -> Callable[[bytes], bool]:
    """A ``write`` that keeps what is sent in ``sent``."""
    def write(data: bytes) -> bool:
        sent.append(data)
        return True
    return write


def served_whole(path: Path, lines: list[bytes]) -> list[bytes]:
    """What the twin of the whole capture sends for the client's lines."""
    with_index = ServeIndex(path)
    twin = Twin(with_index)
    out = [o.line for line in lines for o in twin.receive(decode_line(line, C))]
    with_index.close()
    return out


def test_initialize_is_answered_before_the_whole_capture_is_indexed_as_the_whole_twin_answers_it(tmp_path):
    path = session(tmp_path / "big.jsonl")
    lines = [initialize(7), initialized(), call(3), call(40)]
    want = served_whole(path, lines)
    gate = Gate(path)
    early = EarlyStart.begin(path, "auto", build=gate)
    assert early is not None
    assert early.start.capture.scanned < path.stat().st_size  # only the start was read
    sent: list[bytes] = []
    stdin = client(lines)
    try:
        pending = early.serve_handshake(max_message=1 << 20, stdin_fd=stdin,
                                        write=keeping(sent))
        assert gate.started.wait(WAIT) and not early.ready  # the whole index is not built yet
        assert b"".join(sent).splitlines() == want[:1]  # initialize answered, as recorded
        assert pending is not None and pending.startswith(initialized())  # the rest waits for the whole index
        gate.open.set()
        twin = early.twin()
        serve_stdio(twin, max_message=1 << 20, stdin_fd=stdin, pending=pending,
                    write=keeping(sent))
    finally:
        os.close(stdin)
        early.close()
    assert b"".join(sent).splitlines() == want
    assert twin.answered == 3
    twin.index.close()


def test_an_initialize_asking_another_revision_waits_for_the_whole_index(tmp_path):
    """A server/discover recorded later could offer the revision asked for: the start cannot settle the answer."""
    path = session(tmp_path / "big.jsonl")
    gate = Gate(path)
    early = EarlyStart.begin(path, "auto", build=gate)
    assert early is not None
    try:
        assert early.answer(decode_line(initialize(1, "2025-06-18"), C)) is None
        assert early.answer(decode_line(call(3), C)) is None
        assert early.answer(decode_line(initialize(2), C)) is not None
    finally:
        gate.open.set()
        early.close()


def test_an_earlier_initialize_answered_past_the_start_leaves_the_handshake_to_the_whole_index(tmp_path,
                                                                                                  monkeypatch):
    """The whole index answers from the first initialize with a result: one whose answer the start does not hold
    yet may be it, so nothing is answered early."""
    path = write(tmp_path / "late.jsonl", [(C, initialize(0)), (C, initialize(1)), (S, answer(1, "2025-06-18")),
                                           *calls(2, 40), (S, answer(0))])
    start = ServeIndex.start_of(path, 2048)
    assert not start.handshake_settled()
    start.close()
    monkeypatch.setattr(early_module, "START_BYTES", 2048)
    assert EarlyStart.begin(path, "auto") is None
    whole = ServeIndex(path)
    assert whole.handshake_answer("initialize")[1]["id"] == 0  # type: ignore[index]
    whole.close()


def test_a_handshake_whose_followers_run_past_the_start_is_not_answered_early(tmp_path, monkeypatch):
    """What the server sent after initialize, up to the client's next message, must all be in the start."""
    path = write(tmp_path / "chatty.jsonl", [(C, initialize()), (S, answer(0)), *[(S, LIST_CHANGED)] * 40,
                                             (C, initialized()), *calls(1, 3)])
    start = ServeIndex.start_of(path, 1024)
    assert start.capture.scanned < path.stat().st_size and not start.handshake_settled()
    start.close()
    monkeypatch.setattr(early_module, "START_BYTES", 1024)
    assert EarlyStart.begin(path, "auto") is None


def test_a_session_that_ends_after_the_handshake_stops_the_index_being_built(tmp_path):
    path = session(tmp_path / "big.jsonl")
    early = EarlyStart.begin(path, "auto")
    assert early is not None
    stdin = client([initialize()])
    try:
        assert early.serve_handshake(max_message=1 << 20, stdin_fd=stdin, write=lambda data: True) is None
    finally:
        os.close(stdin)
    early.close()  # stops the build (or closes the index it built)
    assert early.ready


def test_a_stopped_scan_raises_and_leaves_nothing_open(tmp_path):
    path = session(tmp_path / "big.jsonl")
    stop = threading.Event()
    stop.set()
    with pytest.raises(IndexStopped):
        ServeIndex(path, stop=stop)
