"""The status line's wording for a live session, a live tap and an opened capture (core/session/status.py)."""

from __future__ import annotations

from pathlib import Path

from inspector.core.session.outcomes import ServerInfo
from inspector.core.session.status import capture_status, live_status, tap_dropped, tap_ended_state, tap_status

QUIET = {"c2s": 0, "s2c": 0, "framing_errors": 0, "cut_by_stop": 0, "findings": 0, "stderr": 0}


def test_a_live_session_says_its_state_its_server_and_its_counts() -> None:
    info = ServerInfo(era="legacy", protocol_version="2025-11-25", name="srv", version="1.2",
                      capabilities={"tools": {}, "prompts": {}})
    counts = {**QUIET, "c2s": 3, "s2c": 1200, "findings": 2}
    assert live_status("ready", "", info, counts) == (
        "ready · srv 1.2 · 2025-11-25 (legacy) · prompts, tools · 1,203 messages (1,200 in / 3 out) · "
        "2 protocol findings")


def test_a_live_session_before_its_handshake_says_its_state_and_why() -> None:
    counts = {**QUIET, "framing_errors": 1, "cut_by_stop": 1, "stderr": 4}
    assert live_status("failed", "the server exited", None, counts) == (
        "failed: the server exited · 0 messages (0 in / 0 out) · 1 framing error · its last line cut by the "
        "stop · 4 stderr lines")


def test_a_live_session_says_how_many_messages_wait_at_a_breakpoint_right_after_its_state() -> None:
    assert live_status("ready", "", None, QUIET, paused=1) == (
        "ready · 1 message paused at a breakpoint · 0 messages (0 in / 0 out)")
    assert live_status("ready", "", None, QUIET, paused=3).startswith("ready · 3 messages paused at a breakpoint · ")
    assert "paused" not in live_status("ready", "", None, QUIET, paused=0)


def test_a_tap_says_who_drives_and_how_it_ended() -> None:
    hello = {"name": "t1", "target": {"transport": "stdio", "argv": ["srv"]}, "capture": "/c.jsonl"}
    assert tap_status(hello, "live", 5).startswith("tap t1 (live) · read-only: the client drives · ")
    assert tap_status(hello, "live", 5).endswith(" · 5 events · capture /c.jsonl")
    assert tap_ended_state({"exit": 3}, hello) == "ended: the server exited with 3"
    assert tap_ended_state({"exit": 0}, {"target": {"url": "http://127.0.0.1:1/mcp"}}) == "ended: the tap was stopped"
    assert tap_ended_state(None, hello) == "the tap went away without saying how the server ended"
    assert tap_dropped(0) == "" and tap_dropped(1500) == " · 1,500 events were too fast for the window (all are " \
                                                         "in the capture)"


def test_an_opened_capture_says_what_it_is_and_its_warnings_once_read() -> None:
    header = {"created": "2026-01-01T00:00:00Z"}
    target = {"transport": "stdio", "argv": ["srv"]}
    loading = capture_status(Path("/c.jsonl"), "loading 40%", 10, True, header, target, ["a line was cut"])
    assert loading.startswith("loading 40%: /c.jsonl · 10 events so far · recorded 2026-01-01T00:00:00Z from stdio ")
    assert "cut" not in loading
    done = capture_status(Path("/c.jsonl"), "", 12, False, header, target, ["a line was cut"])
    assert done.startswith("opened read-only: /c.jsonl · 12 events · ") and done.endswith(" · a line was cut")
