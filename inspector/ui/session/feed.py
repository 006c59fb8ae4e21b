"""The one way events reach a tab, whatever the tab shows: a live session, a live tap, an opened capture, a replay.

A :class:`TimelineFeed` owns the tab's event store (the capture index the timeline reads: a session's
:class:`~inspector.core.capture.live.LiveIndex`, a tap's :class:`~inspector.core.capture.live.TapIndex`, an
opened file's :class:`~inspector.core.capture.index.CaptureIndex`) and its protocol judge. It takes events from
its source, judges them off the ingest path (:class:`~inspector.core.protocol.pacer.JudgePacer`; big messages
one at a time, in the worker process when there is one) and announces, in batches at most ~30 times a second:

- :attr:`rows_arrived`: new rows are in the store; the timeline catches up;
- :attr:`stderr_lines`: the batch's stderr lines, for the stderr pane;
- :attr:`found`: judged findings (the judge's and those the events carry), for the Problems panel and the rows'
  colours;
- :attr:`progress`: how far an opened capture's scan has got (1.0 once it is all read).

Widgets only subscribe. A live session's and a tap's events take the same path (:meth:`_arrived`), so a tap is
judged exactly as a session is. :meth:`detach` stops everything at once: a closed tab hears nothing more.

Why batches: the core calls its listeners synchronously for every batch a transport read; a flood would repaint
the window thousands of times a second. Signals fire after state changed: when :attr:`rows_arrived` fires, the
store already holds the rows.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Iterator
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from inspector.core import offload
from inspector.core.capture.columns import KIND_CODES, KIND_MASK
from inspector.core.capture.index import CaptureIndex
from inspector.core.capture.live import LiveIndex
from inspector.core.protocol.judge import ProtocolFinding, ProtocolJudge
from inspector.core.protocol.pacer import JudgePacer
from inspector.core.session.session import Session
from inspector.core.tasks import Tasks
from inspector.core.wire.events import Event, Kind
from inspector.core.wire.framing import Batch, server_broke_framing

#: At most this many timeline updates a second (the "~30 times a second" of the window's contract).
BATCH_INTERVAL_MS = 33
#: Freeze the collector's view of old objects each time the store grew by this many events.
FREEZE_EVERY_EVENTS = 20_000
#: Loading a capture scans the file for at most this long at a time, then lets the window repaint.
LOAD_SLICE_SECONDS = 0.01
#: While loading, new rows are announced to the view (which then lays out and repaints) at most this often.
LOAD_ANNOUNCE_SECONDS = 0.3
#: An opened capture's stderr lines are decoded for the pane in steps of this many; only the pane's last ones.
STDERR_STEP = 200
#: Events of an opened capture judged between two looks at the clock.
JUDGE_CHUNK = 256


def wire_findings(events: list[Event]) -> list[ProtocolFinding]:
    """The findings the wire layer put on events (and framing errors the server made), for the Problems panel;
    a line cut by our own stop is no finding of the server's."""
    out = []
    for event in events:
        if server_broke_framing(event):
            out.append(ProtocolFinding(event.seq, "framing", "error", str(event.reason or "")))
        for finding in event.findings:
            out.append(ProtocolFinding(event.seq, finding.code, finding.severity, finding.text))
    return out


