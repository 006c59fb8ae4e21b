"""The twin over HTTP on loopback: ``mcp-inspector serve CAPTURE --listen 127.0.0.1:PORT [--transport ...]``.

The listening socket is the inspector's kind of deliberate one (docs/architecture.md): 127.0.0.1 or ::1 only
(:func:`~inspector.core.tap.http_guard.parse_listen`, the tap's rule), and every request's ``Host`` and ``Origin``
are checked as the tap checks them (:func:`~inspector.core.tap.http_guard.host_problem` and ``origin_problem``,
against DNS rebinding): a foreign one gets 403 and reaches no twin. HTTP/1.1 is h11's, over asyncio streams.

* **Streamable HTTP** (``/mcp``), as the revision the client speaks says
  (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports and
  https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http): each POSTed
  request is answered with one JSON object, or with an event stream when the capture had notifications before
  its answer (progress, log lines) and the client accepts one; a POSTed notification or response gets 202. A
  POSTed JSON-RPC batch (2025-03-26) gets the array of its responses the same way (202 without a request in it),
  in any other revision 400 with the twin's Invalid Request error.
  ``initialize`` opens a session of its own (a twin of its own, ``Mcp-Session-Id`` on the answer); a request
  naming an unknown session gets 404, DELETE ends the session. The session's GET stream carries what the
  capture's server sent outside any request (list_changed after ``notifications/initialized``, notifications
  after an answer); a capture without such notifications answers GET with 405, as does a 2026-07-28 client's
  request (no sessions, no GET stream in that revision). Requests without a session (2026-07-28 clients) share
  one twin.
* **HTTP+SSE** (2024-11-05, ``/sse``): a GET opens the event stream, whose first event (``endpoint``) names
  ``/messages/?session_id=ID``; each message POSTed there gets 202 and its answers come on that stream. The
  stream is the session: it ends when the client closes it.
* **WebSocket** (``ws://.../mcp``): the upgrade of a GET of the MCP endpoint, then a message a text frame each
  way (:mod:`inspector.core.serve.websocket`); the connection is the session.

Each session's twin runs under a :class:`~inspector.core.serve.conduct.Conductor` of its own
(:mod:`inspector.core.serve.conducted`), all asking the one :class:`~inspector.core.serve.faults.Faults` and
rules: what comes for a POSTed request (a server request, progress, junk as a broken SSE frame, the answer
last) goes on that POST's answer, an event stream unless the answer comes alone; a request never answered
(drop) holds its POST until the client leaves, its session ends or the server stops; what belongs to no open
request goes on the session's stream (Streamable HTTP's GET stream, counted as unsent without one). A client's
answer to a server request is POSTed back (202). Once close-after ended a session, the server stops when the
answers being written went out (:meth:`HttpTwin.settle`).

Limits as for any peer: a request head over :data:`MAX_HEAD` or a body over ``--max-message`` is refused (431,
413) without being kept; a head must arrive within :data:`REQUEST_HEAD_TIMEOUT`; what waits for a stream the
client does not read is bounded (:data:`STREAM_QUEUE`: an HTTP+SSE POST waits, a notification for a GET stream
is dropped and counted); a client that leaves ends its connection only. :meth:`HttpTwin.stop` closes the port and
every connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import socket
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, urlsplit

import h11

from inspector.core.intercept.rules import Rules
from inspector.core.protocol.revisions import STATELESS_FROM
from inspector.core.serve.batches import batch_route
from inspector.core.serve.conduct import Conductor, Item, summary_lines
from inspector.core.serve.conducted import Conducted, is_answer, is_notification
from inspector.core.serve.faults import Faults, junk_bytes
from inspector.core.serve.stdio import ServedCapture
from inspector.core.serve.twin import LISTED_UNMATCHED, Outgoing, Twin, Unmatched
from inspector.core.tap.h11_peer import MAX_HEAD, READ_SIZE, H11Peer
from inspector.core.tap.http_guard import host_problem, origin_problem, origin_text
from inspector.core.waiting import wait_for
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event
from inspector.core.wire.framing import decode_line

#: The transports ``--transport`` may name, and the path of each one's URL.
TRANSPORTS = {"streamable-http": "/mcp", "sse": "/sse", "websocket": "/mcp"}
MESSAGES_PATH = "/messages/"
#: How long a client has to send a whole request head (as the HTTP tap).
REQUEST_HEAD_TIMEOUT = 30.0
#: Messages waiting for a session's stream.
STREAM_QUEUE = 1024
#: Sessions kept at once: a client that opens sessions without end has its oldest ended (404 for it then).
MAX_SESSIONS = 64
#: After refusing a request whose body is still coming, how long its bytes are read and dropped before the
#: connection closes (closing with bytes unread resets it, and the client could lose the answer), as the tap does.
LINGER_TIMEOUT = 2.0
#: The ``who`` of the guard's sentences.
WHO = "this served capture"


class _Gone(Exception):
    """The client closed its connection."""


@dataclass
class _Session:
    """A client's session: its twin, and what waits for its stream (GET on Streamable HTTP, the event stream of
    HTTP+SSE)."""

    id: str
    twin: Twin
    #: the stream's SSE frames, ready to write
    queue: asyncio.Queue[bytes] = field(default_factory=lambda: asyncio.Queue(STREAM_QUEUE))
    ended: asyncio.Event = field(default_factory=asyncio.Event)  #: set when the session ends: its stream ends
    streaming: bool = False
    dropped: int = 0
    conducted: Conducted | None = None
    #: HTTP+SSE frames sent while the queue was full (latency's late answers): moved in as the stream takes some;
    #: a POST waits until they are in (at most STREAM_QUEUE of them: a client that reads nothing holds its POSTs)
    backlog: list[bytes] = field(default_factory=list)

    def pull_backlog(self) -> None:
        """Move what the backlog holds into the queue, as far as it has room."""
        while self.backlog and not self.queue.full():
            self.queue.put_nowait(self.backlog.pop(0))

    async def put(self, line: bytes) -> bool:
        """Queue ``line`` for the stream, waiting while it is full; False when the session ended meanwhile."""
        putting = asyncio.ensure_future(self.queue.put(line))
        ending = asyncio.ensure_future(self.ended.wait())
        try:
            await asyncio.wait([putting, ending], return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (putting, ending):
                if not task.done():
                    task.cancel()
        return putting.done() and not putting.cancelled()


class _Conn(H11Peer):
    """One client connection: the h11 state machine over an asyncio stream."""

    async def body(self, limit: int) -> bytes | None:
        """The request's body, or None when it is over ``limit`` bytes (what came of it is not kept)."""
        parts: list[bytes] = []
        size = 0
        while True:
            event = await self.next_event()
            if isinstance(event, h11.EndOfMessage):
                return b"".join(parts)
            if not isinstance(event, h11.Data):
                raise _Gone()
            size += len(event.data)
            if size > limit:
                return None
            parts.append(bytes(event.data))

    async def answer(self, status: int, body: bytes = b"", content_type: str | None = None,
                     headers: list[tuple[str, str]] | None = None, close: bool = False) -> None:
        head = list(headers or [])
        if content_type is not None:
            head.append(("Content-Type", content_type))
        head.append(("Content-Length", str(len(body))))
        if close:
            head.append(("Connection", "close"))
        self.send(h11.Response(status_code=status, reason=HTTPStatus(status).phrase, headers=head))
        if body:
            self.send(h11.Data(data=body))
        self.send(h11.EndOfMessage())
        await self.writer.drain()

    async def error(self, status: int, text: str, code: int = -32000, close: bool = False) -> None:
        """A JSON-RPC error without an id (what the transport's spec allows an HTTP error's body to be)."""
        body = json.dumps({"jsonrpc": "2.0", "error": {"code": code, "message": text}}).encode()
        await self.answer(status, body, "application/json", close=close)

    async def linger(self) -> None:
        """Shut this side for writing and drop what the client still sends, until it closes or
        :data:`LINGER_TIMEOUT` passes, so that the answer just written reaches it."""
        deadline = time.monotonic() + LINGER_TIMEOUT
        with contextlib.suppress(TimeoutError, ConnectionError, OSError):
            if self.writer.can_write_eof():
                self.writer.write_eof()
            while (left := deadline - time.monotonic()) > 0:
                data: bytes = await wait_for(self.reader.read(READ_SIZE), left)
                if not data:
                    return  # the client closed its side

    async def until_closed(self) -> None:
        """Until the client closes its side (a stream's client sends nothing more)."""
        while await self.reader.read(READ_SIZE):
            pass


