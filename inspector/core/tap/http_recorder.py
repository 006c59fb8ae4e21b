"""The HTTP tap's recorder: turns the proxy's frames (:mod:`inspector.core.tap.http_proxy`) into the events the
HTTP transports record (docs/capture-format.md), in the recorder process, through the session's own pipeline.

The shapes are the transports' (:mod:`inspector.core.transports.http_common`), so ``show``, ``lint``, the
window and the HAR export read a tap's capture as they read a session's:

* every exchange is an ``http`` event: method, URL and request headers as sent to the server, status, reason,
  response headers, ``timing`` (``connect``, ``first_byte``, ``total``), ``body_bytes``, ``purpose``, a
  ``snippet`` of a body that is not MCP, the ``error`` sentence of a failed one. An event stream's ``http``
  event comes when its headers do, and the stream ends with a second one (``phase: "end"``, its ``total``,
  ``keepalive_comments``); any other body is read whole first, so its ``http`` event has its ``total``;
* the message a client POSTs is a ``c2s`` ``message`` (or ``framing_error``) with the exchange's number in
  ``data.exchange``, recorded when its body is complete; a JSON answer, and each ``message`` event of an event
  stream, an ``s2c`` one (``data.sse`` holds the event's fields); SSE events that carry no message
  (``endpoint``, priming events) are ``sse`` events; an ``endpoint`` the proxy rewrote says what the client got
  (``relayed_as``);
* a WebSocket is its upgrade's ``http`` event (101), one message per text frame each way, a binary frame as a
  framing error, a close frame as a ``note``, and an ``http`` end event when the connection is over.

Credentials are redacted from what is saved (headers, URLs, snippets) unless ``--no-redact``; the proxy
relays them untouched.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from inspector.core.capture.writer import CaptureWriter
from inspector.core.redaction import redact_headers, redact_text, redact_url
from inspector.core.sizes import format_size
from inspector.core.tap.channel import TapFeed
from inspector.core.tap.http_guard import http_url, same_origin
from inspector.core.tap.options import (
    EXCHANGE,
    HTTP_MESSAGES,
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
)
from inspector.core.tap.recorder import RecorderBase
from inspector.core.transports.http_common import jsonrpc_error_in, snippet
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import DEFAULT_MAX_LINE_BYTES, OVERSIZE_KEEP_BYTES, decode_document
from inspector.core.wire.intercepted import MARK
from inspector.core.wire.sse import RawSSE, SSEDecoder

#: How much of a request body that is not MCP (an OAuth form) the ``http`` event keeps as text.
REQUEST_SNIPPET_CHARS = 2000


class _Body:
    """A body as it arrives, kept whole up to ``limit`` bytes; beyond that only its size, head and tail."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.tail = b""
        self.size = 0

    def add(self, chunk: bytes) -> None:
        was_whole = self.whole
        self.size += len(chunk)
        if self.whole:
            self.data += chunk
        elif was_whole:  # over the limit now: from here on, only the ends
            everything = bytes(self.data) + chunk
            self.data = bytearray(everything[:OVERSIZE_KEEP_BYTES])
            self.tail = everything[-OVERSIZE_KEEP_BYTES:]
        else:
            self.tail = (self.tail + chunk[-OVERSIZE_KEEP_BYTES:])[-OVERSIZE_KEEP_BYTES:]

    @property
    def whole(self) -> bool:
        return self.size <= self.limit

    def document(self, direction: str, exchange: int) -> Event:
        """The body as one message (or framing error), or, over the limit, a framing error with its ends."""
        if self.whole:
            event = decode_document(bytes(self.data), direction)
        else:
            event = Event(Kind.FRAMING_ERROR, raw=bytes(self.data), dir=direction, eol=b"",
                          reason=f"a body of {self.size:,} bytes is over the size limit ({format_size(self.limit)} "
                                 f"per message); only its first and last {OVERSIZE_KEEP_BYTES // 1024} KiB are kept")
            event.put(oversize={"total_bytes": self.size, "tail": self.tail})
        event.put(exchange=exchange)
        return event


