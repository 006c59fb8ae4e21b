"""Judging off the ingest path, with a CPU budget: :class:`JudgePacer` queues what arrives and judges it in
short steps that take at most :data:`CPU_SHARE` of the time while a backlog lasts.

Why: judging a message (parse it again, check it against its schema, keep the lifecycle state) costs about as
much as recording it. Done inline, a flood of notifications would be taken in at half speed; paced, the
inspector keeps reading at full speed and the findings follow, a moment later during a flood and at once
otherwise (a step runs as soon as the owner schedules it when the backlog is small).

The pacer is Qt-free and has no clock of its own scheduling: the owner calls :meth:`step` when the delay it
returned has passed (the window with a single-shot timer, a benchmark with ``loop.call_later``). A backlog that
grows past :data:`MAX_BACKLOG` (a flood faster than the budget for minutes) stops being queued: the messages
after that are counted in :attr:`skipped` and said in :meth:`sentence`, never silently left out.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable

from inspector.core.protocol.judge import ProtocolFinding, ProtocolJudge
from inspector.core.wire.events import Event

#: the share of the CPU judging takes while there is a backlog (so ingest keeps at least 85% of its speed)
CPU_SHARE = 0.15
#: one step judges for about this long before it hands the loop back
STEP_SECONDS = 0.004
#: events judged between two looks at the clock
CHUNK = 64
#: events waiting to be judged beyond which new ones are counted, not queued
MAX_BACKLOG = 2_000_000

Judged = Callable[[list[Event], list[ProtocolFinding]], None]


class JudgePacer:
    """``push`` events as they arrive; call ``step`` when it asks to be called; ``on_judged(events, findings)``
    hears each judged chunk (the window repaints those rows and fills its Problems panel)."""

    def __init__(self, judge: ProtocolJudge, on_judged: Judged | None = None, *, share: float = CPU_SHARE,
                 step_seconds: float = STEP_SECONDS, max_backlog: int = MAX_BACKLOG,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.judge = judge
        self.on_judged = on_judged
        self.share = share
        self.step_seconds = step_seconds
        self.max_backlog = max_backlog
        self.clock = clock
        self.skipped = 0  #: events that arrived while the backlog was full, never judged
        self._queue: deque[Event] = deque()
        self._next_at = 0.0  # judging may not start again before this (the budget's rest after the last step)

    @property
    def backlog(self) -> int:
        return len(self._queue)

    def push(self, events: Iterable[Event]) -> bool:
        """Queue events; True when the queue was empty before (the owner should schedule a step now)."""
        was_idle = not self._queue
        room = self.max_backlog - len(self._queue)
        batch = list(events)
        if len(batch) > room:
            self.skipped += len(batch) - max(room, 0)
            batch = batch[:max(room, 0)]
        self._queue.extend(batch)
        return was_idle and bool(self._queue)

    def step(self) -> float | None:
        """Judge for about ``step_seconds``; returns the delay before the next step (keeping judging at
        ``share`` of the time), or None when nothing is left. Called before the budget allows, it judges nothing
        and returns how long to wait: the share holds however often events arrive."""
        start = self.clock()
        if start < self._next_at:
            return self._next_at - start if self._queue else None
        queue = self._queue
        while queue:
            count = min(CHUNK, len(queue))
            chunk = [queue.popleft() for _ in range(count)]
            found = self.judge.feed(chunk)
            if self.on_judged is not None:
                self.on_judged(chunk, found)
            if self.clock() - start >= self.step_seconds:
                break
        end = self.clock()
        rest = (end - start) * (1 - self.share) / self.share
        self._next_at = end + rest
        return rest if queue else None

    def drain(self) -> None:
        """Judge everything queued now, without pacing (a command that has finished reading)."""
        while self._queue:
            self._next_at = 0.0
            self.step()

    def sentence(self) -> str | None:
        """What was left unjudged, as a sentence; None when nothing was."""
        if not self.skipped:
            return None
        return (f"{self.skipped:,} messages were not judged: they arrived while {self.max_backlog:,} others "
                "still waited (a flood faster than judging for a long time); their wire findings are kept")
