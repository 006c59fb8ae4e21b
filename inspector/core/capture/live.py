"""The capture a live session is writing, as an index: a window of recent events in memory, the rest read back
from the file on demand.

A live session used to keep every :class:`~inspector.core.wire.events.Event` it saw: about 400 bytes each, so
a million notifications took 400 MB and ten million would take gigabytes. Every event is in the capture file
anyway (:class:`~inspector.core.capture.writer.CaptureWriter` writes them all, in order), so :class:`LiveIndex`
keeps per event only what :class:`~inspector.core.capture.index.CaptureIndex` keeps for an opened capture: the
timeline's :class:`~inspector.core.capture.columns.Columns` (kind, direction, problem, method, pairing) and
the offset of its line, which the writer notes as it writes it (``track_offsets``): about 14 bytes an event.
The last :data:`RING_EVENTS` events (at most :data:`RING_BYTES` of raw bytes) stay in memory as they came,
for the rows a following view shows and for whoever reads a batch just after it arrived; any older row is
decoded from its line, exactly as an opened capture's (cached, bounded, a long line as a
:class:`~inspector.core.capture.index.PartialEvent`), after flushing the writer if that line is still in its
buffer. Text search reads the file (:meth:`CaptureIndex.rows_containing`), as for an opened capture.

The columns are filled as the pipeline keeps each batch (:meth:`LiveIndex.extend`: the pipeline's ``keep``),
right after the writer wrote it, so row ``n`` is the writer's ``n``-th event. An event pushed after the writer
was closed (a note once the session ended) gets a row but no line: it stays in memory.
"""

from __future__ import annotations

import os
import sys
import time
from array import array
from collections import OrderedDict, deque
from collections.abc import Iterable, Iterator

from inspector.core.capture.columns import BINARY, Columns, category_of, method_of, reply_to_of
from inspector.core.capture.format import CaptureError
from inspector.core.capture.index import CaptureIndex, PartialEvent
from inspector.core.capture.writer import CaptureWriter
from inspector.core.wire.events import Event, Kind

#: Recent events kept as they came: more than a following view shows, and more than arrive between two
#: catch-ups of the window even under load (20,000 a second, a catch-up every 33 ms when the loop is free).
RING_EVENTS = 8192
#: ... and at most this many raw bytes of them (a few big messages do not pin their megabytes for long).
RING_BYTES = 64 << 20
#: A tap's row not yet found in its capture (the recorder flushes every 100 ms) is looked for this long.
TAP_LOOKUP_SECONDS = 0.05
#: A text search over a tap's rows decodes this many rows a step (its capture's rows are not its rows).
TAP_SEARCH_ROWS = 2000


class LiveIndex(CaptureIndex):
    """A :class:`CaptureIndex` over the file ``writer`` is writing, grown by :meth:`extend` rather than by
    scanning. ``writer`` must track offsets (``CaptureWriter(..., track_offsets=True)``)."""

    live = True

    def __init__(self, writer: CaptureWriter, ring_events: int | None = None, ring_bytes: int | None = None) -> None:
        if writer.offsets is None:
            raise ValueError("a live index needs a writer that tracks offsets")
        super().__init__(writer.path)
        self._file.close()  # the base class's scanning handle: nothing is scanned
        self.writer = writer
        self.offsets = writer.offsets  # shared: the writer appends one per event it writes
        self._start_ring(ring_events, ring_bytes)

    def _start_ring(self, ring_events: int | None, ring_bytes: int | None) -> None:
        self.ring_events = RING_EVENTS if ring_events is None else ring_events
        self.ring_bytes = RING_BYTES if ring_bytes is None else ring_bytes
        self._ring: deque[Event] = deque()
        self._ring_raw = 0  # raw bytes held in the ring

    def __len__(self) -> int:
        return len(self.columns)

    @property
    def progress(self) -> float:
        return 1.0

    def scan(self, budget: float = 0.03) -> int:
        return 0  # grown by extend(), not by reading the file

    def scan_all(self) -> None:
        return None

    def extend(self, events: Iterable[Event]) -> None:
        """Add a batch the pipeline numbered, paired and saved (called as the pipeline's ``keep``)."""
        columns = self.columns
        add = columns.add_event
        ring = self._ring
        raw = 0
        for event in events:
            if event.kind == Kind.MESSAGE or not event.raw or event.raw.isascii():
                add(event)
            else:  # a line that may not be UTF-8: saved as base64, where a text search of the file cannot see it
                columns.add(category_of(event) | (0 if _is_utf8(event.raw) else BINARY), method_of(event),
                            event.seq, reply_to_of(event))
                if "span" in event.data:
                    columns.learn_span(len(columns) - 1, event)
            ring.append(event)
            raw += len(event.raw)
        self._ring_raw += raw
        while len(ring) > self.ring_events or (self._ring_raw > self.ring_bytes and len(ring) > 1):
            self._ring_raw -= len(ring.popleft().raw)
        self._grown()

    def _grown(self) -> None:
        self.scanned = self.writer.position

    @property
    def held(self) -> int:
        """The first row still in memory (rows before it are read from the file)."""
        return len(self.columns) - len(self._ring)

    def event(self, row: int) -> Event:
        held = len(self.columns) - len(self._ring)
        if row >= held:
            return self._ring[row - held]
        if row >= len(self.offsets):  # cannot happen: unwritten rows come last, and stay in the ring
            return Event(Kind.NOTE, data={"text": "this event was not saved in the capture"})
        self._on_disk(row + 1)
        return super().event(row)

    def line(self, row: int) -> bytes:
        self._on_disk(row + 1)
        return super().line(row)

    def line_size(self, row: int) -> int:
        end = self.offsets[row + 1] if row + 1 < len(self.offsets) else self.writer.position
        return end - self.offsets[row]

    def rows_containing(self, needle: bytes, first: int, last: int,
                        max_bytes: int = 128 << 10) -> tuple[list[int], int]:
        written = len(self.offsets)
        if first >= written:  # unsaved rows (see the module's notes): every one is a candidate
            last = min(last, len(self))
            return list(range(first, last)), max(first, last)
        last = min(last, written)
        self._on_disk(last)
        return super().rows_containing(needle, first, last, max_bytes)

    def _on_disk(self, stop: int) -> None:
        """Make sure the lines of the rows before ``stop`` are in the file, not in the writer's buffer."""
        end = self.offsets[stop] if stop < len(self.offsets) else self.writer.position
        if end > self.writer.flushed:
            self.writer.flush_through()
        self.scanned = self.writer.position


