"""Judging off the ingest path, with a CPU budget: :class:`JudgePacer` queues what arrives and judges it in
short steps that take at most :data:`CPU_SHARE` of the time while a backlog lasts.

Why: judging a message (check it against its schema, keep the lifecycle state) costs a quarter of what
recording it does when the decoder's parse is handed over (:meth:`JudgePacer.push_rows`), and as much when it
must be parsed again. Done inline, that would slow every flood by as much; paced, the inspector keeps
reading at (at least) the rest of its speed and the findings follow, a moment later during a flood and at once
otherwise (a step runs as soon as the owner schedules it when the backlog is small).

The pacer is Qt-free and has no clock of its own scheduling: the owner calls :meth:`step` when the delay it
returned has passed (the window with a single-shot timer, a benchmark with ``loop.call_later``). A backlog that
grows past :data:`MAX_BACKLOG` (a flood faster than the budget for minutes) stops being queued: the messages
after that are counted in :attr:`skipped` and said in :meth:`sentence`, never silently left out.

A live window does not queue the events themselves (a backlog of events is memory that grows with the flood):
it queues their rows (:meth:`JudgePacer.push_rows`, a range per batch) and the pacer fetches each event when
it judges it, from the window's bounded store (recent events in memory, older ones read back from the capture).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from inspector.core.protocol.judge import ProtocolFinding, ProtocolJudge, Verdict
from inspector.core.wire.events import Event

#: the share of the CPU judging may take while there is a backlog. A flood of small notifications needs about a
#: quarter (judging one costs ~1.3 µs with the decoder's parse, ingesting it in the window ~5 µs): with this
#: much the judge keeps up, so rows are judged while they are still in memory with their parse; with less it
#: falls behind, and every row it reaches after the live ring dropped it is read back from the capture and parsed
#: again, which costs more than judging it (measured with benchmarks/ingest.py: 0.15 left most of a 200,000-
#: message flood to be read back after the flood ended)
CPU_SHARE = 0.3
#: one step judges for about this long before it hands the loop back
STEP_SECONDS = 0.004
#: events judged between two looks at the clock
CHUNK = 64
#: events waiting to be judged beyond which new ones are counted, not queued
MAX_BACKLOG = 2_000_000
#: at most this many queued rows keep the decoder's parse (:meth:`JudgePacer.push_rows`); the rest of a backlog
#: is parsed again when judged, so a long flood holds no parse trees beyond these (as many as the live ring's
#: events)
PARSED_HELD = 8192

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
        self._queue: deque[list[Event]] = deque()  # batches queued by push (the first one partly taken)
        self._queued = 0  # events in the queue
        self._taken = 0  # events of the first queued batch already taken
        self._rows: deque[list[int]] = deque()  # ranges [first, stop) of rows queued by push_rows
        self._row_count = 0
        self._fetch: Callable[[int], Event] | None = None
        self._parsed: deque[tuple[int, list[Any]]] = deque()  # (first row, the decoder's values from it on)
        self._parsed_held = 0
        self._pushed = self._popped = 0  # events ever queued by push, and taken from that queue
        self._next_at = 0.0  # judging may not start again before this (the budget's rest after the last step)

    @property
    def backlog(self) -> int:
        return self._queued + self._row_count

    def push(self, events: Iterable[Event], parsed: list[Any] | None = None) -> bool:
        """Queue events; True when the queue was empty before (the owner should schedule a step now).
        ``parsed``: the decoder's parse of each, as for :meth:`push_rows`."""
        was_idle = not self._queued
        room = self.max_backlog - self._queued
        batch = list(events)
        if parsed is not None and len(parsed) != len(batch):
            parsed = None
        if len(batch) > room:
            self.skipped += len(batch) - max(room, 0)
            batch = batch[:max(room, 0)]
        self._hold(self._pushed, parsed[:len(batch)] if parsed is not None else None)
        self._pushed += len(batch)
        if batch:
            self._queue.append(batch)
            self._queued += len(batch)
        return was_idle and bool(self._queued)

    def _hold(self, first: int, parsed: list[Any] | None) -> None:
        """Keep the parse of the events numbered from ``first`` on (rows, or positions in the queue), within
        :data:`PARSED_HELD`."""
        if parsed and self._parsed_held + len(parsed) <= PARSED_HELD:
            self._parsed.append((first, parsed))
            self._parsed_held += len(parsed)

    def _held_values(self, start: int, stop: int) -> tuple[int, list[Any] | None]:
        """For the events numbered ``[start, stop)`` about to be judged: a ``stop`` that keeps them on one side
        of a parse boundary, and their parses (None when not held). Drops parses of events already judged."""
        parsed = self._parsed
        while parsed and parsed[0][0] + len(parsed[0][1]) <= start:
            self._parsed_held -= len(parsed.popleft()[1])
        if not parsed:
            return stop, None
        held_first, held = parsed[0]
        if held_first > start:
            return min(stop, held_first), None  # events before the parsed ones: judged without
        stop = min(stop, held_first + len(held))
        return stop, held[start - held_first : stop - held_first]

    def push_rows(self, first: int, stop: int, fetch: Callable[[int], Event],
                  parsed: list[Any] | None = None) -> bool:
        """Queue rows ``[first, stop)``, judged as ``fetch(row)`` returns them: only the range is held. True when
        the queue was empty before (the owner should schedule a step now). Do not mix with :meth:`push`.

        ``parsed``: what the decoder parsed of each of these rows (:meth:`inspector.core.wire.framing.Batch.values`,
        in row order), so the judge does not parse them again; kept for at most :data:`PARSED_HELD` rows."""
        was_idle = not self.backlog
        self._fetch = fetch
        if stop > first:
            room = max(0, self.max_backlog - self.backlog)
            if stop - first > room:
                self.skipped += stop - first - room
                stop = first + room
        if parsed is not None and stop > first and len(parsed) == stop - first:
            self._hold(first, parsed)
        if stop > first:
            if self._rows and self._rows[-1][1] == first:
                self._rows[-1][1] = stop
            else:
                self._rows.append([first, stop])
            self._row_count += stop - first
        return was_idle and bool(self.backlog)

    def _take(self, count: int) -> tuple[list[Event | None], list[Any] | None, int | None]:
        """The next (at most) ``count`` queued events (rows fetched), with the decoder's parse of each when it
        is held (else None), and the first row's number when they are rows. A row whose held value is a
        :class:`Verdict` is not read back (None): the judge asks for it only if it needs it."""
        if self._queued:
            first = self._queue[0]
            taken = self._taken
            start = self._popped
            stop, values = self._held_values(start, start + min(count, len(first) - taken))
            self._popped = stop
            self._taken = taken + stop - start
            self._queued -= stop - start
            if self._taken == len(first):
                self._queue.popleft()
                self._taken = 0
            events: list[Event | None] = first[taken:taken + stop - start]  # type: ignore[assignment]  # (list is invariant; none is None)
            return events, values, None
        fetch = self._fetch
        assert fetch is not None
        span = self._rows[0]
        start = span[0]
        stop, values = self._held_values(start, min(span[1], start + count))
        if values is None:
            chunk: list[Event | None] = [fetch(row) for row in range(start, stop)]
        else:
            chunk = [None if type(value) is Verdict else fetch(row)
                     for row, value in zip(range(start, stop), values, strict=True)]
        self._row_count -= stop - start
        span[0] = stop
        if stop == span[1]:
            self._rows.popleft()
        return chunk, values, start

    def step(self) -> float | None:
        """Judge for about ``step_seconds``; returns the delay before the next step (keeping judging at
        ``share`` of the time), or None when nothing is left. Called before the budget allows, it judges nothing
        and returns how long to wait: the share holds however often events arrive."""
        start = self.clock()
        if start < self._next_at:
            return self._next_at - start if self.backlog else None
        while self.backlog:
            chunk, values, first = self._take(CHUNK)
            if first is None:
                found = self.judge.feed(chunk, values)
            else:
                found = self.judge.feed(chunk, values, partial(self._fetch_row, first))
            if self.on_judged is not None:
                # rows not read back carry no wire finding (a verdict is only given to a notification without
                # one): the events read are all the listener needs
                self.on_judged([event for event in chunk if event is not None], found)
            if self.clock() - start >= self.step_seconds:
                break
        end = self.clock()
        rest = (end - start) * (1 - self.share) / self.share
        self._next_at = end + rest
        return rest if self.backlog else None

    def _fetch_row(self, first: int, i: int) -> Event:
        """The ``i``-th row of a chunk of rows from ``first`` on, read back (the judge needed it after all)."""
        assert self._fetch is not None
        return self._fetch(first + i)

    def drain(self) -> None:
        """Judge everything queued now, without pacing (a command that has finished reading)."""
        while self.backlog:
            self._next_at = 0.0
            self.step()

    def sentence(self) -> str | None:
        """What was left unjudged, as a sentence; None when nothing was."""
        if not self.skipped:
            return None
        return (f"{self.skipped:,} messages were not judged: they arrived while {self.max_backlog:,} others "
                "still waited (a flood faster than judging for a long time); their wire findings are kept")