class _Decoder:
    """Undoes a response's ``Content-Encoding`` (gzip, deflate) for recording; the proxy relays the bytes as
    they came. Another coding is recorded as it came, with a note."""

    def __init__(self, coding: str) -> None:
        self.coding = coding.strip().lower()
        self.unknown = self.coding not in ("", "identity", "gzip", "x-gzip", "deflate")
        self._z: Any = None
        if self.coding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif self.coding == "deflate":
            self._z = zlib.decompressobj()
        self._raw_deflate = False
        self.failed = False

    def feed(self, data: bytes) -> bytes:
        if self._z is None or self.failed:
            return data
        try:
            return bytes(self._z.decompress(data))
        except zlib.error:
            if self.coding == "deflate" and not self._raw_deflate:  # servers send raw deflate too
                self._raw_deflate = True
                self._z = zlib.decompressobj(-zlib.MAX_WBITS)
                return self.feed(data)
            self.failed = True
            return b""


@dataclass
class _Exchange:
    number: int
    method: str
    url: str
    request_headers: dict[str, str]
    started: float
    carries_mcp: bool  #: a POST of JSON (its body is a message, and a JSON answer is one)
    purpose: str = ""
    request_body: _Body | None = None
    response: dict[str, Any] | None = None
    first_byte: float | None = None
    stream: str = ""  #: "sse", "ws" or "" (a body read whole) once the response came
    body: _Body | None = None
    decoder: _Decoder | None = None
    sse: SSEDecoder | None = None
    relayed_endpoint: str | None = None
    ws: dict[str, Any] = field(default_factory=dict)  #: direction -> its frame parser and message being read
    #: with intercept rules, the proxy sends the messages of the request body / of the response (HTTP_MESSAGES)
    intercept_request: bool = False
    intercept_response: bool = False
    answer_recorded: bool = False  #: a server's message (or the tap's answer) came in HTTP_MESSAGES


def _merged(pairs: list[list[str]]) -> dict[str, str]:
    """Header pairs as the transports record them: lower-case names, repeated ones joined with ", "."""
    merged: dict[str, str] = {}
    for name, value in pairs:
        key = name.lower()
        merged[key] = f"{merged[key]}, {value}" if key in merged else value
    return merged


