"""HTTP with SSE, the 2024-11-05 transport (deprecated since 2025-03-26, still what many servers speak).

Spec: https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse
The client GETs the SSE URL; the first event, ``endpoint``, carries the URI to POST messages to (usually
relative, with a session query). Every client message is a POST there (servers answer 202); every server
message arrives as a ``message`` event on the GET stream. We refuse an endpoint on another origin: a server
must not be able to make the inspector send the user's messages somewhere else.
"""

from __future__ import annotations

import asyncio
import time

import httpx

from inspector.core.transports.base import (
    HttpStatusError,
    TransportClosed,
    TransportError,
)
from inspector.core.transports.http_common import (
    MAX_ERROR_BODY,
    HttpOptions,
    HttpTransportBase,
    explain_reason,
)
from inspector.core.transports.redirects import same_origin
from inspector.core.waiting import wait_for
from inspector.core.wire.events import Direction, Event, Kind, Lifecycle
from inspector.core.wire.framing import decode_document, decode_line
from inspector.core.wire.sse import RawSSE

#: How long we wait for the ``endpoint`` event after the stream opened.
ENDPOINT_TIMEOUT = 10.0


class HttpSseTransport(HttpTransportBase):
    name = "sse"

    def __init__(self, options: HttpOptions) -> None:
        super().__init__(options)
        self.endpoint: str | None = None
        self._endpoint_ready: asyncio.Future[str] | None = None
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.emit(Event(Kind.LIFECYCLE, data={"what": Lifecycle.CONNECTING, "transport": self.name,
                                              "url": self.describe()["url"]}))
        request = self.client().build_request("GET", self.url, headers={**self.options.base_headers(),
                                                                       "Accept": "text/event-stream"},
                                              timeout=self.stream_timeout())
        started = time.monotonic()
        number, response, _, event = await self.exchange(request, read_body=False, purpose="event stream")
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if response.status_code != 200 or content_type != "text/event-stream":
            try:
                body = await self._read_limited(response, limit=MAX_ERROR_BODY, truncate=True)
            except httpx.HTTPError as exc:
                sentence = (f"GET {self.shown(self.url)}: HTTP {response.status_code} {response.reason_phrase}, and "
                            f"{explain_reason(exc, self.shown(self.url))}")
                event.put(error=sentence)
                self.emit(event)
                raise TransportError(sentence) from None
            finally:
                await response.aclose()
            event.put(body_bytes=len(body))
            self.emit(event)
            if response.status_code == 200:
                what = f"a {content_type or 'body without Content-Type'} instead of text/event-stream"
                raise TransportError(f"GET {self.shown(self.url)}: {what}: this URL is not an HTTP+SSE (2024-11-05) "
                                     "endpoint")
            what = f"HTTP {response.status_code} {response.reason_phrase}".strip()
            raise HttpStatusError(f"GET {self.shown(self.url)}: {what}: this URL is not an HTTP+SSE (2024-11-05) "
                                  "endpoint", response.status_code)
        self.emit(event)
        self._endpoint_ready = asyncio.get_running_loop().create_future()
        self._reader = asyncio.ensure_future(self._read(response, number, started))
        try:
            self.endpoint = await wait_for(asyncio.shield(self._endpoint_ready), ENDPOINT_TIMEOUT)
        except TimeoutError:
            await self.close()
            raise TransportError(f"GET {self.shown(self.url)}: the stream opened but sent no endpoint event within "
                                 f"{ENDPOINT_TIMEOUT:g} s, so there is nowhere to send messages") from None
        except TransportError:
            await self.close()
            raise

    async def _read(self, response: httpx.Response, number: int, started: float) -> None:
        end = await self.read_sse(response, number, started, self._on_sse)
        error = end.error
        if self._endpoint_ready is not None and not self._endpoint_ready.done():
            self._endpoint_ready.set_exception(TransportError(
                f"GET {self.shown(self.url)}: the stream ended before the endpoint event "
                f"({error or 'closed by the server'})"))
        if not self.closed:
            self.gone(f"the server's event stream ended ({error or 'closed by the server'}): no more messages can "
                      "arrive")

    def _on_sse(self, raw: RawSSE, number: int) -> None:
        sse = raw.sse
        fields = raw.fields()
        if sse.event == "message":
            event = decode_document(sse.data.encode("utf-8"), Direction.S2C)
            event.put(exchange=number, sse=fields)
            self.emit(event)
            return
        event = Event(Kind.SSE, raw=raw.raw, dir=Direction.S2C, eol=b"", data={"exchange": number, **fields})
        if sse.event == "endpoint" and self._endpoint_ready is not None and not self._endpoint_ready.done():
            target = str(httpx.URL(self.url).join(sse.data.strip()))
            if not same_origin(target, self.url):
                reason = (f"the endpoint event points to another origin ({self.shown(target)}) than the SSE URL "
                          f"({self.shown(self.url)}); refusing to send messages there")
                event.add_finding("cross-origin-endpoint", reason)
                self.emit(event)
                self._endpoint_ready.set_exception(TransportError(reason))
                return
            event.put(endpoint=self.shown(target))
            self.emit(event)
            self._endpoint_ready.set_result(target)
            return
        self.emit(event)

    async def send(self, data: bytes, *, raw: bool = False) -> None:
        if self.closed or self.endpoint is None:
            raise TransportClosed(self._gone or "the connection is closed")
        if self._gone is not None:
            raise TransportClosed(self._gone)
        number = self.next_exchange()
        outgoing = decode_line(data, Direction.C2S, eol=b"")
        outgoing.put(exchange=number)
        self.emit(outgoing)
        request = self.client().build_request("POST", self.endpoint, content=data, headers={
            **self.options.base_headers(), "Content-Type": "application/json"})
        try:
            _, response, body, event = await self.exchange(request, number=number,
                                                           purpose=str(outgoing.method or "message"))
        except TransportError as exc:
            self.request_failed(outgoing.rpc.id if outgoing.rpc and outgoing.rpc.kind == "request" else None, str(exc))
            raise
        status = response.status_code
        if status != 202:
            if 200 <= status < 300:
                self.flag(event, "not-202", f"the POST was answered {status}; HTTP+SSE servers answer 202 and send "
                                            "the reply on the event stream", "warning")
            else:
                self.flag(event, "post-failed", f"the POST was answered {status} {response.reason_phrase}")
        self.emit(event)
        if status >= 400:
            self.request_failed(outgoing.rpc.id if outgoing.rpc and outgoing.rpc.kind == "request" else None,
                                f"HTTP {status}")
            raise HttpStatusError(f"POST {self.endpoint}: HTTP {status} {response.reason_phrase}".strip(), status)

    async def close(self) -> None:
        if self.closed:
            return
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.wait([self._reader], timeout=2.0)
        await self._close_client()
        self.emit(Event(Kind.LIFECYCLE, data={"what": Lifecycle.CLOSED}))
        self._closed_event.set()
