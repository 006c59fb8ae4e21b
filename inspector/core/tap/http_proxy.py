"""``mcp-inspector tap --url UPSTREAM --listen 127.0.0.1:PORT``: a loopback reverse proxy that records a real
client's traffic with a remote (or local) HTTP MCP server.

The client is given the tap's URL (the server's path and query on ``http://127.0.0.1:PORT``) instead of the
server's. Every request it sends is relayed to the server's origin as it comes, and every response back as it
comes: Streamable HTTP's POSTs, its GET stream, DELETE and resumption (``Last-Event-ID``), HTTP+SSE's event
stream and POSTed messages, WebSocket upgrades and then their frames (the connection is spliced, byte for
byte, after the server's 101). Headers cross as they came (credentials included: they are redacted in the
capture only), but for ``Host``, which names the server, the hop-by-hop headers, which each side of the tap
has of its own, and ``Via``, to which the tap adds its own mark (:mod:`inspector.core.tap.http_guard`): a request
that comes back with it went round a relay loop and gets 508, and a ``--url`` naming the tap's own address is
refused before anything listens. Two rewrites keep the client on the tap: an absolute
``Location`` on the server's origin, and (``--transport sse`` or ``auto``) an absolute ``endpoint`` event on
it, become the same URL on the tap's origin.

With ``--rules FILE`` (:mod:`inspector.core.intercept.rules`), each message is put through the intercept engine on
its way (:mod:`inspector.core.tap.http_intercept`): a POSTed message and a JSON answer are read whole, an event
stream is relayed event by event, and what a rule does (rewrite, delay, drop, an error answered by the tap) is
what the client and the server get, and what the capture records. A WebSocket's frames are not intercepted: the
tap refuses rules with ``--transport websocket``.

Two processes, as for the stdio tap (:mod:`inspector.core.tap.relay`): this one relays (asyncio: h11 for the
client side, httpx for the server side) and hands a copy of every head and body, stamped with the time it
was read, to a forked recorder through the spool (frames of :mod:`inspector.core.tap.options`); the recorder
(:mod:`inspector.core.tap.http_recorder`) turns them into the events the HTTP transports record, runs them
through the session's pipeline into the capture, and streams them to a listening window.

The listening socket is the inspector's second deliberate one (docs/architecture.md): 127.0.0.1 or ::1 only,
open only while the command runs, and every request's Host and Origin are checked before anything is
forwarded (a foreign one gets 403 and is neither relayed nor recorded). A client is watched while its server
has not answered: if it leaves, the request upstream is cancelled and the capture says the client left; a
request head must arrive whole within :data:`REQUEST_HEAD_TIMEOUT`. SIGINT or SIGTERM ends the tap: the
port closes, exchanges under way end (each recorded as ended by the stop), and the capture is completed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import time
from collections.abc import AsyncIterator, Callable
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import h11
import httpx

from inspector.core.capture.writer import make_header
from inspector.core.exits import EXIT_BAD_INPUT
from inspector.core.redaction import redact_url
from inspector.core.tap.breakpoint_link import BreakpointLink
from inspector.core.tap.channel import default_socket_path
from inspector.core.tap.h11_peer import MAX_HEAD, READ_SIZE, H11Peer
from inspector.core.tap.http_guard import (
    EndpointRewriter,
    came_back,
    client_headers,
    host_problem,
    http_url,
    leads_to_itself,
    local_url,
    origin_problem,
    origin_text,
    upstream_headers,
    via_token,
    with_via,
)
from inspector.core.tap.http_intercept import (
    READABLE_CODINGS,
    InterceptHost,
    SseBlocks,
    TapIntercept,
    refuse_rules,
)
from inspector.core.tap.http_recorder import HttpRecorder
from inspector.core.tap.options import (
    END,
    EXCHANGE,
    EXIT_TAP_ERROR,
    HTTP_REQUEST,
    HTTP_REQUEST_BODY,
    HTTP_REQUEST_END,
    HTTP_RESPONSE,
    HTTP_RESPONSE_BODY,
    HTTP_RESPONSE_END,
    HTTP_REWRITE,
    LIFECYCLE,
    NOTE,
    WS_C2S,
    WS_S2C,
    TapOptions,
)
from inspector.core.tap.recorder import capture_destination, fork_recorder, say
from inspector.core.tap.relay import RECORDER_FINISH_TIMEOUT
from inspector.core.tap.spool import Spool, SpoolWriter, waker
from inspector.core.transports.http_common import HttpOptions, explain, tls_described
from inspector.core.waiting import wait_for
from inspector.core.wire.events import Lifecycle

#: Bound on making the TCP (and TLS) connection to the server; the client's own timeouts bound the rest.
CONNECT_TIMEOUT = 10.0
#: After one side of a WebSocket closed, how long the other has to close too.
WEBSOCKET_CLOSE_GRACE = 2.0
#: At the stop, how long exchanges under way have to record their end once cancelled.
STOP_GRACE = 2.0
#: How long a client has to send a whole request head (request line and headers), from the moment the tap waits for
#: it (the connection opened, or the previous exchange ended): a client that sends its head a byte at a time, or
#: holds a kept-alive connection without using it, is not held longer (a slow-header client would otherwise keep
#: a connection and a task of the tap for as long as it likes). Long enough for any real client; an idle
#: connection is closed without a word, a head cut short gets 408.
REQUEST_HEAD_TIMEOUT = 30.0
#: After answering 408 to a client that is still sending, how long the tap reads (and drops) what it sends before
#: closing: closing a socket with bytes unread makes the kernel reset the connection, and the client may lose the
#: answer before it reads it (a "lingering close", as web servers do; Apache's default is 2 s too).
LINGER_TIMEOUT = 2.0
#: What the capture says of an exchange whose client left while the server had not answered yet.
CLIENT_LEFT = ("the client closed its connection before the server answered; the request to the server was cancelled "
               "and its connection closed")
#: Signals that end the tap (with the capture complete).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: Request headers httpx adds by default; the tap sends only what the client sent.
_HTTPX_DEFAULTS = ("user-agent", "accept", "accept-encoding", "connection")


class _ClientGone(Exception):
    """The client closed its connection."""


class _ClientLeft(Exception):
    """The client closed its connection while the server had not answered its request yet."""


class _Client(H11Peer):
    """One client connection: the h11 state machine over an asyncio stream."""

    async def next_request(self) -> Any:
        """The next event of a new exchange (a request head, or the end of the connection), within
        :data:`REQUEST_HEAD_TIMEOUT`; None when it did not come in time (the connection is then answered 408 if a
        head had begun, and is to be closed)."""
        try:
            return await wait_for(self.next_event(), REQUEST_HEAD_TIMEOUT)
        except TimeoutError:
            if self.conn.trailing_data[0]:  # part of a head came: say why it is cut off
                await self.plain(408, f"mcp-inspector tap: the request's head did not arrive whole within "
                                      f"{REQUEST_HEAD_TIMEOUT:g} s; the connection is closed.\n")
                await self.linger()
            return None

    async def linger(self) -> None:
        """Shut the tap's side for writing and read (and drop) what the client still sends, until it closes or
        :data:`LINGER_TIMEOUT` passes, so that the answer just written reaches it before the connection closes."""
        deadline = time.monotonic() + LINGER_TIMEOUT
        try:
            if self.writer.can_write_eof():
                self.writer.write_eof()
            while (left := deadline - time.monotonic()) > 0:
                if not await wait_for(self.reader.read(READ_SIZE), left):
                    return  # the client closed its side
        except (TimeoutError, ConnectionError, OSError):
            return

    async def wait_closed(self) -> None:
        """Until the client closes its side (bytes it sends meanwhile, a pipelined request, wait in h11)."""
        while not self.closed:
            data = await self.reader.read(READ_SIZE)
            if not data:
                self.closed = True
            self.conn.receive_data(data)

    async def plain(self, status: int, text: str) -> None:
        """A short text answer of the tap's own, after which the connection closes."""
        body = text.encode("utf-8")
        try:
            self.send(h11.Response(status_code=status, reason=HTTPStatus(status).phrase, headers=[
                ("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body))),
                ("Connection", "close")]))
            self.send(h11.Data(data=body))
            self.send(h11.EndOfMessage())
            await self.writer.drain()
        except (h11.LocalProtocolError, ConnectionError, OSError):
            pass


class _RequestBody:
    """The client's request body as httpx reads it: each piece is handed to the recorder as it is relayed.
    :meth:`drain` reads what httpx did not (the server could not be reached), so the capture still has the
    client's message."""

    def __init__(self, proxy: HttpProxy, client: _Client, number: int) -> None:
        self.proxy = proxy
        self.client = client
        self.number = number
        self.done = False
        self.finished = asyncio.Event()  #: set once the body was read to its end (or the client broke it off)

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self

    async def __anext__(self) -> bytes:
        if self.done:
            raise StopAsyncIteration
        await self.proxy.recorder_ready.wait()
        event = await self.client.next_event()
        if isinstance(event, h11.Data):
            data = bytes(event.data)
            self.proxy.send(HTTP_REQUEST_BODY, self.number, data)
            return data
        self.done = True
        self.finished.set()
        if isinstance(event, h11.EndOfMessage):
            self.proxy.send(HTTP_REQUEST_END, self.number)
            raise StopAsyncIteration
        raise _ClientGone()

    async def drain(self) -> None:
        with contextlib.suppress(_ClientGone, h11.RemoteProtocolError, ConnectionError, OSError):
            async for _ in self:
                pass

    async def whole(self) -> bytes | None:
        """The body read to its end (an intercepted message is decided whole); None when the client broke it off."""
        try:
            return b"".join([piece async for piece in self])
        except (_ClientGone, h11.RemoteProtocolError):
            return None


class HttpProxy(InterceptHost):
    """The relay: accepts client connections on the listening socket and relays each exchange to the server
    (see the module docstring). ``link`` is the recorder's end of the spool (or nothing to record to)."""

    def __init__(self, options: TapOptions, link: Any, port: int, t0: float | None = None,
                 window: BreakpointLink | None = None) -> None:
        assert options.url is not None
        self.options = options
        self.link = link
        self.port = port
        self.upstream = http_url(options.url)
        parts = urlsplit(self.upstream)
        self.upstream_origin = urlunsplit((parts.scheme, parts.netloc, "", "", ""))
        self.local_origin = origin_text(options.listen[0], port)
        self.exchanges = 0
        self.recorder_ready = asyncio.Event()
        self.recorder_ready.set()
        self.stopping: str | None = None
        self.refused = 0  #: requests answered 403 (foreign Host or Origin) or 508 (a relay loop)
        self.via = via_token()  #: this run's mark in the Via header of what it relays
        self._connections: set[asyncio.Task[Any]] = set()
        timeout = httpx.Timeout(None, connect=CONNECT_TIMEOUT)
        # trust_env=False: no proxy from the environment may carry the traffic somewhere the user did not name
        verify = HttpOptions(self.upstream, ca_file=options.ca_file, insecure=options.insecure).verify()
        self.http = httpx.AsyncClient(timeout=timeout, follow_redirects=False, trust_env=False, verify=verify,
                                      limits=httpx.Limits(max_connections=None, max_keepalive_connections=20))
        self.http.headers.clear()
        start = time.monotonic() if t0 is None else t0
        #: the intercept rules (``--rules``), None without an enabled one
        self.intercept = TapIntercept(options.rules, link, lambda: time.monotonic() - start, window) \
            if window is not None or (options.rules is not None and any(r.enabled for r in options.rules.rules)) \
            else None
        self._answers: set[asyncio.Task[Any]] = set()  #: the tap's own answers to server requests, under way
        self._codings_said: set[str] = set()

    # -- the recorder's frames ---------------------------------------------------------------------------

    def send(self, tag: int, number: int, data: bytes = b"") -> None:
        self.link.send(tag, EXCHANGE.pack(number) + data)

    def send_json(self, tag: int, number: int, obj: dict[str, Any]) -> None:
        self.send(tag, number, json.dumps(obj, ensure_ascii=True).encode("ascii"))

    def note(self, text: str, **data: Any) -> None:
        self.link.send(NOTE, json.dumps({"text": text, **data}, ensure_ascii=True).encode("ascii"))

    def lifecycle(self, what: str, **data: Any) -> None:
        self.link.send(LIFECYCLE, json.dumps({"what": what, **data}, ensure_ascii=True).encode("ascii"))

    def pause_reading(self) -> None:
        self.recorder_ready.clear()

    def resume_reading(self) -> None:
        self.recorder_ready.set()

    # -- connections -------------------------------------------------------------------------------------

    async def connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._connections.add(task)
        raw = writer.get_extra_info("socket")
        if raw is not None:  # asyncio leaves Nagle on for a server of a given socket: a response's head and body
            with contextlib.suppress(OSError):  # would wait for the client's delayed ACK (40 ms a request)
                raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        client = _Client(reader, writer)
        try:
            while self.stopping is None:
                event = await client.next_request()
                if not isinstance(event, h11.Request) or not await self._exchange(client, event):
                    break
                if client.conn.our_state is not h11.DONE or client.conn.their_state is not h11.DONE:
                    break
                client.conn.start_next_cycle()
        except h11.RemoteProtocolError as exc:
            if client.conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
                await client.plain(exc.error_status_hint, f"mcp-inspector tap: a malformed request: {exc}\n")
        except (h11.LocalProtocolError, _ClientGone, ConnectionError, OSError):
            pass
        except asyncio.CancelledError:
            if self.stopping is None:
                raise
            # the tap stops: this connection is done (each exchange recorded its end); ending normally keeps
            # asyncio's stream machinery from reporting a cancelled handler as a failure
        finally:
            if task is not None:
                self._connections.discard(task)
            writer.close()

    async def _exchange(self, client: _Client, request: h11.Request) -> bool:
        """Relay one request and its response; returns whether the connection may carry another."""
        headers = list(request.headers.raw_items())
        host = _header(headers, b"host")
        problem = host_problem(host, self.port) or origin_problem(_header(headers, b"origin"))
        if problem is not None:
            self.refused += 1
            say(f"refused a request ({request.method.decode('latin-1')} {request.target.decode('latin-1')[:200]}): "
                f"{problem}; answered 403, not relayed")
            await client.plain(403, f"mcp-inspector tap: refused: {problem}.\n")
            return False
        if came_back(headers, self.via):
            self.refused += 1
            loop = "it came back to this tap, which had relayed it (a relay loop: the server's URL leads back here)"
            say(f"refused a request ({request.method.decode('latin-1')} {request.target.decode('latin-1')[:200]}): "
                f"{loop}; answered 508, not relayed")
            await client.plain(508, f"mcp-inspector tap: refused: {loop}.\n")
            return False
        self.exchanges += 1
        number = self.exchanges
        method = request.method.decode("ascii")
        target = request.target.decode("latin-1")
        if "://" in target.split("?", 1)[0]:  # absolute-form: only its path and query name what to reach
            path = urlsplit(target)
            target = urlunsplit(("", "", path.path or "/", path.query, ""))
        url = self.upstream_origin + target
        upgrade = _is_websocket_upgrade(headers)
        sent = with_via(upstream_headers(headers, self.upstream, upgrade), self.via)
        has_body = _header(headers, b"transfer-encoding") is not None or \
            (_header(headers, b"content-length") or "0") != "0"
        carries_mcp = method == "POST" and "json" in (_header(headers, b"content-type") or "").lower()
        head: dict[str, Any] = {"method": method, "url": url, "headers": [
            [name.decode("latin-1"), value.decode("latin-1")] for name, value in sent]}
        if self.intercept is not None and carries_mcp and has_body:
            head["intercept"] = True  # the recorder gets its message from the intercept's records
        self.send_json(HTTP_REQUEST, number, head)
        body: _RequestBody | None = None
        if has_body:
            body = _RequestBody(self, client, number)
        else:
            event = await client.next_event()  # the end of a request without a body
            if not isinstance(event, h11.EndOfMessage):
                raise _ClientGone()
            self.send(HTTP_REQUEST_END, number)
        ended = False
        try:
            keep, ended = await self._relay(client, number, method, url, sent, body, upgrade,
                                            carries_mcp and self.intercept is not None)
            return keep
        finally:
            if not ended:  # cancelled (the tap stops) or failed unexpectedly: the capture says so
                self.send_json(HTTP_RESPONSE_END, number, {
                    "error": self.stopping or "the tap lost this exchange (an internal error)"})

    async def _relay(self, client: _Client, number: int, method: str, url: str, sent: list[tuple[bytes, bytes]],
                     body: _RequestBody | None, upgrade: bool, intercepting: bool) -> tuple[bool, bool]:
        """(whether the connection may carry another exchange, whether the exchange's end was recorded)"""
        marks: dict[str, float] = {}
        content: Any = body
        if intercepting and body is not None:
            content, done = await self._request_through_rules(client, number, body)
            if done is not None:  # the tap answered it, or holds it
                return done
            sent = [(name, value) for name, value in sent if name.lower() != b"content-length"]  # httpx sets it

        async def trace(name: str, info: dict[str, Any]) -> None:
            if name == "connection.connect_tcp.started":
                marks["start"] = time.monotonic()
            elif name in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
                marks["end"] = time.monotonic()

        request = self.http.build_request(method, url, headers=sent, content=content, extensions={"trace": trace})
        given = {name.lower() for name, _ in sent}
        for name in _HTTPX_DEFAULTS:
            if name.encode() not in given and name in request.headers:
                del request.headers[name]
        try:
            response = await self._send_watching(client, request, body)
        except _ClientLeft:
            self.send_json(HTTP_RESPONSE_END, number, {"error": CLIENT_LEFT})
            return False, True
        except (httpx.HTTPError, _ClientGone, h11.RemoteProtocolError) as exc:
            if body is not None and not body.done:
                await body.drain()  # what the client sent still reaches the capture
            if isinstance(exc, httpx.HTTPError):
                sentence = explain(exc, method, redact_url(url) if self.options.redact else url)
                self.send_json(HTTP_RESPONSE_END, number, {"error": sentence})
                await client.plain(502, f"mcp-inspector tap: {sentence}\n")
            else:
                self.send_json(HTTP_RESPONSE_END, number, {"error": "the client closed the connection before "
                                                                    "its request was complete"})
            return False, True
        try:
            return await self._respond(client, number, method, response, upgrade, marks,
                                       body_done=body is None or body.done, sent=sent, intercepting=intercepting)
        finally:
            await response.aclose()

    async def _send_watching(self, client: _Client, request: httpx.Request, body: _RequestBody | None
                             ) -> httpx.Response:
        """Send ``request`` and wait for the server's response head, watching the client meanwhile (once its
        request is read whole, nothing else reads its connection): if it leaves first, the request to the server is
        cancelled (httpx closes that connection) and :class:`_ClientLeft` raised, so neither socket waits on a
        server that may never answer."""

        async def leaves() -> None:
            if body is not None:
                await body.finished.wait()
            await client.wait_closed()

        sending = asyncio.ensure_future(self.http.send(request, stream=True))
        watching = asyncio.ensure_future(leaves())
        try:
            await asyncio.wait([sending, watching], return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (watching, sending):
                if not task.done():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await task
        if sending.done() and not sending.cancelled():  # the server answered (or failed) first
            return sending.result()
        raise _ClientLeft()

    async def _respond(self, client: _Client, number: int, method: str, response: httpx.Response, upgrade: bool,
                       marks: dict[str, float], body_done: bool, sent: list[tuple[bytes, bytes]] | None = None,
                       intercepting: bool = False) -> tuple[bool, bool]:
        status = response.status_code
        raw_reason = response.extensions.get("reason_phrase", b"")
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        stream = 200 <= status < 300 and content_type == "text/event-stream"
        rewrite = self.options.transport in ("sse", "auto") and method == "GET" and stream
        switching = status == 101 and upgrade
        coding = response.headers.get("content-encoding", "").strip().lower()
        # with rules, each message of an event stream, and a JSON answer to a POSTed message, is decided whole
        events = self.intercept is not None and stream and coding in ("", "identity") and not switching
        if self.intercept is not None and stream and not events and coding not in self._codings_said:
            self._codings_said.add(coding)
            self.note(f"an event stream came {coding}-encoded: the tap relays it as it came, and the rules do not "
                      "see its messages")
        whole = intercepting and not stream and not switching and "json" in content_type and \
            coding in READABLE_CODINGS
        headers, location = client_headers(response.headers.raw, self.upstream, self.local_origin,
                                           keep_length=not (rewrite or events), upgrade=switching)
        head: dict[str, Any] = {
            "status": status, "reason": response.reason_phrase, "http_version": response.http_version,
            "headers": [[name.decode("latin-1"), value.decode("latin-1")] for name, value in response.headers.raw],
            "connect": marks["end"] - marks["start"] if "end" in marks and "start" in marks else None,
            "relayed": {"location": location} if location else {}}
        if events or whole:
            head["intercept"] = True  # the recorder gets its messages from the intercept's records
        self.send_json(HTTP_RESPONSE, number, head)
        if switching:
            client.send(h11.InformationalResponse(status_code=101, headers=headers, reason=raw_reason))
            await self._splice(client, number, response)
            return False, True
        answer_to = (str(response.request.url), sent or [])
        pump: asyncio.Future[str | None]
        if whole:
            pump = asyncio.ensure_future(self._pump_whole(client, number, response, headers, raw_reason, coding,
                                                          answer_to))
        else:
            client.send(h11.Response(status_code=status, headers=headers, reason=raw_reason))
            rewriter = EndpointRewriter(self.upstream, self.local_origin) if rewrite else None
            pump = asyncio.ensure_future(self._pump(client, number, response, rewriter,
                                                    SseBlocks() if events else None, answer_to))
        # while the response streams, a client that leaves is seen at once (not at the next write); only once
        # its request is complete, so that nothing else reads its connection meanwhile
        waiters: list[asyncio.Future[Any]] = [pump]
        if body_done:
            waiters.append(asyncio.ensure_future(client.wait_closed()))
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waiters:
                if not task.done():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await task
        gone = "the client closed the connection before the response ended"
        if pump.cancelled() or isinstance(pump.exception(), (ConnectionError, OSError)):
            self.send_json(HTTP_RESPONSE_END, number, {"error": gone})
            return False, True
        if pump.exception() is not None:
            raise pump.exception()  # type: ignore[misc]  # checked just above: not None
        error = pump.result()
        if error:
            self.send_json(HTTP_RESPONSE_END, number, {"error": error})
            client.writer.transport.abort()  # the client sees the response cut short, as the server cut it
            return False, True
        self.send_json(HTTP_RESPONSE_END, number, {})
        return True, True

    async def _pump(self, client: _Client, number: int, response: httpx.Response,
                    rewriter: EndpointRewriter | None, blocks: SseBlocks | None = None,
                    answer_to: tuple[str, list[tuple[bytes, bytes]]] | None = None) -> str | None:
        """Relay the response body as it comes (with ``blocks``, an event stream event by event, each message
        through the rules); returns the sentence when the server's side failed."""
        try:
            async for chunk in response.aiter_raw():
                await self.recorder_ready.wait()
                out = chunk
                if rewriter is not None:
                    was_done = rewriter.done
                    out = rewriter.feed(chunk)
                    if rewriter.rewritten is not None and not was_done:
                        self.send_json(HTTP_REWRITE, number, {"relayed_as": rewriter.rewritten[1]})
                self.send(HTTP_RESPONSE_BODY, number, chunk)
                if blocks is not None:
                    await self._events(client, number, blocks, out, answer_to)
                elif out:
                    client.send(h11.Data(data=out))
                    await client.writer.drain()
            rest = rewriter.close() if rewriter is not None else b""
            if blocks is not None:
                await self._events(client, number, blocks, rest, answer_to)
                await self._events_end(blocks)
                rest = blocks.close()  # an incomplete last event, as it came
        except httpx.HTTPError as exc:
            return explain(exc, response.request.method, redact_url(str(response.request.url))
                           if self.options.redact else str(response.request.url))
        finally:
            if blocks is not None:
                blocks.cancel_held()  # the stream was cut: what it held never goes on
        if rest:
            client.send(h11.Data(data=rest))
        client.send(h11.EndOfMessage())
        await client.writer.drain()
        return None

    async def _splice(self, client: _Client, number: int, response: httpx.Response) -> None:
        """After a 101: the two connections joined byte for byte, each direction copied to the recorder."""
        network = response.extensions["network_stream"]
        await client.writer.drain()
        leftover, _ = client.conn.trailing_data

        async def client_to_server() -> None:
            data = bytes(leftover)  # what the client sent right after its upgrade request
            while True:
                if data:
                    self.send(WS_C2S, number, data)
                    await network.write(data)
                await self.recorder_ready.wait()
                data = await client.reader.read(READ_SIZE)
                if not data:
                    break
            with contextlib.suppress(Exception):  # the server's side may be gone already
                await network.aclose()

        async def server_to_client() -> None:
            while data := await network.read(READ_SIZE):
                self.send(WS_S2C, number, data)
                client.writer.write(data)
                await client.writer.drain()
                await self.recorder_ready.wait()
            if client.writer.can_write_eof():
                client.writer.write_eof()

        tasks = [asyncio.ensure_future(client_to_server()), asyncio.ensure_future(server_to_client())]
        finished: list[asyncio.Future[Any]] = []  # in the order they ended
        for task in tasks:
            task.add_done_callback(finished.append)
        error = None
        try:
            _, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            # how the first side ended says how the connection ended; the tap then closes the other side
            first = finished[0] if finished else tasks[0]
            failure = first.exception() if not first.cancelled() else None
            if failure is not None:
                side = "client" if first is tasks[0] else "server"
                error = f"the {side}'s side of the WebSocket connection broke ({failure.__class__.__name__}: {failure})"
            if pending:
                await asyncio.wait(pending, timeout=WEBSOCKET_CLOSE_GRACE)
        finally:
            for task in tasks:
                if not task.done():
                    task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self.send_json(HTTP_RESPONSE_END, number, {"error": error} if error else {})

    # -- stopping ----------------------------------------------------------------------------------------

    async def stop(self, reason: str) -> None:
        """End every exchange under way (each records that the tap stopped) and the upstream connections."""
        self.stopping = reason
        for task in [*self._connections, *self._answers]:
            task.cancel()
        if self._connections:
            await asyncio.wait(list(self._connections), timeout=STOP_GRACE)
        with contextlib.suppress(Exception):
            await wait_for(self.http.aclose(), STOP_GRACE)


class _NoRecorder:
    """The link when the recorder could not be started: the tap relays the same, recording nothing."""

    def send(self, tag: int, data: bytes = b"") -> None:
        pass

    def close(self) -> None:
        pass


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> str | None:
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def _is_websocket_upgrade(headers: list[tuple[bytes, bytes]]) -> bool:
    upgrade = (_header(headers, b"upgrade") or "").lower()
    connection = {t.strip().lower() for t in (_header(headers, b"connection") or "").split(",")}
    return "websocket" in upgrade and "upgrade" in connection


# -- the command -------------------------------------------------------------------------------------------


def bind(host: str, port: int) -> socket.socket:
    """The listening socket on ``host`` (a loopback address :func:`~http_guard.parse_listen` accepted)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind((host, port))
        sock.listen(128)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def run_http_tap(options: TapOptions) -> int:
    """Run an HTTP tap until SIGINT or SIGTERM; returns the exit status (0 once the capture is complete)."""
    assert options.url is not None
    t0 = time.monotonic()
    refused = refuse_rules(options)
    if refused is not None:
        say(refused)
        return EXIT_BAD_INPUT
    host, port = options.listen
    try:
        sock = bind(host, port)
    except OSError as exc:
        say(f"cannot listen on {origin_text(host, port)[7:]}: {exc.strerror or exc}")
        return EXIT_TAP_ERROR
    port = sock.getsockname()[1]
    local = local_url(options.url, host, port, options.transport)
    shown = redact_url(options.url) if options.redact else options.url
    if leads_to_itself(options.url, host, port):
        sock.close()
        say(f"--url {shown} is the tap's own address ({origin_text(host, port)}): it would relay every request to "
            "itself without end; give the server's URL")
        return EXIT_BAD_INPUT
    name = options.display_name
    target = {"transport": options.transport, "url": shown, "headers": {}, "redacted": options.redact,
              **tls_described(HttpOptions(options.url, ca_file=options.ca_file, insecure=options.insecure))}
    extra = dict(options.extra_header)
    if options.rules:  # as a session's capture keeps them
        extra["intercept_rules"] = [rule.to_json() for rule in options.rules.rules]
    header = make_header(target, tap={"name": name, "pid": os.getpid(), "listen": local}, **extra)
    capture_path, exclusive = capture_destination(options.capture, name)
    socket_path = (options.socket or default_socket_path()) if options.live else None
    hello = {"name": name, "pid": os.getpid(), "target": target}
    upstream, redact = options.url, options.redact

    def make(capture: Any, feed: Any, max_message: int) -> HttpRecorder:
        return HttpRecorder(capture, feed, max_message, upstream=upstream, redact=redact)

    recorder = fork_recorder(capture_path, exclusive, header, hello, socket_path, options.max_message, make=make,
                             close_in_child=(sock.fileno(),), otlp_endpoint=options.otlp_endpoint)

    def say_url() -> None:  # once the stop signals are handled: a client may signal as soon as it has the URL
        with contextlib.suppress(OSError, ValueError):
            print(local, flush=True)
        say(f"relaying {local} -> {shown}; give the client {local} as the server's URL. Ctrl-C ends the tap"
            + (f"; capture: {capture_path}" if recorder is not None and capture_path is not None else ""))

    try:
        return asyncio.run(_main(options, sock, port, recorder, t0, (socket_path, hello), say_url))
    finally:
        sock.close()
        if recorder is not None:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(recorder[0], os.WNOHANG)


async def _main(options: TapOptions, sock: socket.socket, port: int, recorder: tuple[int, Spool, int] | None,
                t0: float, window: tuple[Path | None, dict[str, Any]], ready: Callable[[], None]) -> int:
    loop = asyncio.get_running_loop()
    proxy: HttpProxy
    link: Any = _NoRecorder()
    if recorder is not None:
        link = SpoolWriter(recorder[1], t0, lambda: proxy.pause_reading(), lambda: proxy.resume_reading(), say)
    linked = await BreakpointLink.open(window[0], window[1], options.rules, say) \
        if window[0] is not None and options.transport != "websocket" else None  # a tab's breakpoints
    proxy = HttpProxy(options, link, port, t0, linked)
    stop = asyncio.Event()
    stopped_by: list[str] = []

    def on_signal(sig: int) -> None:
        stopped_by.append(signal.Signals(sig).name)
        stop.set()

    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, on_signal, sig)
    ready()
    server = await asyncio.start_server(proxy.connection, sock=sock, limit=MAX_HEAD)
    local = local_url(options.url or "", options.listen[0], port, options.transport)
    upstream = options.url or ""
    proxy.note(f"the tap listens on {local} and relays to {redact_url(upstream) if options.redact else upstream}",
               listen=local)
    try:
        await stop.wait()
    finally:
        server.close()  # the port closes now: nothing new is accepted
        why = stopped_by[0] if stopped_by else "the end"
        if linked is not None:  # what waits at a tab's breakpoint goes on unchanged before the exchanges end
            await linked.close()
        await proxy.stop(f"the tap was stopped ({why}) while this exchange was under way")
        proxy.lifecycle(Lifecycle.CLOSED, by=why, exchanges=proxy.exchanges, refused=proxy.refused)
        link.send(END, json.dumps({"exit": 0}).encode("ascii"))
        link.close()
        for sig in STOP_SIGNALS:
            with contextlib.suppress(ValueError, RuntimeError):
                loop.remove_signal_handler(sig)
        complete = await _recorder_finished(recorder[2]) if recorder is not None else True
    exchanges = f"{proxy.exchanges} exchange{'' if proxy.exchanges == 1 else 's'}"
    say(f"stopped ({stopped_by[0] if stopped_by else 'end'}) after {exchanges}; " + (
        "the capture is complete" if complete else
        f"the recorder is still writing the capture after {RECORDER_FINISH_TIMEOUT:g} s (it was behind); it "
        "finishes on its own"))
    return 0


async def _recorder_finished(done_fd: int) -> bool:
    """Wait (bounded) until the recorder has completed the capture; returns whether it has."""
    loop = asyncio.get_running_loop()
    finished: asyncio.Future[None] = loop.create_future()
    loop.add_reader(done_fd, waker(finished))
    try:
        await asyncio.wait([finished], timeout=RECORDER_FINISH_TIMEOUT)
        return finished.done()
    finally:
        loop.remove_reader(done_fd)
        with contextlib.suppress(OSError):
            os.close(done_fd)

