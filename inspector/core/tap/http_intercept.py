"""Intercept rules in the HTTP tap (``tap --url URL --rules FILE``): the sans-io pieces the proxy
(:mod:`inspector.core.tap.http_proxy`) uses to put each message through the
:class:`~inspector.core.intercept.engine.Interceptor` and to record what its verdict says.

Where the messages are: a client's message (``c2s``) is the body of a POST (one message, or a batch the engine
matches as a whole); a server's (``s2c``) is a JSON answer's body, or the ``data`` of each ``message`` event of
an event stream (a POST's answer stream, the GET stream, HTTP+SSE's stream). The proxy reads a message whole
before it decides, so only what is intercepted is held: an event stream is relayed event by event
(:class:`SseBlocks`), each event's bytes as they came unless its message was changed (:func:`with_data`) or
dropped.

What is recorded is :func:`~inspector.core.intercept.records.records`'s list for the verdict, each record sent
to the recorder in one :data:`~inspector.core.tap.options.HTTP_MESSAGES` frame at the time the message went on
(after a delay, its end), so a capture says the same whoever intercepted.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from http import HTTPStatus
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

import h11
import httpx
import orjson

from inspector.core.intercept.engine import PASS_ACTION, Interceptor, Verdict
from inspector.core.intercept.records import records
from inspector.core.intercept.rules import Rules, RulesError
from inspector.core.redaction import redact_url
from inspector.core.tap.breakpoint_link import BreakpointLink
from inspector.core.tap.http_guard import _line_at
from inspector.core.tap.http_recorder import _Decoder
from inspector.core.tap.options import (
    EXCHANGE,
    HTTP_MESSAGES,
    HTTP_RESPONSE,
    HTTP_RESPONSE_BODY,
    HTTP_RESPONSE_END,
    TapOptions,
)
from inspector.core.transports.http_common import explain
from inspector.core.wire.sse import SSEDecoder

if TYPE_CHECKING:
    from inspector.core.tap.http_proxy import _Client as Client

#: Response codings the tap can undo to read a message (others are relayed as they came, not intercepted).
READABLE_CODINGS = ("", "identity", "gzip", "x-gzip", "deflate")


def is_request_in(raw: bytes) -> bool:
    """Whether ``raw`` is a JSON-RPC request, or a batch holding one (something that waits for an answer)."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return False
    items = obj if isinstance(obj, list) else [obj]
    return any(isinstance(item, dict) and "method" in item and "id" in item for item in items)


def refuse_rules(options: TapOptions) -> str | None:
    """The sentence refusing ``options.rules`` (a rule that pauses, a WebSocket tap), or None. The CLI loads the
    file (:func:`~inspector.core.intercept.rules.load_rules`) and refuses a pause rule first; this holds for a
    caller that gives rules of its own."""
    if options.rules:
        try:
            options.rules.refuse_pause("the tap")
        except RulesError as exc:
            return str(exc)
        if options.transport == "websocket":
            return ("--rules does not reach a WebSocket's frames (the tap relays them byte for byte); use the rules "
                    "with a Streamable HTTP or HTTP+SSE server, or tap without them")
    return None


