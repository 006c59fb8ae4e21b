"""The capture a live session is writing, as an index: a window of recent events in memory, the rest read back
from the file on demand.

A live session used to keep every :class:`~inspector.core.wire.events.Event` it saw: about 400 bytes each, so
a million notifications took 400 MB and ten million would take gigabytes. Every event is in the capture file
anyway (:class:`~inspector.core.capture.writer.CaptureWriter` writes them all, in order), so :class:`LiveIndex`
keeps per event only what :class:`~inspector.core.capture.index.CaptureIndex` keeps for an opened capture: the
timeline's :class:`~inspector.core.present.columns.Columns` (kind, direction, problem, method, pairing) and
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

from collections import deque
from collections.abc import Iterable

from inspector.core.capture.index import CaptureIndex
from inspector.core.capture.writer import CaptureWriter
from inspector.core.present.columns import BINARY, category_of, method_of, reply_to_of
from inspector.core.wire.events import Event, Kind

#: Recent events kept as they came: more than a following view shows, and more than arrive between two
#: catch-ups of the window even under load (20,000 a second, a catch-up every 33 ms when the loop is free).
RING_EVENTS = 8192
#: ... and at most this many raw bytes of them (a few big messages do not pin their megabytes for long).
RING_BYTES = 64 << 20


class LiveIndex(CaptureIndex):
    """A :class:`CaptureIndex` over the file ``writer`` is writing, grown by :meth:`extend` rather than by
    scanning. ``writer`` must track offsets (``CaptureWriter(..., track_offsets=True)``)."""

    live = True

    def __init__(self, writer: CaptureWriter, ring_events: int = RING_EVENTS, ring_bytes: int = RING_BYTES) -> None:
        if writer.offsets is None:
            raise ValueError("a live index needs a writer that tracks offsets")
        super().__init__(writer.path)
        self._file.close()  # the base class's scanning handle: nothing is scanned
        self.writer = writer
        self.offsets = writer.offsets  # shared: the writer appends one per event it writes
        self.ring_events = ring_events
        self.ring_bytes = ring_bytes
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
            ring.append(event)
            raw += len(event.raw)
        self._ring_raw += raw
        while len(ring) > self.ring_events or (self._ring_raw > self.ring_bytes and len(ring) > 1):
            self._ring_raw -= len(ring.popleft().raw)
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
            self.writer.flush()
        self.scanned = self.writer.position


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


__all__ = ["RING_BYTES", "RING_EVENTS", "LiveIndex"]
