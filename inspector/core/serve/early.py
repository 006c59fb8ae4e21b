"""Serving a big capture from its first moment: ``initialize`` answered from the capture's start while the whole
capture is indexed in a thread.

Indexing a capture of a million events takes seconds (:mod:`inspector.core.serve.index`), and a client waits for
its ``initialize`` answer before it sends anything else. The handshake is at the start of a capture:
:meth:`ServeIndex.start_of <inspector.core.serve.index.ServeIndex.start_of>` indexes the first chunks only, until
what the twin answers ``initialize`` with is settled (the recorded initialize and what the server sent after it
are those the whole index gives). :class:`EarlyStart` answers the client's ``initialize`` requests from that index,
exactly as the twin of the whole capture would, while a thread indexes the whole capture; the first message of the
client's that is anything else (or an ``initialize`` whose answer could depend on more of the capture: a revision
other than the recorded one, which a ``server/discover`` recorded later could offer) waits for that index, and
from there the session is served as always, that message first.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from inspector.core.serve.index import IndexStopped, ServeIndex
from inspector.core.serve.stdio import READ_CHUNK, ServedCapture, _write_all
from inspector.core.serve.twin import Outgoing, Twin
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import NOT_PARSED, Batch, LineDecoder

#: Captures at least this big are served early (a smaller one is indexed before a client would notice).
EARLY_FROM_BYTES = 4 << 20
#: How much of a capture's start is indexed to find its handshake (it is in the first kilobytes of a capture
#: whose client began with it).
START_BYTES = 1 << 20
#: A client's first line longer than this is not looked at early: it waits for the whole index.
EARLY_LINE_BYTES = 1 << 20

Build = Callable[[threading.Event], ServeIndex]


class EarlyStart:
    """The handshake of a capture, answered while its whole index is built in a thread (:meth:`begin`)."""

    def __init__(self, start: ServeIndex, mode: str, build: Build,
                 on_ready: Callable[[ServeIndex], None] | None = None) -> None:
        self.start = start  #: the index of the capture's start
        self.mode = mode
        self.early = Twin(start, mode)  #: the twin of the capture's start, which answers the handshake
        self._build = build
        self._on_ready = on_ready
        self._stop = threading.Event()
        self._done = threading.Event()
        self._index: ServeIndex | None = None
        self._taken = False  # the whole index was handed out (its taker closes it)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="serve index", daemon=True)

    @classmethod
    def begin(cls, path: str | os.PathLike[str], mode: str, on_ready: Callable[[ServeIndex], None] | None = None,
              build: Build | None = None) -> EarlyStart | None:
        """Index the start of the capture at ``path`` and, when its handshake is settled there, start indexing
        the whole capture in a thread (``build``, given a stop event: by default :class:`ServeIndex`;
        ``on_ready`` is called in that thread with the index once it is built). None when the capture is small or
        its start does not settle the handshake: index it whole first, as always. Raises
        :class:`~inspector.core.capture.format.CaptureError` when the capture cannot be read."""
        try:
            if os.stat(path).st_size < EARLY_FROM_BYTES:
                return None
        except OSError:
            return None  # indexing it says why
        start = ServeIndex.start_of(path, START_BYTES)
        if start.capture.done or not start.handshake_settled():
            start.close()
            return None
        early = cls(start, mode, build or partial(_whole, Path(path)), on_ready)
        early._thread.start()
        return early

    @property
    def header(self) -> dict[str, Any]:
        return self.start.capture.header

    @property
    def answered(self) -> int:
        """Requests answered early."""
        return self.early.answered

    @property
    def ready(self) -> bool:
        """The whole index is built (or its build failed)."""
        return self._done.is_set()

    def answer(self, event: Event, parsed: Any = NOT_PARSED) -> list[Outgoing] | None:
        """What the twin of the whole capture sends for the client's ``event``, when it is an ``initialize`` whose
        answer the capture's start settles; None for anything else (it waits for :meth:`wait`)."""
        rpc = event.rpc
        if event.kind != Kind.MESSAGE or rpc is None or rpc.kind != jsonrpc.REQUEST or rpc.method != "initialize":
            return None
        message = parsed
        if message is NOT_PARSED:
            try:
                message = event.json()
            except ValueError:
                return None
        params = message.get("params") if isinstance(message, dict) else None
        if not self.early.handshake.answers_alone(params):
            return None
        return self.early.receive(event, parsed)

    def serve_handshake(self, *, max_message: int, record: ServedCapture | None = None, stdin_fd: int = 0,
                        stdout_fd: int = 1, write: Callable[[bytes], bool] | None = None) -> bytes | None:
        """Answer the client's lines on stdin for as long as :meth:`answer` can, a line at a time; returns the bytes
        read and not answered (from the first line it could not answer: to be served with the whole index), or
        None when the session ended here (stdin ended after whole lines, or the client closed stdout)."""
        send = write if write is not None else partial(_write_all, stdout_fd)
        buffer = b""
        while True:
            end = buffer.find(b"\n")
            if end < 0:
                if len(buffer) > EARLY_LINE_BYTES:
                    return buffer
                chunk = os.read(stdin_fd, READ_CHUNK)
                if not chunk:
                    return buffer or None
                buffer += chunk
                continue
            decoder = LineDecoder(Direction.C2S, max_line_bytes=max_message, share_parses=True)
            events = decoder.feed(buffer[:end + 1])
            if len(events) != 1:
                return buffer
            outgoing = self.answer(events[0], events.values()[0] if isinstance(events, Batch) else NOT_PARSED)
            if outgoing is None:
                return buffer
            if record is not None:
                record.exchange(events[0], outgoing)
            if not send(b"".join(out.line + b"\n" for out in outgoing)):
                return None
            if record is not None:
                record.flush()
            buffer = buffer[end + 1:]

    def wait(self) -> ServeIndex:
        """The whole index, once built; raises what its build raised."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        if self._index is None:
            raise IndexStopped
        self._taken = True
        return self._index

    def twin(self) -> Twin:
        """The twin of the whole capture (:meth:`wait`), with the requests answered early counted in."""
        twin = Twin(self.wait(), self.mode)
        twin.answered += self.early.answered
        return twin

    def close(self) -> None:
        """Stop the whole index's build if it is still going; close the indexes not handed out."""
        self._stop.set()
        self._thread.join()
        self.start.close()
        if self._index is not None and not self._taken:
            self._index.close()

    def _run(self) -> None:
        try:
            index = self._build(self._stop)
            self._index = index
            if self._on_ready is not None:
                self._on_ready(index)
        except IndexStopped:
            pass
        except BaseException as exc:  # handed to the thread that waits for the index
            self._error = exc
        finally:
            self._done.set()


def _whole(path: Path, stop: threading.Event) -> ServeIndex:
    return ServeIndex(path, stop=stop)