class TapIntercept:
    """The rules of one HTTP tap: decides each message, holds a delayed one, and sends the recorder the records
    of each verdict (``link.send(tag, payload)``; ``clock()``: seconds on the capture's clock)."""

    def __init__(self, rules: Rules | None, link: Any, clock: Callable[[], float],
                 window: BreakpointLink | None = None) -> None:
        #: with a tap tab's breakpoint link, its interceptor (the tap's rules, then the tab's breakpoints) and its
        #: pauser (the tab decides a paused message); without one, a pause passes (the CLI refuses pause rules)
        self.interceptor = window.interceptor if window is not None else Interceptor(rules)
        self.pauser = window.pause if window is not None else None
        self.link = link
        self.clock = clock

    def decide(self, direction: str, raw: bytes) -> tuple[Verdict, float]:
        """The verdict on ``raw`` and when it came (the host waits out a delay, then :meth:`record`)."""
        return self.interceptor.decide(direction, raw), self.clock()

    async def carry(self, number: int, direction: str, raw: bytes, sse: dict[str, Any] | None = None) -> Verdict:
        """The verdict on ``raw`` (going ``direction`` in exchange ``number``), once it may go on: a delay has
        been waited out and the records are sent."""
        verdict, arrived = self.decide(direction, raw)
        verdict, paused = await self.settle(direction, raw, verdict)
        self.record(number, direction, raw, verdict, arrived, sse, paused)
        return verdict

    async def settle(self, direction: str, raw: bytes, verdict: Verdict) -> tuple[Verdict, float | None]:
        """``verdict`` once it may act: a pause decided by the tab (the decision, and how long it waited), a delay
        waited out."""
        paused = None
        if verdict.action == "pause":
            if self.pauser is None:
                verdict = Verdict(PASS_ACTION, verdict.rule, out=raw)
            else:
                began = time.monotonic()
                verdict = await self.pauser(direction, raw, verdict)
                paused = time.monotonic() - began
        if verdict.delay > 0:
            await asyncio.sleep(verdict.delay)
        return verdict, paused

    def record(self, number: int, direction: str, raw: bytes, verdict: Verdict, arrived: float,
               sse: dict[str, Any] | None = None, paused: float | None = None) -> None:
        listed = [{"dir": r.dir, "raw": r.raw.decode("latin-1"), "mark": r.mark}
                  for r in records(direction, raw, verdict, arrived=round(arrived, 6), paused=paused)]
        body: dict[str, Any] = {"records": listed}
        if sse is not None:
            body["sse"] = sse
        self.link.send(HTTP_MESSAGES, EXCHANGE.pack(number) + json.dumps(body, ensure_ascii=True).encode("ascii"))


class SseBlocks:
    """An event stream cut into blocks: each event's lines with the blank line that dispatches it (comments and
    blank lines between events are blocks of their own). Sans-io: :meth:`feed` returns the blocks completed,
    :meth:`close` what is left (an incomplete last event, relayed as it came). :meth:`message` reads a block
    with one decoder for the whole stream, as the recorder reads it."""

    def __init__(self) -> None:
        self._held = bytearray()
        self._scan = 0
        self._decoder = SSEDecoder()
        self.endpoint: str | None = None  #: the last ``endpoint`` event's data (HTTP+SSE: where messages go)
        self.held: set[asyncio.Task[None]] = set()  #: delayed events, relayed when their time comes

    def feed(self, data: bytes) -> list[bytes]:
        held = self._held
        held += data
        out: list[bytes] = []
        start = 0
        while True:
            line_end, next_start = _line_at(held, self._scan)
            if line_end < 0:
                break
            blank = line_end == self._scan
            self._scan = next_start
            if blank:
                out.append(bytes(held[start:next_start]))
                start = next_start
        if start:
            del held[:start]
            self._scan -= start
        return out

    def cancel_held(self) -> None:
        for task in list(self.held):
            task.cancel()

    def close(self) -> bytes:
        rest = bytes(self._held)
        self._held.clear()
        self._scan = 0
        return rest

    def message(self, block: bytes) -> tuple[bytes, dict[str, Any]] | None:
        """The message a block carries (its data as bytes, its SSE fields as recorded), or None (a comment, an
        ``endpoint`` or priming event)."""
        for raw in self._decoder.feed(block):
            if raw.sse.event == "message" and raw.sse.data.strip():
                return raw.sse.data.encode("utf-8"), raw.fields()
            if raw.sse.event == "endpoint" and raw.sse.data.strip():
                self.endpoint = raw.sse.data.strip()
        return None


def with_data(block: bytes, data: bytes) -> bytes:
    """``block`` (an event) with its ``data`` lines replaced by ``data`` (one line per line of it), its other
    lines (``event``, ``id``, ``retry``, comments) and line endings as they came."""
    lines: list[bytes] = []
    ending = b"\n"
    scan = 0
    buffer = bytearray(block)
    replaced = False
    while True:
        line_end, next_start = _line_at(buffer, scan)
        if line_end < 0 or line_end == scan:  # the end, or the blank line that dispatches it
            break
        line = bytes(buffer[scan:line_end])
        ending = bytes(buffer[line_end:next_start])
        scan = next_start
        if line == b"data" or line.startswith(b"data:"):
            if not replaced:
                lines.extend(b"data: " + part + ending for part in data.splitlines() or [b""])
                replaced = True
            continue
        lines.append(line + ending)
    return b"".join(lines) + ending