class HttpRecorder(RecorderBase):
    """Frames of the HTTP proxy -> events, through the session's pipeline (see the module docstring)."""

    def __init__(self, capture: CaptureWriter | None, feed: TapFeed | None = None,
                 max_message: int = DEFAULT_MAX_LINE_BYTES, *, upstream: str = "", redact: bool = True) -> None:
        super().__init__(capture, feed)
        self.max_message = max_message
        self.upstream = http_url(upstream)
        self.redact = redact
        self.exchanges: dict[int, _Exchange] = {}
        self._said: set[str] = set()

    # -- frames ------------------------------------------------------------------------------------------

    def frame(self, tag: int, t: float, wall: float, payload: bytes) -> None:
        if tag == LIFECYCLE:
            self._emit([Event(Kind.LIFECYCLE, data=json.loads(payload))], t, wall)
            return
        if tag == NOTE:
            self._emit([Event(Kind.NOTE, data=json.loads(payload))], t, wall)
            return
        number = EXCHANGE.unpack_from(payload)[0]
        rest = payload[EXCHANGE.size:]
        if tag == HTTP_REQUEST:
            self._request(number, json.loads(rest), t)
            return
        exchange = self.exchanges.get(number)
        if exchange is None:
            return
        if tag == HTTP_REQUEST_BODY:
            if exchange.request_body is None:
                exchange.request_body = _Body(self.max_message)
            exchange.request_body.add(rest)
        elif tag == HTTP_REQUEST_END:
            self._emit(self._request_done(exchange), t, wall)
        elif tag == HTTP_RESPONSE:
            self._emit(self._response(exchange, json.loads(rest), t), t, wall)
        elif tag == HTTP_RESPONSE_BODY:
            self._emit(self._response_body(exchange, rest), t, wall)
        elif tag == HTTP_MESSAGES:
            self._emit(self._messages(exchange, rest), t, wall)
        elif tag == HTTP_REWRITE:
            exchange.relayed_endpoint = json.loads(rest).get("relayed_as")
        elif tag in (WS_C2S, WS_S2C):
            self._emit(self._websocket(exchange, Direction.C2S if tag == WS_C2S else Direction.S2C, rest), t, wall)
        elif tag == HTTP_RESPONSE_END:
            info = json.loads(rest) if rest else {}
            self._emit(self._ended(exchange, info.get("error"), t), t, wall)
            del self.exchanges[number]

    def finish(self, t: float, wall: float) -> None:
        """Exchanges the proxy never ended (it was killed): each ends here, with a sentence."""
        for number in sorted(self.exchanges):
            self._emit(self._ended(self.exchanges[number], "the tap ended before this exchange did", t), t, wall)
        self.exchanges.clear()

    # -- requests ----------------------------------------------------------------------------------------

    def _request(self, number: int, head: dict[str, Any], t: float) -> None:
        headers = _merged(head.get("headers", []))
        method = str(head.get("method", ""))
        content_type = headers.get("content-type", "").lower()
        purpose = ""
        if "upgrade" in headers:
            purpose = "websocket upgrade"
        elif method == "GET" and "last-event-id" in headers:
            purpose = f"resume after event {headers['last-event-id']}"
        elif method == "GET" and "text/event-stream" in headers.get("accept", ""):
            purpose = "event stream"
        elif method == "DELETE":
            purpose = "end session"
        self.exchanges[number] = _Exchange(
            number, method, str(head.get("url", "")),
            redact_headers(headers) if self.redact else headers, t,
            carries_mcp=method == "POST" and "json" in content_type, purpose=purpose,
            intercept_request=bool(head.get("intercept")))

    def _request_done(self, exchange: _Exchange) -> list[Event]:
        body = exchange.request_body
        if body is None or not body.size or exchange.intercept_request:
            return []
        if not exchange.carries_mcp:
            return []  # not MCP (an OAuth form): its text goes in the http event
        event = body.document(Direction.C2S, exchange.number)
        if event.rpc is not None and not exchange.purpose:
            exchange.purpose = event.rpc.method or event.rpc.kind
        return [event]

    # -- responses ---------------------------------------------------------------------------------------

    def _response(self, exchange: _Exchange, head: dict[str, Any], t: float) -> list[Event]:
        exchange.response = head
        exchange.first_byte = t
        exchange.intercept_response = bool(head.get("intercept"))
        headers = _merged(head.get("headers", []))
        content_type = headers.get("content-type", "").split(";")[0].strip().lower()
        exchange.decoder = _Decoder(headers.get("content-encoding", ""))
        out: list[Event] = []
        if exchange.decoder.unknown:
            out.extend(self._say_once(f"coding {exchange.decoder.coding}",
                                      f"a response's body is {exchange.decoder.coding}-encoded, which the inspector "
                                      "does not decode: the tap relays it as it came and records it undecoded"))
        status = int(head.get("status", 0))
        if status == 101:
            exchange.stream = "ws"
            exchange.ws = self._websocket_parsers(headers.get("sec-websocket-extensions", ""), out)
            out.insert(0, self._http_event(exchange))
        elif content_type == "text/event-stream" and 200 <= status < 300:
            exchange.stream = "sse"
            exchange.sse = SSEDecoder()
            out.insert(0, self._http_event(exchange))
        else:
            exchange.body = _Body(self.max_message)
        return out

    def _response_body(self, exchange: _Exchange, data: bytes) -> list[Event]:
        decoded = exchange.decoder.feed(data) if exchange.decoder is not None else data
        if exchange.sse is not None:
            return [event for raw in exchange.sse.feed(decoded) if (event := self._sse_event(exchange, raw))]
        if exchange.body is not None:
            exchange.body.add(decoded)
        return []

    def _ended(self, exchange: _Exchange, error: str | None, t: float) -> list[Event]:
        out: list[Event] = []
        if exchange.stream in ("sse", "ws"):
            data: dict[str, Any] = {"exchange": exchange.number, "phase": "end",
                                    "timing": {"total": round(t - exchange.started, 6)}}
            if exchange.sse is not None:
                exchange.sse.close()
                data["keepalive_comments"] = exchange.sse.total_comments
                if exchange.sse.incomplete_bytes:
                    data["incomplete_bytes"] = exchange.sse.incomplete_bytes
            if error:
                data["error"] = error
            out.append(Event(Kind.HTTP, data=data))
            return out
        event = self._http_event(exchange, total=t, error=error)
        out.append(event)
        body = exchange.body
        if body is None or not body.size:
            return out
        event.put(body_bytes=body.size)
        headers = _merged((exchange.response or {}).get("headers", []))
        content_type = headers.get("content-type", "")
        status = int((exchange.response or {}).get("status", 0))
        is_message = exchange.carries_mcp and ("json" in content_type.lower() or
                                               (status >= 400 and jsonrpc_error_in(bytes(body.data)) is not None))
        if is_message:
            if not exchange.answer_recorded:  # else its records came from the proxy (HTTP_MESSAGES)
                out.append(body.document(Direction.S2C, exchange.number))
        else:
            text = snippet(bytes(body.data), content_type)
            event.put(snippet=redact_text(text) if self.redact else text)
        return out

    def _http_event(self, exchange: _Exchange, total: float | None = None, error: str | None = None) -> Event:
        data: dict[str, Any] = {"exchange": exchange.number, "method": exchange.method,
                                "url": redact_url(exchange.url) if self.redact else exchange.url,
                                "request_headers": exchange.request_headers}
        if exchange.purpose:
            data["purpose"] = exchange.purpose
        head = exchange.response
        timing: dict[str, float] = {}
        if head is not None:
            headers = _merged(head.get("headers", []))
            data["status"] = int(head.get("status", 0))
            data["reason"] = str(head.get("reason", ""))
            data["http_version"] = str(head.get("http_version", "HTTP/1.1"))
            data["response_headers"] = redact_headers(headers) if self.redact else headers
            relayed = head.get("relayed") or {}
            if relayed.get("location"):
                data["location_relayed_as"] = relayed["location"]
            if isinstance(head.get("connect"), (int, float)):
                timing["connect"] = round(float(head["connect"]), 6)
            if head.get("note"):
                data["note"] = str(head["note"])
        if exchange.first_byte is not None:
            timing["first_byte"] = round(exchange.first_byte - exchange.started, 6)
        if total is not None:
            timing["total"] = round(total - exchange.started, 6)
        if timing:
            data["timing"] = timing
        body = exchange.request_body
        if body is not None and body.size and not exchange.carries_mcp:
            text = bytes(body.data[:REQUEST_SNIPPET_CHARS * 4]).decode("utf-8", "replace")[:REQUEST_SNIPPET_CHARS]
            data["request_body"] = redact_text(text) if self.redact else text
        if error:
            data["error"] = error
        return Event(Kind.HTTP, data=data)

    def _sse_event(self, exchange: _Exchange, raw: RawSSE) -> Event | None:
        sse = raw.sse
        fields = raw.fields()
        if sse.event == "message" and sse.data.strip():
            if exchange.intercept_response:
                return None  # its records come from the proxy (HTTP_MESSAGES)
            event = decode_document(sse.data.encode("utf-8"), Direction.S2C)
            event.put(exchange=exchange.number, sse=fields)
            return event
        event = Event(Kind.SSE, raw=raw.raw, dir=Direction.S2C, eol=b"", data={"exchange": exchange.number, **fields})
        if not sse.data and sse.id:
            event.put(note="priming event: an id with empty data, so the client can resume from here")
        if sse.event == "endpoint":
            target = urljoin(exchange.url, sse.data.strip())
            event.put(endpoint=redact_url(target) if self.redact else target)
            if exchange.relayed_endpoint is not None:
                relayed, exchange.relayed_endpoint = exchange.relayed_endpoint, None
                event.put(relayed_as=redact_url(relayed) if self.redact else relayed)
            if not same_origin(target, exchange.url):
                event.add_finding("cross-origin-endpoint", "the endpoint is on another origin than the event stream: "
                                                           "the client sends its messages there directly, around the "
                                                           "tap, and they are not recorded")
        return event

    def _messages(self, exchange: _Exchange, payload: bytes) -> list[Event]:
        """An intercepted message's records (:func:`inspector.core.intercept.records.records`), each an event with
        its mark; a message over the size limit kept as any body is."""
        body_of = json.loads(payload)
        sse = body_of.get("sse")
        out = []
        for record in body_of["records"]:
            direction, raw, mark = record["dir"], record["raw"].encode("latin-1"), record["mark"]
            body = _Body(self.max_message)
            body.add(raw)
            event = body.document(direction, exchange.number)
            if sse is not None and direction == Direction.S2C:
                event.put(sse=sse)
            if mark is not None:
                event.put(**{MARK: mark})
            if direction == Direction.C2S and not exchange.purpose and event.rpc is not None:
                exchange.purpose = event.rpc.method or event.rpc.kind
            exchange.answer_recorded = exchange.answer_recorded or direction == Direction.S2C
            out.append(event)
        return out

    # -- WebSocket ---------------------------------------------------------------------------------------

    def _websocket_parsers(self, extensions: str, out: list[Event]) -> dict[str, Any]:
        try:
            from wsproto.extensions import Extension, PerMessageDeflate
            from wsproto.frame_protocol import FrameProtocol
        except ImportError:
            out.extend(self._say_once("wsproto", "the WebSocket is relayed but its frames are not recorded: that "
                                                 "needs the wsproto package (pip install "
                                                 "'mcp-inspector-desktop[websocket]')"))
            return {}
        parsers = {}
        for direction, client_side in ((Direction.C2S, False), (Direction.S2C, True)):
            negotiated: list[Extension] = []
            for offer in extensions.split(","):
                if offer.strip().lower().startswith("permessage-deflate"):
                    deflate = PerMessageDeflate()
                    deflate.finalize(offer.strip())
                    negotiated.append(deflate)
            # our parser plays the side that receives these frames: the server for c2s, the client for s2c
            parsers[direction] = {"parser": FrameProtocol(client=client_side, extensions=negotiated),
                                  "parts": [], "size": 0, "kept": 0, "binary": False,
                                  "failed": False}
        return parsers

    def _websocket(self, exchange: _Exchange, direction: str, data: bytes) -> list[Event]:
        state = exchange.ws.get(direction)
        if state is None or state["failed"]:
            return []
        from wsproto.frame_protocol import Opcode, ParseFailed

        parser = state["parser"]
        out: list[Event] = []
        parser.receive_bytes(data)
        who = "client" if direction == Direction.C2S else "server"
        try:
            for frame in parser.received_frames():
                if frame.opcode == Opcode.CLOSE:
                    code, reason = frame.payload
                    out.append(Event(Kind.NOTE, data={"text": f"the {who} closed the WebSocket (code {int(code)}"
                                                              f"{': ' + reason if reason else ''})",
                                                      "exchange": exchange.number}))
                    continue
                if frame.opcode in (Opcode.PING, Opcode.PONG):
                    continue
                if frame.opcode != Opcode.CONTINUATION:
                    state["binary"] = frame.opcode == Opcode.BINARY
                payload = frame.payload.encode("utf-8") if isinstance(frame.payload, str) else bytes(frame.payload)
                state["size"] += len(payload)
                if state["size"] > self.max_message:  # too big to keep whole: its start is enough
                    payload = payload[:max(0, OVERSIZE_KEEP_BYTES - state["kept"])]
                state["parts"].append(payload)
                state["kept"] += len(payload)
                if frame.message_finished:
                    out.append(self._ws_message(exchange, direction, state))
        except ParseFailed as exc:
            state["failed"] = True
            out.append(Event(Kind.FRAMING_ERROR, raw=b"", dir=direction, eol=b"",
                             reason=f"the {who}'s WebSocket frames cannot be read ({exc}); the tap still relays them, "
                                    "but records no more of them",
                             data={"exchange": exchange.number}))
        return out

    def _ws_message(self, exchange: _Exchange, direction: str, state: dict[str, Any]) -> Event:
        payload = b"".join(state["parts"])
        size, binary = state["size"], state["binary"]
        state["parts"], state["size"], state["kept"] = [], 0, 0
        if binary:
            event = Event(Kind.FRAMING_ERROR, raw=payload, dir=direction, eol=b"",
                          reason="a binary WebSocket frame: MCP messages travel in text frames")
        elif size > self.max_message:
            event = Event(Kind.FRAMING_ERROR, raw=payload[:OVERSIZE_KEEP_BYTES], dir=direction, eol=b"",
                          reason=f"a WebSocket message of {size:,} bytes is over the size limit "
                                 f"({format_size(self.max_message)} per message); only its start is kept")
            event.put(oversize={"total_bytes": size})
        else:
            event = decode_document(payload, direction)
        event.put(exchange=exchange.number)
        return event

    def _say_once(self, key: str, text: str) -> list[Event]:
        if key in self._said:
            return []
        self._said.add(key)
        return [Event(Kind.NOTE, data={"text": text})]
