"""Every session a command or the window opens is built here: :func:`new_session` on a target (its transport
made, with its credentials), :func:`session_on` on a transport already made (replay, the doctor and the window,
which read or set the transport's own state), each with its capture opened and its server requests' answers
given; :func:`opened` for a headless command that does several things on one session (``diff --against``,
``baseline``, ``run``, ``load``): the server started and the handshake done, closed again, capture and all,
when the ``async with`` ends.

They raise :class:`CannotOpen` with the exit status (:data:`inspector.core.exits.RECORD_EXITS`: 2 unusable input,
3 cannot start or connect, 4 no answer in time, 5 a handshake refused with an error, 1 any other failure, as
:func:`inspector.core.session.outcomes.failure_exit` says) and one sentence; what went wrong after the start is
also a note in the capture.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from inspector.core.capture.pipeline import Keeper
from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.connect.target import Target, make_transport
from inspector.core.exits import EXIT_BAD_INPUT
from inspector.core.intercept.engine import Interceptor
from inspector.core.intercept.transport import InterceptingTransport, Pauser
from inspector.core.session.answers import AnswerPolicy
from inspector.core.session.outcomes import HandshakeError, failure_exit
from inspector.core.session.server_requests import ServerRequestHandler
from inspector.core.session.session import DEFAULT_TIMEOUT_HINT, Session
from inspector.core.transports.base import Transport, TransportError
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind

if TYPE_CHECKING:  # OAuth is loaded only when a target signs in
    from inspector.core.auth.authorize import Authorizer
    from inspector.core.auth.model import OAuthOptions


class CannotOpen(Exception):
    """The session could not be opened; ``exit_code`` says why as the commands' statuses do, ``str()`` in one
    sentence."""

    def __init__(self, exit_code: int, sentence: str) -> None:
        super().__init__(sentence)
        self.exit_code = exit_code


class _LastAnswer:
    """Whether the server's last answer was an error (a handshake refused with one is status 5)."""

    def __init__(self) -> None:
        self.was_error = False

    def saw(self, events: list[Event]) -> None:
        for event in events:
            rpc = event.rpc
            if event.kind == Kind.MESSAGE and rpc is not None and event.dir == Direction.S2C and \
                    rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR):
                self.was_error = rpc.kind == jsonrpc.ERROR


def open_capture(transport: Transport, out: Path | None, *, stream: IO[str] | None = None,
                 track_offsets: bool = False, what: str = "the capture", **header: object) -> CaptureWriter | None:
    """The capture ``out`` opened for a session on ``transport`` (none when None; its header names the transport
    and gets ``header``'s fields). Raises :class:`CannotOpen` (status 2) with one sentence naming ``what``."""
    if out is None:
        return None
    try:
        return CaptureWriter(out, make_header(transport.describe(), **header), stream=stream,
                             track_offsets=track_offsets)
    except OSError as exc:
        raise CannotOpen(EXIT_BAD_INPUT, f"cannot write {what} {out}: {exc.strerror or exc}") from None


def session_on(transport: Transport, out: Path | None, *, handler: ServerRequestHandler | None = None,
               stream: IO[str] | None = None, track_offsets: bool = False, what: str = "the capture",
               keeper: Callable[[CaptureWriter | None], Keeper] | None = None,
               roots: list[dict[str, str]] | None = None, keep_events: bool = False,
               timeout_hint: str = DEFAULT_TIMEOUT_HINT, header: Mapping[str, object] | None = None,
               interceptor: Interceptor | None = None, pauser: Pauser | None = None,
               **fields: object) -> tuple[Session, CaptureWriter | None]:
    """A session on a built ``transport``, not started yet: the server's requests answered by ``handler``, the
    capture ``out`` opened (:func:`open_capture`, its header given ``header``'s and ``fields``' fields) and its
    events kept by ``keeper(writer)`` if given. With ``interceptor``, every message each way goes through it
    (:class:`~inspector.core.intercept.transport.InterceptingTransport`, paused ones decided by ``pauser``) and
    the capture header keeps the rules in force (``intercept_rules``). The caller closes the session, then the
    writer. Raises :class:`CannotOpen` (status 2) with one sentence."""
    wrapper: InterceptingTransport | None = None
    if interceptor is not None:
        wrapper = InterceptingTransport(transport, interceptor, pauser=pauser)
        fields = {**fields, "intercept_rules": [rule.to_json() for rule in interceptor.rules.rules]}
        transport = wrapper
    writer = open_capture(transport, out, stream=stream, track_offsets=track_offsets, what=what,
                          **{**(header or {}), **fields})
    session = Session(transport, capture=writer, roots=roots, keep_events=keep_events, server_request_handler=handler,
                      timeout_hint=timeout_hint, keeper=keeper(writer) if keeper is not None else None)
    if wrapper is not None:
        started = session.started_at
        wrapper.clock = lambda: time.monotonic() - started
    return session, writer


def new_session(target: Target, out: Path | None, *, answers: dict[str, str] | None = None,
                handler: ServerRequestHandler | None = None,
                authorizer: Callable[[OAuthOptions], Authorizer] | None = None,
                **options: Any) -> tuple[Session, CaptureWriter | None]:
    """A session on ``target`` not started yet, the one way a command or the window builds one: its transport
    made (with ``authorizer`` for a sign-in in the window), the server's requests answered by ``handler`` or the
    ``--answer`` policies ``answers``, and the rest as :func:`session_on` (``options``: the capture's stream and
    header fields, the keeper, roots, the timeout hint). Raises :class:`CannotOpen` (status 2) with one sentence;
    the error it stands for is its ``__cause__``."""
    try:
        transport = make_transport(target, authorizer=authorizer)
        if handler is None:
            handler = AnswerPolicy.parse(answers or {})
    except (TransportError, ValueError) as exc:
        raise CannotOpen(EXIT_BAD_INPUT, str(exc)) from exc
    return session_on(transport, out, handler=handler, **options)


@asynccontextmanager
async def opened(target: Target, out: Path | None, *, answers: dict[str, str] | None = None,
                 roots: list[dict[str, str]] | None = None, keep_events: bool = False,
                 capabilities: dict[str, Any] | None = None, **header: object) -> AsyncIterator[Session]:
    """A session on ``target`` whose handshake is done, saving to the capture ``out`` (none when None; the
    capture header gets ``header``'s fields besides the target); it declares ``capabilities`` when given
    (:attr:`Session.declared`). Raises :class:`CannotOpen`."""
    session, writer = new_session(target, out, answers=answers, roots=roots, keep_events=keep_events,
                                  header=header)
    session.declared = capabilities
    last = _LastAnswer()
    session.listeners.append(last.saw)
    started = False
    try:
        try:
            await session.start()
            started = True
            await session.handshake(target.handshake, target.protocol_version, target.timeout)
        except TransportError as exc:
            session.note(str(exc), failure=True)
            refused = isinstance(exc, HandshakeError) and last.was_error
            raise CannotOpen(failure_exit(exc, started=started, connected=False, refused=refused), str(exc)) from None
        session.listeners.remove(last.saw)  # only the handshake's answers matter (a load run's are many)
        yield session
    finally:
        await session.close()
        if writer is not None:
            writer.close()