class InterceptHost:
    """What :class:`~inspector.core.tap.http_proxy.HttpProxy` does with the rules' verdicts (a part of it, kept
    here): relaying an event stream's messages and a JSON answer through them, answering a POST itself, holding
    one open, answering a server's request the rules held."""

    intercept: TapIntercept | None
    http: httpx.AsyncClient
    upstream: str
    upstream_origin: str
    local_origin: str
    options: TapOptions
    recorder_ready: asyncio.Event
    _answers: set[asyncio.Task[Any]]

    def send(self, tag: int, number: int, data: bytes = b"") -> None:
        raise NotImplementedError

    def send_json(self, tag: int, number: int, obj: dict[str, Any]) -> None:
        raise NotImplementedError

    async def _request_through_rules(self, client: Client, number: int, body: Any
                                     ) -> tuple[bytes, tuple[bool, bool] | None]:
        """A POSTed message through the rules: (the bytes to send the server, None), or (b"", the exchange's end:
        whether the connection may go on, whether its end was recorded) when the tap answered it or holds it."""
        assert self.intercept is not None
        raw = await body.whole()
        if raw is None:
            self.send_json(HTTP_RESPONSE_END, number, {"error": "the client closed the connection before its request "
                                                                "was complete"})
            return b"", (False, True)
        verdict = await self.intercept.carry(number, "c2s", raw)
        label = verdict.rule.label() if verdict.rule else "a rule"
        if verdict.answer is not None:  # an error rule: the tap answers; the server never sees the request
            return b"", await self._answer(client, number, 200, verdict.answer,
                                           f"answered by the tap, by {label}: the request never reached the server")
        if not verdict.out:  # dropped
            if not is_request_in(raw):
                return b"", await self._answer(client, number, 202, b"", f"accepted by the tap: {label} dropped the "
                                                                         "message, which never reached the server")
            return b"", await self._hold(client, number, f"{label} dropped the request, which never reached the "
                                                         "server; the tap held the client's POST open until")
        return verdict.out, None

    async def _events(self, client: Client, number: int, blocks: SseBlocks, data: bytes,
                      answer_to: tuple[str, list[tuple[bytes, bytes]]] | None) -> None:
        """The events ``data`` completes, each relayed once the rules let it go on (as it came, with its message
        changed, or not at all). A delayed event is held alone: the events after it may overtake it (the stream
        ends once it went on: :meth:`_events_end`)."""
        assert self.intercept is not None
        for block in blocks.feed(data):
            found = blocks.message(block)
            if found is None:
                await self._event_out(client, block)
                continue
            verdict, arrived = self.intercept.decide("s2c", found[0])
            if verdict.delay > 0 or verdict.action == "pause":
                task = asyncio.ensure_future(self._event_later(client, number, blocks, block, found, verdict,
                                                               arrived, answer_to))
                blocks.held.add(task)
                task.add_done_callback(blocks.held.discard)
                continue
            await self._event_decided(client, number, blocks, block, found, verdict, arrived, answer_to)

    async def _event_later(self, client: Client, number: int, blocks: SseBlocks, block: bytes,
                           found: tuple[bytes, dict[str, Any]], verdict: Verdict, arrived: float,
                           answer_to: tuple[str, list[tuple[bytes, bytes]]] | None) -> None:
        assert self.intercept is not None
        verdict, paused = await self.intercept.settle("s2c", found[0], verdict)
        await self._event_decided(client, number, blocks, block, found, verdict, arrived, answer_to, paused)

    async def _event_decided(self, client: Client, number: int, blocks: SseBlocks, block: bytes,
                             found: tuple[bytes, dict[str, Any]], verdict: Verdict, arrived: float,
                             answer_to: tuple[str, list[tuple[bytes, bytes]]] | None,
                             paused: float | None = None) -> None:
        assert self.intercept is not None
        self.intercept.record(number, "s2c", found[0], verdict, arrived, found[1], paused)
        if verdict.answer is not None and answer_to is not None:
            url = urljoin(answer_to[0], blocks.endpoint or "")
            if url.startswith(self.local_origin + "/"):  # an endpoint the tap moved to itself
                url = self.upstream_origin + url[len(self.local_origin):]
            self._answer_server(url, answer_to[1], verdict.answer)
        await self._event_out(client, with_data(block, verdict.out) if verdict.changed else
                              block if verdict.out else b"")

    async def _event_out(self, client: Client, block: bytes) -> None:
        if block:
            client.send(h11.Data(data=block))
            await client.writer.drain()

    @staticmethod
    async def _events_end(blocks: SseBlocks) -> None:
        """The stream ends once its held events went on."""
        while blocks.held:
            await asyncio.gather(*blocks.held)

    async def _pump_whole(self, client: Client, number: int, response: httpx.Response,
                          headers: list[tuple[bytes, bytes]], reason: bytes, coding: str,
                          answer_to: tuple[str, list[tuple[bytes, bytes]]]) -> str | None:
        """A JSON answer read whole, put through the rules, then relayed (as it came, changed with its length
        and coding set right, or, dropped, never: the client waits as for a server that does not answer)."""
        assert self.intercept is not None
        pieces = []
        try:
            async for chunk in response.aiter_raw():
                await self.recorder_ready.wait()
                self.send(HTTP_RESPONSE_BODY, number, chunk)
                pieces.append(chunk)
        except httpx.HTTPError as exc:
            return explain(exc, response.request.method, redact_url(str(response.request.url))
                           if self.options.redact else str(response.request.url))
        raw = b"".join(pieces)
        decoder = _Decoder(coding)
        message = decoder.feed(raw)
        message = raw if decoder.failed else message
        verdict = await self.intercept.carry(number, "s2c", message) if message.strip() else None
        if verdict is not None and verdict.answer is not None:
            self._answer_server(answer_to[0], answer_to[1], verdict.answer)
        if verdict is not None and not verdict.out:
            await asyncio.Event().wait()  # until the client leaves or the tap stops (the caller watches both)
        if verdict is not None and verdict.changed:
            raw = verdict.out
            headers = [(name, value) for name, value in headers
                       if name.lower() not in (b"content-length", b"content-encoding")]
            headers.append((b"Content-Length", str(len(raw)).encode("ascii")))
        client.send(h11.Response(status_code=response.status_code, headers=headers, reason=reason))
        client.send(h11.Data(data=raw))
        client.send(h11.EndOfMessage())
        await client.writer.drain()
        return None

    def _answer_server(self, url: str, sent: list[tuple[bytes, bytes]], answer: bytes) -> None:
        """POST the tap's error answer to a server's request it held, to the session's own server (the URL the
        client POSTs its messages to, with the headers of the exchange that carried the request)."""
        if urlsplit(url)[:2] != urlsplit(self.upstream)[:2]:
            return  # only ever the session's own server
        drop = (b"content-length", b"content-type", b"accept", b"last-event-id")
        headers = [(name, value) for name, value in sent if name.lower() not in drop]
        headers += [(b"Content-Type", b"application/json"), (b"Accept", b"application/json, text/event-stream")]

        async def post() -> None:
            with contextlib.suppress(httpx.HTTPError):
                response = await self.http.post(url, content=answer, headers=headers)
                await response.aclose()

        task = asyncio.ensure_future(post())
        self._answers.add(task)
        task.add_done_callback(self._answers.discard)

    async def _answer(self, client: Client, number: int, status: int, body: bytes, note: str) -> tuple[bool, bool]:
        """The tap's own answer to a POSTed message the rules kept from the server."""
        headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))] if body else \
            [("Content-Length", "0")]
        self.send_json(HTTP_RESPONSE, number, {"status": status, "reason": HTTPStatus(status).phrase,
                                               "http_version": "HTTP/1.1", "headers": headers, "connect": None,
                                               "relayed": {}, "intercept": True, "note": note})
        if body:
            self.send(HTTP_RESPONSE_BODY, number, body)
        client.send(h11.Response(status_code=status, headers=headers))
        if body:
            client.send(h11.Data(data=body))
        client.send(h11.EndOfMessage())
        await client.writer.drain()
        self.send_json(HTTP_RESPONSE_END, number, {})
        return True, True

    async def _hold(self, client: Client, number: int, why: str) -> tuple[bool, bool]:
        """A POST whose request the rules dropped: held open, as a server that never answers, until the client
        leaves (or the tap stops)."""
        await client.wait_closed()
        self.send_json(HTTP_RESPONSE_END, number, {"error": f"{why} the client left"})
        return False, True

