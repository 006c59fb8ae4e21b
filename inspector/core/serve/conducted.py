"""A twin's session over a network transport, with its :class:`~inspector.core.serve.conduct.Conductor` in
time on the asyncio loop (:mod:`inspector.core.serve.http`'s sessions: Streamable HTTP, HTTP+SSE, WebSocket).

The conductor says what goes out when; :class:`Conducted` takes the client's events to it, asks it for what is
due (at once, and again when its clock says: one timer a session), records each item (``--out``) at the time it
was due, and routes each item to be written: an item of a client's request whose POST waits for it
(:meth:`Conducted.open`) goes to that request's queue, until the answer to it ends the route; any other item
(of no request, or after its request's answer) goes to the host's ``standalone`` (the GET stream, the session's
event stream, the WebSocket). Once close-after ended the session and its last answer went out, ``on_close``
gets close-after's sentence.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from inspector.core.serve.conduct import Conductor, Item
from inspector.core.serve.paced import _event as recorded_event
from inspector.core.serve.stdio import ServedCapture
from inspector.core.serve.twin import Twin
from inspector.core.wire.events import Direction, Event
from inspector.core.wire.framing import NOT_PARSED
from inspector.core.wire.ids import IdKey, id_key


def is_answer(item: Item) -> bool:
    """Whether ``item`` is the response (a result or an error) to its request, or the array of responses to a
    batch: the last of its request's stream."""
    if item.junk or item.dir != Direction.S2C or item.request is None:
        return False
    try:
        message = json.loads(item.line)
    except ValueError:
        return False
    if isinstance(message, list):  # the answer to a batch (2025-03-26): responses only
        return bool(message) and all(_is_response(member) for member in message)
    return _is_response(message)


def _is_response(message: Any) -> bool:
    return isinstance(message, dict) and "method" not in message and ("result" in message or "error" in message)


def is_notification(item: Item) -> bool:
    """Whether ``item`` is a notification (no id): what a client that takes JSON only may go without."""
    if item.junk:
        return False
    try:
        message = json.loads(item.line)
    except ValueError:
        return False
    return isinstance(message, dict) and "method" in message and "id" not in message


class Conducted:
    """One session's conductor on the running loop (see the module)."""

    def __init__(self, conductor: Conductor, standalone: Callable[[Item], None], *,
                 record: ServedCapture | None = None, on_close: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.monotonic, on_flush: Callable[[], None] | None = None) -> None:
        self.conductor = conductor
        self.standalone = standalone
        self.record = record
        self.on_close = on_close
        self.on_flush = on_flush  #: called after each flush (what went out may have changed the faults: oversize)
        self.clock = clock
        self.routes: dict[IdKey, asyncio.Queue[Item]] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._closed = False

    @property
    def twin(self) -> Twin:
        return self.conductor.twin

    def open(self, request_id: Any) -> asyncio.Queue[Item]:
        """The queue of what goes on the stream of the client's request ``request_id`` (its answer last)."""
        queue: asyncio.Queue[Item] = asyncio.Queue()
        self.routes[id_key(request_id)] = queue
        return queue

    def close(self, request_id: Any, queue: asyncio.Queue[Item]) -> None:
        """The request's stream is over: what comes for it later goes to ``standalone``."""
        key = id_key(request_id)
        if self.routes.get(key) is queue:
            del self.routes[key]

    def receive(self, event: Event) -> None:
        """Take one event of the client's now, and send what is due."""
        self.conductor.receive(event, NOT_PARSED, self.clock())
        self.flush()

    def flush(self) -> None:
        """Send and record what is due, and wake again when the conductor next has something due."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        items = self.conductor.due(self.clock())
        record = self.record
        for item in items:
            if record is not None:
                record.push([recorded_event(item)], item.at)
            if item.dir != Direction.S2C or not item.write:
                continue
            queue = self.routes.get(id_key(item.request)) if item.request is not None else None
            if queue is None:
                self.standalone(item)
                continue
            queue.put_nowait(item)  # bounded by the request's own chain of messages
            if is_answer(item):
                del self.routes[id_key(item.request)]
        if record is not None and items:
            record.flush()
        if self.on_flush is not None:
            self.on_flush()
        self._wake()
        if self.conductor.finished and not self._closed:
            self._closed = True
            if self.on_close is not None:
                self.on_close(self.conductor.closing or "")

    def _wake(self) -> None:
        at = self.conductor.next_at()
        if at is None:
            return
        self._timer = asyncio.get_running_loop().call_later(max(0.0, at - self.clock()), self.flush)

    def end(self) -> None:
        """The session is over: nothing more is sent."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.routes.clear()