class TimelineFeed(QObject):
    rows_arrived = Signal()  #: new rows are in :attr:`index`; models should catch up
    stderr_lines = Signal(list)  #: stderr events (in order), for the stderr pane
    found = Signal(list)  #: judged :class:`ProtocolFinding` s: the Problems panel, the rows' colours
    progress = Signal(float)  #: an opened capture's loading, 0..1 (1.0: rows and stderr read; judging follows)
    judging = Signal(float)  #: an opened capture's judging, 0..1 (1.0: every event is judged)
    said = Signal(str)  #: something the feed has to say in the status line (judging skipped in a flood)

    def __init__(self, index: CaptureIndex, judge: ProtocolJudge, tasks: Tasks, parent: Any = None,
                 stderr_keep: int = 20_000) -> None:
        super().__init__(parent)
        self.index = index
        self.judge = judge
        self.tasks = tasks
        self.stderr_keep = stderr_keep
        self.pacer = JudgePacer(judge, self._judged)
        self.detached = False
        #: an opened capture is read (its rows, its stderr); it may still be being judged
        self.loaded = False
        self._session: Session | None = None
        self._stderr: list[Event] = []
        self._seen = 0
        self._frozen_at = 0
        self._said_skipped = False
        self._batch_timer = self._timer(BATCH_INTERVAL_MS, self._flush, single=True)
        self._pace_timer = self._timer(0, self._pace, single=True)
        self._deferred_timer = self._timer(0, self._judge_deferred)  # big messages, one per idle turn
        self._steps_timer = self._timer(0, self._step)  # an opened capture: loading, then judging
        self._steps: Iterator[str] | None = None
        self._judging: Iterator[None] | None = None
        gc.freeze()  # everything alive now (Qt wrappers, modules) need not be walked by full collections

    def _timer(self, interval: int, slot: Any, single: bool = False) -> QTimer:
        timer = QTimer(self)
        timer.setInterval(interval)
        timer.setSingleShot(single)
        timer.timeout.connect(slot)
        return timer

    # -- sources ---------------------------------------------------------------------------------------

    def follow_session(self, session: Session) -> None:
        """A live session (or a replay): its pipeline keeps its events in :attr:`index` (a LiveIndex), then
        calls this feed with each batch."""
        self._session = session
        session.listeners.append(self._arrived)

    def push(self, events: list[Event]) -> None:
        """A live tap's events (already numbered and paired by its recorder): kept, then taken like a session's."""
        if self.detached:
            return
        assert isinstance(self.index, LiveIndex), "only a live index (a tap's) takes pushed events"
        self.index.extend(events)
        self._arrived(events)

    def load(self) -> Iterator[str]:
        """An opened capture: scanned in short steps (the window repaints between any two), then judged in the
        background. The first rows are scanned at once. Returns the steps (for benchmarks/scale.py, which runs
        them itself); the feed's own timer runs them otherwise."""
        gc.freeze()  # as for a live session: a full collection need not walk the window's objects (a stall)
        self.index.scan(LOAD_SLICE_SECONDS)
        self.rows_arrived.emit()
        self._steps = self._load_steps()
        self._steps_timer.start()
        return self._steps

    def detach(self) -> None:
        """Hear nothing more and say nothing more (the tab is closing): at once, whatever is queued."""
        self.detached = True
        if self._session is not None and self._arrived in self._session.listeners:
            self._session.listeners.remove(self._arrived)
        for timer in (self._batch_timer, self._pace_timer, self._deferred_timer, self._steps_timer):
            timer.stop()
        self._steps = self._judging = None

    def flush_now(self) -> None:
        """Announce what is waiting now (the session ended: its last rows should not wait for the timer)."""
        if self.detached:
            return
        self._batch_timer.stop()
        self._flush()

    # -- live events -----------------------------------------------------------------------------------

    def _arrived(self, events: list[Event]) -> None:
        """A batch of a session's or a tap's events, already in the store: queue its rows for the judge (with the
        decoder's parse of each, :class:`~inspector.core.wire.framing.Batch`, so the judge does not parse them
        again), set its stderr aside and start the announce timer."""
        if self.detached:
            return
        self._seen += len(events)
        stop = len(self.index)
        parsed = events.values() if type(events) is Batch else None
        if self.pacer.push_rows(stop - len(events), stop, self.index.event, parsed):
            self._pace_timer.start(0)  # judged off the ingest path, at once when there is no backlog
        for event in events:
            if event.kind == Kind.STDERR:
                self._stderr.append(event)
        if not self._batch_timer.isActive():
            self._batch_timer.start()

    def _flush(self) -> None:
        if self._seen - self._frozen_at >= FREEZE_EVERY_EVENTS:
            # Events are never in reference cycles, but a full collection still walks every one of them: with a
            # few hundred thousand that is a stall of 50-100 ms each time. Frozen objects are still freed by
            # reference counting; only the cycle search skips them.
            gc.freeze()
            self._frozen_at = self._seen
        self.rows_arrived.emit()
        if self._stderr:
            lines, self._stderr = self._stderr, []
            self.stderr_lines.emit(lines)

    # -- judging ---------------------------------------------------------------------------------------

    def _pace(self) -> None:
        delay = self.pacer.step()
        if delay is not None and not self.detached:
            self._pace_timer.start(int(delay * 1000))
        if self.pacer.skipped and not self._said_skipped:
            self._said_skipped = True
            self.said.emit(self.pacer.sentence() or "")

    def judge_now(self, events: list[Event]) -> None:
        """Judge ``events`` at once (an opened capture's slices; live events go through the pacer)."""
        self._judged(events, self.judge.feed(events))

    def _judged(self, events: list[Event], judged: list[ProtocolFinding]) -> None:
        found = [*wire_findings(events), *judged]
        if found and not self.detached:
            self.found.emit(found)
        if self.judge.deferred and not self._deferred_timer.isActive() and not self.detached:
            self._deferred_timer.start()

    def _judge_deferred(self) -> None:
        if offload.workers_enabled() and _loop_running():  # parsed and checked in the worker: no stall
            self._deferred_timer.stop()
            self.tasks.spawn(self._judge_deferred_off_loop(), "judging a big message")
            return
        self._judged_late(self.judge.judge_deferred(limit=1))
        if not self.judge.deferred:
            self._deferred_timer.stop()

    async def _judge_deferred_off_loop(self) -> None:
        self._judged_late(await self.judge.judge_deferred_off_loop())

    def _judged_late(self, found: list[ProtocolFinding]) -> None:
        if found and not self.detached:
            self.found.emit(found)

    # -- an opened capture -----------------------------------------------------------------------------

    def _step(self) -> None:
        """One step of loading or judging an opened capture (each takes about LOAD_SLICE_SECONDS)."""
        if self._steps is None:
            self._steps_timer.stop()
            return
        try:
            next(self._steps)
        except StopIteration:
            self._steps = None
            self._steps_timer.stop()

    def _load_steps(self) -> Iterator[str]:
        """Loading an opened capture, as short steps; each yields its name. One short piece of work per step, so
        the event loop (a repaint, input) runs between any two; after new rows are announced, a step that does
        nothing lets the table repaint on its own."""
        index = self.index
        announced = time.perf_counter()
        while not index.done:
            index.scan(LOAD_SLICE_SECONDS)
            yield "scan"
            if time.perf_counter() - announced >= LOAD_ANNOUNCE_SECONDS:
                self.rows_arrived.emit()
                yield "announce"
                yield "repaint"
                self.progress.emit(index.progress)
                announced = time.perf_counter()
                yield "progress"
        self.rows_arrived.emit()
        yield "announce"
        yield "repaint"
        # the stderr pane keeps its last lines only: decode just those
        only_stderr = bytes(value & KIND_MASK == KIND_CODES[Kind.STDERR] for value in range(256))
        stderr = index.columns.select(0, len(index), only_stderr)[-self.stderr_keep:]
        for start in range(0, len(stderr), STDERR_STEP):
            self.stderr_lines.emit([index.event(row) for row in stderr[start:start + STDERR_STEP]])
            yield "stderr"
        self.loaded = True
        self.progress.emit(1.0)
        yield "loaded"
        yield from self._judge_capture()

    def _judge_capture(self) -> Iterator[str]:
        """The whole capture judged in the background, in slices of LOAD_SLICE_SECONDS, with progress."""
        index = self.index
        total = len(index)
        row = 0
        while row < total:
            deadline = time.perf_counter() + LOAD_SLICE_SECONDS
            batch = []
            while row < total and time.perf_counter() < deadline:
                batch.append(index.event(row))
                row += 1
                if len(batch) >= JUDGE_CHUNK:
                    self.judge_now(batch)
                    batch = []
            self.judge_now(batch)
            self.judging.emit(row / max(total, 1))
            yield "judge"
        while self.judge.deferred:
            self._judged_late(self.judge.judge_deferred(limit=1))
            yield "judge"
        self.judging.emit(1.0)


def _loop_running() -> bool:
    """Whether the asyncio loop runs now (in the app always; a test that pumps Qt events alone has none, and
    then the work is done in place rather than left as a task nobody runs)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
