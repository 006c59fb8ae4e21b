"""Live OTLP/HTTP export (``--otlp-endpoint URL`` on record, tap and the window): a session's spans sent to a
collector as they finish, ``POST URL/v1/traces`` with ``Content-Type: application/x-protobuf`` and an
``ExportTraceServiceRequest`` body (https://opentelemetry.io/docs/specs/otlp/#otlphttp-request).

:class:`OtlpExporter` is a session listener (``session.listeners.append(exporter.listener)``; the tap's recorder
and the window add it to their pipelines the same way): it feeds each batch of events to a
:class:`~inspector.core.otel.spans.SpanBuilder` at once (cheap), and a background task sends what finished
every :data:`EXPORT_INTERVAL` or as soon as :data:`BATCH` spans wait. :meth:`OtlpExporter.close` ends the open
spans and the session span and sends the rest, within :data:`CLOSE_TIMEOUT`.

The collector is never a reason for the session to fail: a refused or unreachable export is remembered as one
sentence (:attr:`OtlpExporter.problem`, said once by whoever runs the session), and spans beyond
:data:`MAX_QUEUED` that could not be sent are dropped and counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from inspector.core.otel.spans import SpanBuilder, SpanRecord
from inspector.core.waiting import wait_for
from inspector.core.wire.events import Event

#: Spans sent in one request at most.
BATCH = 512
#: How often what finished is sent (seconds).
EXPORT_INTERVAL = 1.0
#: Spans kept waiting while the collector cannot be reached; older ones are dropped beyond this.
MAX_QUEUED = 20_000
#: Bound on one export request, and on the last ones at close.
REQUEST_TIMEOUT = 10.0
CLOSE_TIMEOUT = 10.0
TRACES_PATH = "/v1/traces"
SENT, RETRY, REFUSED = "sent", "retry", "refused"


class EndpointError(ValueError):
    """An ``--otlp-endpoint`` that cannot be used; ``str()`` is a sentence."""


def traces_url(endpoint: str) -> str:
    """Where spans go: ``ENDPOINT/v1/traces`` (an endpoint that already ends so is kept). Raises EndpointError."""
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise EndpointError(f"--otlp-endpoint {endpoint!r} must be an http or https URL, such as "
                            "http://127.0.0.1:4318 (the collector's OTLP/HTTP port)")
    return endpoint if parts.path.rstrip("/").endswith(TRACES_PATH) else endpoint.rstrip("/") + TRACES_PATH


class OtlpExporter:
    """Spans of one session, sent live (see the module)."""

    def __init__(self, endpoint: str, session_key: str | None = None) -> None:
        self.url = traces_url(endpoint)
        self.builder = SpanBuilder(session_key or uuid.uuid4().hex)
        self.queue: list[SpanRecord] = []
        self.sent = 0  #: spans the collector accepted
        self.dropped = 0  #: spans given up on
        self.problem: str | None = None  #: the first failure, as a sentence
        #: called once with that sentence when it happens (the window says it then, not only at the end)
        self.on_problem: Callable[[str], None] | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._client: Any = None
        self._closed = False

    def listener(self, events: list[Event]) -> None:
        """A session listener: the batch's finished spans join the queue."""
        if self._closed:
            return
        self.queue += self.builder.feed(events)
        if len(self.queue) >= BATCH:
            self._wake.set()
        if len(self.queue) > MAX_QUEUED:
            extra = len(self.queue) - MAX_QUEUED
            del self.queue[:extra]
            self.dropped += extra

    def start(self) -> None:
        """Begin sending (on the running event loop)."""
        import httpx

        self._client = httpx.AsyncClient(timeout=REQUEST_TIMEOUT)
        self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await wait_for(self._wake.wait(), EXPORT_INTERVAL)
            self._wake.clear()
            await self._send_queued()

    async def _send_queued(self) -> None:
        while self.queue:
            batch = self.queue[:BATCH]
            outcome = await self._post(batch)
            if outcome == RETRY:
                return  # kept for the next turn (bounded by MAX_QUEUED)
            del self.queue[:len(batch)]
            if outcome == SENT:
                self.sent += len(batch)
            else:
                self.dropped += len(batch)

    async def _post(self, spans: list[SpanRecord]) -> str:
        """:data:`SENT`, :data:`RETRY` (unreachable, 429, 5xx) or :data:`REFUSED` (another 4xx: sending the
        same again will not help)."""
        import httpx

        from inspector.core.otel.encode import export_request

        body = export_request(spans).SerializeToString()
        try:
            response = await self._client.post(self.url, content=body,
                                               headers={"Content-Type": "application/x-protobuf"})
        except httpx.HTTPError as exc:
            self._failed(f"cannot send traces to {self.url}: {exc.__class__.__name__}: {exc}")
            return RETRY
        status = response.status_code
        if status // 100 == 2:
            return SENT
        self._failed(f"the OTLP endpoint {self.url} answered {status} {response.reason_phrase}")
        return REFUSED if status // 100 == 4 and status != 429 else RETRY

    def _failed(self, sentence: str) -> None:
        if self.problem is None:
            self.problem = sentence
            if self.on_problem is not None:
                self.on_problem(sentence)

    async def close(self) -> None:
        """End the spans still open, send everything left (bounded), and close the connection."""
        if self._closed:
            return
        self._closed = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self.queue += self.builder.finish()
        if self._client is not None:
            try:
                async with asyncio.timeout(CLOSE_TIMEOUT):
                    await self._send_queued()
            except TimeoutError:
                self._failed(f"the OTLP endpoint {self.url} did not take the last spans within {CLOSE_TIMEOUT:g} s")
            await self._client.aclose()
        self.dropped += len(self.queue)
        self.queue.clear()

    def report(self) -> str | None:
        """One sentence when something went wrong (to say once at the end), else None."""
        if self.problem is None and not self.dropped:
            return None
        dropped = f"; {self.dropped} span{'' if self.dropped == 1 else 's'} not exported" if self.dropped else ""
        return f"{self.problem or 'some spans could not be exported'}{dropped}"
