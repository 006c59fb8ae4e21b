"""The twin on stdio with time in it: faults, intercept rules and server requests (:mod:`inspector.core.serve.conduct`).

:func:`~inspector.core.serve.stdio.serve_stdio` answers each read at once; when the session has times (a latency,
a delayed message, list_changed ticks) or waits for the client (a server request), this loop runs instead. A
thread reads stdin into a small queue (at most :data:`QUEUED_READS` reads ahead: a client that floods the twin
waits on its pipe, no memory grows), and the loop takes a read or wakes when the conductor has something due,
whichever comes first, on any kind of stdin (a pipe, a file, a terminal).

The end of stdin ends the session once everything already due has gone out (delayed answers; answers waiting
on the client's answer to a server request are given up, since it can send nothing more); close-after ends it
once its last answer went out. Each item is recorded (``--out``) as it is written: the client's messages with
their intercept marks, the twin's with ``served_from``, ``intercept`` and ``fault`` (which fault made or
withheld it).
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
from collections.abc import Callable
from functools import partial

from inspector.core.serve.conduct import Conductor, Item
from inspector.core.serve.fault_link import FaultToggles
from inspector.core.serve.faults import junk_bytes
from inspector.core.serve.rounds import ROUND_DIFFERS
from inspector.core.serve.stdio import READ_CHUNK, UNMATCHED, WRITE_BYTES, ServedCapture, _write_all
from inspector.core.wire.events import Direction, Event
from inspector.core.wire.framing import NOT_PARSED, Batch, LineDecoder, decode_line
from inspector.core.wire.intercepted import MARK

#: Reads of stdin taken ahead of the loop.
QUEUED_READS = 4


def serve_paced(conductor: Conductor, *, max_message: int, record: ServedCapture | None = None, stdin_fd: int = 0,
                stdout_fd: int = 1, write: Callable[[bytes], bool] | None = None,
                clock: Callable[[], float] = time.monotonic, toggles: FaultToggles | None = None,
                pending: bytes = b"") -> None:
    """Serve until stdin ends (and what is due went out), close-after ends the session, or the client closes
    stdout (``write`` as for :func:`~inspector.core.serve.stdio.serve_stdio`). ``toggles``: the window's changes
    to the conductor's faults, made here between two reads (a change wakes the loop); ``pending``: bytes of stdin
    read already (by :mod:`inspector.core.serve.early`), served first."""
    send = write if write is not None else partial(_write_all, stdout_fd)
    decoder = LineDecoder(Direction.C2S, max_line_bytes=max_message, share_parses=True)
    reads: queue.Queue[bytes | None] = queue.Queue(QUEUED_READS)  # None: the window changed the faults
    if pending:
        reads.put(pending)
    if toggles is not None:
        toggles.wake = partial(_wake, reads)
    threading.Thread(target=_read, args=(stdin_fd, reads), name="serve stdin", daemon=True).start()
    ended = False
    while True:
        at = conductor.next_at()
        now = clock()
        wait = None if at is None else max(0.0, at - now)
        if ended:
            if conductor.settled():
                return
            if wait:
                threading.Event().wait(wait)
        else:
            try:
                chunk = reads.get(timeout=wait)
            except queue.Empty:
                chunk = None
            if chunk is not None:  # None: a time came, or the window woke the loop (its change is made below)
                events = decoder.feed(chunk) if chunk else decoder.close()
                parses = events.values() if isinstance(events, Batch) else [NOT_PARSED] * len(events)
                now = clock()
                for event, parsed in zip(events, parses, strict=True):
                    conductor.receive(event, parsed, now)
                ended = not chunk
        if toggles is not None:
            toggles.apply()
        if not _flush(conductor.due(clock()), send, record):
            return
        if conductor.finished:
            return


def _wake(reads: queue.Queue[bytes | None]) -> None:
    """Wake the loop (the link's thread): never waits; with reads queued the loop wakes for them anyway."""
    with contextlib.suppress(queue.Full):
        reads.put_nowait(None)


def _read(fd: int, reads: queue.Queue[bytes | None]) -> None:
    """Read ``fd`` into ``reads`` until its end (an empty read; an error counts as the end)."""
    while True:
        try:
            chunk = os.read(fd, READ_CHUNK)
        except OSError:
            chunk = b""
        reads.put(chunk)
        if not chunk:
            return


def _flush(items: list[Item], send: Callable[[bytes], bool], record: ServedCapture | None) -> bool:
    """Write the ``s2c`` items, record them all; False when the client has gone away."""
    out = bytearray()
    for item in items:
        if item.dir == Direction.S2C and item.write:
            out += junk_bytes("stdio") if item.junk else item.line
            out += b"\n"
        if record is not None:
            record.push([_event(item)], item.at)
        if len(out) >= WRITE_BYTES:
            if not send(bytes(out)):
                return False
            out.clear()
    if out and not send(bytes(out)):
        return False
    if record is not None and items:
        record.flush()
    return True


def _event(item: Item) -> Event:
    """The event that records ``item``."""
    if item.event is not None and item.event.raw == item.line:
        event = item.event
    else:
        event = decode_line(junk_bytes("stdio") if item.junk else item.line, item.dir)
    if item.unmatched is not None:
        event.add_finding(UNMATCHED, item.unmatched, "warning")
    if item.differs is not None:
        event.add_finding(ROUND_DIFFERS, item.differs, "info")
    if item.mark is not None:
        event.put(**{MARK: item.mark})
    if item.served_from is not None:
        event.put(served_from=item.served_from)
    if item.fault is not None:
        event.put(fault=item.fault)
    return event
