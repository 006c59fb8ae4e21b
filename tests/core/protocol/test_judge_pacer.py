"""JudgePacer: judging takes at most its share of the time however events arrive, nothing is lost, and a
backlog past its bound is counted and said (issue 15: validation off the ingest path)."""

from __future__ import annotations

import json

from inspector.core.protocol.judge import ProtocolJudge
from inspector.core.protocol.pacer import JudgePacer
from inspector.core.wire.events import Direction
from inspector.core.wire.framing import decode_line


class FakeClock:
    """Time that passes only when judging works: each judged event costs ``cost`` seconds."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def notifications(count: int, start: int = 0):
    return [decode_line(json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                                    "params": {"level": "info", "data": i}}).encode(), Direction.S2C)
            for i in range(start, start + count)]


def test_judging_takes_at_most_its_share_of_the_time_however_often_events_arrive():
    clock = FakeClock()
    judged: list[int] = []

    def on_judged(events, _found):
        judged.extend(e.seq for e in events)
        clock.now += 0.00001 * len(events)  # 10 µs an event

    pacer = JudgePacer(ProtocolJudge("2025-11-25"), on_judged, share=0.15, step_seconds=0.004, clock=clock)
    busy = 0.0
    scheduled: float | None = None  # when the owner will call step next
    for batch in range(400):  # a flood: 260 events every millisecond
        clock.now = max(clock.now, batch * 0.001)
        if pacer.push(notifications(260, batch * 260)) and scheduled is None:
            scheduled = clock.now
        while scheduled is not None and scheduled <= clock.now:
            before = clock.now
            delay = pacer.step()
            busy += clock.now - before
            scheduled = None if delay is None else clock.now + delay
    elapsed = clock.now
    assert busy / elapsed <= 0.16, f"judging took {busy / elapsed:.0%} of the time"
    assert judged, "something was judged during the flood"
    pacer.drain()
    assert len(judged) == 400 * 260 and pacer.backlog == 0 and pacer.sentence() is None


def test_a_quiet_session_is_judged_at_once():
    found = []
    pacer = JudgePacer(ProtocolJudge("2025-11-25"), lambda events, new: found.extend(events))
    assert pacer.push(notifications(3))
    assert pacer.step() is None and len(found) == 3


def test_a_backlog_past_its_bound_is_counted_and_said():
    pacer = JudgePacer(ProtocolJudge("2025-11-25"), max_backlog=100)
    pacer.push(notifications(150))
    assert pacer.backlog == 100 and pacer.skipped == 50
    assert pacer.sentence() is not None and "50 messages were not judged" in pacer.sentence()
