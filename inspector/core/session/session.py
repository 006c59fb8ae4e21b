"""One connection to one server: numbers and times events, pairs them, saves them, and speaks the protocol.

The session owns a transport and is the single place its events pass through, in order: transport ->
:class:`~inspector.core.session.pipeline.EventPipeline` (seq, times, correlation, counts, capture, ``events``
list, listeners) -> the session's reactions (waiting requests, server requests, the server's exit). Listeners
are plain callables, called with each batch of events after all state changed (the GUI bridges them to Qt
signals; the core never sees Qt).

It also implements the client side of the lifecycle:

* ``legacy``: ``initialize`` with a chosen protocolVersion, then ``notifications/initialized``
  (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle);
* ``modern``: 2026-07-28, no handshake: ``server/discover``, and ``_meta`` with the protocol version and client
  capabilities on every request (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning);
* ``auto``: probe ``server/discover`` and fall back to ``initialize`` on any error that is not a recognized
  modern one, or on no answer within :data:`DISCOVER_PROBE_TIMEOUT` (stdio backward compatibility rules);
* ``none``: no handshake at all.

Versions are negotiated as each revision says: an ``UnsupportedProtocolVersionError`` (-32022) to
``server/discover`` names the revisions the server supports, and the session retries once with the newest one
both sides speak (the same one when the server lists it: a transient rejection), or, when the server shares only
pre-2026 revisions with us, falls back to ``initialize`` with the newest of those; an ``initialize`` rejected with
``data.supported`` (the legacy lifecycle's "Unsupported protocol version") is retried once the same way. When
nothing is shared, the error is one sentence naming both lists. Every step is a note.

The handshake's ``timeout`` bounds all of it (probe, retries and ``initialize``); each "no response" sentence
ends with :attr:`Session.timeout_hint`, which names what raises the bound (``--timeout`` on the command line).

Server requests are answered: ``ping`` with ``{}``, ``roots/list`` with the configured roots, anything else
by ``server_request_handler`` (the GUI asks the user) or, headless, with an error saying it is not handled.

Waiting on the user is not a timeout: while a handler that asks a person (``waits_for_user``) has a server
request open, the timers of the client requests it may belong to are stopped, and start again in full when it
is answered. Which requests it belongs to: over HTTP, the request whose POST stream carried it (the spec's
related request); otherwise (stdio, a standalone stream) every request pending when it arrived, since stdio
cannot say. A note records each pause (``paused``: the ids, ``waiting_on``/``waiting_method``: the server's).

Cancelling is done once per request: :meth:`Session.cancel` sends one ``notifications/cancelled`` however often
it is asked (the user, then the timeout), and stops waiting for the request; a late answer is still paired.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from inspector.core.capture.writer import CaptureWriter
from inspector.core.session.pipeline import EventPipeline, Keeper, Listener
from inspector.core.transports.base import Transport, TransportClosed, TransportError
from inspector.core.wire import jsonrpc
from inspector.core.wire.correlation import id_key
from inspector.core.wire.events import Direction, Event, Kind, Lifecycle
from inspector.core.wire.framing import TOO_DEEP

MODERN_REVISION = "2026-07-28"
#: The revisions without an initialize handshake that mcp-inspector speaks, newest first.
MODERN_REVISIONS = (MODERN_REVISION,)
LEGACY_REVISIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
#: Every revision mcp-inspector speaks, newest first.
REVISIONS = MODERN_REVISIONS + LEGACY_REVISIONS
DEFAULT_LEGACY_REVISION = "2025-11-25"
HANDSHAKE_MODES = ("auto", "legacy", "modern", "none")
#: The spec leaves the probe timeout to clients; a legacy server that ignores unknown methods costs this (or
#: half the handshake's bound, when that is shorter: initialize gets the rest).
DISCOVER_PROBE_TIMEOUT = 5.0
#: Default bound on waiting for any one response (restarted by progress notifications).
DEFAULT_REQUEST_TIMEOUT = 30.0
#: However much progress a request reports, we stop waiting for it after this long.
DEFAULT_MAX_REQUEST_TIME = 600.0
#: JSON-RPC error codes that identify a modern server (2026-07-28 schema).
UNSUPPORTED_PROTOCOL_VERSION = -32022
MISSING_CLIENT_CAPABILITY = -32021
#: What a "no response within N s" sentence ends with: what the user changes to wait longer.
DEFAULT_TIMEOUT_HINT = "raise --timeout to wait longer"
DEFAULT_MAX_TIME_HINT = "raise --max-time to wait longer"
MODERN_ERROR_CODES = frozenset({UNSUPPORTED_PROTOCOL_VERSION, MISSING_CLIENT_CAPABILITY})
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603
#: At close, how long answers and cancellations already on their way may take to go out.
PENDING_SENDS_GRACE = 0.5
#: Bound on input_required round trips for one request (2026-07-28 multi round-trip requests).
MAX_INPUT_ROUNDS = 5

ServerRequestHandler = Callable[[str, Any], Awaitable[Any]]


class RequestTimeout(TransportError):
    """No response within the bound."""


class _OutOfTime(TimeoutError):
    """A request that kept reporting progress reached ``max_request_time``."""


class HandshakeError(TransportError):
    """The handshake failed; the message says how."""


class RequestCancelled(TransportError):
    """The request was cancelled (by the user) before its answer came; a late answer is still recorded."""


class UnreadableResponse(TransportError):
    """The answer to a request arrived but cannot be read as a message: a line or body over the size limit
    (``too_large``: raising ``--max-message`` would read it), or JSON nested deeper than any parser goes."""

    def __init__(self, sentence: str, *, too_large: bool = True) -> None:
        super().__init__(sentence)
        self.too_large = too_large


class RpcError(Exception):
    """Raised by a server request handler to answer with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


