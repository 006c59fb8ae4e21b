"""WebSocket with the ``mcp`` subprotocol: the example custom transport that ships with the project.

The 2024-11-05 transports page (our seed) says implementations MAY add custom transports as long as they
keep the JSON-RPC format and the lifecycle. This one is registered exactly as a third-party transport would
be, through the ``mcp_inspector.transports`` entry point in ``pyproject.toml``, so it also proves that path.

Wire: one JSON-RPC message per WebSocket text frame, subprotocol ``mcp``. The HTTP upgrade is an ``http``
event (101 and its headers); a binary frame is a framing error; the close frame's code and reason end the
connection. Needs the optional ``httpx-ws`` package (``pip install 'mcp-inspector-desktop[websocket]'``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import httpx

from inspector.core.transports.base import (
    HttpStatusError,
    TransportClosed,
    TransportError,
)
from inspector.core.transports.http_common import (
    HttpOptions,
    HttpTransportBase,
    failure,
)
from inspector.core.wire.events import Direction, Event, Kind, Lifecycle
from inspector.core.wire.framing import decode_document, decode_line

SUBPROTOCOL = "mcp"
#: Bound on the WebSocket closing handshake.
CLOSE_TIMEOUT = 2.0


def http_url(url: str) -> str:
    """httpx speaks http(s) and upgrades; users write ws(s)."""
    if url.startswith("ws://"):
        return "http://" + url[5:]
    if url.startswith("wss://"):
        return "https://" + url[6:]
    return url


class WebSocketTransport(HttpTransportBase):
    name = "websocket"

    def __init__(self, options: HttpOptions) -> None:
        options.url = http_url(options.url)
        super().__init__(options)
        self._stack = contextlib.AsyncExitStack()
        self._ws: Any = None
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> None:
        try:
            from httpx_ws import WebSocketUpgradeError, aconnect_ws
        except ImportError:
            raise TransportError("the websocket transport needs the httpx-ws package: "
                                 "pip install 'mcp-inspector-desktop[websocket]'") from None
        self.emit(Event(Kind.LIFECYCLE, data={"what": Lifecycle.CONNECTING, "transport": self.name,
                                              "url": self.describe()["url"]}))
        number = self.next_exchange()
        started = time.monotonic()
        request = self.client().build_request("GET", self.url, headers=self.options.base_headers())
        try:
            self._ws = await self._stack.enter_async_context(
                aconnect_ws(self.url, self.client(), subprotocols=[SUBPROTOCOL], headers=self.options.base_headers(),
                            max_message_size_bytes=self.options.max_message))
        except WebSocketUpgradeError as exc:
            response = exc.response
            self.emit(self.http_event(number, response.request, response, started, first_byte=time.monotonic(),
                                      purpose="websocket upgrade",
                                      error=f"the server refused the WebSocket upgrade ({response.status_code})"))
            raise HttpStatusError(f"GET {self.shown(self.url)}: the server answered {response.status_code} instead "
                                  "of switching to WebSocket: is this a WebSocket endpoint?",
                                  response.status_code) from None
        except httpx.HTTPError as exc:
            error = failure(exc, "GET", self.shown(self.url))
            self.emit(self.http_event(number, request, None, started, total=time.monotonic(), error=str(error),
                                      purpose="websocket upgrade"))
            raise error from None
        event = self.http_event(number, self._ws.response.request, self._ws.response, started,
                                first_byte=time.monotonic(), purpose="websocket upgrade")
        if self._ws.subprotocol != SUBPROTOCOL:
            self.flag(event, "subprotocol", f"the server did not agree to the {SUBPROTOCOL!r} subprotocol "
                                            f"(it chose {self._ws.subprotocol!r})", "warning")
        self.emit(event)
        self._reader = asyncio.ensure_future(self._read(number))

    async def _read(self, number: int) -> None:
        import wsproto.events as ws_events
        from httpx_ws import WebSocketDisconnect, WebSocketNetworkError

        reason = "the server closed the connection"
        try:
            while True:
                message = await self._ws.receive()
                if isinstance(message, ws_events.TextMessage):
                    event = decode_document(message.data.encode("utf-8"), Direction.S2C)
                    event.put(exchange=number)
                    self.emit(event)
                elif isinstance(message, ws_events.BytesMessage):
                    event = Event(Kind.FRAMING_ERROR, raw=bytes(message.data), dir=Direction.S2C, eol=b"",
                                  reason="a binary WebSocket frame: MCP messages travel in text frames")
                    event.put(exchange=number)
                    self.emit(event)
        except WebSocketDisconnect as exc:
            reason = f"the server closed the WebSocket (code {exc.code}{': ' + exc.reason if exc.reason else ''})"
        except WebSocketNetworkError as exc:
            reason = f"the WebSocket connection was lost ({exc})"
        except asyncio.CancelledError:
            raise
        if not self.closed:
            self.gone(reason)

    async def send(self, data: bytes, *, raw: bool = False) -> None:
        if self._ws is None or self.closed:
            raise TransportClosed(self._gone or "the connection is closed")
        if self._gone is not None:
            raise TransportClosed(self._gone)
        event = decode_line(data, Direction.C2S, eol=b"")
        self.emit(event)
        try:
            await self._ws.send_text(data.decode("utf-8", errors="surrogateescape"))
        except Exception as exc:  # httpx-ws raises several network errors; all mean the same to the user
            self.gone(f"sending failed: the WebSocket connection is gone ({exc.__class__.__name__})")
            raise TransportClosed(self._gone or "") from None

    async def close(self) -> None:
        if self.closed:
            return
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.wait([self._reader], timeout=CLOSE_TIMEOUT)
        try:
            # in this task, not wrapped in wait_for's: httpx-ws holds an anyio cancel scope entered by this task
            async with asyncio.timeout(CLOSE_TIMEOUT):
                await self._stack.aclose()
        except (TimeoutError, Exception):  # a dead peer cannot complete the closing handshake
            pass
        await self._close_client()
        self.emit(Event(Kind.LIFECYCLE, data={"what": Lifecycle.CLOSED}))
        self._closed_event.set()
