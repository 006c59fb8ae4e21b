"""A session opened on a target for a headless command that does several things on it (``diff --against``,
``baseline``, ``run``, ``load``): the transport made, the capture opened, the server started and the handshake
done; closed again, capture and all, when the ``async with`` ends.

:func:`opened` raises :class:`CannotOpen` with the exit status (:data:`inspector.core.exits.RECORD_EXITS`: 2
unusable input, 3 cannot start or connect, 4 no answer in time, 5 a handshake refused with an error, 1 any
other failure, as :func:`inspector.core.session.record.failure_exit` says) and one sentence; what went wrong
is also a note in the capture.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.exits import EXIT_BAD_INPUT
from inspector.core.session.answers import AnswerPolicy
from inspector.core.session.outcomes import HandshakeError
from inspector.core.session.record import failure_exit
from inspector.core.session.session import Session
from inspector.core.session.target import Target, make_transport
from inspector.core.transports.base import TransportError
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind


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


def new_session(target: Target, out: Path | None, *, answers: dict[str, str] | None = None,
                roots: list[dict[str, str]] | None = None, keep_events: bool = False,
                **header: object) -> tuple[Session, CaptureWriter | None]:
    """A session on ``target`` not started yet: its transport made, the ``--answer`` policies parsed, the capture
    ``out`` opened (none when None; its header gets ``header``'s fields besides the target). The caller closes
    the session, then the writer. Raises :class:`CannotOpen` (status 2) with one sentence."""
    try:
        transport = make_transport(target)
        handler = AnswerPolicy.parse(answers or {})
    except (TransportError, ValueError) as exc:
        raise CannotOpen(EXIT_BAD_INPUT, str(exc)) from None
    writer = None
    if out is not None:
        try:
            writer = CaptureWriter(out, make_header(transport.describe(), **header))
        except OSError as exc:
            raise CannotOpen(EXIT_BAD_INPUT, f"cannot write the capture {out}: {exc.strerror or exc}") from None
    session = Session(transport, capture=writer, roots=roots, keep_events=keep_events, server_request_handler=handler)
    return session, writer


@asynccontextmanager
async def opened(target: Target, out: Path | None, *, answers: dict[str, str] | None = None,
                 roots: list[dict[str, str]] | None = None, keep_events: bool = False,
                 capabilities: dict[str, Any] | None = None, **header: object) -> AsyncIterator[Session]:
    """A session on ``target`` whose handshake is done, saving to the capture ``out`` (none when None; the
    capture header gets ``header``'s fields besides the target); it declares ``capabilities`` when given
    (:attr:`Session.declared`). Raises :class:`CannotOpen`."""
    session, writer = new_session(target, out, answers=answers, roots=roots, keep_events=keep_events, **header)
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
        yield session
    finally:
        await session.close()
        if writer is not None:
            writer.close()
