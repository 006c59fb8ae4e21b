"""One connection to one server: numbers and times events, pairs them, saves them, and speaks the protocol.

The session owns a transport and is the single place its events pass through, in order: transport ->
:class:`~inspector.core.capture.pipeline.EventPipeline` (seq, times, correlation, counts, capture, ``events``
list, listeners) -> the session's reactions (waiting requests, server requests, the server's exit). Listeners
are plain callables, called with each batch of events after all state changed (the GUI bridges them to Qt
signals; the core never sees Qt).

Its handshake (legacy ``initialize``, modern ``server/discover``, the ``auto`` probe, version negotiation) is
:mod:`inspector.core.session.handshake`'s; what requests and the handshake raise and return is
:mod:`inspector.core.session.outcomes`'.

The server's own requests are :mod:`inspector.core.session.server_requests`' (answered, and while the user is
asked, the clocks of the requests they may belong to stopped).

Cancelling is done once per request: :meth:`Session.cancel` sends one ``notifications/cancelled`` however often
it is asked (the user, then the timeout), and stops waiting for the request; a late answer is still paired.
"""

from __future__ import annotations

import asyncio
import copy
import json
import math
import re
import time
from collections.abc import Callable
from typing import Any

from inspector.core.capture.pipeline import EventPipeline, Keeper, Listener
from inspector.core.capture.writer import CaptureWriter
from inspector.core.session.handshake import MODERN_REVISION, Handshake
from inspector.core.session.outcomes import (
    RequestCancelled,
    RequestTimeout,
    ServerInfo,
    UnreadableResponse,
    client_info,
)
from inspector.core.session.resend import Resends
from inspector.core.session.server_requests import ServerRequestHandler, ServerRequests, Waiter
from inspector.core.session.spans import Spans
from inspector.core.tasks import Tasks
from inspector.core.transports.base import Transport, TransportClosed, TransportError
from inspector.core.waiting import wait_for
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind, Lifecycle
from inspector.core.wire.framing import TOO_DEEP
from inspector.core.wire.ids import id_key

#: Default bound on waiting for any one response (restarted by progress notifications).
DEFAULT_REQUEST_TIMEOUT = 30.0
#: However much progress a request reports, we stop waiting for it after this long.
DEFAULT_MAX_REQUEST_TIME = 600.0
#: What a "no response within N s" sentence ends with: what the user changes to wait longer.
DEFAULT_TIMEOUT_HINT = "raise --timeout to wait longer"
DEFAULT_MAX_TIME_HINT = "raise --max-time to wait longer"
#: At close, how long answers and cancellations already on their way may take to go out.
PENDING_SENDS_GRACE = 0.5

class _OutOfTime(TimeoutError):
    """A request that kept reporting progress reached ``max_request_time``."""


