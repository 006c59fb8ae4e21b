"""tests/data/sample-v1.jsonl is a real v1 capture (the demo server with a banner and junk on stdout).

It must always load, with the same content: later versions of the reader keep reading v1 files.
"""

from __future__ import annotations

from helpers import ROOT, cli

from inspector.core.capture import read_capture
from inspector.core.wire.events import Direction, Kind

SAMPLE = ROOT / "tests" / "data" / "sample-v1.jsonl"


def test_the_v1_sample_loads_without_warnings_and_keeps_its_header():
    capture = read_capture(SAMPLE)
    assert capture.warnings == []
    assert capture.header["format"] == "mcp-inspector-capture" and capture.header["version"] == 1
    assert capture.target["transport"] == "stdio"
    assert capture.target["env"] == {"DEMO_API_TOKEN": "[redacted]"}
    assert "s3cret" not in SAMPLE.read_text()


def test_the_v1_sample_has_the_handshake_paired_and_the_junk_explained():
    events = read_capture(SAMPLE).events
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    initialize = next(e for e in events if e.method == "initialize")
    response = next(e for e in events if e.data.get("reply_to") == initialize.seq)
    assert response.dir == Direction.S2C and response.data["latency"] > 0
    assert any(e.method == "notifications/initialized" and e.dir == Direction.C2S for e in events)
    junk = [e for e in events if e.kind == Kind.FRAMING_ERROR]
    assert [e.raw for e in junk] == [b"demo server starting", b"hello from print()", b"\xff\xfe bad bytes"]
    assert all(e.reason for e in junk)
    assert events[-1].data == {"what": "exited", "pid": events[0].data["pid"], "code": 0}


def test_show_prints_the_v1_sample_with_methods_latency_and_reasons():
    result = cli("show", str(SAMPLE))
    assert result.returncode == 0, result.stderr
    assert "initialize #1" in result.stdout and " ms " in result.stdout
    assert "notifications/initialized" in result.stdout
    assert "not valid UTF-8: byte FF at offset 0" in result.stdout
    assert "<b>x</b><img src=q>" in result.stdout  # server text shown literally