def _header(request: h11.Request, name: bytes) -> str | None:
    for key, value in request.headers:
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def sse_event(data: bytes, event: str | None = None) -> bytes:
    """One Server-Sent Event: its ``data`` a line each."""
    head = f"event: {event}\n".encode() if event else b""
    return head + b"".join(b"data: " + line + b"\n" for line in data.splitlines() or [b""]) + b"\n"


@dataclass
class ServedTotals:
    """What the twins of all sessions did (the end's summary): requests answered, those without an answer."""

    answered: int = 0
    missed: int = 0
    unmatched: list[Unmatched] = field(default_factory=list)
    faulted: Counter[str] = field(default_factory=Counter)
    sent_server_requests: int = 0
    answered_server_requests: int = 0
    closing: str | None = None  #: close-after's sentence, once it ended the served capture

    def add(self, twin: Twin, conductor: Conductor | None = None) -> None:
        self.answered += twin.answered
        self.missed += twin.missed
        self.unmatched += twin.unmatched[:LISTED_UNMATCHED - len(self.unmatched)]
        if conductor is not None:
            self.faulted.update(conductor.faulted)
            self.sent_server_requests += conductor.sent_server_requests
            self.answered_server_requests += conductor.answered_server_requests

    def conducted(self) -> list[str]:
        """What the sessions' conductors have to say at the end (faults, server requests), added up."""
        return summary_lines(self.faulted, self.sent_server_requests, self.answered_server_requests)

    def summary(self) -> list[str]:
        lines = [f"{u.method} (id {json.dumps(u.id)}): {u.text}" for u in self.unmatched]
        if self.missed > len(self.unmatched):
            lines.append(f"... and {self.missed - len(self.unmatched):,} more")
        return lines


