"""The transport interface every MCP transport implements (stdio here; HTTP ones build on it).

A transport moves bytes and reports *everything* it sees as :class:`~inspector.core.wire.events.Event` objects
through the ``emit`` callback the session gives it: messages in both directions, framing errors, stderr,
lifecycle. It does not assign sequence numbers or times; the session does. It never parses JSON-RPC beyond
framing: pairing and the protocol are the session's.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from typing import Any

from inspector.core.wire.events import Event

Emit = Callable[[Event], None]
EmitMany = Callable[[list[Event]], None]


class TransportError(Exception):
    """The transport cannot do what was asked; ``str(exc)`` is one sentence for the user."""


class TransportClosed(TransportError):
    """The connection is gone (the server exited, the stream closed)."""


# What went wrong, by type: callers that react differently (the window's next-step hints, a tap's exit
# status) test the class, never the sentence.


class CommandNotFound(TransportError):
    """The server's program cannot be found (not on PATH, no such file, a whole command line in one word)."""


class WholeCommandLine(CommandNotFound):
    """The program's name is a whole command line given as one word (``"python server.py"`` quoted whole)."""


class CannotRun(TransportError):
    """The server's program exists but cannot be run as given: a directory, not executable, permission denied,
    or a working directory that does not exist."""


class NoWorkingDirectory(CannotRun):
    """The working directory the server is to run in does not exist."""


class CannotConnect(TransportError):
    """No connection to the server's address could be made (a name that does not resolve, TLS refused, no
    answer to connecting, nothing listening)."""


class ConnectionRefused(CannotConnect):
    """Nothing is listening at the server's address."""


class HttpStatusError(TransportError):
    """An HTTP status that is not an MCP answer; ``status`` for callers that fall back on it or explain it."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class Transport(abc.ABC):
    """One connection to one server.

    Lifecycle: ``await start()`` once; ``await send(...)`` any number of times; ``await close()`` once
    (idempotent). ``closed`` becomes true when the connection ends, whoever ended it, and ``wait_closed()``
    waits for that.
    """

    #: ``"stdio"``, ``"sse"``, ``"streamable-http"``, ...: written into capture headers
    name: str = "?"

    def __init__(self) -> None:
        self.emit: Emit = lambda event: None
        #: events that arrived together (one read); same contract as ``emit``, cheaper per event
        self.emit_many: EmitMany = self._emit_each

    def _emit_each(self, events: list[Event]) -> None:
        for event in events:
            self.emit(event)

    @abc.abstractmethod
    def describe(self) -> dict[str, Any]:
        """What this transport connects to: the capture header's ``"target"``, with secrets redacted unless the
        transport was made with redaction off."""

    @abc.abstractmethod
    async def start(self) -> None:
        """Connect or launch; raises TransportError with a sentence if that fails."""

    @abc.abstractmethod
    async def send(self, data: bytes, *, raw: bool = False) -> None:
        """Send one message (without terminator). ``raw=True`` sends ``data`` exactly, newlines included."""

    async def send_decoded(self, data: bytes, events: list[Event]) -> None:
        """Send the complete message lines ``data`` (each ending with a newline) exactly as given, as
        ``send(data, raw=True)`` does; ``events`` are what decoding ``data`` makes of it, one per line, which the
        caller built itself (a load run: the same request again and again, made once). A transport that records
        what it writes by decoding it (stdio) may record these instead of decoding ``data`` again; by default
        they are not needed."""
        await self.send(data, raw=True)

    def can_send_now(self) -> bool:
        """Whether :meth:`send_decoded_now` would write at once (stdio: the pipe has nothing waiting, nothing is
        closing, no line is left open); by default never."""
        return False

    def send_decoded_now(self, data: bytes, events: list[Event]) -> None:
        """:meth:`send_decoded` without waiting, when :meth:`can_send_now` said it can (no ``await`` between
        the two); what the pipe could not take yet is written as the loop can, and the next send waits for it."""
        raise TransportError("this transport cannot write without waiting")

    @abc.abstractmethod
    async def close(self) -> None:
        """Shut down per the transport's spec; afterwards nothing of the connection is left."""

    @property
    @abc.abstractmethod
    def closed(self) -> bool: ...

    @abc.abstractmethod
    async def wait_closed(self) -> None: ...

    def on_handshake(self, era: str, protocol_version: str | None) -> None:  # noqa: B027 - an optional hook
        """The session tells the transport what the handshake settled (HTTP transports set headers from it)."""

    def on_ready(self) -> None:  # noqa: B027 - an optional hook
        """The handshake is complete (legacy: notifications/initialized was sent)."""

    async def cancel_request(self, msg_id: Any) -> bool:
        """Cancel a request at the transport level where the transport has a way (2026-07-28 HTTP closes the
        request's stream). Returns False when it has none, and the session sends notifications/cancelled."""
        return False

    def waiting_detail(self, msg_id: Any) -> str | None:
        """For a request that got no response in time: why, if the transport can tell, as a clause (stdio:
        "the server's process is stopped ...", "the server stopped reading its stdin ..."; Streamable HTTP:
        "its response stream is open and has sent 20 bytes ... but no complete event"); None otherwise."""
        return None

    def diagnosis(self, waiting_for: str | None = None) -> str | None:
        """Once closed: one sentence on why (exit code, last stderr lines), naming the request we were
        ``waiting_for`` if any; None while the connection is up."""
        return None

    def ending(self) -> str:
        """How the connection stands or ended, as a clause for a one-line summary (``transport sse; the
        server went away``, ``server exited with code 0``)."""
        gone = self.diagnosis()
        return f"transport {self.name}; {gone}" if gone else f"transport {self.name}"
