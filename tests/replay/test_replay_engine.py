"""The replay engine as the GUI will use it (no CLI): a plan, a transport, a result whose outcomes carry the
differences as data (MessageDiff, WindowDelta) for a side-by-side view."""

from __future__ import annotations

import asyncio
from pathlib import Path

from replay_support import ECHO, GREET, versioned

from inspector.core.capture import read_capture
from inspector.core.connect.target import Target, make_transport
from inspector.core.replay.diff import CHANGED, MessageDiff, WindowDelta, parse_paths
from inspector.core.replay.engine import (
    EXIT_DIFFERENT,
    EXIT_SAME,
    ReplayOptions,
    ReplayPlan,
    replay,
)


def run(capture: Path, server: list[str], out: Path, *ignore: str):
    plan = ReplayPlan.from_capture(read_capture(capture), capture)
    transport = make_transport(Target(argv=server))
    return asyncio.run(replay(plan, transport, ReplayOptions(out, timeout=20, ignore=parse_paths(ignore))))


def test_the_outcomes_carry_each_difference_as_data(record, tmp_path):
    capture = record(versioned("--version", "1"), [ECHO, GREET])
    result = run(capture, versioned("--version", "2"), tmp_path / "r.jsonl")
    assert result.exit_code == EXIT_DIFFERENT and result.error is None
    by_method = {(o.step.method, o.step.recorded_id): o for o in result.outcomes}
    greet = by_method[("tools/call", 4)]
    assert greet.live_id == 4 and greet.sent and greet.response is not None
    assert greet.diffs == [MessageDiff("result.content[0].text", CHANGED, "hello, Ada (v1)", "hello, Ada (v2)",
                                       ("result", "content", 0, "text"))]
    assert greet.window == [WindowDelta("notifications/message", "extra", 1)]
    assert not by_method[("tools/call", 3)].differs
    assert [o.step.method for o in result.differing] == ["initialize", "tools/call"]


def test_an_ignored_path_is_no_difference_in_the_data_either(record, tmp_path):
    capture = record(versioned("--version", "1"), [ECHO])
    result = run(capture, versioned("--version", "2"), tmp_path / "r.jsonl", "$.result.serverInfo")
    assert result.exit_code == EXIT_SAME, result.lines()
    assert result.lines() == []


def test_an_answer_that_does_not_come_any_more_is_a_difference_with_its_reason(record, tmp_path):
    capture = record(versioned("--version", "1"), [GREET])
    result = run(capture, versioned("--version", "1", "--exit-on-greet"), tmp_path / "r.jsonl")
    greet = next(o for o in result.outcomes if o.step.method == "tools/call")
    assert greet.missing_answer and greet.response is None
    assert (greet.problem or "").startswith("the server exited with code 3 before answering tools/call")
    assert result.exit_code == EXIT_DIFFERENT


def test_an_answer_to_a_request_the_recording_left_unanswered_is_a_difference(record, tmp_path):
    capture = record(versioned("--version", "1", "--exit-on-greet"), [GREET], expect=1)
    result = run(capture, versioned("--version", "1"), tmp_path / "r.jsonl")
    greet = next(o for o in result.outcomes if o.step.method == "tools/call")
    assert greet.step.response is None and greet.unexpected_answer
    assert greet.lines() == [f"tools/call #{greet.step.event.seq} (recorded id 3 -> now 3): no answer recorded; now: "
                             '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hello, Ada …']
    assert result.exit_code == EXIT_DIFFERENT
