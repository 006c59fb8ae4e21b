"""The twin over HTTP on loopback: ``mcp-inspector serve CAPTURE --listen 127.0.0.1:PORT [--transport ...]``.

The listening socket is the inspector's kind of deliberate one (docs/architecture.md): 127.0.0.1 or ::1 only
(:func:`~inspector.core.tap.http_guard.parse_listen`, the tap's rule), and every request's ``Host`` and ``Origin``
are checked as the tap checks them (:func:`~inspector.core.tap.http_guard.host_problem` and ``origin_problem``,
against DNS rebinding): a foreign one gets 403 and reaches no twin. HTTP/1.1 is h11's, over asyncio streams.

* **Streamable HTTP** (``/mcp``), as the revision the client speaks says
  (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports and
  https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http): each POSTed
  request is answered with one JSON object, or with an event stream when the capture had notifications before
  its answer (progress, log lines) and the client accepts one; a POSTed notification or response gets 202.
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
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, urlsplit

import h11

from inspector.core.protocol.revisions import STATELESS_FROM
from inspector.core.serve.stdio import ServedCapture
from inspector.core.serve.twin import LISTED_UNMATCHED, Outgoing, Twin, Unmatched
from inspector.core.tap.http_guard import host_problem, origin_problem, origin_text
from inspector.core.waiting import wait_for
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction
from inspector.core.wire.framing import decode_line

#: The transports ``--transport`` may name, and the path of each one's URL.
TRANSPORTS = {"streamable-http": "/mcp", "sse": "/sse", "websocket": "/mcp"}
MESSAGES_PATH = "/messages/"
#: Bytes read at a time.
READ_SIZE = 64 * 1024
#: The largest request head (request line and headers).
MAX_HEAD = 64 * 1024
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
    queue: asyncio.Queue[bytes] = field(default_factory=lambda: asyncio.Queue(STREAM_QUEUE))
    ended: asyncio.Event = field(default_factory=asyncio.Event)  #: set when the session ends: its stream ends
    streaming: bool = False
    dropped: int = 0

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


class _Conn:
    """One client connection: the h11 state machine over an asyncio stream."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)

    async def next_event(self) -> Any:
        while True:
            event = self.conn.next_event()
            if event is not h11.NEED_DATA:
                return event
            if self.conn.they_are_waiting_for_100_continue:
                self.send(h11.InformationalResponse(status_code=100, headers=[]))
            self.conn.receive_data(await self.reader.read(READ_SIZE))

    def send(self, event: Any) -> None:
        data = self.conn.send(event)
        if data:
            self.writer.write(data)

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

    async def closed(self) -> None:
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

    def add(self, twin: Twin) -> None:
        self.answered += twin.answered
        self.missed += twin.missed
        self.unmatched += twin.unmatched[:LISTED_UNMATCHED - len(self.unmatched)]

    def summary(self) -> list[str]:
        lines = [f"{u.method} (id {json.dumps(u.id)}): {u.text}" for u in self.unmatched]
        if self.missed > len(self.unmatched):
            lines.append(f"... and {self.missed - len(self.unmatched):,} more")
        return lines


