"""The twin on standard input and output: what a client's config runs as its server (``mcp-inspector serve FILE``).

Lines come in on stdin and are decoded by the inspector's own :class:`~inspector.core.wire.framing.LineDecoder`
(``--max-message`` bounds a line, as for any peer: a longer one is answered as an invalid request without being
kept), each goes to the :class:`~inspector.core.serve.twin.Twin`, and what it answers goes out on stdout, a
line each, in one write per read. The end of stdin ends the session (status 0), and so does a client that closes
stdout. Blocking reads and writes on the two descriptors: a pipe, a file or a terminal alike, and the client's
pace is the twin's (a client that does not read its answers holds the twin at its next write, no memory grows).

With ``--out`` the session is recorded (:class:`ServedCapture`) through the capture's own pipeline: the client's
messages ``c2s``, the twin's ``s2c``, each answer with ``data.served_from`` (the seq of the recorded answer it
comes from), a request without a recorded answer with a ``serve-unmatched`` finding that says why, a multi-round
retry whose input differs from the recorded one with a ``serve-round-differs`` finding (info).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from inspector.core.capture.pipeline import EventPipeline
from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.serve.rounds import ROUND_DIFFERS
from inspector.core.serve.twin import Outgoing, Twin
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import NOT_PARSED, Batch, LineDecoder, decode_line

#: stdin is read this much at a time: a client that pipelines requests gets its answers in one write per read.
READ_CHUNK = 64 << 10
#: What the answers to one read's requests gather to before they are written: a read of 64 KiB of small requests
#: whose recorded answers are megabytes each is written as it goes, never held whole.
WRITE_BYTES = 1 << 20
#: The finding on a request of the client that the capture has no answer to (a warning: the client did
#: nothing wrong, the capture just did not record it).
UNMATCHED = "serve-unmatched"


class ServedCapture:
    """The capture of a served session (``--out``), written as it happens; without ``path`` only numbered and
    paired, for :attr:`pipeline`'s listeners (the live feed to a window: :mod:`inspector.core.serve.live`)."""

    def __init__(self, path: Path | None, source: Path, source_header: dict[str, Any], mode: str,
                 url: tuple[str, str] | None = None) -> None:
        served = str(source.resolve())
        target: dict[str, Any] = {"transport": "stdio", "argv": ["mcp-inspector", "serve", served, "--match", mode],
                                  "cwd": None, "env": {}, "redacted": True}
        if url is not None:  # served over HTTP (--listen): (transport, URL)
            target = {"transport": url[0], "url": url[1], "headers": {}, "redacted": True}
        header = make_header(target, serve_of={"path": served, "created": source_header.get("created"), "match": mode})
        self.target = target
        self.writer = CaptureWriter(path, header) if path is not None else None
        self.pipeline = EventPipeline(self.writer)
        self._start = time.monotonic()

    def _push(self, events: list[Event], at: float | None = None) -> None:
        now = time.monotonic()
        if at is None:
            at = now
        self.pipeline.push(events, at - self._start, time.time() - (now - at))

    def push(self, events: list[Event], at: float | None = None) -> None:
        """Record events made elsewhere (:mod:`inspector.core.serve.paced`), stamped ``at`` (a reading of
        ``time.monotonic()``) or now."""
        self._push(events, at)

    def note(self, text: str) -> None:
        self._push([Event(Kind.NOTE, data={"text": text})])

    def exchange(self, event: Event, outgoing: list[Outgoing]) -> None:
        """The client's event and what the twin sent for it."""
        for out in outgoing:
            if out.unmatched is not None:
                event.add_finding(UNMATCHED, out.unmatched, "warning")
            if out.differs is not None:
                event.add_finding(ROUND_DIFFERS, out.differs, "info")
        sent = []
        for out in outgoing:
            answer = decode_line(out.line, Direction.S2C)
            if out.served_from is not None:
                answer.put(served_from=out.served_from)
            sent.append(answer)
        self._push([event])
        if sent:
            self._push(sent)

    def flush(self) -> None:
        if self.writer is not None:
            self.writer.flush()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def serve_stdio(twin: Twin, *, max_message: int, record: ServedCapture | None = None, stdin_fd: int = 0,
                stdout_fd: int = 1, write: Callable[[bytes], bool] | None = None, pending: bytes = b"") -> None:
    """Serve until stdin ends or the client closes stdout (``write``, given bytes, writes them all and says whether
    the reader is still there; by default to ``stdout_fd``); ``pending``: bytes of stdin read already (by
    :mod:`inspector.core.serve.early`), served first."""
    send = write if write is not None else partial(_write_all, stdout_fd)
    decoder = LineDecoder(Direction.C2S, max_line_bytes=max_message, share_parses=True)
    while True:
        chunk, pending = pending or os.read(stdin_fd, READ_CHUNK), b""
        events = decoder.feed(chunk) if chunk else decoder.close()
        out = bytearray()
        parses = events.values() if isinstance(events, Batch) else [NOT_PARSED] * len(events)
        for event, parsed in zip(events, parses, strict=True):
            outgoing = twin.receive(event, parsed)
            if record is not None:
                record.exchange(event, outgoing)
            for message in outgoing:
                out += message.line
                out += b"\n"
            if len(out) >= WRITE_BYTES:  # many requests in one read, each with a big answer: no unbounded buffer
                if not send(bytes(out)):
                    return
                out.clear()
        if out and not send(bytes(out)):
            return
        if record is not None:
            record.flush()
        if not chunk:
            return


def _write_all(fd: int, data: bytes) -> bool:
    """Write all of ``data``; False when the reader has gone away."""
    view = memoryview(data)
    try:
        while view:
            written = os.write(fd, view)
            view = view[written:]
    except (BrokenPipeError, ConnectionResetError):
        return False
    return True
