"""The scenario server over Streamable HTTP, on 127.0.0.1, in the bench's own process (``--transport http``).

The same :class:`~inspector.core.clientbench.script.Script` as on stdio answers; only the carriage differs
(https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http):

* A POST whose body is a request gets an SSE stream (``text/event-stream``) that carries what the server sends
  for it (its questions to the client, its notifications) and ends with the answer to it; the answer to
  ``initialize`` carries an ``Mcp-Session-Id``. A POST of notifications or responses gets 202 Accepted.
* What the script sends that answers no request of the client (a ping, a sampling request, a list_changed) goes
  on the newest stream still open; a line that is no JSON (the junk banner) goes with the next line.
* A body that is no JSON gets 400 with the JSON-RPC parse error.
* GET is 405 (no standalone stream: the spec lets a server offer none); DELETE ends the session (200).
* When the script ends the session (``crash``), or the client sends over
  :data:`~inspector.core.clientbench.server.FLOOD_MESSAGES` messages, every connection is aborted and the
  listener closed.

Everything is recorded to the scenario's capture as on stdio: the client's messages ``c2s``, the server's ``s2c``.
HTTP/1.1 is spoken with h11, as the HTTP tap's listening side does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from pathlib import Path
from typing import Any

import h11

from inspector.core.clientbench.script import Script
from inspector.core.clientbench.server import FLOOD_MESSAGES, NOTE_CRASH, NOTE_FLOOD, Recorder
from inspector.core.waiting import wait_for
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction
from inspector.core.wire.framing import LineDecoder
from inspector.core.wire.ids import id_key

MAX_BODY = 16 << 20
SESSION_ID = "mcp-inspector-scenario-session"
_END = b""  # a stream's queue item that ends it without an answer


class ScenarioHttp:
    """One scenario served over HTTP until :meth:`close`; :attr:`url` once :meth:`start` returned."""

    def __init__(self, script: Script, capture: Path, scenario: str) -> None:
        self.script = script
        # bound at once (port 0: the system's choice), so the capture's header can name the URL
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}/mcp"
        self.record = Recorder(capture, scenario, [], url=self.url)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._streams: dict[Any, asyncio.Queue[bytes]] = {}  # the client's request id -> its SSE stream
        self._open: list[asyncio.Queue[bytes]] = []  # streams still open, oldest first
        self._waiting: list[bytes] = []  # server messages with no stream open yet
        self._junk: list[bytes] = []
        self._c2s = LineDecoder(Direction.C2S, max_line_bytes=MAX_BODY)
        self._s2c = LineDecoder(Direction.S2C, max_line_bytes=MAX_BODY)
        self._kick = asyncio.Event()
        self._ticker: asyncio.Task[None] | None = None
        self._received = 0
        self._refusal: bytes | None = None  # the parse error of the body being answered, when it is no JSON
        self.ended = False

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._connection, sock=self._socket)
        self._ticker = asyncio.ensure_future(self._tick())
        return self.url

    async def close(self) -> None:
        """Stop listening and end every stream (the capture stays open: the bench writes its last note)."""
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
        self._end_all()
        if self._server is not None:
            self._server.close()
        else:
            self._socket.close()
        for writer in list(self._writers):
            writer.transport.abort()

    # -- the script ---------------------------------------------------------------------------------------

    def _receive(self, body: bytes) -> list[tuple[Any, asyncio.Queue[bytes]]]:
        """Record and hand the body's messages to the script; the requests among them, each with its stream."""
        events = list(self._c2s.feed(body.replace(b"\n", b" ") + b"\n"))
        self._received += len(events)
        if self._received > FLOOD_MESSAGES:
            if not self.ended:
                self.record.note(f"the client sent over {FLOOD_MESSAGES} messages: the scenario server stops",
                                 **{NOTE_FLOOD: True})
                self._stop()
            return []
        ids = []
        for event in events:
            self.record.push([event])
            if event.rpc is not None and event.rpc.kind == jsonrpc.REQUEST:
                queue: asyncio.Queue[bytes] = asyncio.Queue()
                ids.append((event.rpc.id, queue))
                self._streams[id_key(event.rpc.id)] = queue
                self._open.append(queue)
                if self._waiting:
                    for line in self._waiting:
                        queue.put_nowait(line)
                    self._waiting = []
            self._route(self.script.receive(event, time.monotonic()))
            if self.script.exit_code is not None:
                self.record.note("the scenario server exits mid-session, as the scenario says", **{NOTE_CRASH: True})
                self._stop()
                break
        self._kick.set()
        return ids

    def _route(self, lines: list[bytes]) -> None:
        if not lines:
            return
        self.record.push(list(self._s2c.feed(b"".join(item + b"\n" for item in lines))))
        for line in lines:
            try:
                message = json.loads(line)
            except ValueError:
                self._junk.append(line)
                continue
            queue = None
            if isinstance(message, dict) and "method" not in message:
                if message.get("id") is None:  # an answer to a body that is no message: the POST's own, as 400
                    self._refusal = line
                    continue
                queue = self._streams.pop(id_key(message.get("id")), None)
            elif self._open:
                queue = self._open[-1]
            if queue is None:
                self._waiting += [*self._junk, line]
            else:
                for junk in self._junk:
                    queue.put_nowait(junk)
                queue.put_nowait(line)
            self._junk = []

    async def _tick(self) -> None:
        while True:
            deadline = self.script.deadline
            self._kick.clear()
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            with contextlib.suppress(TimeoutError):
                await wait_for(self._kick.wait(), wait)  # a kick (a message came) or the deadline
            if self.script.deadline is not None and time.monotonic() >= self.script.deadline:
                self._route(self.script.tick(time.monotonic()))

    def _stop(self) -> None:
        """End the session as a server that exits does: no more listening, every connection aborted."""
        self.ended = True
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):
            writer.transport.abort()
        self._end_all()

    def _end_all(self) -> None:
        for queue in self._open:
            queue.put_nowait(_END)
        self._open = []
        self._streams = {}

    # -- HTTP ---------------------------------------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=64 << 10)
        try:
            while not self.ended:
                request = await _next(conn, reader)
                if not isinstance(request, h11.Request):
                    return
                body = bytearray()
                while True:
                    part = await _next(conn, reader)
                    if isinstance(part, h11.Data):
                        body += part.data
                        if len(body) > MAX_BODY:
                            return
                    elif isinstance(part, h11.EndOfMessage):
                        break
                    else:
                        return
                await self._answer(conn, writer, request, bytes(body))
                if conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
                    return
                conn.start_next_cycle()
        except (h11.ProtocolError, ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            self._writers.discard(writer)
            writer.close()

    async def _answer(self, conn: h11.Connection, writer: asyncio.StreamWriter, request: h11.Request,
                      body: bytes) -> None:
        method = request.method.decode()
        if method == "DELETE":
            await _send(writer, conn, h11.Response(status_code=200, headers=[("content-length", "0")]))
            await _send(writer, conn, h11.EndOfMessage())
            return
        if method != "POST":
            await _send(writer, conn, h11.Response(status_code=405, headers=[("allow", "POST, DELETE"),
                                                                               ("content-length", "0")]))
            await _send(writer, conn, h11.EndOfMessage())
            return
        ids = self._receive(body)
        if self.ended:
            return
        refusal, self._refusal = self._refusal, None
        if not ids and refusal is not None:
            await _send(writer, conn, h11.Response(status_code=400, headers=[
                ("content-type", "application/json"), ("content-length", str(len(refusal)))]))
            await _send(writer, conn, h11.Data(data=refusal))
            await _send(writer, conn, h11.EndOfMessage())
            return
        if not ids:
            await _send(writer, conn, h11.Response(status_code=202, headers=[("content-length", "0")]))
            await _send(writer, conn, h11.EndOfMessage())
            return
        headers = [("content-type", "text/event-stream"), ("cache-control", "no-store"),
                   ("mcp-session-id", SESSION_ID)]
        await _send(writer, conn, h11.Response(status_code=200, headers=headers))
        request_id, queue = ids[0]
        await self._stream(conn, writer, queue, request_id)

    async def _stream(self, conn: h11.Connection, writer: asyncio.StreamWriter, queue: asyncio.Queue[bytes],
                      request_id: Any) -> None:
        try:
            while True:
                line = await queue.get()
                if line == _END:
                    break
                await _send(writer, conn, h11.Data(data=b"event: message\ndata: " + line + b"\n\n"))
                with contextlib.suppress(ValueError):
                    message = json.loads(line)
                    if isinstance(message, dict) and "method" not in message \
                            and id_key(message.get("id")) == id_key(request_id):
                        break
        finally:
            if queue in self._open:
                self._open.remove(queue)
        if not self.ended:
            await _send(writer, conn, h11.EndOfMessage())


async def _next(conn: h11.Connection, reader: asyncio.StreamReader) -> Any:
    while True:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            data = await reader.read(64 << 10)
            conn.receive_data(data)
            continue
        return event


async def _send(writer: asyncio.StreamWriter, conn: h11.Connection, event: Any) -> None:
    data = conn.send(event)
    if data:
        writer.write(data)
        await writer.drain()