class HttpTwin:
    """Serves twins (one a session, each made by ``make_twin``) over ``transport`` on the listening ``port``."""

    def __init__(self, make_twin: Callable[[], Twin], *, port: int, transport: str, max_message: int,
                 offers_stream: bool, record: ServedCapture | None = None) -> None:
        self.make_twin = make_twin
        self.port = port
        self.transport = transport
        self.path = TRANSPORTS[transport]
        self.max_message = max_message
        self.offers_stream = offers_stream  #: the capture has notifications outside requests: GET has a stream
        self.record = record
        self.sessions: dict[str, _Session] = {}
        self.stateless: Twin | None = None  #: the twin of requests without a session
        self.websockets: dict[int, Twin] = {}  #: the twins of WebSocket connections open now, by id()
        self.ended = ServedTotals()  #: the twins of sessions that ended
        self.refused = 0  #: requests answered 403 (a foreign Host or Origin)
        self.dropped = 0  #: notifications for a GET stream its client did not read
        self.stopping = False
        self._connections: set[asyncio.Task[Any]] = set()

    def unsent(self) -> int:
        """Notifications of the capture's server outside requests that no stream took: no session or GET stream
        to carry them, or one its client did not read."""
        return self.dropped + sum(self._unsent(session) for session in self.sessions.values())

    def _unsent(self, session: _Session) -> int:
        waiting = session.queue.qsize() if self.transport == "streamable-http" else 0  # never taken by a GET
        return session.dropped + waiting

    def totals(self) -> ServedTotals:
        totals = ServedTotals(self.ended.answered, self.ended.missed, list(self.ended.unmatched))
        for twin in [*(s.twin for s in self.sessions.values()), *([self.stateless] if self.stateless else []),
                     *self.websockets.values()]:
            totals.add(twin)
        return totals

    # -- sessions -------------------------------------------------------------------------------------------

    def _open(self) -> _Session:
        if len(self.sessions) >= MAX_SESSIONS:
            self._end(next(iter(self.sessions)))
        session = _Session(secrets.token_hex(16), self.make_twin())
        self.sessions[session.id] = session
        return session

    def _end(self, session_id: str) -> None:
        session = self.sessions.pop(session_id, None)
        if session is None:
            return
        self.ended.add(session.twin)
        self.dropped += self._unsent(session)
        session.ended.set()  # its stream ends, a POST waiting for room in it too

    def _receive(self, twin: Twin, body: bytes) -> tuple[Any, list[Outgoing]]:
        """The twin's answer to one POSTed body: (the client's event, what the twin sends), recorded."""
        event = decode_line(body, Direction.C2S, b"")
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
            twin = session.twin
        elif not modern and b'"initialize"' in body and _method_of(body) == "initialize":
            session = self._open()
            twin = session.twin
        else:
            if self.stateless is None:
                self.stateless = self.make_twin()
            twin = self.stateless
        event, outgoing = self._receive(twin, body)
        headers = [("Mcp-Session-Id", session.id)] if session is not None and not modern else []
        rpc = event.rpc
        if rpc is None or rpc.kind not in (jsonrpc.REQUEST,):
            if outgoing and rpc is not None and rpc.kind in (jsonrpc.NOTIFICATION, jsonrpc.RESPONSE, jsonrpc.ERROR):
                self._to_stream(session, outgoing)
            elif outgoing:  # bytes that are no message: the twin's error, as the HTTP error's body
                await conn.answer(400, outgoing[0].line, "application/json", headers)
                return True
            await conn.answer(202, b"", headers=headers)
            return True
        at = next((n for n, out in enumerate(outgoing) if _is_answer(out.line)), len(outgoing))
        before, answer, after = outgoing[:at], outgoing[at:at + 1], outgoing[at + 1:]
        self._to_stream(session, after)
        accept = (_header(request, b"accept") or "").lower()
        if before and "text/event-stream" in accept:
            data = b"".join(sse_event(out.line, "message") for out in [*before, *answer])
            await conn.answer(200, data, "text/event-stream", [*headers, ("Cache-Control", "no-cache"),
                                                                ("X-Accel-Buffering", "no")])
        else:
            await conn.answer(200, answer[0].line if answer else b"{}", "application/json", headers)
        return True

    def _to_stream(self, session: _Session | None, outgoing: list[Outgoing]) -> None:
        """The twin's messages outside any answer, for the session's GET stream (dropped, counted, when there
        is no session or its stream is full)."""
        for out in outgoing:
            if session is None or not self.offers_stream:
                self.dropped += 1
                continue
            try:
                session.queue.put_nowait(out.line)
            except asyncio.QueueFull:
                session.dropped += 1

    async def _get(self, conn: _Conn, request: h11.Request) -> bool:
        modern = (_header(request, b"mcp-protocol-version") or "") >= STATELESS_FROM
        session = self.sessions.get(_header(request, b"mcp-session-id") or "")
        if modern or not self.offers_stream:
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
                conn.send(h11.Data(data=sse_event(await session.queue.get(), "message")))
                await conn.writer.drain()

        tasks = [asyncio.ensure_future(pump()), asyncio.ensure_future(conn.closed()),
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
        event, outgoing = self._receive(session.twin, body)
        if event.rpc is None and outgoing:  # bytes that are no message: the error is the POST's answer
            await conn.error(400, json.loads(outgoing[0].line)["error"]["message"], PARSE_ERROR)
            return True
        for out in outgoing:  # the stream is the answers' way: a client that does not read it holds its POSTs
            if not await session.put(out.line):
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
        self.websockets[id(twin)] = twin
        try:
            await websocket.serve_frames(conn.reader, conn.writer, bytes(conn.conn.trailing_data[0]), twin,
                                         self._receive, self.max_message)
        except Exception as exc:  # wsproto's protocol errors (a frame it refuses): this connection only ends
            if not isinstance(exc, (ConnectionError, OSError)) and type(exc).__module__.split(".")[0] != "wsproto":
                raise
        finally:
            self.websockets.pop(id(twin), None)
            self.ended.add(twin)

    # -- stopping -------------------------------------------------------------------------------------------

    async def stop(self, grace: float = 2.0) -> None:
        """End every connection (open streams included)."""
        self.stopping = True
        for task in list(self._connections):
            task.cancel()
        if self._connections:
            await asyncio.wait(list(self._connections), timeout=grace)


PARSE_ERROR = -32700


def _method_of(body: bytes) -> str | None:
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None
    return message.get("method") if isinstance(message, dict) else None


def _is_answer(line: bytes) -> bool:
    """Whether a line the twin sends is a response (a result or an error), not a notification."""
    rpc = decode_line(line, Direction.S2C, b"").rpc
    return rpc is not None and rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR)


def served_url(host: str, port: int, transport: str) -> str:
    """The URL a client is given: ``http://127.0.0.1:PORT/mcp`` (``/sse`` for HTTP+SSE, ``ws://`` for
    WebSocket)."""
    return origin_text(host, port, "ws" if transport == "websocket" else "http") + TRANSPORTS[transport]


async def serve_http(server: HttpTwin, sock: socket.socket, stop: asyncio.Event) -> None:
    """Serve on ``sock`` until ``stop`` is set; then the port closes and every connection ends."""
    listener = await asyncio.start_server(server.connection, sock=sock, limit=MAX_HEAD)
    try:
        await stop.wait()
    finally:
        listener.close()
        await server.stop()
