"""The tap's recorder and a session record the same bytes the same way: one pipeline numbers, pairs and
flags them, so their captures agree event for event (seq, times, pairing, latency, findings)."""

from __future__ import annotations

import asyncio
import json

from helpers import ROOT, until
from tap_support import SCRIPT

from inspector.core.capture import read_capture
from inspector.core.capture.format import event_to_line
from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.session.session import Session
from inspector.core.tap.options import C2S, C2S_EOF, LIFECYCLE, NOTE, S2C, S2C_EOF, STDERR, STDERR_EOF
from inspector.core.tap.recorder import Recorder
from inspector.core.transports.stdio import StdioTransport
from inspector.core.wire.events import Direction, Event, Kind


async def record_a_session(out) -> Session:
    """A session with the script server that makes every kind of pairing and finding: a handshake whose
    revision forbids batches, a batch, a reused id answered twice, junk and CRLF from the server, an answer
    to nothing, stderr, and unterminated last lines."""
    writer = CaptureWriter(out, make_header({"transport": "stdio", "argv": SCRIPT}))
    session = Session(StdioTransport(SCRIPT, cwd=str(ROOT)), capture=writer)
    await session.start()
    try:
        await session.request_object({"jsonrpc": "2.0", "id": 1, "method": "initialize"}, timeout=30)
        await session.send_raw(b'[{"jsonrpc":"2.0","id":7,"method":"ping"}]\n')
        await session.send_raw(b'{"jsonrpc":"2.0","id":5,"method":"a"}\n{"jsonrpc":"2.0","id":5,"method":"b"}\n')
        await until(lambda: session.counts["s2c"] >= 3, 30, "both answers to id 5")
        await session.request_object({"jsonrpc": "2.0", "id": 6, "method": "junk"}, timeout=30)
        await session.send_raw(b'{"jsonrpc":"2.0","id":99,"result":{}}\n')
    finally:
        await session.close()
        writer.close()
    return session


def frames_of(events: list[Event]) -> list[tuple[int, float, float, bytes]]:
    """The frames the tap's relay would have sent the recorder for these events, with their times."""
    frames = []
    for e in events:
        if e.kind in (Kind.MESSAGE, Kind.FRAMING_ERROR):
            tag = C2S if e.dir == Direction.C2S else S2C
            frames.append((tag, e.t, e.wall, e.raw + e.eol))
            if not e.eol:  # an unterminated last line is only known to be whole at the end of the stream
                frames.append((tag + 3, e.t, e.wall, b""))
        elif e.kind == Kind.STDERR:
            frames.append((STDERR, e.t, e.wall, e.raw + e.eol))
            if not e.eol:
                frames.append((STDERR_EOF, e.t, e.wall, b""))
        elif e.kind in (Kind.LIFECYCLE, Kind.NOTE):
            tag = LIFECYCLE if e.kind == Kind.LIFECYCLE else NOTE
            frames.append((tag, e.t, e.wall, json.dumps(dict(e.data)).encode()))
        else:
            raise AssertionError(f"a stdio session has no {e.kind} events")
    assert C2S_EOF == C2S + 3 and S2C_EOF == S2C + 3
    return frames


def test_the_taps_recorder_numbers_pairs_and_flags_the_same_bytes_exactly_as_a_session_does(tmp_path):
    session_out, tap_out = tmp_path / "session.jsonl", tmp_path / "tap.jsonl"
    session = asyncio.run(asyncio.wait_for(record_a_session(session_out), 60))
    events = session.events

    writer = CaptureWriter(tap_out, make_header({"transport": "stdio", "argv": SCRIPT}))
    recorder = Recorder(writer)
    for tag, t, wall, payload in frames_of(events):
        recorder.frame(tag, t, wall, payload)
    recorder.finish(events[-1].t, events[-1].wall)
    writer.close()

    by_session, by_tap = read_capture(session_out).events, read_capture(tap_out).events
    assert len(by_tap) == len(by_session) == len(events)
    for ours, theirs in zip(by_tap, by_session, strict=True):
        # seq, times, kind, bytes, pairing (reply_to, latency, request_method), findings
        assert ours == theirs, (ours, ours.findings, dict(ours.data), theirs.findings, dict(theirs.data))
    codes = {f.code for e in by_session for f in e.findings}
    assert {"batch-not-allowed", "id-reused", "already-answered", "unknown-id"} <= codes
    assert [e.data["request_method"] for e in by_session if "reply_to" in e.data] == ["initialize", "b", "junk"]
    assert any(e.kind == Kind.FRAMING_ERROR for e in by_session)
    assert recorder.pipeline.counts == session.counts
    assert session.counts["c2s"] == 6 and session.counts["framing_errors"] >= 2 and session.counts["findings"] >= 4


def test_no_event_changes_after_the_session_saved_it(tmp_path):
    out = tmp_path / "session.jsonl"
    session = asyncio.run(asyncio.wait_for(record_a_session(out), 60))
    saved = out.read_text(encoding="utf-8").splitlines(keepends=True)[1:]  # after the header
    assert [event_to_line(event) for event in session.events] == saved  # the events as they are now
