"""`record --progress`: progress notifications restart --timeout up to --max-time; a timed-out request is
cancelled with notifications/cancelled (never the handshake's own requests)."""

from __future__ import annotations

import json

from helpers import DEMO, cli

from inspector.core.capture import read_capture
from inspector.core.exits import EXIT_TIMEOUT
from inspector.core.wire.events import Direction

SLOW = {"method": "tools/call", "params": {"name": "slow_count", "arguments": {"count": 5, "delay_ms": 400}}}


def record_slow(tmp_path, *options: str):
    send = tmp_path / "send.jsonl"
    send.write_text(json.dumps(SLOW) + "\n")
    out = tmp_path / "c.jsonl"
    result = cli("record", "--out", str(out), "--send", str(send), "--handshake", "legacy", "--timeout", "1",
                 *options, "--", *DEMO)
    return result, read_capture(out).events


def test_progress_every_400_ms_keeps_a_2_s_call_alive_under_a_1_s_timeout(tmp_path):
    result, events = record_slow(tmp_path, "--progress")
    assert result.returncode == 0, result.stderr
    call = next(e for e in events if e.method == "tools/call")
    assert call.json()["params"]["_meta"]["progressToken"] == "progress-2"
    progress = [e for e in events if e.method == "notifications/progress"]
    assert len(progress) == 5
    assert next(e for e in events if e.data.get("reply_to") == call.seq).data["latency"] > 1.0


def test_without_progress_the_same_call_times_out_and_is_cancelled(tmp_path):
    result, events = record_slow(tmp_path)
    assert result.returncode == EXIT_TIMEOUT
    assert result.stderr.strip() == ("mcp-inspector: no response to tools/call within 1 s; raise --timeout to wait "
                                     "longer")
    cancelled = [e.json() for e in events if e.method == "notifications/cancelled" and e.dir == Direction.C2S]
    assert cancelled == [{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
        "requestId": 2, "reason": "mcp-inspector stopped waiting: no response to tools/call within 1 s"}}]


def test_max_time_ends_a_request_that_keeps_reporting_progress(tmp_path):
    result, _ = record_slow(tmp_path, "--progress", "--max-time", "1.5")
    assert result.returncode == EXIT_TIMEOUT
    assert result.stderr.strip() == ("mcp-inspector: no response to tools/call within 1.5 s in all, though it "
                                     "reported progress; raise --max-time to wait longer")
