"""``--transport auto`` for URLs: Streamable HTTP first, HTTP+SSE (2024-11-05) when the server says no.

Spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-compatibility
"attempt to POST an InitializeRequest ... if it fails with 400 Bad Request, 404 Not Found or 405 Method Not
Allowed, issue a GET ... expecting an SSE stream with an endpoint event". The 2026-07-28 probe
(``server/discover``) is the session's (``--handshake auto``); it goes over whichever transport this picks.
Every decision is a ``note`` event, so the user sees why a transport was chosen.
"""

from __future__ import annotations

import json
from typing import Any

from inspector.core.redaction import redact_url
from inspector.core.transports.base import CannotConnect, HttpStatusError, Transport, TransportError
from inspector.core.transports.http_common import HttpOptions
from inspector.core.transports.http_sse import HttpSseTransport
from inspector.core.transports.streamable_http import StreamableHttpTransport
from inspector.core.wire.events import Event, Kind

#: The spec's 400, 404 and 405, plus 501, which static web servers answer to POST.
FALLBACK_STATUSES = frozenset({400, 404, 405, 501})


class AutoHttpTransport(Transport):
    name = "auto"

    def __init__(self, options: HttpOptions) -> None:
        super().__init__()
        self.options = options
        self.inner: Transport = self._adopt(StreamableHttpTransport(options))
        self.fell_back = False

    def _adopt(self, transport: Transport) -> Transport:
        transport.emit = lambda event: self.emit(event)
        transport.emit_many = lambda events: self.emit_many(events)
        return transport

    @property
    def chosen(self) -> str:
        return self.inner.name

    def describe(self) -> dict[str, Any]:
        return {**self.inner.describe(), "transport": "auto"}

    def _shown_url(self) -> str:
        return redact_url(self.options.url) if self.options.redact else self.options.url

    def _note(self, text: str) -> None:
        self.emit(Event(Kind.NOTE, data={"text": text}))

    async def start(self) -> None:
        self._note("transport auto: trying Streamable HTTP first (POST); HTTP+SSE if the server answers "
                   "400, 404 or 405 to initialize")
        await self.inner.start()

    async def send(self, data: bytes, *, raw: bool = False) -> None:
        try:
            await self.inner.send(data, raw=raw)
        except HttpStatusError as exc:
            if self.fell_back or exc.status not in FALLBACK_STATUSES or _method(data) != "initialize":
                raise
            self._note(f"Streamable HTTP refused initialize with HTTP {exc.status}: falling back to HTTP+SSE "
                       f"(2024-11-05), GET {self._shown_url()}")
            await self._fall_back(exc)
            await self.inner.send(data, raw=raw)

    async def _fall_back(self, cause: TransportError) -> None:
        old = self.inner
        self.inner = self._adopt(HttpSseTransport(self.options))
        self.inner._exchanges = old._exchanges  # type: ignore[attr-defined]  # one numbering per session
        self.fell_back = True
        await old.close()
        try:
            await self.inner.start()
        except TransportError as exc:
            raise CannotConnect(f"neither transport works at {self._shown_url()}: Streamable HTTP said {cause}; "
                                 f"HTTP+SSE said {exc}") from None
        endpoint = getattr(self.inner, "endpoint", None)
        shown = self.inner.shown(endpoint) if endpoint and hasattr(self.inner, "shown") else "?"
        self._note(f"using HTTP+SSE (2024-11-05): the server's endpoint is {shown}")

    def on_handshake(self, era: str, protocol_version: str | None) -> None:
        self.era = (era, protocol_version)
        self.inner.on_handshake(era, protocol_version)

    def on_ready(self) -> None:
        era, protocol_version = getattr(self, "era", ("legacy", None))
        if not self.fell_back:
            detail = {"modern": " (2026-07-28, stateless)", "legacy": f" ({protocol_version})"}.get(era, "")
            self._note(f"using Streamable HTTP{detail}")
        self.inner.on_ready()

    async def probe(self, method: str, **kwargs: Any) -> tuple[Event, bytes] | None:
        """The chosen transport's :meth:`~inspector.core.transports.http_common.HttpTransportBase.probe`."""
        probe = getattr(self.inner, "probe", None)
        if probe is None or self.inner.name != "streamable-http":
            return None
        result: tuple[Event, bytes] = await probe(method, **kwargs)
        return result

    async def cancel_request(self, msg_id: Any) -> bool:
        return await self.inner.cancel_request(msg_id)

    async def close(self) -> None:
        await self.inner.close()

    @property
    def closed(self) -> bool:
        return self.inner.closed

    async def wait_closed(self) -> None:
        await self.inner.wait_closed()

    def waiting_detail(self, msg_id: Any) -> str | None:
        return self.inner.waiting_detail(msg_id)

    def diagnosis(self, waiting_for: str | None = None) -> str | None:
        return self.inner.diagnosis(waiting_for)

    def ending(self) -> str:
        text = f"transport {self.chosen} (chosen automatically)"
        gone = self.diagnosis()
        return f"{text}; {gone}" if gone else text


def _method(data: bytes) -> str | None:
    try:
        obj = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return obj.get("method") if isinstance(obj, dict) else None