@dataclass
class ServerInfo:
    """What the handshake learned about the server."""

    era: str  #: ``legacy``, ``modern`` or ``unknown`` (no handshake)
    protocol_version: str | None = None
    name: str | None = None
    version: str | None = None
    capabilities: dict[str, Any] = field(default_factory=dict)
    instructions: str | None = None
    supported_versions: list[str] = field(default_factory=list)


def client_info() -> dict[str, str]:
    from inspector import __version__

    return {"name": "mcp-inspector", "version": __version__}


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
        self.server_request_handler = server_request_handler
        self.keep_events = keep_events
        self.events: list[Event] = []
        self.pipeline = EventPipeline(capture, keeper if keeper is not None else self.events if keep_events else None)
        self.listeners: list[Listener] = self.pipeline.listeners
        self._correlator = self.pipeline.correlator
        self.counts = self.pipeline.counts
        self.server: ServerInfo | None = None
        self.modern = False  #: when true, every request gets the 2026-07-28 ``_meta``
        self._t0 = time.monotonic()
        self._next_id = 1
        self._waiters: dict[tuple[str, Any], _Waiter] = {}
        #: requests we told the server we gave up on (by id): each is cancelled once
        self._cancelled: set[tuple[str, Any]] = set()
        #: server requests open with a handler that asks the user (by id), and the requests they hold
        self._asking: dict[tuple[str, Any], _Asking] = {}
        #: server requests (by id) being answered, and those of them the server cancelled before we asked
        self._answering: set[tuple[str, Any]] = set()
        self._withdrawn: set[tuple[str, Any]] = set()
        #: progress token (as JSON text) -> loop time of the last progress notification for it
        self._progress_seen: dict[str | None, float] = {}  # looked up by token or None; None is never put
        self.max_request_time = DEFAULT_MAX_REQUEST_TIME
        #: the end of every "no response within N s" sentence: what raises the timeout, in the user's terms
        self.timeout_hint = timeout_hint
        self.max_time_hint = DEFAULT_MAX_TIME_HINT  #: the same for ``max_request_time``
        #: while the handshake runs: its loop-time deadline and its whole bound (its requests' sentences name it)
        self._handshake_bound: tuple[float, float] | None = None
        #: the auto probe's server/discover, still awaited after the probe gave up on it (until the handshake ends)
        self._late_probe: asyncio.Future[Event] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        #: one per request being waited for: the framing errors from the server since it was sent
        self._junk_watchers: list[_Junk] = []

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
        if self._answering:  # after the reactions: a request and its cancel may come in one read
            for event in events:
                rpc = event.rpc
                if rpc is not None and rpc.method == "notifications/cancelled" and event.dir == Direction.S2C:
                    self._server_cancelled(event)

    def _react(self, event: Event, request: Event | None) -> None:
        """What the session does about one event the pipeline handed back (``request``: what it answers)."""
        if request is not None and request.dir == Direction.C2S and request.rpc is not None:
            waiter = self._waiters.pop(id_key(request.rpc.id), None)
            if waiter is not None and not waiter.future.done():
                waiter.future.set_result(event)
        elif event.kind == Kind.MESSAGE and event.dir == Direction.S2C and event.rpc is not None \
                and event.rpc.kind == jsonrpc.REQUEST:
            self._answering.add(id_key(event.rpc.id))
            self._spawn(self._answer(event))
        elif event.kind == Kind.LIFECYCLE and event.data.get("what") in (Lifecycle.EXITED, Lifecycle.DISCONNECTED):
            for waiter in self._waiters.values():
                if not waiter.future.done():
                    waiter.future.set_exception(
                        TransportClosed(self._transport.diagnosis(waiter.method) or "the server exited"))
            self._waiters.clear()
        elif event.kind == Kind.LIFECYCLE and event.data.get("what") == Lifecycle.STREAM_LOST:
            waiter = self._waiters.pop(id_key(event.data.get("request_id")), None)
            if waiter is not None and not waiter.future.done():
                waiter.future.set_exception(TransportClosed(str(event.data.get("reason"))))
        elif event.kind == Kind.FRAMING_ERROR and event.dir == Direction.S2C:
            for junk in self._junk_watchers:
                junk.saw(event)
            too_large = "oversize" in event.data
            if not (self._waiters and (too_large or event.reason == TOO_DEEP)):
                return
            # maybe the answer we wait for, too big or too deep to read: it fails now, not at its timeout
            found, msg_id = _oversize_message_id(event)
            waiter = self._waiters.pop(id_key(msg_id), None) if found else None
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

    def _server_cancelled(self, event: Event) -> None:
        """The server cancelled a request of its own that we are answering: stop asking the user (the panel
        drops it) and answer nothing, as the spec wants; the requests it held wait on their clocks again."""
        try:
            key = id_key(event.json()["params"]["requestId"])
        except (ValueError, KeyError, TypeError):
            return
        asking = self._asking.get(key)
        if asking is not None:
            asking.task.cancel()
        elif key in self._answering:  # not asked yet: it will not be
            self._withdrawn.add(key)

    def note(self, text: str, **data: Any) -> Event:
        """Record something the inspector itself has to say (why a revision was chosen, a timeout, ...)."""
        event = Event(Kind.NOTE, data={"text": text, **data})
        self._on_event(event)
        return event

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- lifecycle -------------------------------------------------------------------------------------

    async def start(self) -> None:
        self._transport.emit = self._on_event
        self._transport.emit_many = self._on_events
        await self._transport.start()

    async def close(self) -> None:
        if self._tasks:  # answers and cancellations still on their way go out first (a frozen peer: bounded)
            await asyncio.wait(list(self._tasks), timeout=PENDING_SENDS_GRACE)
        await self._transport.close()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=PENDING_SENDS_GRACE)
        if self.capture is not None:
            self.capture.flush()

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
        caps: dict[str, Any] = {}
        if self.roots_list_changed:
            caps["roots"] = {"listChanged": True}
        elif self.roots:
            caps["roots"] = {}
        extra = getattr(self.server_request_handler, "capabilities", None)
        if callable(extra):
            caps.update(extra())
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
        results (multi round-trip requests) with the server request handler and retry with a new id."""
        response = await self.request_one_round(obj, timeout, cancel_on_timeout)
        for _ in range(MAX_INPUT_ROUNDS):
            if not _may_need_input(response):
                return response
            result, _ = result_of(response)
            if not (isinstance(result, dict) and result.get("resultType") == "input_required"):
                return response
            asked = a if isinstance(a := result.get("inputRequests"), dict) else {}
            names = ", ".join(f"{v.get('method')} ({k})" for k, v in asked.items() if isinstance(v, dict))
            if self.server_request_handler is None and any(
                    isinstance(v, dict) and v.get("method") not in ("roots/list", "ping") for v in asked.values()):
                self.note(f"{obj.get('method')} needs input: {names or 'nothing named'}; no answer policy, so it "
                          "stays unanswered", request_id=obj.get("id"))
                return response
            self.note(f"{obj.get('method')} needs input: {names or 'nothing named'}; answering and retrying",
                      request_id=obj.get("id"))
            responses = {}
            for key, ask in asked.items():
                if isinstance(ask, dict):
                    try:
                        responses[key] = await self._handle_server_request(str(ask.get("method")), ask.get("params"))
                    except RpcError as exc:
                        responses[key] = {"error": {"code": exc.code, "message": exc.message}}
            params = dict(obj.get("params") or {})
            params["inputResponses"] = responses
            if "requestState" in result:
                params["requestState"] = result["requestState"]
            obj = {**obj, "id": self.next_id(), "params": params}
            response = await self.request_one_round(obj, timeout, cancel_on_timeout)
        return response

    async def request_one_round(self, obj: dict[str, Any], timeout: float, cancel_on_timeout: bool) -> Event:
        """Send one request and wait (bounded) for its response, answering nothing on the way: no
        ``input_required`` rounds (:meth:`request_object` does those; replay re-sends each recorded round as
        it was recorded)."""
        method = str(obj.get("method"))
        key = id_key(obj.get("id"))
        future: asyncio.Future[Event] = asyncio.get_running_loop().create_future()
        waiter = self._waiters[key] = _Waiter(obj.get("id"), method, future)
        self._cancelled.discard(key)  # a new request with this id can be cancelled in its turn
        junk = _Junk()
        self._junk_watchers.append(junk)
        loop = asyncio.get_running_loop()
        sent_at = loop.time()
        try:
            try:
                # bounded too: an HTTP transport's send waits for the response headers of its POST
                await asyncio.wait_for(self._transport.send(encode(obj)), _bound(timeout))
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
                self._spawn(self.cancel(obj.get("id"), reason))
            raise RequestTimeout(text) from None
        finally:
            self._junk_watchers.remove(junk)
            self._waiters.pop(key, None)
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
        bound = self._handshake_bound
        if bound is not None and timeout < bound[1]:  # a later step of the handshake: its bound is the whole one
            return f"no response to {method} within the handshake's {bound[1]:g} s", self.timeout_hint
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

    async def _wait(self, waiter: _Waiter, obj: dict[str, Any], timeout: float, first: float | None = None) -> Event:
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
        waiter = self._waiters.pop(key, None)
        if waiter is not None and not waiter.future.done():
            waiter.future.set_exception(RequestCancelled(f"{waiter.method} was cancelled: {reason}"))
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

    async def _answer(self, event: Event) -> None:
        assert event.rpc is not None
        key = id_key(event.rpc.id)
        try:
            if key not in self._withdrawn:
                await self._answer_one(event)
        finally:
            self._answering.discard(key)
            self._withdrawn.discard(key)

    async def _answer_one(self, event: Event) -> None:
        assert event.rpc is not None
        method = event.rpc.method or ""
        try:
            params = event.json().get("params")
        except (ValueError, AttributeError):
            params = None
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": event.rpc.id}
        asking = self._pause_for(event, method)
        try:
            reply["result"] = await self._handle_server_request(method, params)
        except RpcError as exc:
            reply["error"] = {"code": exc.code, "message": exc.message}
            if exc.data is not None:
                reply["error"]["data"] = exc.data
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a handler bug must still answer the server, and say what happened
            reply["error"] = {"code": INTERNAL_ERROR, "message": f"mcp-inspector could not answer {method}: "
                                                                 f"{exc.__class__.__name__}: {exc}"}
        finally:
            if asking is not None:
                self._resume(asking)
        try:
            await self.send_object(reply)
        except TransportError:
            pass  # the server is gone; its exit is already an event

    def _pause_for(self, event: Event, method: str) -> _Asking | None:
        """A server request the user is asked about stops the clocks of the requests it may belong to (see the
        module's docstring for which), with a note; returns what :meth:`_resume` needs, None when nothing waits."""
        assert event.rpc is not None
        if method in ("ping", "roots/list") or not event.rpc.has_id \
                or not getattr(self.server_request_handler, "waits_for_user", False):
            return None
        held = self._related_waiters(event)
        task = asyncio.current_task()
        if not held or task is None:
            return None
        key = id_key(event.rpc.id)
        what = f"{method} #{json.dumps(event.rpc.id)}"
        for waiter in held:
            waiter.holds[key] = what
            waiter.poke()
        asking = _Asking(key, task, held)
        self._asking[key] = asking
        names = " and ".join(f"{w.method} #{json.dumps(w.msg_id)}" for w in held)
        verb, its = ("waits", "its timeout is") if len(held) == 1 else ("wait", "their timeouts are")
        self.note(f"{names} {verb} for your answer to {what}: {its} paused until you answer",
                  paused=[w.msg_id for w in held], waiting_on=event.rpc.id, waiting_method=method)
        return asking

    def _related_waiters(self, event: Event) -> list[_Waiter]:
        """The requests being waited for that a server request may belong to: over HTTP the one whose POST
        stream carried it (the same exchange); when nothing says (stdio, a standalone stream), every one."""
        exchange = event.data.get("exchange")
        if exchange is not None:
            related = [self._waiters[k] for r in self._correlator.pending(Direction.C2S)
                       if r.data.get("exchange") == exchange and r.rpc is not None
                       and (k := id_key(r.rpc.id)) in self._waiters]
            if related:
                return related
        return list(self._waiters.values())

    def _resume(self, asking: _Asking) -> None:
        """The user answered (or the question went away): the held requests' clocks start again."""
        self._asking.pop(asking.key, None)
        for waiter in asking.held:
            waiter.holds.pop(asking.key, None)
            waiter.poke()

    async def _handle_server_request(self, method: str, params: Any) -> Any:
        if method == "ping":
            return {}
        if method == "roots/list":
            return {"roots": self.roots}
        if self.server_request_handler is not None:
            return await self.server_request_handler(method, params)
        raise RpcError(METHOD_NOT_FOUND, f"mcp-inspector does not answer {method} here (running headless); "
                                         "the request was recorded")

    # -- handshake -------------------------------------------------------------------------------------

    async def handshake(self, mode: str = "auto", protocol_version: str | None = None,
                        timeout: float = DEFAULT_REQUEST_TIMEOUT) -> ServerInfo:
        """The handshake of ``mode`` (see the module docstring) at ``protocol_version`` (None: the default of
        the mode; in ``auto`` mode, the revision initialize asks for), negotiated as the server's rejections
        say. ``timeout`` bounds all of it, probe and retries included. Raises HandshakeError, RequestTimeout or
        TransportClosed, each with one sentence."""
        if mode not in HANDSHAKE_MODES:
            raise ValueError(f"handshake mode must be one of {', '.join(HANDSHAKE_MODES)}")
        self._handshake_bound = (asyncio.get_running_loop().time() + timeout, timeout)
        try:
            if mode == "none":
                self.server = ServerInfo("unknown")
            elif mode == "legacy":
                self.server = await self._initialize(protocol_version or DEFAULT_LEGACY_REVISION, timeout)
            elif mode == "modern":
                found = await self._discover(protocol_version or MODERN_REVISION, timeout, auto=False)
                assert isinstance(found, ServerInfo)
                self.server = found
            else:
                self.note(f"probing with server/discover ({MODERN_REVISION}); a legacy server gets initialize instead")
                # the probe takes at most half the bound: a legacy server that ignores it still gets initialize
                found = await self._discover(MODERN_REVISION, min(timeout / 2, DISCOVER_PROBE_TIMEOUT), auto=True)
                if not isinstance(found, ServerInfo):
                    shared = found or []
                    version = protocol_version if protocol_version in shared else \
                        shared[0] if shared else protocol_version or DEFAULT_LEGACY_REVISION
                    try:
                        found = await self._initialize(version, self._handshake_left())
                    except HandshakeError:
                        late = await self._late_discovery()
                        if late is None:
                            raise
                        found = late
                self.server = found
        finally:
            self._handshake_bound = None
            if self._late_probe is not None:
                self._late_probe.cancel()  # silently: no note, no notifications/cancelled
                self._late_probe = None
        self.settle(self.server)
        self.ready()
        return self.server

    def _handshake_left(self) -> float:
        """What is left of the handshake's bound for its next step; RequestTimeout (noted) once nothing is."""
        assert self._handshake_bound is not None
        deadline, whole = self._handshake_bound
        left = deadline - asyncio.get_running_loop().time()
        if left <= 0:
            text = f"no answer to the handshake within {whole:g} s; {self.timeout_hint}"
            self.note(text)
            raise RequestTimeout(text)
        return left

    async def _discover(self, version: str, timeout: float, auto: bool) -> ServerInfo | list[str] | None:
        """server/discover at ``version``, retried once at the revision a -32022 rejection leads to. Returns the
        modern server's info; in ``auto`` mode, for a server that is legacy, the revisions it named that we
        speak too (newest first), or None when another sign (an error, no answer) says it is legacy."""
        probing = auto  # until the server shows it is modern: then its failures are failures
        rejected = False
        while True:
            response = await self._discover_once(version, timeout, probing)
            if response is None:
                return None
            result, error = result_of(response)
            if error is None:
                return self._discovered(result, version, auto)
            code = error.get("code") if isinstance(error, dict) else None
            if code == MISSING_CLIENT_CAPABILITY:
                self.modern = False
                raise HandshakeError("the server requires client capabilities that mcp-inspector does not declare: "
                                     f"{_required_capabilities(error)}")
            if code != UNSUPPORTED_PROTOCOL_VERSION:
                self.modern = False
                if probing:
                    self.note(f"server/discover answered with error {code}: the server is legacy, using initialize")
                    return None
                raise HandshakeError(f"the server answered server/discover with an error: {_error_text(error)}")
            theirs = _supported_from_error(error)
            if rejected:
                self.modern = False
                raise HandshakeError(f"the server rejected protocol revision {version} again (error -32022), though "
                                     f"it lists it among those it supports: {', '.join(theirs) or 'none'}")
            chosen = self._modern_choice(version, theirs, f"rejected protocol revision {version} (error -32022)", auto)
            if isinstance(chosen, list):
                return chosen
            self.note(f"the server rejected protocol revision {version} (error -32022) and supports "
                      f"{', '.join(theirs)}: retrying server/discover with "
                      + ("the same revision, as it lists it" if chosen == version else chosen))
            version, probing, rejected = chosen, False, True
            timeout = self._handshake_left()

    async def _discover_once(self, version: str, timeout: float, probing: bool) -> Event | None:
        """One server/discover at ``version``. While probing, None when the server does not answer within
        ``timeout`` or fails as only a legacy server does; the probe's failures are said as the handshake's
        (the user asked for a handshake, not for server/discover)."""
        self.modern = True
        meta = {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": self.client_capabilities(),
            "io.modelcontextprotocol/clientInfo": client_info(),
        }
        # no notifications/cancelled for an unanswered probe: a legacy server must see initialize first
        bound = self._handshake_bound
        rest = bound[0] - asyncio.get_running_loop().time() if bound is not None else 0.0
        request = self.request("server/discover", {"_meta": meta}, timeout=max(2 * timeout, timeout + 1, rest + 1)
                               if probing else timeout, inject_meta=False, cancel_on_timeout=False)
        try:
            if not probing:
                return await request
            # the probe's bound is ours, not the user's: it ends the probe (the request's own, longer bound would
            # say "raise --timeout"), and its end is no failure. The request itself goes on waiting until the
            # handshake ends: a server slower to start than the probe still shows it is modern (_late_discovery)
            probe = asyncio.ensure_future(request)
            try:
                done, _ = await asyncio.wait((probe,), timeout=timeout)
            except BaseException:  # the handshake itself cancelled (the user interrupted): the probe with it
                probe.cancel()
                raise
            if not done:
                self._late_probe = probe
                # it may still fail (the server exits, the session closes) when nobody awaits it any more
                probe.add_done_callback(lambda task: task.cancelled() or task.exception())
                raise TimeoutError
            return probe.result()
        except TimeoutError:
            self.modern = False
            self.note(f"no answer to server/discover within {timeout:g} s: treating the server as legacy")
            return None
        except TransportClosed as exc:
            self.modern = False
            if probing:
                raise TransportClosed(self.diagnosis("the handshake") or str(exc)) from None
            raise
        except TransportError as exc:
            self.modern = False
            if probing and not isinstance(exc, RequestTimeout):  # on HTTP, a 4xx without a modern JSON-RPC error
                self.note(f"server/discover failed ({exc}): treating the server as legacy")
                return None
            raise

    async def _late_discovery(self) -> ServerInfo | None:
        """After initialize failed: the modern server that answered the auto probe's server/discover later than
        the probe waited (a server slow to start: the SDK's imports alone take a second on a busy machine), else
        None. Its error to initialize, sent meanwhile, is then no failure of the handshake."""
        probe, bound = self._late_probe, self._handshake_bound
        if probe is None or bound is None:
            return None
        # what is left of the handshake, without _handshake_left's timeout sentence: with nothing left, the
        # refusal of initialize is what the user hears
        left = bound[0] - asyncio.get_running_loop().time()
        done, _ = await asyncio.wait((probe,), timeout=max(0.0, left))
        if not done or probe.cancelled() or probe.exception() is not None:
            return None
        result, error = result_of(probe.result())
        if error is not None:
            return None
        self.note(f"server/discover was answered after the probe stopped waiting: the server is modern "
                  f"({MODERN_REVISION}), and its error to initialize came from that")
        self.modern = True
        found = self._discovered(result, MODERN_REVISION, auto=True)
        return found if isinstance(found, ServerInfo) else None

    def _discovered(self, result: Any, version: str, auto: bool) -> ServerInfo | list[str]:
        """The modern server that answered server/discover at ``version``; in ``auto`` mode, the revisions to
        initialize with when it lists only legacy ones we speak."""
        if not isinstance(result, dict):
            self.modern = False
            raise HandshakeError("the server answered server/discover with a result that is not an object")
        listed = result.get("supportedVersions")
        theirs = [v for v in listed if isinstance(v, str)] if isinstance(listed, list) else []
        if version not in theirs:
            chosen = self._modern_choice(version, theirs, f"answered server/discover without listing {version}", auto)
            if isinstance(chosen, list):
                return chosen
            self.note(f"server/discover lists {', '.join(theirs)} but not {version}: speaking {chosen}")
            version = chosen
        meta_out = m if isinstance(m := result.get("_meta"), dict) else {}
        server_info = meta_out.get("io.modelcontextprotocol/serverInfo") or result.get("serverInfo") or {}
        self.note(f"the server answered server/discover: speaking {version} (no initialize handshake)")
        return ServerInfo(
            "modern", version, _str(server_info, "name"), _str(server_info, "version"),
            c if isinstance(c := result.get("capabilities"), dict) else {},
            result.get("instructions") if isinstance(result.get("instructions"), str) else None,
            theirs,
        )

    def _modern_choice(self, version: str, theirs: list[str], what: str, auto: bool) -> str | list[str]:
        """After the server turned ``version`` down (``what`` it did) naming ``theirs``: the modern revision to
        speak, or, in ``auto`` mode, the legacy ones to initialize with; one sentence when there is neither."""
        chosen = _choose(version, theirs, REVISIONS, LEGACY_REVISIONS)
        if chosen is None:
            self.modern = False
            raise HandshakeError(_nothing_shared(version, theirs))
        if chosen not in MODERN_REVISIONS:
            return self._legacy_only(what, theirs, auto)
        return chosen

    def _legacy_only(self, what: str, theirs: list[str], auto: bool) -> list[str]:
        """A modern server that shares only legacy revisions with us: in ``auto`` mode, those revisions, newest
        first, to initialize with (noted); else one sentence."""
        self.modern = False
        shared = [v for v in LEGACY_REVISIONS if v in theirs]
        if not auto:
            raise HandshakeError(f"the server {what} and supports {', '.join(theirs)}; the ones mcp-inspector also "
                                 f"speaks ({', '.join(shared)}) need initialize, which the modern handshake does not "
                                 "send (try --handshake auto)")
        self.note(f"the server {what} and supports {', '.join(theirs)}: falling back to initialize, at a revision "
                  "both speak")
        return shared

    async def _initialize(self, version: str, timeout: float) -> ServerInfo:
        """initialize at ``version``, retried once when the server rejects it naming the revisions it supports
        (``data.supported``: the lifecycle's "Unsupported protocol version"), then notifications/initialized."""
        self.modern = False
        for attempt in (1, 2):
            params = {"protocolVersion": version, "capabilities": self.client_capabilities(),
                      "clientInfo": client_info()}
            # "The initialize request MUST NOT be cancelled by clients" (2025-11-25 cancellation)
            response = await self.request("initialize", params, timeout=timeout, cancel_on_timeout=False)
            result, error = result_of(response)
            if error is None:
                break
            theirs = _supported_from_error(error) if isinstance(error, dict) else []
            if not theirs or attempt == 2:
                again = " again" if attempt == 2 else ""
                raise HandshakeError(f"the server answered initialize{again} with an error: {_error_text(error)}")
            chosen = _choose(version, theirs, LEGACY_REVISIONS, MODERN_REVISIONS)
            if chosen is None:
                modern = _choose(version, theirs, MODERN_REVISIONS, LEGACY_REVISIONS)
                raise HandshakeError(_nothing_shared(version, theirs) if modern is None else
                                     f"the server rejected initialize at {version} and supports {', '.join(theirs)}; "
                                     f"the one mcp-inspector also speaks ({modern}) has no initialize handshake (try "
                                     "--handshake modern)")
            self.note(f"the server rejected initialize at {version} ({_error_text(error)}) and supports "
                      f"{', '.join(theirs)}: retrying initialize with "
                      + ("the same revision, as it lists it" if chosen == version else chosen))
            version = chosen
            timeout = self._handshake_left()
        if not isinstance(result, dict):
            raise HandshakeError("the server answered initialize with a result that is not an object")
        negotiated = result.get("protocolVersion")
        if not isinstance(negotiated, str):
            raise HandshakeError("the server's initialize result has no protocolVersion")
        if negotiated != version:
            unknown = "" if negotiated in REVISIONS else ", a revision mcp-inspector does not know (carrying on)"
            self.note(f"asked for protocol {version}, the server chose {negotiated}{unknown}")
        self._transport.on_handshake("legacy", negotiated)  # headers of notifications/initialized need it
        await self.notify("notifications/initialized")
        info = i if isinstance(i := result.get("serverInfo"), dict) else {}
        return ServerInfo(
            "legacy", negotiated, _str(info, "name"), _str(info, "version"),
            c if isinstance(c := result.get("capabilities"), dict) else {},
            result.get("instructions") if isinstance(result.get("instructions"), str) else None,
        )


class _Waiter:
    """One request being waited for: its future, and the server requests it waits behind (the user's turn)."""

    __slots__ = ("msg_id", "method", "future", "holds", "wake")

    def __init__(self, msg_id: Any, method: str, future: asyncio.Future[Event]) -> None:
        self.msg_id = msg_id
        self.method = method
        self.future = future
        #: server requests (by id key) that wait for the user's answer and may belong to this request
        self.holds: dict[tuple[str, Any], str] = {}
        #: set when ``holds`` changes, to wake the wait
        self.wake: asyncio.Future[None] | None = None

    def poke(self) -> None:
        if self.wake is not None and not self.wake.done():
            self.wake.set_result(None)


@dataclass
class _Asking:
    """A server request open with a handler that asks the user, and the requests whose clocks it stopped."""

    key: tuple[str, Any]
    task: asyncio.Task[Any]  #: the task answering it (cancelled when the server cancels the request)
    held: list[_Waiter]


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


#: Responses up to this size are parsed to see whether they ask for input; bigger ones are searched first.
INPUT_SCAN_BYTES = 1 << 20


def encode(obj: Any) -> bytes:
    """One message as compact UTF-8 JSON (no newline: the transport frames it)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _may_need_input(response: Event) -> bool:
    """Whether a response may be an ``input_required`` result, without parsing a big one (a 50 MB result
    parsed on the event loop would freeze the window): JSON encoders write that ASCII value as it is, so a
    result whose bytes do not hold it is not one."""
    return response.size <= INPUT_SCAN_BYTES or b"input_required" in response.raw


def result_of(response: Event) -> tuple[Any, Any]:
    """``(result, error)`` of a response event; one of them is None."""
    try:
        obj = response.json()
    except ValueError:
        return None, {"code": None, "message": "the response is not JSON"}
    if not isinstance(obj, dict):
        return None, {"code": None, "message": "the response is not an object"}
    if "error" in obj:
        return None, obj["error"]
    return obj.get("result"), None


def _supported_from_error(error: dict[str, Any]) -> list[str]:
    data = error.get("data")
    if isinstance(data, dict) and isinstance(data.get("supported"), list):
        return [v for v in data["supported"] if isinstance(v, str)]
    return []


def _required_capabilities(error: dict[str, Any]) -> str:
    data = error.get("data")
    required = data.get("requiredCapabilities") if isinstance(data, dict) else None
    return json.dumps(required, separators=(",", ":")) if required is not None else "it does not say which"


def _choose(requested: str, theirs: list[str], ours: tuple[str, ...], other_era: tuple[str, ...]) -> str | None:
    """The revision to retry with after the server rejected ``requested`` naming ``theirs``: the same one when
    it lists it (a transient rejection) and it is not of the ``other_era`` (which this request cannot carry),
    else the newest of ``ours`` that it lists; None when there is none."""
    if requested in theirs and requested not in other_era:
        return requested
    return next((v for v in ours if v in theirs), None)


def _nothing_shared(requested: str, theirs: list[str]) -> str:
    """The sentence for a server that speaks no revision we speak (both lists named)."""
    ours = ", ".join(REVISIONS)
    if not theirs:
        return (f"the server rejected protocol revision {requested} without naming the revisions it supports; "
                f"mcp-inspector speaks {ours}")
    return (f"the server and mcp-inspector share no protocol revision: the server supports {', '.join(theirs)}; "
            f"mcp-inspector speaks {ours}")


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        return f"{error.get('message', '(no message)')} (code {error.get('code')})"
    return repr(error)


def _str(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    return value if isinstance(value, str) else None
