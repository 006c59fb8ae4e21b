"""The scenario server on standard input and output: what the client under test launches as its server.

Lines come in on stdin, decoded by the inspector's :class:`~inspector.core.wire.framing.LineDecoder`; each event
goes to the scenario's :class:`~inspector.core.clientbench.script.Script` and what it answers goes out on stdout,
a line each. A thread reads stdin (blocking, so a pipe, a file or a terminal alike) and hands chunks to the loop,
which waits on them no longer than the script's deadline (a held or slow answer is sent on time even when the
client says nothing meanwhile). The end of stdin ends the session, and so does a client that closes stdout.

Everything is recorded to the capture ``out`` through the capture's own pipeline: the client's messages ``c2s``
(with the decoder's findings), the server's ``s2c`` (the junk line too, as the framing error a client sees), and
notes for what the server did on its own (exiting mid-session, stopping a flood). The capture is flushed after
every read, so a client stopped by the bench leaves everything said until then.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from pathlib import Path

from inspector.core.capture.pipeline import EventPipeline
from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.clientbench.script import Script
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import LineDecoder

READ_CHUNK = 64 << 10
#: A client that sends more messages than this in one scenario floods it: the server notes it and ends.
FLOOD_MESSAGES = 10_000
#: The note's data keys that :mod:`.verdicts` reads back.
NOTE_CRASH = "scenario_crash"
NOTE_FLOOD = "scenario_flood"
#: The last event of every scenario's capture: the bench waits for it before judging.
NOTE_END = "scenario_end"
MAX_LINE = 16 << 20


class Recorder:
    """The scenario's capture, written as it happens."""

    def __init__(self, path: Path, scenario: str, argv: list[str], url: str | None = None) -> None:
        target: dict[str, object] = {"transport": "stdio", "argv": argv, "cwd": None, "env": {}, "redacted": True}
        if url is not None:  # the bench's own server over HTTP, whose URL the client was given
            target = {"transport": "streamable-http", "url": url, "headers": {}, "redacted": True}
        self.writer = CaptureWriter(path, make_header(target, scenario=scenario))
        self.pipeline = EventPipeline(self.writer)
        self._start = time.monotonic()

    def push(self, events: list[Event]) -> None:
        if events:
            self.pipeline.push(events, time.monotonic() - self._start, time.time())

    def note(self, text: str, **data: object) -> None:
        self.push([Event(Kind.NOTE, data={"text": text, **data})])

    def close(self) -> None:
        self.writer.close()


def serve_scenario(script: Script, record: Recorder, *, stdin_fd: int = 0, stdout_fd: int = 1) -> int:
    """Run the scenario until stdin ends, the client stops reading, or the script ends it; returns the exit
    status (the script's, or 0)."""
    chunks: queue.Queue[bytes] = queue.Queue(maxsize=64)
    reader = threading.Thread(target=_read, args=(stdin_fd, chunks), name="scenario-stdin", daemon=True)
    reader.start()
    decoder = LineDecoder(Direction.C2S, max_line_bytes=MAX_LINE)
    outs = LineDecoder(Direction.S2C, max_line_bytes=MAX_LINE)
    received = 0
    try:
        while True:
            now = time.monotonic()
            wait = None if script.deadline is None else max(0.0, script.deadline - now)
            try:
                chunk: bytes | None = chunks.get(timeout=wait)
            except queue.Empty:
                chunk = None
            if chunk is None:
                _send(record, outs, script.tick(time.monotonic()), stdout_fd)
            else:
                events = list(decoder.feed(chunk) if chunk else decoder.close())
                received += len(events)
                for event in events:
                    record.push([event])
                    _send(record, outs, script.receive(event, time.monotonic()), stdout_fd)
                    if script.exit_code is not None:
                        break
            if script.exit_code is not None:
                record.note("the scenario server exits mid-session, as the scenario says", **{NOTE_CRASH: True})
                return script.exit_code
            if received > FLOOD_MESSAGES:
                record.note(f"the client sent over {FLOOD_MESSAGES} messages: the scenario server stops",
                            **{NOTE_FLOOD: True})
                return 3
            if chunk == b"":
                return 0
            record.writer.flush()
    except _Gone:
        return 0
    finally:
        record.note("the scenario server ends", **{NOTE_END: True})
        record.close()


class _Gone(Exception):
    """The client closed our stdout."""


def _send(record: Recorder, decoder: LineDecoder, lines: list[bytes], fd: int) -> None:
    if not lines:
        return
    data = b"".join(item + b"\n" for item in lines)
    record.push(list(decoder.feed(data)))
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view):]
    except (BrokenPipeError, ConnectionResetError) as exc:
        raise _Gone from exc


def _read(fd: int, chunks: queue.Queue[bytes]) -> None:
    while True:
        try:
            chunk = os.read(fd, READ_CHUNK)
        except OSError:
            chunk = b""
        chunks.put(chunk)
        if not chunk:
            return
