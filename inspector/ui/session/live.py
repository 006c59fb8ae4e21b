"""One live connection in the window: builds the transport, saves the capture as it runs, drives the handshake
and reports its state in sentences. Runs entirely on the Qt event loop through qasync; nothing blocks.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.session.record import stdio_target
from inspector.core.session.session import (
    DEFAULT_REQUEST_TIMEOUT,
    ServerInfo,
    ServerRequestHandler,
    Session,
)
from inspector.core.transports.base import Transport, TransportError
from inspector.core.transports.stdio import StdioTransport
from inspector.core.wire.events import Event, Kind

STARTING, INITIALIZING, READY, CLOSED, FAILED = "starting", "initializing", "ready", "closed", "failed"


@dataclass
class Target:
    """What to connect to: a stdio command or a URL."""

    name: str
    argv: list[str] = field(default_factory=list)
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    url: str = ""
    transport: str = "auto"
    headers: dict[str, str] = field(default_factory=dict)
    bearer: str | None = None
    handshake: str = "auto"
    #: the user named it (a profile): the tab keeps that name instead of the one the server reports
    named_by_user: bool = False
    #: how long the window waits for the handshake and for each request (as ``record --timeout``)
    timeout: float = DEFAULT_REQUEST_TIMEOUT

    @property
    def is_http(self) -> bool:
        return bool(self.url)

    def describe(self) -> str:
        return self.url if self.url else " ".join(self.argv)


def capture_name(target: Target) -> str:
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")[:-3]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", target.name).strip("-")[:40] or "session"
    return f"{slug}-{stamp}.jsonl"


class LiveSession(QObject):
    state_changed = Signal(str, str)  #: state, one sentence (empty when there is nothing to explain)
    server_known = Signal(object)  #: ServerInfo after the handshake

    def __init__(self, target: Target, captures: Path, handler: ServerRequestHandler | None = None,
                 parent: Any = None) -> None:
        super().__init__(parent)
        self.target = target
        self.captures = captures
        self.handler = handler
        self.session: Session | None = None
        self.writer: CaptureWriter | None = None
        self.capture_path: Path | None = None
        self.state = STARTING
        self.sentence = ""  #: what the current state needs said ("" when nothing)
        self.server: ServerInfo | None = None
        self._task: asyncio.Task[None] | None = None

    def make_session(self) -> Session:
        """Build transport, capture and session (not started yet), so views can attach first."""
        transport, target = self._transport()
        self.capture_path = self.captures / capture_name(self.target)
        self.writer = CaptureWriter(self.capture_path, make_header(target, name=self.target.name))
        self.session = Session(transport, capture=self.writer, server_request_handler=self.handler,
                               keep_events=True)
        return self.session

    def _transport(self) -> tuple[Transport, dict[str, Any]]:
        return build_transport(self.target)

    def start(self) -> None:
        if self.session is not None:
            self.session.listeners.append(self._watch)  # after the views' own listeners: they see the event first
        self._task = asyncio.ensure_future(self._run())

    def _watch(self, events: list[Event]) -> None:
        """A ready session whose server is gone (an HTTP transport's ``disconnected``: a forgotten session, a
        stream that cannot be resumed) is over, even though its transport is not closed yet: say so."""
        if self.state != READY:
            return
        for event in events:
            if event.kind == Kind.LIFECYCLE and event.data.get("what") == "disconnected":
                self._set(CLOSED, str(event.data.get("reason") or "the server went away"))
                return

    def _request_failed(self, exc: TransportError) -> None:
        """A message the user sent failed: a note in the timeline, and the sentence in the status line."""
        assert self.session is not None
        self.session.note(str(exc))
        if self.state in (READY, CLOSED):
            self._set(self.state, str(exc))

    def _sending(self) -> None:
        if self.state == READY and self.sentence:
            self._set(READY, "")  # the last request's failure is old news once the user sends again

    def _set(self, state: str, sentence: str = "") -> None:
        self.state = state
        self.sentence = sentence
        self.state_changed.emit(state, sentence)

    async def _run(self) -> None:
        session = self.session
        assert session is not None
        self._set(STARTING, f"starting {self.target.describe()}")
        try:
            await session.start()
            self._set(INITIALIZING, "handshake")
            self.server = await session.handshake(self.target.handshake, timeout=self.target.timeout)
        except TransportError as exc:
            session.note(str(exc))
            self._set(FAILED, str(exc) + _next_step(self.target, str(exc)))
            await self._finish()
            return
        except asyncio.CancelledError:
            await self._finish()
            raise
        self.server_known.emit(self.server)
        self._set(READY, "")
        await session.transport.wait_closed()
        why = session.transport.diagnosis() or "the connection closed"
        self._set(CLOSED, why)
        await self._finish()

    async def _finish(self) -> None:
        if self.session is not None:
            try:
                await self.session.close()
            except TransportError:
                pass
        if self.writer is not None:
            self.writer.close()

    async def stop(self) -> None:
        """Shut the server down per its transport's rules; the capture stays."""
        if self.session is not None:
            await self.session.close()
        if self._task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._task), 10)
            except (TimeoutError, asyncio.CancelledError):
                self._task.cancel()
        if self.state not in (CLOSED, FAILED):
            self._set(CLOSED, "stopped")

    async def send(self, obj: dict[str, Any]) -> None:
        """Send a composed message: requests get an id (and _meta in the modern era) and are awaited."""
        session = self.session
        if session is None:
            return
        self._sending()
        try:
            if isinstance(obj.get("method"), str) and not obj["method"].startswith("notifications/"):
                await session.request_object(session.prepare_request(obj), timeout=self.target.timeout)
            else:
                await session.send_object(obj)
        except TransportError as exc:
            self._request_failed(exc)

    async def send_raw(self, data: bytes) -> None:
        if self.session is None:
            return
        self._sending()
        try:
            await self.session.send_raw(data)
        except TransportError as exc:
            self._request_failed(exc)


def build_transport(t: Target) -> tuple[Transport, dict[str, Any]]:
    """The transport for a target, and the capture header's (redacted) description of it."""
    if t.is_http:  # httpx is imported only when the window connects to an HTTP server
        from inspector.core.transports.http_common import HttpOptions
        from inspector.core.transports.registry import create_url_transport

        transport = create_url_transport(t.transport, HttpOptions(url=t.url, headers=dict(t.headers), bearer=t.bearer))
        return transport, transport.describe()
    return StdioTransport(t.argv, cwd=t.cwd, env=t.env), stdio_target(t.argv, t.cwd, t.env, True)


def _next_step(target: Target, sentence: str) -> str:
    if "command not found" in sentence:
        return " — check the command in the server's profile."
    if "connection refused" in sentence:
        return " — start the server, or check the URL."
    if "401" in sentence:
        return " — add a token (Authorization header) in the server's profile."
    if "exited" in sentence:
        return " — its stderr is in the stderr tab."
    return ""
