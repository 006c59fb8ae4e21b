"""One live connection in the window: builds the transport, saves the capture as it runs, drives the handshake
and reports its state in sentences. Runs entirely on the Qt event loop through qasync; nothing blocks.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from inspector.core import paths
from inspector.core.apps.meta import client_extension
from inspector.core.capture.live import LiveIndex
from inspector.core.capture.writer import CaptureWriter
from inspector.core.connect.opened import session_on
from inspector.core.connect.target import Target, make_transport, oauth_client_of
from inspector.core.explore.catalog import roots_of
from inspector.core.intercept.breakpoints import Breakpoints, PausedQueue
from inspector.core.intercept.engine import Interceptor
from inspector.core.session.outcomes import RequestCancelled, RequestTimeout, ServerInfo, UnreadableResponse
from inspector.core.session.server_requests import ServerRequestHandler, hold_clock
from inspector.core.session.session import Session
from inspector.core.transports.base import (
    CommandNotFound,
    ConnectionRefused,
    HttpStatusError,
    TransportClosed,
    TransportError,
)
from inspector.core.waiting import wait_for
from inspector.core.wire.events import Event, Kind, Lifecycle
from inspector.ui import otel_export
from inspector.ui.intercept.control import InterceptControl
from inspector.ui.oauth import NO_BROWSER, WAITING, WindowLogin

STARTING, INITIALIZING, READY, CLOSED, FAILED = "starting", "initializing", "ready", "closed", "failed"


class LiveSession(QObject):
    state_changed = Signal(str, str)  #: state, one sentence (empty when there is nothing to explain)
    server_known = Signal(object)  #: ServerInfo after the handshake
    #: a restart after a change (:meth:`reload`) ended: whether the server is up again, and in how many seconds
    reloaded = Signal(bool, float)

    def __init__(self, target: Target, captures: Path, handler: ServerRequestHandler | None = None,
                 parent: Any = None) -> None:
        super().__init__(parent)
        self.target = target
        self.captures = captures
        self.handler = handler
        self.session: Session | None = None
        self.writer: CaptureWriter | None = None
        self.capture_path: Path | None = None
        #: the session's events: the capture being written, with the recent ones in memory (bounded)
        self.index: LiveIndex | None = None
        self.state = STARTING
        self.sentence = ""  #: what the current state needs said ("" when nothing)
        self.failure = False  #: the sentence says something failed (the status line shows it in red)
        self.server: ServerInfo | None = None
        self._task: asyncio.Task[None] | None = None
        #: a stdio session that restarts its server on a change (:meth:`reload`): it lives on between servers,
        #: its run waiting for the next restart when one fails or the server exits
        self.reloads = False
        self._restarted = asyncio.Event()  #: set when a restart ended (the run then waits on the new server)
        self._restarting = False
        self._stopping = False
        self.exporter: Any = None  #: the live OpenTelemetry export, with --otlp-endpoint
        #: what a stdio session's decoder keeps of each parse for the tab's judge (its ``verdict``; issue 15)
        self.keep_parse: Callable[[Event, Any], Any] | None = None
        #: an OAuth-protected URL (a profile's or ``--url --oauth``): the login in the window (the Auth tab)
        self.login: WindowLogin | None = WindowLogin(self) if target.is_http and target.oauth is not None else None
        #: the session's breakpoints and the messages they paused (the Breakpoints and Intercepted tabs): every
        #: message each way goes through their interceptor, which passes all of them while no rule is enabled
        interceptor = Interceptor()
        self.intercept = InterceptControl(Breakpoints(interceptor), PausedQueue(interceptor), self)
        if self.login is not None:
            self.login.waiting.connect(lambda _url, _redirect: self._set(self.state, WAITING))
            self.login.said.connect(lambda text: self._set(self.state, text))
            self.login.waiting_ended.connect(self._login_ended)

    def make_session(self) -> Session:
        """Build transport, capture and session (not started yet), so views can attach first. The session
        keeps no list of its events: :attr:`index` holds them (a bounded window in memory, the rest read back
        from the capture), so a session of millions of events stays in a few hundred MB."""
        transport = make_transport(self.target, authorizer=self.login.authorizer if self.login else None)
        if self.login is not None:
            self.login.bind(oauth_client_of(transport))
        from inspector.core.transports.stdio import StdioTransport  # loaded by make_transport for a stdio target

        if isinstance(transport, StdioTransport):
            transport.share_parses = True  # the tab's protocol judge reads the decoder's parse (issue 15)
            transport.keep_parse = self.keep_parse
        self.capture_path = self.captures / paths.capture_name(self.target.name)

        def index_of(writer: CaptureWriter | None) -> LiveIndex:
            assert writer is not None  # the window always saves its capture
            self.index = LiveIndex(writer)
            return self.index

        queue = self.intercept.queue
        self.session, writer = session_on(transport, self.capture_path, handler=self.handler, track_offsets=True,
                                          keeper=index_of, timeout_hint=timeout_hint(self.target),
                                          roots=roots_of(self.target.roots), name=self.target.name,
                                          interceptor=queue.interceptor, pauser=queue)
        queue.hold = functools.partial(hold_clock, self.session)  # a paused request's timeout clock stops
        self.intercept.rules_changed.connect(self._breakpoints_changed)
        assert writer is not None
        self.writer = writer
        self.exporter = otel_export.attach(self.session, writer.header)  # --otlp-endpoint: a span per request
        self.session.roots_list_changed = True  # the explorer's Roots page edits them and says so
        self.session.extensions = client_extension()  # the Apps tab renders MCP Apps: servers may offer them
        return self.session

    def _breakpoints_changed(self) -> None:
        """The capture says which breakpoints are in force from here on (a mark names its rule by number)."""
        if self.session is not None and not self.session.closed:
            breakpoints = self.intercept.breakpoints
            self.session.note(breakpoints.describe(), intercept_rules=[r.to_json() for r in breakpoints.rules.rules])

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
            if event.kind == Kind.LIFECYCLE and event.data.get("what") == Lifecycle.DISCONNECTED:
                self._set(CLOSED, str(event.data.get("reason") or "the server went away"))
                return

    def _request_failed(self, exc: TransportError) -> None:
        """A message the user sent failed: a note in the timeline (a timeout is noted by the session itself),
        and the sentence in the status line. A request the user cancelled has not failed: its row says so."""
        assert self.session is not None
        if isinstance(exc, RequestCancelled):
            return
        sentence = str(exc)
        if isinstance(exc, UnreadableResponse) and exc.too_large:
            sentence += "; Session > Message size limit… raises the limit for the next session"
        if not isinstance(exc, RequestTimeout):  # the session noted its timeout already
            self.session.note(sentence, failure=True)
        # once the session has ended, a send that fails because it has keeps the line's sentence: why it ended
        if self.state == READY or (self.state == CLOSED and not isinstance(exc, TransportClosed)):
            self._set(self.state, sentence, failure=True)

    def _sending(self) -> None:
        if self.state == READY and self.sentence:
            self._set(READY, "")  # the last request's failure is old news once the user sends again

    def _login_ended(self) -> None:
        """The login stopped waiting for the person (signed in, pasted, given up): its "waiting" sentence goes,
        in whatever state the session is (a second sign-in after Log out happens in a ready session)."""
        if self.sentence in (WAITING, NO_BROWSER):
            self._set(self.state, "")

    def _set(self, state: str, sentence: str = "", *, failure: bool = False) -> None:
        """Enter ``state`` and say ``sentence``; a FAILED state is always a failure."""
        self.state = state
        self.sentence = sentence
        self.failure = failure or state == FAILED
        self.state_changed.emit(state, sentence)

    async def _run(self) -> None:
        session = self.session
        assert session is not None
        self._set(STARTING, f"starting {self.target.describe()}")
        try:
            await session.start()
            await self._sign_in(session)
            self._set(INITIALIZING, "handshake")
            self.server = await session.handshake(self.target.handshake, self.target.protocol_version,
                                                  self.target.timeout)
        except TransportError as exc:
            if not isinstance(exc, RequestTimeout):  # the session noted its timeout already
                session.note(str(exc), failure=True)
            self._set(FAILED, str(exc) + _next_step(self.target, exc, session.counts["stderr"]))
            if self.reloads and not self._stopping:  # the next change starts it again, in this session
                await session.close()
                await self._until_over(session)
                if self.state == READY:
                    self._set(CLOSED, session.diagnosis() or "the connection closed")
            await self._finish()
            return
        except asyncio.CancelledError:
            await self._finish()
            raise
        except Exception as exc:  # a bug of ours: said in the status line, not lost in a task nobody awaits
            self._set(FAILED, f"the session stopped on an unexpected error ({type(exc).__name__}: {exc})")
            await self._finish()
            return
        self.server_known.emit(self.server)
        self._set(READY, "")
        await self._until_over(session)
        why = session.diagnosis() or "the connection closed"
        self._set(CLOSED, why)
        await self._finish()

    async def _until_over(self, session: Session) -> None:
        """Until the connection ends for good: a session that reloads waits, after its server exited (or a restart
        failed), for the next restart, and ends only when stopped."""
        while True:
            await session.wait_closed()
            if not (self.reloads or self._restarting) or self._stopping:
                return
            self._restarted.clear()
            if self._restarting or session.closed:
                await self._restarted.wait()

    @property
    def can_reload(self) -> bool:
        """Whether :meth:`reload` would restart the server: a stdio session not stopped, its run not over."""
        return self.session is not None and not self.target.is_http and not self._stopping and not self.finished

    def set_reloads(self, on: bool) -> None:
        """Whether the session lives on between servers (Reload on save). Turned off, a session whose server is
        gone (it exited, or a restart failed) ends now."""
        self.reloads = on
        if not on:
            self._restarted.set()

    def _new_transport(self) -> Any:
        """A transport for the restarted server, made as :meth:`make_session` made the first (the decoder's
        parses shared with the tab's judge, every message through the session's breakpoints)."""
        from inspector.core.intercept.transport import InterceptingTransport
        from inspector.core.transports.stdio import StdioTransport

        transport = make_transport(self.target)
        if isinstance(transport, StdioTransport):
            transport.share_parses = True
            transport.keep_parse = self.keep_parse
        queue = self.intercept.queue
        wrapper = InterceptingTransport(transport, queue.interceptor, pauser=queue)
        assert self.session is not None
        started = self.session.started_at
        wrapper.clock = lambda: time.monotonic() - started
        return wrapper

    async def reload(self, changed: list[str]) -> bool:
        """Restart the server in this session after ``changed`` files changed (a stdio session only): a lifecycle
        event names them, the old process ends, a new one starts and the handshake is done again, the capture
        going on as one; the calls the old server had not answered are then sent again to the new one
        (:meth:`Session.restart`), or fail saying it did not start. Says ``reloaded(ok, seconds)``; a server that
        does not come up leaves the session FAILED with the sentence, waiting for the next change. Never raises but
        for cancellation."""
        session = self.session
        if session is None or not self.can_reload or self._restarting:
            return False
        began = time.monotonic()
        self._restarting = True
        try:
            session.record(Event(Kind.LIFECYCLE, data={"what": Lifecycle.RELOADING, "changed": list(changed)}))
            self._set(STARTING, f"restarting {self.target.describe()}: {_files(changed)} changed")
            try:
                await session.restart(self._new_transport())
                self._set(INITIALIZING, "handshake")
                self.server = await session.handshake(self.target.handshake, self.target.protocol_version,
                                                      self.target.timeout)
            except TransportError as exc:
                if not isinstance(exc, RequestTimeout):
                    session.note(str(exc), failure=True)
                self._set(FAILED, str(exc) + _next_step(self.target, exc, session.counts["stderr"]))
                await session.close()  # a server that started but did not answer ends too: the next change retries
                self.reloaded.emit(False, time.monotonic() - began)
                return False
        finally:
            self._restarting = False
            self._restarted.set()
        self.server_known.emit(self.server)
        self._set(READY, "")
        self.reloaded.emit(True, time.monotonic() - began)
        return True

    async def _sign_in(self, session: Session) -> None:
        """An OAuth target without a usable token: sign in before the handshake, so a person's time in the browser is
        not counted against the handshake's timeout (nor cut by its probe's). One POST of a ``ping`` (the one
        request the spec allows before ``initialize``) draws the server's 401 and its challenge; the flow runs
        on it (each exchange and step in the timeline and the Auth tab) and the ping is sent again with the
        token. A server that does not refuse it is simply asked again during the handshake."""
        client = self.login.client if self.login is not None else None
        if client is None:
            return
        held = client.tokens
        if held is not None and (not held.expired() or held.refresh_token):
            return  # a token that works, or can be refreshed without a person
        self._set(STARTING, f"signing in to {self.target.describe()} with OAuth")
        ping = b'{"jsonrpc":"2.0","id":"mcp-inspector-sign-in","method":"ping"}'
        await session.http_probe("POST", content=ping, purpose="OAuth sign-in before the handshake",
                                 headers={"Content-Type": "application/json",
                                          "Accept": "application/json, text/event-stream"})

    async def _finish(self) -> None:
        if self.session is not None:
            try:
                await self.session.close()
            except TransportError:
                pass
        await otel_export.detach(self.exporter, self.session)
        if self.writer is not None:
            self.writer.close()

    @property
    def finished(self) -> bool:
        """Whether the session's run is over, its shutdown included (FAILED is said before the transport is
        closed and its process group reaped)."""
        return self._task is None or self._task.done()

    async def stop(self) -> None:
        """Shut the server down per its transport's rules, after the messages paused at a breakpoint went on
        unchanged; the capture stays."""
        self._stopping = True
        self._restarted.set()  # a run waiting for the next restart ends
        if self.login is not None:
            self.login.cancel()  # a login waiting for the browser closes its port now
        if self.intercept.release_all():  # what a breakpoint holds goes on unchanged before the session ends
            await self.intercept.queue.settled()
        if self.session is not None:
            await self.session.close()
        if self._task is not None:
            try:
                await wait_for(asyncio.shield(self._task), 10)
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


def _files(paths: list[str]) -> str:
    """``server.py`` or ``server.py and 2 more``: the changed files, by name."""
    names = [Path(p).name for p in paths] or ["a file"]
    return names[0] + (f" and {len(names) - 1} more" if len(names) > 1 else "")


def timeout_hint(target: Target) -> str:
    """How to wait longer, as a clause for the "no response" sentences: a profile's own setting, or the
    window's (Session > Request timeout…, or ``--timeout`` at start)."""
    from inspector.ui.timeout_dialog import TIMEOUT_SETTING

    if target.named_by_user:
        return "to wait longer, raise the response timeout in the server's profile"
    return f"to wait longer, raise {TIMEOUT_SETTING}"


def _next_step(target: Target, exc: TransportError, stderr_lines: int) -> str:
    """What the user can do about a session that could not start, by the kind of failure. A profile is named
    only when the session came from one; the stderr tab only when the server wrote something there."""
    profile = target.named_by_user
    if isinstance(exc, CommandNotFound):
        if profile:
            return " — check the command in the server's profile."
        return " — check the command's spelling, or give its full path."
    if isinstance(exc, ConnectionRefused):
        return " — start the server, or check the URL."
    if isinstance(exc, HttpStatusError) and exc.status == 401:
        if profile:
            return (" — tick OAuth in the server's profile to sign in, or add a token (Authorization header) "
                    "there.")
        return (" — sign in with OAuth (a profile with OAuth ticked, or --url URL --oauth), or add a token: "
                "-H 'Authorization: Bearer TOKEN'.")
    if isinstance(exc, TransportClosed) and not target.is_http and stderr_lines:
        return " — its stderr is in the stderr tab."
    return ""
