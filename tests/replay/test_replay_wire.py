"""What goes on the wire in a replay: broken lines resent byte for byte (with a note), the same client bytes
as the recording, and a 2026-07-28 multi round-trip retry that carries this run's requestState."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from replay_support import SERVERS, versioned

from inspector.core.capture import read_capture
from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.session.session import Session
from inspector.core.transports.stdio import StdioTransport
from inspector.core.wire.events import Direction, Kind

ASKS_INPUT = [sys.executable, str(SERVERS / "asks_input_server.py")]


def record_raw_lines(out: Path) -> None:
    """A session like one from the window's raw composer: a line that is not JSON, one that is not UTF-8."""

    async def run() -> None:
        transport = StdioTransport(versioned())
        writer = CaptureWriter(out, make_header(transport.describe()))
        session = Session(transport, capture=writer)
        try:
            await session.start()
            await session.handshake("legacy", timeout=20)
            await session.send_raw(b"this is not json\n")
            await session.send_raw(b"\xff\xfe{}\n")
            await session.request("tools/list", timeout=20)
        finally:
            await session.close()
            writer.close()

    asyncio.run(run())


def client_bytes(path: Path) -> bytes:
    return b"".join(e.raw + e.eol for e in read_capture(path).events
                    if e.dir == Direction.C2S and e.kind in (Kind.MESSAGE, Kind.FRAMING_ERROR))


def test_broken_lines_are_resent_byte_for_byte_with_a_note_each(replay, tmp_path):
    capture = tmp_path / "raw.jsonl"
    record_raw_lines(capture)
    junk, binary = [e.seq for e in read_capture(capture).events if e.kind == Kind.FRAMING_ERROR and e.dir == "c2s"]
    out = tmp_path / "r.jsonl"
    result = replay(capture, "--out", str(out), target=versioned())
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith(f"note: framing error #{junk}: resent byte for byte: it was a framing error (")
               for line in lines)
    assert f"note: framing error #{binary}: resent byte for byte: its bytes are not valid UTF-8" in lines
    assert client_bytes(out) == client_bytes(capture)
    replayed = [e for e in read_capture(out).events if e.kind == Kind.FRAMING_ERROR and e.dir == "c2s"]
    assert [e.data["replay_of"] for e in replayed] == [junk, binary]


def test_a_multi_round_trip_retry_carries_this_runs_request_state(record, replay, tmp_path):
    confirm = {"method": "tools/call", "params": {"name": "confirm", "arguments": {}}}
    capture = record(ASKS_INPUT, [confirm], "--answer", "elicitation=accept-defaults")
    out = tmp_path / "r.jsonl"
    result = replay(capture, "--out", str(out), target=ASKS_INPUT)
    assert result.returncode == 0, result.stdout + result.stderr
    calls = [e.json() for e in read_capture(out).events if e.method == "tools/call"]
    answers = [e.json() for e in read_capture(out).events if e.data.get("request_method") == "tools/call"]
    assert answers[0]["result"]["resultType"] == "input_required"
    assert calls[1]["params"]["requestState"] == answers[0]["result"]["requestState"]
    recorded_state = next(e.json() for e in read_capture(capture).events
                          if e.data.get("request_method") == "tools/call")["result"]["requestState"]
    assert calls[1]["params"]["requestState"] != recorded_state
    assert answers[1]["result"]["resultType"] == "complete"