class TapIndex(LiveIndex):
    """A tap's session in the window, bounded the same way: its events arrive over the tap's channel, already
    numbered, paired and saved by the tap's recorder (another process), and :meth:`extend` gives each a row;
    the last ones stay in memory, and an older row is read back from the tap's capture, found by its seq in a
    :class:`FollowingIndex` of that file (which scans as the recorder writes it). Rows the window never got
    (the channel drops events a window is too slow for) are not rows here either; the capture has them.

    Without a capture (the tap could not write one) every event stays in memory, as nothing else holds it.
    """

    def __init__(self, capture: str | os.PathLike[str] | None, ring_events: int | None = None,
                 ring_bytes: int | None = None) -> None:
        # not CaptureIndex.__init__: the file is another process's, indexed by self.file once it is needed
        self.path = os.fspath(capture) if capture else ""
        self.header = {}
        self.columns = Columns()
        self.offsets = array("q")
        self.warnings = []
        self.done = False
        self.scanned = 0
        self._cache = OrderedDict()
        self.file: FollowingIndex | None = None
        self._file_failed = False
        if capture is None:
            ring_events, ring_bytes = sys.maxsize, sys.maxsize
        self._start_ring(ring_events, ring_bytes)

    def _grown(self) -> None:
        return None

    def close(self) -> None:
        if self.file is not None:
            self.file.close()

    def event(self, row: int) -> Event:
        held = len(self.columns) - len(self._ring)
        if row >= held:
            return self._ring[row - held]
        seq = self.columns.seq_of_row(row)
        file = self._followed()
        if file is not None and seq is not None:
            found = file.row_of_seq(seq)
            deadline = time.perf_counter() + TAP_LOOKUP_SECONDS
            while found is None and file.scan(0.01) and time.perf_counter() < deadline:
                found = file.row_of_seq(seq)
            if found is not None:
                return file.event(found)
        return Event(Kind.NOTE, seq=seq or 0, data={"text": "this event is in the tap's capture, which cannot be "
                                                             "read at the moment"})

    def _followed(self) -> FollowingIndex | None:
        if self.file is None and not self._file_failed:
            try:
                self.file = FollowingIndex(self.path)
            except CaptureError:
                self._file_failed = True  # not there (yet), or not a capture: said by the note event
                return None
        return self.file

    def rows_containing(self, needle: bytes, first: int, last: int,
                        max_bytes: int = 128 << 10) -> tuple[list[int], int]:
        stop = max(first, min(last, len(self), first + TAP_SEARCH_ROWS))
        return list(range(first, stop)), stop  # every row a candidate: the events are checked one by one

    def raw_pieces(self, event: PartialEvent, piece: int = 1 << 20) -> Iterator[bytes]:
        assert self.file is not None  # a partial event was read from it
        return self.file.raw_pieces(event, piece)


class FollowingIndex(CaptureIndex):
    """A :class:`CaptureIndex` of a file another process is still writing: at its end, :meth:`scan` stops and
    comes back for more later (an unfinished last line waits for the rest) instead of finishing."""

    def scan(self, budget: float = 0.03) -> int:
        before = len(self.offsets)
        deadline = time.perf_counter() + budget
        while self._file.peek(1):
            self._scan_chunk()
            if time.perf_counter() >= deadline:
                break
        return len(self.offsets) - before


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


__all__ = ["RING_BYTES", "RING_EVENTS", "FollowingIndex", "LiveIndex", "TapIndex"]
