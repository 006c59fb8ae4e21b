"""Streaming, crash-safe capture writer.

Lines are buffered in memory and written to the file at least every ``flush_interval`` seconds (100 ms by
default), so killing the inspector with SIGKILL loses at most that window: what reached the OS survives the
process. We do not fsync: a power cut is out of scope, a crashed or killed inspector is not.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import operator
import os
import time
from array import array
from collections.abc import Iterator
from itertools import accumulate
from pathlib import Path
from typing import IO, Any

from inspector.core.capture.format import (
    FORMAT_NAME,
    FORMAT_VERSION,
    dumps_json,
    event_line_pieces,
    event_line_size,
    event_to_line,
)
from inspector.core.wire.events import Event

#: The most a SIGKILL may lose; the issue's contract for crash safety.
DEFAULT_FLUSH_INTERVAL = 0.1
#: Write out early when this much is buffered, to bound memory during a flood.
MAX_BUFFERED_CHARS = 1 << 20
#: Events with more raw bytes than this are written a piece at a time (format.event_line_pieces): never a
#: whole copy of a 50 MB message in memory.
BIG_EVENT_BYTES = 1 << 20
#: With an event loop running, a big event is written for at most this long per turn of the loop, so that
#: the window keeps painting while 50 MB go to the file (the lines after it wait in the buffer, in order).
BIG_SLICE_SECONDS = 0.01


_RAW = operator.attrgetter("raw")


def make_header(target: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """The header object of a v1 capture (line 1)."""
    created = _dt.datetime.now(_dt.UTC).astimezone().isoformat(timespec="milliseconds")
    return {"format": FORMAT_NAME, "version": FORMAT_VERSION, "created": created, "target": target, **extra}


class CaptureWriter:
    """Appends events to a capture file. Call :meth:`close` when done (it is also safe to just be killed).

    With ``stream`` (standard output, for ``record --out -``) the lines go there instead of to ``path``;
    closing flushes the stream and leaves it open, and a reader that goes away (a closed pipe) ends the
    writing quietly: :attr:`lost` says so.

    With ``track_offsets`` the writer also notes where each event's line starts in the file (:attr:`offsets`,
    one per event written, in order), how many bytes it has been given (:attr:`position`) and how many of those
    reached the file (:attr:`flushed`): a live window reads its older events back from the file by these
    (:class:`~inspector.core.capture.live.LiveIndex`) instead of keeping them."""

    def __init__(self, path: str | os.PathLike[str], header: dict[str, Any],
                 flush_interval: float = DEFAULT_FLUSH_INTERVAL, stream: IO[str] | None = None,
                 track_offsets: bool = False) -> None:
        self.path = Path(path)
        self.flush_interval = flush_interval
        self._owned = stream is None
        self._file: IO[str] | None = open(self.path, "w", encoding="utf-8", newline="\n") if stream is None \
            else stream
        self.lost = False  #: the stream's reader went away; what came after is not written
        self._buffer: list[str] = []
        self._buffered = 0
        self._last_flush = time.monotonic()
        self._timer: asyncio.TimerHandle | None = None
        self._big: list[Iterator[str]] = []  # big lines being written, a slice per turn; what follows waits
        self._big_handle: asyncio.Handle | None = None
        self.events_written = 0
        #: where each event's line starts in the file (with ``track_offsets``)
        self.offsets: array[int] | None = array("q") if track_offsets else None
        self.position = 0  #: bytes of lines given to the writer, header included (tracked with ``offsets``)
        self.flushed = 0  #: how many of them reached the file
        self.header = header  #: the header line written first (not to be changed: it is written already)
        # ASCII: an undecodable argument (a lone surrogate) is escaped instead of breaking the file
        first = dumps_json(header) + "\n"
        self._write(first)
        self.position = self.flushed = len(first)

    def write(self, event: Event) -> None:
        self.write_many([event])

    def write_many(self, events: list[Event]) -> None:
        if self._file is None:
            return
        if max(map(len, map(_RAW, events)), default=0) > BIG_EVENT_BYTES:
            self._write_big(events)
            return
        lines = [event_to_line(event) for event in events]
        text = "".join(lines)
        if self.offsets is not None:
            self._note_offsets(lines, text)
        self._buffer.append(text)
        self._buffered += len(text)
        self.events_written += len(events)
        if self._buffered >= MAX_BUFFERED_CHARS or time.monotonic() - self._last_flush >= self.flush_interval:
            self.flush()
        elif self._timer is None:
            self._schedule()

    def _note_offsets(self, lines: list[str], text: str) -> None:
        """The byte offset of each line (the file is UTF-8: a line with non-ASCII text is longer in bytes)."""
        assert self.offsets is not None
        if text.isascii():
            sizes: Any = map(len, lines)
        else:
            sizes = [len(line.encode("utf-8", errors="surrogateescape")) for line in lines]
        starts = array("q", accumulate(sizes, initial=self.position))
        self.position = starts.pop()
        self.offsets.extend(starts)

    def _write_big(self, events: list[Event]) -> None:
        """A batch with big events: each big one is queued to be written a piece at a time, behind what was
        buffered before it; the small ones after the last big one are buffered as usual."""
        small: list[str] = []
        for event in events:
            if len(event.raw) <= BIG_EVENT_BYTES:
                small.append(event_to_line(event))
                if self.offsets is not None:
                    self._note_offsets(small[-1:], small[-1])
                continue
            if self.offsets is not None:  # accounted before it is written, so the lines after it are placed too
                self.offsets.append(self.position)
                self.position += event_line_size(event)
            before = "".join(self._buffer) + "".join(small)
            self._buffer.clear()
            self._buffered = 0
            small = []
            if before:
                self._big.append(iter([before]))
            self._big.append(event_line_pieces(event))
        self.events_written += len(events)
        if small:
            text = "".join(small)
            self._buffer.append(text)
            self._buffered += len(text)
        self.flush()

    def _continue_big(self, deadline: float | None) -> bool:
        """Write the big lines on hold until ``deadline`` (None: all of them); True when none is left. A big
        line takes the buffer written before it along."""
        while self._big and self._file is not None:
            pieces = self._big[0]
            for piece in pieces:
                self._write(piece, flush=False)
                if self.lost:  # the reader of standard output went away: nothing more is written
                    self._big.clear()
                    return True
                if deadline is not None and time.perf_counter() > deadline:
                    return False
            self._big.pop(0)
        return True

    def _on_big_turn(self) -> None:
        self._big_handle = None
        if self._continue_big(time.perf_counter() + BIG_SLICE_SECONDS):
            self.flush()
        else:
            self._big_handle = asyncio.get_running_loop().call_soon(self._on_big_turn)

    def _schedule(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop: the next write or close() flushes
        self._timer = loop.call_later(self.flush_interval, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self.flush()

    def flush(self) -> None:
        """Write out what is buffered; while a big line is being written a slice per turn, what comes after
        it waits for it (the file keeps the events' order)."""
        if self._file is None:
            return
        if self._big:
            if self._big_handle is None:
                try:
                    self._big_handle = asyncio.get_running_loop().call_soon(self._on_big_turn)
                except RuntimeError:  # no loop: all at once
                    self._continue_big(None)
            if self._big:
                return
        text = "".join(self._buffer)
        self._buffer.clear()
        self._buffered = 0
        self._write(text)
        self.flushed = self.position
        self._last_flush = time.monotonic()

    def flush_through(self) -> None:
        """Write out everything given so far, big lines on hold included, at once (a reader needs a line that
        is still waiting: rare, and it costs what writing the waiting lines costs)."""
        if self._big_handle is not None:
            self._big_handle.cancel()
            self._big_handle = None
        self._continue_big(None)
        self.flush()

    def _write(self, text: str, flush: bool = True) -> None:
        assert self._file is not None
        try:
            if text:
                self._file.write(text)
            if flush:
                self._file.flush()
        except BrokenPipeError:
            if self._owned:
                raise
            self.lost = True  # the reader of standard output went away (| head): nothing more to write
            self._file = None

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._big_handle is not None:
            self._big_handle.cancel()
            self._big_handle = None
        self._continue_big(None)
        if self._file is not None:
            self.flush()
            if self._owned and self._file is not None:
                self._file.close()
            self._file = None

    def __enter__(self) -> CaptureWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