class HttpTwin:
    """Serves twins (one a session, each made by ``make_twin``) over ``transport`` on the listening ``port``."""

    def __init__(self, make_twin: Callable[[], Twin], *, port: int, transport: str, max_message: int,
                 offers_stream: bool, record: ServedCapture | None = None, faults: Faults | None = None,
                 rules: Rules | None = None) -> None:
        self.make_twin = make_twin
        #: the faults in force for every session (each session's conductor asks this one), and the rules
        self.faults = faults if faults is not None else Faults()
        self.rules = rules
        self.port = port
        self.transport = transport
        self.path = TRANSPORTS[transport]
        self.max_message = max_message
        self.offers_stream = offers_stream  #: the capture has notifications outside requests: GET has a stream
        self.record = record
        self.sessions: dict[str, _Session] = {}
        self.stateless: Twin | None = None  #: the twin of requests without a session
        self._stateless: Conducted | None = None
        self.websockets: dict[int, Conducted] = {}  #: the sessions of WebSocket connections open now, by id()
        self.ended = ServedTotals()  #: the twins of sessions that ended
        self.refused = 0  #: requests answered 403 (a foreign Host or Origin)
        self.dropped = 0  #: notifications for a GET stream its client did not read
        self.stopping = False
        self.closing: str | None = None  #: close-after's sentence once a session's conductor ended the twin
        self.stop_event: asyncio.Event | None = None  #: set to stop serving (:func:`serve_http` gives it)
        self.answering = 0  #: POSTs of requests whose answer is not written yet (a dropped one waits here)
        #: called after a session sent what was due (the window's fault toggles: an oversize that cleared itself)
        self.after_flush: Callable[[], None] | None = None
        self._connections: set[asyncio.Task[Any]] = set()

    def _streams(self) -> bool:
        """Whether a Streamable HTTP session has a GET stream: the capture's server sent something outside
        requests, or list-changed is in force."""
        return self.offers_stream or self.faults.list_changed is not None

    def _conduct(self, twin: Twin, standalone: Callable[[Item], None]) -> Conducted:
        return Conducted(Conductor(twin, self.faults, self.rules), standalone, record=self.record,
                         on_close=self._close_after, on_flush=self._flushed)

    def _flushed(self) -> None:
        if self.after_flush is not None:
            self.after_flush()

    def _close_after(self, sentence: str) -> None:
        """close-after ended a session's conductor: the served capture stops, once what it answered went out."""
        if self.closing is None:
            self.closing = sentence
            self.stopping = True
            if self.stop_event is not None:
                self.stop_event.set()

    async def settle(self, grace: float = 2.0) -> None:
        """Until the answers being written went out (close-after's last one), at most ``grace`` seconds."""
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and (self.answering or any(
                not s.queue.empty() or s.backlog for s in self.sessions.values() if s.streaming)):
            await asyncio.sleep(0.01)

    def unsent(self) -> int:
        """Notifications of the capture's server outside requests that no stream took: no session or GET stream
        to carry them, or one its client did not read."""
        return self.dropped + sum(self._unsent(session) for session in self.sessions.values())

    def _unsent(self, session: _Session) -> int:
        waiting = session.queue.qsize() if self.transport == "streamable-http" else 0  # never taken by a GET
        return session.dropped + waiting

    def totals(self) -> ServedTotals:
        ended = self.ended
        totals = ServedTotals(ended.answered, ended.missed, list(ended.unmatched), Counter(ended.faulted),
                              ended.sent_server_requests, ended.answered_server_requests, self.closing)
        for conducted in [*(s.conducted for s in self.sessions.values()), self._stateless,
                          *self.websockets.values()]:
            if conducted is not None:
                totals.add(conducted.twin, conducted.conductor)
        return totals

    # -- sessions -------------------------------------------------------------------------------------------

    def _open(self) -> _Session:
        if len(self.sessions) >= MAX_SESSIONS:
            self._end(next(iter(self.sessions)))
        session = _Session(secrets.token_hex(16), self.make_twin())
        session.conducted = self._conduct(session.twin, partial(self._to_session, session))
        self.sessions[session.id] = session
        return session

    def _to_session(self, session: _Session, item: Item) -> None:
        """An item of no open request's stream: on the session's stream (Streamable HTTP's GET stream, HTTP+SSE's
        one stream); dropped and counted when there is none or it is full."""
        frame = junk_bytes(self.transport) if item.junk else sse_event(item.line, "message")
        if self.transport == "streamable-http" and not self._streams():
            self.dropped += 1
            return
        if not session.backlog:
            with contextlib.suppress(asyncio.QueueFull):
                session.queue.put_nowait(frame)
                return
        if self.transport == "sse" and len(session.backlog) < STREAM_QUEUE:
            session.backlog.append(frame)
        else:
            session.dropped += 1

    def _stateless_session(self) -> Conducted:
        """The conducted twin of requests without a session (what it sends outside requests reaches no one)."""
        if self._stateless is None:
            self.stateless = self.make_twin()
            self._stateless = self._conduct(self.stateless, self._unsendable)
        return self._stateless

    def _unsendable(self, item: Item) -> None:
        self.dropped += 1

    def _end(self, session_id: str) -> None:
        session = self.sessions.pop(session_id, None)
        if session is None:
            return
        conducted = session.conducted
        self.ended.add(session.twin, conducted.conductor if conducted is not None else None)
        if conducted is not None:
            conducted.end()
        self.dropped += self._unsent(session) + len(session.backlog)
        session.ended.set()  # its stream ends, a POST waiting for room in it too

    def _receive(self, twin: Twin, event: Event) -> tuple[Any, list[Outgoing]]:
        """The twin's answer to an event that is no message (the conductor has nothing to do with it): (the
        event, the twin's error), recorded."""
        outgoing = twin.receive(event)
        if self.record is not None:
            self.record.exchange(event, outgoing)
            self.record.flush()
        return event, outgoing

    # -- connections ----------------------------------------------------------------------------------------

    async def connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._connections.add(task)
        raw = writer.get_extra_info("socket")
        if raw is not None:  # a response's head and body are separate writes: no wait for a delayed ACK
            with contextlib.suppress(OSError):
                raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn = _Conn(reader, writer)
        try:
            while not self.stopping:
                try:
                    request = await wait_for(conn.next_event(), REQUEST_HEAD_TIMEOUT)
                except TimeoutError:
                    if conn.conn.trailing_data[0]:
                        await conn.error(408, f"the request's head did not arrive whole within "
                                              f"{REQUEST_HEAD_TIMEOUT:g} s", close=True)
                    break
                if not isinstance(request, h11.Request) or not await self._exchange(conn, request):
                    break
                if conn.conn.our_state is not h11.DONE or conn.conn.their_state is not h11.DONE:
                    break
                conn.conn.start_next_cycle()
        except h11.RemoteProtocolError as exc:
            if conn.conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
                with contextlib.suppress(h11.LocalProtocolError, ConnectionError, OSError):
                    await conn.error(exc.error_status_hint, f"a malformed HTTP request: {exc}", close=True)
        except (h11.LocalProtocolError, _Gone, ConnectionError, OSError):
            pass
        except asyncio.CancelledError:
            if not self.stopping:
                raise
        finally:
            if task is not None:
                self._connections.discard(task)
            writer.close()

    async def _exchange(self, conn: _Conn, request: h11.Request) -> bool:
        """Answer one request; returns whether the connection may carry another."""
        problem = host_problem(_header(request, b"host"), self.port, WHO) or origin_problem(_header(request,
                                                                                                 b"origin"))
        if problem is not None:
            self.refused += 1
            await conn.error(403, f"refused: {problem}", close=True)
            return False
        method = request.method.decode("ascii", "replace")
        target = urlsplit(request.target.decode("latin-1"))
        path = target.path
        if self.transport == "sse" and path.rstrip("/") == MESSAGES_PATH.rstrip("/"):
            if method != "POST":
                return await self._not_allowed(conn, "POST")
            return await self._sse_post(conn, request, parse_qs(target.query).get("session_id", [""])[0])
        if path.rstrip("/") != self.path:
            await self._drain(conn, request)
            await conn.error(404, f"nothing is served at {path[:200]}: the MCP endpoint is {self.path}")
            return True
        if self.transport == "sse":
            if method != "GET":
                return await self._not_allowed(conn, "GET")
            await self._sse_stream(conn)
            return False
        if self.transport == "websocket":
            await self._websocket(conn, request)
            return False
        if method == "POST":
            return await self._post(conn, request)
        if method == "GET":
            return await self._get(conn, request)
        if method == "DELETE":
            return await self._delete(conn, request)
        return await self._not_allowed(conn, "GET, POST, DELETE")

    async def _drain(self, conn: _Conn, request: h11.Request) -> None:
        """Read (and drop) a request's body, so the connection can carry the next one."""
        if _header(request, b"content-length") not in (None, "0") or _header(request, b"transfer-encoding"):
            if await conn.body(self.max_message) is None:
                raise _Gone()

    async def _not_allowed(self, conn: _Conn, allow: str) -> bool:
        await conn.answer(405, b"", headers=[("Allow", allow)], close=True)
        return False

    async def _read_message(self, conn: _Conn) -> bytes | None:
        """The POSTed message; None after answering a body over ``--max-message`` (413) or an empty one (400)."""
        body = await conn.body(self.max_message)
        if body is None:
            await conn.error(413, f"the message is over --max-message ({self.max_message:,} bytes); it was not "
                                  "read", code=-32600, close=True)
            await conn.linger()
        elif not body.strip():
            await conn.error(400, "the POST carries no JSON-RPC message", code=-32600, close=True)
            return None
        return body

    # -- Streamable HTTP ------------------------------------------------------------------------------------

    async def _post(self, conn: _Conn, request: h11.Request) -> bool:
        body = await self._read_message(conn)
        if body is None:
            return False
        modern = (_header(request, b"mcp-protocol-version") or "") >= STATELESS_FROM
        session_id = None if modern else _header(request, b"mcp-session-id")
        session = None
        if session_id is not None:
            session = self.sessions.get(session_id)
            if session is None:
                await conn.error(404, "no such session: it ended, or this served capture never opened it; "
                                      "initialize again")
                return True
        elif not modern and b'"initialize"' in body and _method_of(body) == "initialize":
            session = self._open()
        conducted = session.conducted if session is not None else self._stateless_session()
        assert conducted is not None
        headers = [("Mcp-Session-Id", session.id)] if session is not None and not modern else []
        event = decode_line(body, Direction.C2S, b"")
        rpc = event.rpc
        if rpc is None:  # bytes that are no message: the twin's error, as the HTTP error's body
            _, outgoing = self._receive(conducted.twin, event)
            if outgoing:
                await conn.answer(400, outgoing[0].line, "application/json", headers)
            else:
                await conn.answer(202, b"", headers=headers)
            return True
        if rpc.kind == jsonrpc.BATCH:
            return await self._batch(conn, request, conducted, event, headers,
                                     session.ended if session is not None else None)
        if rpc.kind != jsonrpc.REQUEST:
            conducted.receive(event)
            await conn.answer(202, b"", headers=headers)
            return True
        queue = conducted.open(rpc.id)
        self.answering += 1
        try:
            conducted.receive(event)
            accept = (_header(request, b"accept") or "").lower()
            return await self._answer(conn, queue, "text/event-stream" in accept, headers,
                                      session.ended if session is not None else None)
        finally:
            self.answering -= 1
            conducted.close(rpc.id, queue)

    async def _batch(self, conn: _Conn, request: h11.Request, conducted: Conducted, event: Event,
                     headers: list[tuple[str, str]], ended: asyncio.Event | None) -> bool:
        """A POSTed JSON-RPC batch: outside 2025-03-26 (the request's ``MCP-Protocol-Version``, else the session's)
        the twin's Invalid Request error with 400; else the array of its responses as any answer goes (JSON, or
        an event stream when something comes before it), or 202 when it holds no request."""
        refusal = conducted.twin.batch_refusal(_header(request, b"mcp-protocol-version"))
        if refusal is not None:
            if self.record is not None:
                self.record.exchange(event, [refusal])
                self.record.flush()
            await conn.answer(400, refusal.line, "application/json", headers)
            return True
        try:
            members = event.json()
        except ValueError:
            members = None
        route = batch_route(members) if isinstance(members, list) else None
        if route is None:
            conducted.receive(event)
            await conn.answer(202, b"", headers=headers)
            return True
        queue = conducted.open(route)
        self.answering += 1
        try:
            conducted.receive(event)
            accept = (_header(request, b"accept") or "").lower()
            return await self._answer(conn, queue, "text/event-stream" in accept, headers, ended)
        finally:
            self.answering -= 1
            conducted.close(route, queue)

    async def _answer(self, conn: _Conn, queue: asyncio.Queue[Item], takes_stream: bool,
                      headers: list[tuple[str, str]], ended: asyncio.Event | None) -> bool:
        """Write what comes for a POSTed request, its answer last: the answer alone as JSON when nothing comes
        before it, else an event stream (notifications left out for a client that takes JSON only; junk and
        server requests need the stream). A request never answered (drop) holds the POST until the client leaves,
        the session ends or the server stops."""
        streaming = False
        waiting: list[asyncio.Future[Any]] = []
        try:
            while True:
                if queue.empty() and not waiting:  # the client leaving, the session ending: the wait's end
                    waiting = [asyncio.ensure_future(_left(conn))]
                    if ended is not None:
                        waiting.append(asyncio.ensure_future(ended.wait()))
                item = await _next(queue, waiting)
                if item is None:
                    if streaming:
                        conn.send(h11.EndOfMessage())
                        await conn.writer.drain()
                        return False
                    if waiting[0].done():
                        raise _Gone()
                    await conn.error(404, "the session ended before this request was answered")
                    return True
                answer = is_answer(item)
                if not streaming:
                    if answer:
                        await conn.answer(200, item.line, "application/json", headers)
                        return True
                    if not takes_stream and is_notification(item):
                        continue
                    conn.send(h11.Response(status_code=200, headers=[
                        *headers, ("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"),
                        ("X-Accel-Buffering", "no")]))
                    streaming = True
                conn.send(h11.Data(data=junk_bytes(self.transport) if item.junk else sse_event(item.line, "message")))
                if answer:
                    conn.send(h11.EndOfMessage())
                await conn.writer.drain()
                if answer:
                    return True
        finally:
            for task in waiting:
                if task.done() and not task.cancelled():
                    task.exception()  # a reset connection's error: retrieved, not logged as never retrieved
                task.cancel()

    async def _get(self, conn: _Conn, request: h11.Request) -> bool:
        modern = (_header(request, b"mcp-protocol-version") or "") >= STATELESS_FROM
        session = self.sessions.get(_header(request, b"mcp-session-id") or "")
        if modern or not self._streams():
            return await self._not_allowed(conn, "POST, DELETE")
        if session is None:
            await conn.error(404 if _header(request, b"mcp-session-id") else 400,
                             "a GET stream needs the Mcp-Session-Id of a session (initialize first)")
            return True
        if session.streaming:
            await conn.error(409, "this session has a GET stream open already")
            return True
        session.streaming = True
        try:
            await self._stream(conn, session, [("Mcp-Session-Id", session.id)])
        finally:
            session.streaming = False
        return False

    async def _delete(self, conn: _Conn, request: h11.Request) -> bool:
        session_id = _header(request, b"mcp-session-id")
        if session_id is None or session_id not in self.sessions:
            await conn.error(404 if session_id else 400, "no such session to end")
            return True
        self._end(session_id)
        await conn.answer(200)
        return True

    async def _stream(self, conn: _Conn, session: _Session, headers: list[tuple[str, str]],
                      first: bytes = b"") -> None:
        """An event stream of the session's queue, until the client closes it, the session ends or the stop."""
        conn.send(h11.Response(status_code=200, headers=[*headers, ("Content-Type", "text/event-stream"),
                                                         ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no")]))
        conn.send(h11.Data(data=first or b": stream open\n\n"))
        await conn.writer.drain()

        async def pump() -> None:
            while True:
                conn.send(h11.Data(data=await session.queue.get()))
                session.pull_backlog()
                await conn.writer.drain()

        tasks = [asyncio.ensure_future(pump()), asyncio.ensure_future(conn.until_closed()),
                 asyncio.ensure_future(session.ended.wait())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        with contextlib.suppress(h11.LocalProtocolError, ConnectionError, OSError):
            conn.send(h11.EndOfMessage())
            await conn.writer.drain()

    # -- HTTP+SSE -------------------------------------------------------------------------------------------

    async def _sse_stream(self, conn: _Conn) -> None:
        session = self._open()
        session.streaming = True
        try:
            endpoint = sse_event(f"{MESSAGES_PATH}?session_id={session.id}".encode(), "endpoint")
            await self._stream(conn, session, [], endpoint)
        finally:
            self._end(session.id)

    async def _sse_post(self, conn: _Conn, request: h11.Request, session_id: str) -> bool:
        body = await self._read_message(conn)
        if body is None:
            return False
        session = self.sessions.get(session_id)
        if session is None:
            await conn.error(404, "no such session: open the event stream (GET /sse) and POST to the endpoint it "
                                  "names")
            return True
        event = decode_line(body, Direction.C2S, b"")
        if event.rpc is None:  # bytes that are no message: the error is the POST's answer
            _, outgoing = self._receive(session.twin, event)
            if outgoing:
                await conn.error(400, json.loads(outgoing[0].line)["error"]["message"], PARSE_ERROR)
                return True
        elif session.conducted is not None:
            session.conducted.receive(event)  # its answers go on the stream, now or when due
        while session.backlog:  # a client that does not read its stream holds its POSTs
            if not await session.put(session.backlog.pop(0)):
                await conn.error(404, "the session ended (its event stream closed) before its answer was sent")
                return True
        await conn.answer(202, b"Accepted", "text/plain; charset=utf-8")
        return True

    # -- WebSocket ------------------------------------------------------------------------------------------

    async def _websocket(self, conn: _Conn, request: h11.Request) -> None:
        """A WebSocket upgrade of the MCP endpoint: the connection is a session with a twin of its own."""
        from inspector.core.serve import websocket

        headers = {bytes(name): bytes(value) for name, value in request.headers}
        if request.method != b"GET" or not websocket.is_upgrade(headers):
            await self._drain(conn, request)
            await conn.answer(426, b"this served capture speaks WebSocket here: upgrade a GET\n",
                              "text/plain; charset=utf-8", [("Upgrade", "websocket"), ("Connection", "Upgrade")])
            return
        if not isinstance(await conn.next_event(), h11.EndOfMessage):  # an upgrade request has no body
            raise _Gone()
        conn.send(h11.InformationalResponse(status_code=101, headers=websocket.accept_headers(headers)))
        await conn.writer.drain()
        twin = self.make_twin()
        sends: list[Callable[[bytes], None]] = []

        def standalone(item: Item) -> None:  # junk: a text frame that is no JSON, as the line of stdio
            if sends:
                sends[0](junk_bytes("stdio") if item.junk else item.line)

        conducted = self._conduct(twin, standalone)

        def receive(message: bytes, send: Callable[[bytes], None]) -> None:
            sends[:] = [send]
            event = decode_line(message, Direction.C2S, b"")
            if event.rpc is not None:
                conducted.receive(event)
                return
            for out in self._receive(twin, event)[1]:
                send(out.line)

        self.websockets[id(conducted)] = conducted
        try:
            await websocket.serve_frames(conn.reader, conn.writer, bytes(conn.conn.trailing_data[0]), receive,
                                         self.max_message)
        except Exception as exc:  # wsproto's protocol errors (a frame it refuses): this connection only ends
            if not isinstance(exc, (ConnectionError, OSError)) and type(exc).__module__.split(".")[0] != "wsproto":
                raise
        finally:
            self.websockets.pop(id(conducted), None)
            conducted.end()
            self.ended.add(twin, conducted.conductor)

    # -- stopping -------------------------------------------------------------------------------------------

    async def stop(self, grace: float = 2.0) -> None:
        """End every connection (open streams included)."""
        self.stopping = True
        for task in list(self._connections):
            task.cancel()
        if self._connections:
            await asyncio.wait(list(self._connections), timeout=grace)


PARSE_ERROR = -32700


async def _left(conn: _Conn) -> None:
    """Until the client closes its connection while its request waits (what it sends meanwhile is kept for h11)."""
    while data := await conn.reader.read(READ_SIZE):
        conn.conn.receive_data(data)


async def _next(queue: asyncio.Queue[Item], waiting: list[asyncio.Future[Any]]) -> Item | None:
    """The next item of ``queue``, or None once one of ``waiting`` is done first."""
    if not queue.empty():
        return queue.get_nowait()
    getting = asyncio.ensure_future(queue.get())
    try:
        await asyncio.wait([getting, *waiting], return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not getting.done():
            getting.cancel()
    if getting.done() and not getting.cancelled():
        return getting.result()
    return None


def _method_of(body: bytes) -> str | None:
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None
    return message.get("method") if isinstance(message, dict) else None


def served_url(host: str, port: int, transport: str) -> str:
    """The URL a client is given: ``http://127.0.0.1:PORT/mcp`` (``/sse`` for HTTP+SSE, ``ws://`` for
    WebSocket)."""
    return origin_text(host, port, "ws" if transport == "websocket" else "http") + TRANSPORTS[transport]


async def serve_http(server: HttpTwin, sock: socket.socket, stop: asyncio.Event) -> None:
    """Serve on ``sock`` until ``stop`` is set; then the port closes and every connection ends."""
    server.stop_event = stop
    listener = await asyncio.start_server(server.connection, sock=sock, limit=MAX_HEAD)
    try:
        await stop.wait()
        if server.closing is not None:
            await server.settle()
    finally:
        listener.close()
        await server.stop()
