"""One real session against the target, as record would open it, kept whole for the steps to read.

The doctor does not imitate the transports: it runs the target's own transport (``make_transport``) and the
session's handshake, and reads what they recorded (the ``http`` events, the notes of ``--transport auto``, the
framing errors, the exit and stderr of a process) and the sentence they failed with. A stdio server that
completes the handshake is also pinged, so "it stays up" means it answered after the handshake too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inspector.core.connect.opened import session_on
from inspector.core.connect.target import Target, make_transport
from inspector.core.session.outcomes import ServerInfo
from inspector.core.transports.base import Transport, TransportError
from inspector.core.waiting import wait_for
from inspector.core.wire.events import Event, Kind

#: How long a stdio server that finished the handshake gets to answer the ping that shows it stays up.
STAY_UP_PING_TIMEOUT = 5.0
#: Bound on shutting the doctor's session down (a stdio server's own shutdown grace is inside it).
CLOSE_TIMEOUT = 10.0


@dataclass
class SessionRun:
    """What one session against the target came to."""

    transport: Transport | None  #: None when it could not even be made (its sentence is in ``error``)
    events: list[Event] = field(default_factory=list)
    server: ServerInfo | None = None  #: the handshake's result, when it completed
    error: TransportError | None = None  #: why the session failed (the transport's or the session's sentence)
    stage: str = ""  #: where it failed: ``make``, ``start``, ``handshake`` or ``ping`` ("" when it did not)
    #: the connection had ended by itself (a process exited, a server went away) before the doctor closed it
    ended: bool = False
    #: the transport's sentence on how it ended, taken before the doctor closed it (None while it was up)
    diagnosis: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def messages(self, direction: str) -> list[Event]:
        return [e for e in self.events if e.kind == Kind.MESSAGE and e.dir == direction]

    def http(self) -> list[Event]:
        """The HTTP exchanges of the connection itself (not the OAuth flow's), as their first events (not the
        ``phase: end`` of a stream)."""
        return [e for e in self.events if e.kind == Kind.HTTP and e.data.get("phase") != "end"
                and not e.data.get("auth_step")]

    def notes(self) -> list[str]:
        return [str(e.data.get("text", "")) for e in self.events if e.kind == Kind.NOTE]


async def run_session(target: Target, timeout: float) -> SessionRun:
    """Open a session to ``target`` (its own transport, no capture), do its handshake within ``timeout``, ping a
    stdio server once more, and close it; never raises a TransportError (it is in the result)."""
    try:
        transport = make_transport(target)
    except TransportError as exc:
        return SessionRun(None, error=exc, stage="make")
    session, _ = session_on(transport, None, keep_events=True)  # the doctor reads the transport's own state too
    run = SessionRun(transport, events=session.events)
    try:
        run.stage = "start"
        await session.start()
        run.stage = "handshake"
        run.server = await session.handshake(target.handshake, target.protocol_version, timeout)
        if not target.is_http:
            run.stage = "ping"
            await session.request("ping", timeout=min(timeout, STAY_UP_PING_TIMEOUT))
        run.stage = ""
    except TransportError as exc:
        run.error = exc
    finally:
        run.ended = transport.closed
        waiting = {"handshake": "the handshake", "ping": "the ping after the handshake"}.get(run.stage)
        run.diagnosis = transport.diagnosis(waiting)
        try:
            await wait_for(session.close(), CLOSE_TIMEOUT)
        except (TransportError, TimeoutError):
            pass  # what the doctor reports happened before; a server slow to stop changes none of it
    return run
