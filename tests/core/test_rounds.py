"""Multi-round calls (inspector/core/session/rounds.py, 2026-07-28 ``input_required``): against the Python SDK's
2026-07-28 server (tests/core/servers/sdk_modern_server.py: ``greet`` elicits a name with the SDK's Resolve) and
tests/core/servers/rounds_server.py (three rounds; one that never ends). The rounds of one call are one span; each
retry has a new id, the answers, and exactly the last answer's requestState, or none."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import warm_python

from inspector.core.capture import read_capture
from inspector.core.capture.index import CaptureIndex
from inspector.core.connect.target import Target
from inspector.core.explore.oneshot import OneShot, run_oneshot
from inspector.core.session.rounds import MAX_INPUT_ROUNDS
from inspector.core.wire.events import Event, Kind

pytestmark = [pytest.mark.integration]
SERVERS = Path(__file__).parent / "servers"
BOUND = 60


def call(script: str, tool: str, tmp_path: Path, **job):
    out = tmp_path / "rounds.jsonl"
    outcome = asyncio.run(asyncio.wait_for(run_oneshot(OneShot(
        "call", Target(name="t", argv=warm_python.command(SERVERS / script)), name=tool, out=out,
        answers={"elicitation": "accept-defaults"}, **job)), BOUND))
    return outcome, read_capture(out).events, out


def calls(events: list[Event]) -> list[Event]:
    return [e for e in events if e.kind == Kind.MESSAGE and e.dir == "c2s" and e.rpc and e.rpc.method == "tools/call"]


def test_the_sdks_multi_round_call_is_answered_retried_and_drawn_as_one_span(tmp_path):
    outcome, events, out = call("sdk_modern_server.py", "greet", tmp_path)
    assert outcome.exit_code == 0, outcome.error
    assert outcome.result["content"][0]["text"] == "Hello, Ada!"
    first, retry = calls(events)
    assert first.rpc.id != retry.rpc.id
    asked = next(e for e in events if e.data.get("reply_to") == first.seq).json()["result"]
    params = retry.json()["params"]
    assert params["requestState"] == asked["requestState"]  # echoed exactly
    [key] = asked["inputRequests"]
    assert params["inputResponses"] == {key: {"action": "accept", "content": {"name": "Ada"}}}
    index = CaptureIndex(out)
    try:
        index.scan_all()
        columns = index.columns
        rows = [columns.row_of_seq(e.seq) for e in events if e.rpc and "tools/call" in
                (e.rpc.method or e.data.get("request_method") or "")]
        spans = {columns.span_of_row.get(row) for row in rows}
        assert len(rows) == 4 and len(spans) == 1 and None not in spans  # the two rounds, both ways: one span
        assert "tools/call" in columns.span(rows[0])[1]
    finally:
        index.close()


def test_a_retry_carries_only_the_last_answers_request_state(tmp_path):
    outcome, events, _ = call("rounds_server.py", "three-rounds", tmp_path)
    assert outcome.exit_code == 0, outcome.error  # the server refuses a retry with a stale requestState
    assert outcome.result["content"][0]["text"] == "three rounds done"
    states = [c.json()["params"].get("requestState") for c in calls(events)]
    assert states == [None, "s1", None]
    assert len({c.rpc.id for c in calls(events)}) == 3


def test_a_server_that_always_asks_is_answered_a_bounded_number_of_times(tmp_path):
    outcome, events, _ = call("rounds_server.py", "never-done", tmp_path)
    assert len(calls(events)) == 1 + MAX_INPUT_ROUNDS
    assert any(e.kind == Kind.NOTE and "still needs input after" in e.data.get("text", "") for e in events)
    # an answer that still asks for input is no result (issue 39): a sentence and status 1, nothing printed
    assert outcome.exit_code == 1 and outcome.result is None
    assert f"still asked for input after {MAX_INPUT_ROUNDS} rounds" in (outcome.error or "")
