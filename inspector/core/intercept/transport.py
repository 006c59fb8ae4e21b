"""Intercept on a session: a :class:`~inspector.core.transports.base.Transport` that wraps the session's own and
puts every message each way through an :class:`~inspector.core.intercept.engine.Interceptor` (``record
--rules``, the window's breakpoints). The session is still the only way to its transport: it talks to this
wrapper, and the wrapper to the transport it was given, and to nothing else.

What the session sends (``c2s``) is decided before it is written; what the server sends (``s2c``) after the
transport decoded it and before the session sees it. What each verdict records is
:func:`~inspector.core.intercept.records.records`'s; the session's pipeline does not pair what was never
delivered (:func:`inspector.core.wire.intercepted.delivered`), so a dropped answer leaves its request waiting
(until its timeout) and a held request is answered by the inspector's error.

A ``pause`` verdict asks ``pauser`` (the window's Intercepted queue), which returns the person's decision as a
verdict; other traffic keeps flowing meanwhile, and the session's own ``send`` of a paused message returns at
once (it is carried out when the person decides: a send is bounded by the request's timeout, whose clock the
pauser stops instead). Without a pauser a pause passes the message on unchanged (the
commands refuse pause rules before they start: :meth:`~inspector.core.intercept.rules.Rules.refuse_pause`).
A delay or a pause holds only its own message: what comes after it may overtake it, as on a real network. A
message still held when the session closes (or when its sender stops waiting for it) never goes on: it is
recorded ``dropped``, with a note saying so.

``send(data, raw=True)`` with more than one line (the composer's raw mode) is sent as given, never intercepted:
it is the user's own byte-exact test.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from inspector.core.intercept.engine import PASS_ACTION, Interceptor, Verdict
from inspector.core.intercept.records import Record, records
from inspector.core.tasks import Tasks
from inspector.core.transports.base import Transport
from inspector.core.wire.events import Event, Kind
from inspector.core.wire.framing import decode_document
from inspector.core.wire.intercepted import DROPPED, MARK, mark

#: How long closing waits for held messages to be recorded as given up (they only need the loop's next turn).
HELD_GRACE = 1.0
#: The note on a held message that never went on.
HELD_AT_END = "it was still held when the session ended or stopped waiting for it"

#: A person's decision on a paused message: called with its direction, its bytes and the pause verdict.
Pauser = Callable[[str, bytes, Verdict], Awaitable[Verdict]]


class InterceptingTransport(Transport):
    """``inner`` with ``interceptor`` between it and the session (see the module)."""

    def __init__(self, inner: Transport, interceptor: Interceptor, *, pauser: Pauser | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        super().__init__()
        self.inner = inner
        self.interceptor = interceptor
        self.pauser = pauser
        #: seconds on the session's clock (``arrived`` of a delayed message); None: not recorded
        self.clock = clock
        self.name = inner.name
        self._tasks = Tasks()
        probe = getattr(inner, "probe", None)
        if probe is not None:  # an HTTP transport's exchange outside the protocol (the window's OAuth sign-in)
            self.probe = probe
        #: the marks of messages handed to the inner transport, by their bytes, for the event it records
        self._sent_marks: dict[bytes, deque[dict[str, Any]]] = {}

    # -- what the session calls, passed on ---------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    async def start(self) -> None:
        self.inner.emit = self._arrived_one
        self.inner.emit_many = self._arrived
        await self.inner.start()

    async def close(self) -> None:
        # a message still held (a delay, a pause) never goes on: recorded as such before the peer is gone. One turn
        # of the loop first: a task spawned for a message that has just come has not started yet, and a task
        # cancelled before it starts never runs the code that records it
        await asyncio.sleep(0)
        self._tasks.cancel_all()
        await self._tasks.wait(HELD_GRACE)
        await self.inner.close()

    @property
    def closed(self) -> bool:
        return self.inner.closed

    async def wait_closed(self) -> None:
        await self.inner.wait_closed()

    def on_handshake(self, era: str, protocol_version: str | None) -> None:
        self.inner.on_handshake(era, protocol_version)

    def on_ready(self) -> None:
        self.inner.on_ready()

    async def cancel_request(self, msg_id: Any) -> bool:
        return await self.inner.cancel_request(msg_id)

    def waiting_detail(self, msg_id: Any) -> str | None:
        return self.inner.waiting_detail(msg_id)

    def diagnosis(self, waiting_for: str | None = None) -> str | None:
        return self.inner.diagnosis(waiting_for)

    def ending(self) -> str:
        return self.inner.ending()

    # -- the session's messages (c2s) ----------------------------------------------------------------------

    async def send(self, data: bytes, *, raw: bool = False) -> None:
        line = data.removesuffix(b"\n") if raw else data
        if raw and (b"\n" in line or not self.interceptor.active):
            await self.inner.send(data, raw=True)
            return
        verdict = self.interceptor.decide("c2s", line)
        if verdict.passes and verdict.rule is None:
            await self.inner.send(data, raw=raw)
            return
        if verdict.action == "pause" and self.pauser is not None:
            # the sender does not wait for the person: a request's send is bounded by its timeout, whose clock
            # the pauser stops instead (the message goes on, or not, when the person decides)
            self._tasks.spawn(self._carry_out("c2s", line, verdict, self._now()), "holding the message")
            return
        await self._carry_out("c2s", line, verdict, self._now())

    async def send_decoded(self, data: bytes, events: list[Event]) -> None:
        if self.interceptor.active:  # each line its own verdict
            for event in events:
                await self.send(event.raw)
            return
        await self.inner.send_decoded(data, events)

    def can_send_now(self) -> bool:
        return not self.interceptor.active and self.inner.can_send_now()

    def send_decoded_now(self, data: bytes, events: list[Event]) -> None:
        self.inner.send_decoded_now(data, events)

    # -- the server's messages (s2c) -----------------------------------------------------------------------

    def _arrived_one(self, event: Event) -> None:
        self._arrived([event])

    def _arrived(self, events: list[Event]) -> None:
        """Events from the inner transport: what it wrote (marked if this wrapper changed it) and what came."""
        if not self.interceptor.active and not self._sent_marks:  # nothing to decide or mark: as they came (the
            self.emit_many(events)  # window wraps every session, and a flood must not pay for breakpoints it has not)
            return
        on_time: list[Event] = []
        for event in events:
            if event.kind != Kind.MESSAGE:
                on_time.append(event)
            elif event.dir == "c2s":
                self._mark_sent(event)
                on_time.append(event)
            else:
                verdict = self.interceptor.decide("s2c", event.raw)
                if verdict.passes and verdict.rule is None:
                    on_time.append(event)
                elif verdict.action in ("delay", "pause"):
                    self._tasks.spawn(self._carry_out("s2c", event.raw, verdict, self._now(), event),
                                      "holding the server's message")
                else:
                    on_time.extend(self._deliver_s2c(event, records("s2c", event.raw, verdict)))
        if on_time:
            self.emit_many(on_time)

    def _deliver_s2c(self, event: Event, recorded: list[Record]) -> list[Event]:
        """The events to record for a server message, sending an answer the inspector makes back to it."""
        out: list[Event] = []
        for record in recorded:
            if record.dir == "c2s":  # the inspector's answer to a server request it held
                self._remember_mark(record.raw, record.mark)
                self._tasks.spawn(self.inner.send(record.raw), "answering the server's held request")
                continue
            if not out and record.raw == event.raw:
                made = event
            else:
                made = decode_document(record.raw, "s2c")
                made.eol = event.eol
            if record.mark is not None:
                made.put(**{MARK: record.mark})
            out.append(made)
        return out

    # -- carrying out a verdict ----------------------------------------------------------------------------

    async def _carry_out(self, direction: str, raw: bytes, verdict: Verdict, arrived: float | None,
                         event: Event | None = None) -> None:
        paused: float | None = None
        try:
            if verdict.action == "pause":
                if self.pauser is None:
                    verdict = Verdict(PASS_ACTION, out=raw)
                else:
                    began = time.monotonic()
                    verdict = await self.pauser(direction, raw, verdict)
                    paused = time.monotonic() - began
            if verdict.delay > 0:
                await asyncio.sleep(verdict.delay)
        except asyncio.CancelledError:  # the session closed, or its sender stopped waiting, while it was held
            self._never_went_on(direction, raw, verdict, event)
            raise
        recorded = records(direction, raw, verdict, arrived=arrived, paused=paused)
        if direction == "s2c":
            assert event is not None
            self.emit_many(self._deliver_s2c(event, recorded))
            return
        for record in recorded:
            if record.dir == "s2c":  # the inspector's answer to the session's own held request
                answer = decode_document(record.raw, "s2c")
                answer.put(**{MARK: record.mark})
                self.emit_many([answer])
            elif record.mark is not None and record.mark["role"] in ("original", "dropped", "held"):
                self.emit_many([self._made("c2s", record)])  # recorded, never written
            else:
                self._remember_mark(record.raw, record.mark)
                await self.inner.send(record.raw)

    def _never_went_on(self, direction: str, raw: bytes, verdict: Verdict, event: Event | None) -> None:
        """Record a message that was still held (delayed, paused) when it was given up: dropped, with why."""
        rule = verdict.rule
        found = mark(rule.number if rule is not None else 0, rule.do if rule is not None else "pause", DROPPED,
                     name=(rule.name or None) if rule is not None else None, note=HELD_AT_END)
        if event is not None:
            event.put(**{MARK: found})
            self.emit_many([event])
        else:
            self.emit_many([self._made(direction, Record(direction, raw, found))])

    def _made(self, direction: str, record: Record) -> Event:
        made = decode_document(record.raw, direction)
        made.eol = b"\n" if self.inner.name == "stdio" else b""
        if record.mark is not None:
            made.put(**{MARK: record.mark})
        return made

    def _remember_mark(self, raw: bytes, mark: dict[str, Any] | None) -> None:
        if mark is not None:
            self._sent_marks.setdefault(raw, deque()).append(mark)

    def _mark_sent(self, event: Event) -> None:
        if not self._sent_marks:
            return
        waiting = self._sent_marks.get(event.raw.rstrip(b"\r\n"))
        if waiting:
            event.put(**{MARK: waiting.popleft()})
            if not waiting:
                del self._sent_marks[event.raw.rstrip(b"\r\n")]

    def _now(self) -> float | None:
        return self.clock() if self.clock is not None else None