class Session:
    def __init__(self, transport: Transport, *, capture: CaptureWriter | None = None,
                 roots: list[dict[str, str]] | None = None,
                 server_request_handler: ServerRequestHandler | None = None,
                 keep_events: bool = True, timeout_hint: str = DEFAULT_TIMEOUT_HINT,
                 keeper: Keeper | None = None) -> None:
        """``keep_events``: keep every event in :attr:`events`; ``keeper``: keep them there instead (the window's
        bounded :class:`~inspector.core.capture.live.LiveIndex`; :attr:`events` then stays empty)."""
        self._transport = transport
        self.capture = capture
        self.roots = list(roots or [])
        #: declare ``roots`` with ``listChanged`` even while there are none: the window lets the user edit them
        #: and sends notifications/roots/list_changed (https://modelcontextprotocol.io/specification/2025-11-25/client/roots)
        self.roots_list_changed = False
        #: ``capabilities.extensions`` to declare (SEP-1724): e.g. MCP Apps' when the client renders apps
        self.extensions: dict[str, Any] = {}
        #: the client capabilities to declare instead of those the roots, handler and extensions give: a
        #: comparison session declares what the live session beside it declared, as servers show some tools
        #: only to clients that can answer them
        self.declared: dict[str, Any] | None = None
        self.keep_events = keep_events
        self.events: list[Event] = []
        self.pipeline = EventPipeline(capture, keeper if keeper is not None else self.events if keep_events else None)
        self.listeners: list[Listener] = self.pipeline.listeners
        #: called with each batch before it is numbered and saved: what a caller adds to the events (an annotate
        #: hook; replay marks which recorded message each sent one replays)
        self.annotators: list[Listener] = self.pipeline.annotators
        self._correlator = self.pipeline.correlator
        self.counts = self.pipeline.counts
        self.server: ServerInfo | None = None
        self.modern = False  #: when true, every request gets the 2026-07-28 ``_meta``
        self._t0 = time.monotonic()
        self._next_id = 1
        #: the requests being waited for (by id), each with the server requests that hold its clock
        self.waiters: dict[tuple[str, Any], Waiter] = {}
        #: requests we told the server we gave up on (by id): each is cancelled once
        self._cancelled: set[tuple[str, Any]] = set()
        #: the server's own requests to this session, answered (ping, roots/list, the handler's)
        self.server_requests = ServerRequests(self, server_request_handler)
        #: progress token (as JSON text) -> loop time of the last progress notification for it
        self._progress_seen: dict[str | None, float] = {}  # looked up by token or None; None is never put
        self.max_request_time = DEFAULT_MAX_REQUEST_TIME
        #: the end of every "no response within N s" sentence: what raises the timeout, in the user's terms
        self.timeout_hint = timeout_hint
        self.max_time_hint = DEFAULT_MAX_TIME_HINT  #: the same for ``max_request_time``
        #: the handshake while it runs (its requests' "no response" sentences name its whole bound)
        self._handshake: Handshake | None = None
        self._tasks = Tasks()
        #: one per request being waited for: the framing errors from the server since it was sent
        self._junk_watchers: list[_Junk] = []
        #: the conversations of several requests (tasks, multi-round calls), marked on their events
        self.spans = Spans()
        self.annotators.append(self.spans.annotate)
        #: called after each batch has been numbered, saved, announced to every listener and reacted to: what
        #: answers a batch at once with a send of its own (a load run's refill), so that every listener has seen
        #: the batch before the events of that send
        self.after_batch: list[Callable[[], None]] = []
        #: after :meth:`restart`: the requests to send again once the new server's handshake is done
        self.resends = Resends(self)
        self.annotators.append(self.resends.mark)
        self._restarting = False  #: the old connection of a restart is closing: its end fails no waiter

    # -- the event path --------------------------------------------------------------------------------

    def _on_event(self, event: Event) -> None:
        self._on_events([event])

    def _on_events(self, events: list[Event]) -> None:
        """The pipeline's work (number, time, pair, count, save, keep, announce), then react: for a batch.

        A batch is what one read produced, so its events share one timestamp: they arrived together.
        """
        reactions = self.pipeline.push(events, time.monotonic() - self._t0, time.time())
        if self._progress_seen:
            for event in events:
                rpc = event.rpc
                if rpc is not None and rpc.method == "notifications/progress" and event.kind == Kind.MESSAGE:
                    self._saw_progress(event)
        for event, request in reactions:
            self._react(event, request)
        if self.server_requests.answering:  # after the reactions: a request and its cancel may come in one read
            for event in events:
                rpc = event.rpc
                if rpc is not None and rpc.method == "notifications/cancelled" and event.dir == Direction.S2C:
                    self.server_requests.cancelled(event)
        for hook in self.after_batch:
            hook()

    def _react(self, event: Event, request: Event | None) -> None:
        """What the session does about one event the pipeline handed back (``request``: what it answers)."""
        if request is not None and request.dir == Direction.C2S and request.rpc is not None:
            if self._restarting:
                return  # the old server of a restart, being stopped: its request goes to the new one (restart)
            waiter = self.waiters.pop(id_key(request.rpc.id), None)
            if waiter is not None and not waiter.future.done():
                waiter.future.set_result(event)
        elif event.kind == Kind.MESSAGE and event.dir == Direction.S2C and event.rpc is not None \
                and event.rpc.kind == jsonrpc.REQUEST:
            self._tasks.spawn(self.server_requests.receive(event), "answering the server's request")
        elif event.kind == Kind.LIFECYCLE and event.data.get("what") in (Lifecycle.EXITED, Lifecycle.DISCONNECTED):
            if self._restarting:
                return  # the old server of a restart: what waits for it is sent again to the new one
            for waiter in self.waiters.values():
                if not waiter.future.done():
                    waiter.future.set_exception(
                        TransportClosed(self._transport.diagnosis(waiter.method) or "the server exited"))
            self.waiters.clear()
        elif event.kind == Kind.LIFECYCLE and event.data.get("what") == Lifecycle.STREAM_LOST:
            waiter = self.waiters.pop(id_key(event.data.get("request_id")), None)
            if waiter is not None and not waiter.future.done():
                waiter.future.set_exception(TransportClosed(str(event.data.get("reason"))))
        elif event.kind == Kind.FRAMING_ERROR and event.dir == Direction.S2C:
            for junk in self._junk_watchers:
                junk.saw(event)
            too_large = "oversize" in event.data
            if not (self.waiters and (too_large or event.reason == TOO_DEEP)):
                return
            # maybe the answer we wait for, too big or too deep to read: it fails now, not at its timeout
            found, msg_id = _oversize_message_id(event)
            waiter = self.waiters.pop(id_key(msg_id), None) if found else None
            if waiter is not None and not waiter.future.done():
                self._correlator.forget(Direction.C2S, msg_id)
                waiter.future.set_exception(UnreadableResponse(
                    f"the server's answer to {waiter.method} could not be read: {event.reason}", too_large=too_large))

    def _saw_progress(self, event: Event) -> None:
        try:
            token = json.dumps(event.json()["params"]["progressToken"])
        except (ValueError, KeyError, TypeError):
            return
        if token in self._progress_seen:
            self._progress_seen[token] = asyncio.get_running_loop().time()

    def note(self, text: str, **data: Any) -> Event:
        """Record something the inspector itself has to say (why a revision was chosen, a timeout, ...)."""
        event = Event(Kind.NOTE, data={"text": text, **data})
        self._on_event(event)
        return event

    def record(self, event: Event) -> Event:
        """Add an event the inspector made that is no message on the wire (an MCP App's message to or from its
        host, what the app's sandbox blocked): numbered, timed, saved and announced like the wire's; returned
        numbered."""
        self._on_event(event)
        return event

    # -- lifecycle -------------------------------------------------------------------------------------

    async def start(self) -> None:
        self._transport.emit = self._on_event
        self._transport.emit_many = self._on_events
        await self._transport.start()

    async def close(self) -> None:
        self.resends.fail(TransportClosed("the session was closed"))  # after a restart, before a new handshake
        # answers and cancellations still on their way go out first (a frozen peer: bounded)
        await self._tasks.wait(PENDING_SENDS_GRACE)
        await self._transport.close()
        await self._tasks.wait(PENDING_SENDS_GRACE)
        if self.capture is not None:
            self.capture.flush()

    async def restart(self, transport: Transport) -> None:
        """Go on with a new connection in the same session (a server restarted after a watched file changed):
        the old one is closed (its process ended), then ``transport`` is started in its place. The events keep
        their numbering and clock and the capture its file; the handshake is the caller's to do again.

        The requests still waiting for the old server's answer are not lost: those a person or the Explorer sent
        (a slow ``tools/call``, a ``resources/read``) wait on, and the next :meth:`handshake` sends each again to
        the new server as soon as it is done, with the same id, so whoever waits gets the new server's answer (its
        clock starts again at the resend). The resend is a new message on the wire: a note names the requests,
        and each resent event has ``data.resend_of`` = the ``seq`` of the request it sends again (the new server's
        answer pairs with the resend). In the 2026-07-28 era its ``_meta``
        names the revision the new handshake settled. Not sent again, and failed at once with "the server
        restarted": the old handshake's own requests and the lists (``resend.NOT_RESENT``: the new handshake
        replaces the one, and the Explorer lists again after it, opening its ``subscriptions/listen`` stream
        again too). What the old server answers while it is being stopped (the Python SDK answers each request in
        flight with "Connection closed" when its stdin closes) is recorded and paired in the capture, and ends no
        wait: the request goes to the new server all the same. When the new server does not start or its
        handshake fails, the waiting requests fail with "the server restarted and failed to start: WHY"; a request
        cancelled meanwhile is not sent again.
        :mod:`inspector.core.session.resend` keeps and sends what is owed."""
        sent = {id_key(r.rpc.id): r.seq for r in self._correlator.pending(Direction.C2S) if r.rpc is not None}
        self._restarting = True
        try:
            await self._tasks.wait(PENDING_SENDS_GRACE)
            await self._transport.close()
        finally:
            self._restarting = False
        self.resends.keep(self.waiters, sent)
        self.waiters.clear()
        for request in self._correlator.pending(Direction.C2S):
            if request.rpc is not None:
                self._correlator.forget(Direction.C2S, request.rpc.id)
        self.server = None
        self.modern = False
        self._transport = transport
        try:
            await self.start()
        except TransportError as exc:
            self.resends.fail(exc)
            raise

    # -- the connection, as callers see it: only the session touches its transport and correlator ------

    @property
    def last_seq(self) -> int:
        """The ``seq`` of the newest event of the session (0 before any)."""
        return self.pipeline.seq

    @property
    def started_at(self) -> float:
        """The monotonic clock's reading when the session began: each event's ``t`` counts from it."""
        return self._t0

    @property
    def closed(self) -> bool:
        """Whether the connection has ended, whoever ended it."""
        return self._transport.closed

    async def wait_closed(self) -> None:
        """Wait until the connection ends."""
        await self._transport.wait_closed()

    def diagnosis(self, waiting_for: str | None = None) -> str | None:
        """Once the connection ended: one sentence on why (an exit code and the last stderr lines, the reason
        an HTTP server went away), naming the request ``waiting_for`` if any; None while it is up."""
        return self._transport.diagnosis(waiting_for)

    def ending(self) -> str:
        """How the connection stands or ended, as a clause for a one-line summary."""
        return self._transport.ending()

    def pending_requests(self) -> list[Event]:
        """The requests sent to the server that have no answer yet, oldest first."""
        return self._correlator.pending(Direction.C2S)

    def negotiated(self, era: str, protocol_version: str | None) -> None:
        """The handshake chose ``protocol_version`` of ``era``: the transport learns it at once (the headers of
        notifications/initialized carry it, before the handshake is over)."""
        self._transport.on_handshake(era, protocol_version)

    def settle(self, info: ServerInfo) -> None:
        """Take ``info`` as what the handshake settled: the protocol revision pairing and the transport's
        headers follow it. :meth:`handshake` does this itself; a replay, which sends the recorded handshake
        as it was, calls it when the server's answer comes."""
        self.server = info
        self._correlator.protocol_version = info.protocol_version
        self._transport.on_handshake(info.era, info.protocol_version)

    def ready(self) -> None:
        """The handshake is complete (legacy: notifications/initialized was sent)."""
        self._transport.on_ready()

    # -- sending ---------------------------------------------------------------------------------------

    def next_id(self) -> int:
        value = self._next_id
        self._next_id += 1
        return value

    def _with_meta(self, params: Any) -> Any:
        if not self.modern:
            return params
        params = dict(params) if isinstance(params, dict) else {}
        meta = dict(params.get("_meta") or {})
        version = self.server.protocol_version if self.server and self.server.protocol_version else MODERN_REVISION
        meta.setdefault("io.modelcontextprotocol/protocolVersion", version)
        meta.setdefault("io.modelcontextprotocol/clientCapabilities", self.client_capabilities())
        meta.setdefault("io.modelcontextprotocol/clientInfo", client_info())
        params["_meta"] = meta
        return params

    def client_capabilities(self) -> dict[str, Any]:
        if self.declared is not None:
            return copy.deepcopy(self.declared)
        caps: dict[str, Any] = {}
        if self.roots_list_changed:
            caps["roots"] = {"listChanged": True}
        elif self.roots:
            caps["roots"] = {}
        caps.update(self.server_requests.capabilities())
        if self.extensions:
            caps["extensions"] = {**caps.get("extensions", {}), **self.extensions}
        return caps

    async def send_object(self, obj: Any) -> None:
        """Send one message as it is. If the server is gone, the sentence names the message that could not go
        (a server that exits right after a reply is often noticed only when the next message is written)."""
        try:
            await self._transport.send(encode(obj))
        except TransportClosed as exc:
            method = obj.get("method") if isinstance(obj, dict) else None
            if not isinstance(method, str):
                raise
            raise TransportClosed(f"{method} could not be sent: {exc}") from None

    async def send_raw(self, data: bytes) -> None:
        """Send bytes exactly as given (deliberately broken messages included)."""
        await self._transport.send(data, raw=True)

    async def send_decoded(self, data: bytes, events: list[Event]) -> None:
        """Send complete message lines exactly as given, with ``events``, what decoding them makes of them (one
        message event per line, built by the caller: :meth:`Transport.send_decoded`); saved like any send."""
        await self._transport.send_decoded(data, events)

    def can_send_now(self) -> bool:
        """Whether :meth:`send_decoded_now` can write at once (the transport's pipe takes it without waiting)."""
        return self._transport.can_send_now()

    def send_decoded_now(self, data: bytes, events: list[Event]) -> None:
        """:meth:`send_decoded` at once, without waiting, after :meth:`can_send_now` said yes (no ``await`` in
        between): an ``after_batch`` hook answering a batch with requests of its own (a load run's refill)."""
        self._transport.send_decoded_now(data, events)

    async def http_probe(self, method: str, *, headers: dict[str, str] | None = None, content: bytes | None = None,
                         purpose: str = "") -> tuple[Event, bytes] | None:
        """One HTTP exchange outside the protocol's flow, on this session's connection and in its capture (the
        transport's ``probe``: its session headers with ``headers`` over them); None when the transport has no
        such thing (stdio, HTTP+SSE). Raises TransportError when no answer can be had."""
        probe = getattr(self._transport, "probe", None)
        if probe is None or self._transport.name not in ("streamable-http", "auto"):
            return None
        result: tuple[Event, bytes] | None = await probe(method, headers=headers, content=content, purpose=purpose)
        return result

    async def notify(self, method: str, params: Any = None) -> None:
        obj: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            obj["params"] = params
        await self.send_object(obj)

    async def request(self, method: str, params: Any = None, *, timeout: float = DEFAULT_REQUEST_TIMEOUT,
                      msg_id: Any = None, inject_meta: bool = True, cancel_on_timeout: bool = True) -> Event:
        """Send a request and wait for its response event (a result or an error: check :func:`result_of`).

        Raises RequestTimeout, or TransportClosed if the server goes away first.
        """
        if msg_id is None:
            msg_id = self.next_id()
        obj: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        params = self._with_meta(params) if inject_meta else params
        if params is not None:
            obj["params"] = params
        return await self.request_object(obj, timeout=timeout, cancel_on_timeout=cancel_on_timeout)

    async def request_object(self, obj: dict[str, Any], *, timeout: float = DEFAULT_REQUEST_TIMEOUT,
                             cancel_on_timeout: bool = True) -> Event:
        """Send a request and wait for its response; in the 2026-07-28 era, fulfil ``input_required``
        results (multi round-trip requests) with the server request handler and retry with a new id, the rounds
        marked as one span (:func:`inspector.core.session.rounds.request_in_rounds`)."""
        from inspector.core.session.rounds import request_in_rounds

        return await request_in_rounds(self, obj, timeout, cancel_on_timeout)

    async def request_one_round(self, obj: dict[str, Any], timeout: float, cancel_on_timeout: bool) -> Event:
        """Send one request and wait (bounded) for its response, answering nothing on the way: no
        ``input_required`` rounds (:meth:`request_object` does those; replay re-sends each recorded round as
        it was recorded)."""
        method = str(obj.get("method"))
        key = id_key(obj.get("id"))
        future: asyncio.Future[Event] = asyncio.get_running_loop().create_future()
        waiter = self.waiters[key] = Waiter(obj.get("id"), method, future, obj)
        self._cancelled.discard(key)  # a new request with this id can be cancelled in its turn
        junk = _Junk()
        self._junk_watchers.append(junk)
        loop = asyncio.get_running_loop()
        sent_at = loop.time()
        try:
            try:
                # bounded too: an HTTP transport's send waits for the response headers of its POST. Not
                # asyncio.wait_for: on 3.11 it lost a Ctrl-C that came as the send ended (core/waiting.py)
                await wait_for(self._transport.send(encode(obj)), _bound(timeout))
            except TransportClosed as exc:
                raise TransportClosed(self._transport.diagnosis(method) or str(exc)) from None
            # the bound counts from the send, not from its end: "within N s" means N s after we asked
            return await self._wait(waiter, obj, timeout, first=timeout - (loop.time() - sent_at))
        except TimeoutError as exc:
            text, hint = self._no_response(method, timeout, obj, isinstance(exc, _OutOfTime))
            reason = f"mcp-inspector stopped waiting: {text}"
            text += self._why_no_answer(obj.get("id"), junk) + (f"; {hint}" if hint else "")
            self.note(text, request_id=obj.get("id"), method=method, failure=True, gave_up=True)
            if cancel_on_timeout:  # in the background: a frozen server must not hold up the error path too
                self._tasks.spawn(self.cancel(obj.get("id"), reason), "cancelling the request")
            raise RequestTimeout(text) from None
        finally:
            self._junk_watchers.remove(junk)
            self.waiters.pop(key, None)
            self._progress_seen.pop(_progress_token(obj), None)
            if future.done() and not future.cancelled():
                future.exception()  # retrieved: the send failure above already says the same thing

    def _no_response(self, method: str, timeout: float, obj: dict[str, Any], out_of_time: bool) -> tuple[str, str]:
        """The "no response" clause for a request that timed out, and the hint that says what raises its bound."""
        if out_of_time:
            return (f"no response to {method} within {self.max_request_time:g} s in all, though it reported progress",
                    self.max_time_hint)
        if self._progress_seen.get(_progress_token(obj)):
            return f"no response to {method} within {timeout:g} s of its last progress notification", self.timeout_hint
        running = self._handshake
        if running is not None and timeout < running.whole:  # a later step of the handshake: the whole bound counts
            return f"no response to {method} within the handshake's {running.whole:g} s", self.timeout_hint
        return f"no response to {method} within {timeout:g} s", self.timeout_hint

    def _why_no_answer(self, msg_id: Any, junk: _Junk) -> str:
        """What the transport can tell about a silent server (a stopped process, an unread stdin, a stream
        that sends too slowly), and what came from the server instead of an answer; "" when nothing is known."""
        why = self._transport.waiting_detail(msg_id)
        text = f": {why}" if why else ""
        if junk.count == 1:
            text += f"; meanwhile 1 framing error came from the server: {junk.first}"
        elif junk.count:
            text += f"; meanwhile {junk.count:,} framing errors came from the server, the first: {junk.first}"
        return text

    async def _wait(self, waiter: Waiter, obj: dict[str, Any], timeout: float, first: float | None = None) -> Event:
        """Wait ``timeout`` for the answer (``first``, if given, until the first progress notification: the bound
        counts from the send), restarted by each progress notification for the request's progressToken, but
        never longer than ``max_request_time`` in all (the clock users asked for: a 108 s tools/call that
        reports progress must not be cut at 60 s, and one that reports forever must still end: then
        :class:`_OutOfTime`).

        No clock runs while a server request that may belong to it waits for the user's answer; when the user
        has answered, ``timeout`` starts again in full (the server still has to act on the answer), and the
        pause is added to ``max_request_time``. Raises TimeoutError (the future cancelled)."""
        future = waiter.future
        token = _progress_token(obj)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (timeout if first is None else max(0.0, first))
        hard_deadline = loop.time() + max(self.max_request_time, timeout)
        if token is not None:
            self._progress_seen[token] = 0.0
        while not future.done():
            waiter.wake = loop.create_future()
            if waiter.holds:  # the user is asked: only their answer (or the response) moves on
                paused = loop.time()
                await asyncio.wait((future, waiter.wake), return_when=asyncio.FIRST_COMPLETED)
                if not waiter.holds:
                    now = loop.time()
                    deadline = now + timeout
                    hard_deadline += now - paused
                continue
            last = self._progress_seen.get(token) or 0.0  # (None is never a token: 0.0 without one)
            if waiter.resent_at:  # sent again to a restarted server: the bound counts from that send
                deadline = max(deadline, waiter.resent_at + timeout)
            if last:
                deadline = max(deadline, last + timeout)
            now = loop.time()
            if now >= hard_deadline:
                future.cancel()
                raise _OutOfTime() if last else TimeoutError()
            if now >= deadline:
                future.cancel()
                raise TimeoutError
            await asyncio.wait((future, waiter.wake), timeout=_bound(min(deadline, hard_deadline) - now),
                               return_when=asyncio.FIRST_COMPLETED)
        return future.result()

    def was_cancelled(self, msg_id: Any) -> bool:
        """Whether :meth:`cancel` was already asked for this request id (a second ask sends nothing)."""
        return id_key(msg_id) in self._cancelled

    async def cancel(self, msg_id: Any, reason: str) -> None:
        """Tell the server we gave up on a request: by the transport where it has a way, else with
        notifications/cancelled (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation).

        Once per request: asked again (the user cancelled, then its timeout fired) it sends nothing. Whoever
        waits for the request stops, with RequestCancelled; a late answer is still recorded and paired."""
        key = id_key(msg_id)
        if key in self._cancelled:
            return
        self._cancelled.add(key)
        waiter = self.waiters.pop(key, None)
        owed = self.resends.take(key)  # waiting to be sent again to a restarted server: nobody has it to cancel
        waiter = waiter or owed
        if waiter is not None and not waiter.future.done():
            waiter.future.set_exception(RequestCancelled(f"{waiter.method} was cancelled: {reason}"))
        if owed is not None:
            return
        try:
            if await self._transport.cancel_request(msg_id):
                self.note(f"cancelled request {json.dumps(msg_id)} by closing its response stream", cancelled=msg_id)
            elif not self._transport.closed:
                await self.notify("notifications/cancelled", {"requestId": msg_id, "reason": reason})
        except TransportError:
            pass  # the server is gone; nothing to cancel

    def prepare_request(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Complete a user-written request: an id if it has none, ``_meta`` in the modern era."""
        obj = dict(obj)
        if "id" not in obj:
            obj["id"] = self.next_id()
        if self.modern:
            obj["params"] = self._with_meta(obj.get("params"))
        return obj

    # -- server requests -------------------------------------------------------------------------------

    # -- handshake -------------------------------------------------------------------------------------

    async def handshake(self, mode: str = "auto", protocol_version: str | None = None,
                        timeout: float = DEFAULT_REQUEST_TIMEOUT) -> ServerInfo:
        """The handshake of ``mode`` at ``protocol_version``, bounded by ``timeout`` in all
        (:class:`~inspector.core.session.handshake.Handshake` negotiates it); the session is ready after it.
        Raises HandshakeError, RequestTimeout or TransportClosed, each with one sentence."""
        self._handshake = Handshake(self, mode, timeout)
        try:
            self.server = await self._handshake.run(protocol_version)
        except BaseException as exc:
            self.resends.fail(exc)  # after a restart: what waited for the new server fails now
            raise
        finally:
            self._handshake.end()
            self._handshake = None
        self.settle(self.server)
        self.ready()
        await self.resends.send()  # after a restart: the requests the old server had not answered
        return self.server


class _Junk:
    """The framing errors from the server while one request waited: how many, and the first one's reason."""

    __slots__ = ("count", "first")

    def __init__(self) -> None:
        self.count = 0
        self.first: str | None = None

    def saw(self, event: Event) -> None:
        self.count += 1
        if self.first is None:
            self.first = event.reason or "a line that is not a JSON-RPC message"


#: The id of a response whose line was too long to keep whole: its head starts ``{"jsonrpc":"2.0","id":X``
#: or ``{"id":X`` (Python and most SDKs), or its tail ends ``,"id":X}`` (the TypeScript SDK).
_HEAD_ID = re.compile(rb'\A\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*[,}]')
_TAIL_ID = re.compile(rb',\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*\Z')
#: ... and it is a response: a top-level "result" or "error" comes before anything nested (not "method").
_RESPONSE_HEAD = re.compile(rb'\A\s*\{[^{}\[\]]*?"(?:result|error)"\s*:')


def _oversize_message_id(event: Event) -> tuple[bool, Any]:
    """``(True, id)`` if an unreadable line (over the limit, or too deep) shows the top-level id of a JSON-RPC
    response in its head (or, kept for an over-long one, its tail), else ``(False, None)``."""
    oversize = event.data.get("oversize")
    if not _RESPONSE_HEAD.match(event.raw):
        return False, None
    tail = bytes(oversize.get("tail") or b"") if isinstance(oversize, dict) else event.raw[-256:]
    match = _HEAD_ID.match(event.raw) or _TAIL_ID.search(tail)
    if match is None:
        return False, None
    try:
        return True, json.loads(match.group(1))
    except ValueError:
        return False, None


def _bound(timeout: float) -> float | None:
    """A timeout as asyncio takes it: None for none (``inf``; an event loop on Qt's timers cannot take it)."""
    return None if math.isinf(timeout) else timeout


def _progress_token(obj: dict[str, Any]) -> str | None:
    params = obj.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    if isinstance(meta, dict) and "progressToken" in meta:
        return json.dumps(meta["progressToken"])
    return None


def encode(obj: Any) -> bytes:
    """One message as compact UTF-8 JSON (no newline: the transport frames it)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
