"""The event model: everything that crosses the wire, or happens to the connection, as one ordered stream.

Every event has a sequence number, a monotonic time since the session started, a wall-clock time, a kind,
a direction (for wire events) and the exact raw bytes it came from. Wire events keep their line terminator
separately, so that ``raw + eol`` of every stdout event, concatenated, reproduces the server's stdout.

Parsing is cached only as a small summary (:class:`RpcInfo`: kind, method, id); the parsed JSON tree is not
kept, so a long session costs about its raw bytes. :meth:`Event.json` re-parses on demand.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

#: Shared by every event without details: most events have none, and a dict each would cost ~64 bytes.
NO_DATA: Mapping[str, Any] = MappingProxyType({})


class Kind:
    """Event kinds, as written in captures (``"kind"``)."""

    MESSAGE = "message"  #: one JSON-RPC message (or batch) that parsed
    FRAMING_ERROR = "framing_error"  #: bytes on the message channel that are not a well-framed message
    STDERR = "stderr"  #: one line the server wrote to stderr
    LIFECYCLE = "lifecycle"  #: process or connection lifecycle: spawned, stdin closed, exited, ...
    NOTE = "note"  #: something the inspector itself says about the session (handshake chosen, timeout, ...)
    HTTP = "http"  #: one HTTP exchange (request line, headers, status, timing) or a failure to have one
    SSE = "sse"  #: a Server-Sent Event that carries no JSON-RPC message (endpoint, priming, unknown names)
    #: the MCP Apps lane: a message between an app (a ``ui://`` view) and the inspector as its host (``dir``
    #: ``a2h`` or ``h2a``), or what the app's sandbox did (``data.what``: rendered, blocked, console, ...)
    APP = "app"


class Lifecycle:
    """What a ``lifecycle`` event says happened, as written in captures (``data["what"]``).

    Code that acts on lifecycle events keys on these names; the strings are part of the capture format
    (docs/capture-format.md) and never change.
    """

    SPAWNED = "spawned"  #: the server's process started (pid, argv, executable, cwd, env)
    STDIN_CLOSED = "stdin_closed"  #: the inspector (or, in a tap, the client) closed the server's stdin
    SIGNAL = "signal"  #: a signal was sent to the server's process group
    EXITED = "exited"  #: the server's process ended (code, or signal)
    GROUP_LEFTOVERS = "group_leftovers"  #: processes of the server's group outlived it and were ended
    CONNECTING = "connecting"  #: a URL transport starts connecting (transport, url)
    DISCONNECTED = "disconnected"  #: the server cannot be reached any more (reason)
    REQUEST_FAILED = "request_failed"  #: the exchange carrying a request ended without an answer (request_id)
    STREAM_LOST = "stream_lost"  #: a request's response stream ended before its answer (request_id)
    CLOSED = "closed"  #: the inspector closed a URL transport's connection
    #: a watched file changed (changed: paths); the server behind the tap, or the window's session, starts again
    #: and the client keeps its session
    RELOADING = "reloading"


class NoteKey:
    """Keys of a ``note`` event's data that code acts on, as written in captures (docs/capture-format.md); like
    :class:`Lifecycle`, part of the capture format: they never change."""

    TEXT = "text"  #: the note's sentence
    REQUEST_ID = "request_id"  #: the request a note is about
    GAVE_UP = "gave_up"  #: true: the session stopped waiting for ``request_id`` (its timeout)
    CANCELLED = "cancelled"  #: the id of a request the session cancelled
    PAUSED = "paused"  #: ids whose clocks stopped while the user answers a server request ...
    WAITING_ON = "waiting_on"  #: ... this one (its id) ...
    WAITING_METHOD = "waiting_method"  #: ... of this method


class Direction:
    """Directions of wire events, as written in captures (``"dir"``)."""

    C2S = "c2s"  #: client (the inspector) to server
    S2C = "s2c"  #: server to client
    A2H = "a2h"  #: an MCP App to its host (the inspector), over postMessage: ``app`` events only
    H2A = "h2a"  #: the host to its MCP App: ``app`` events only


@dataclass(slots=True)
class RpcInfo:
    """The JSON-RPC summary of a message, computed once when it is decoded.

    ``kind`` is one of ``request``, ``notification``, ``response``, ``error``, ``batch`` or ``invalid``.
    ``id`` keeps its JSON type (``2`` and ``"2"`` are different ids); ``has_id`` tells ``"id": null`` apart
    from no id at all.
    """

    kind: str
    method: str | None = None
    id: Any = None
    has_id: bool = False
    size: int = 0  #: number of elements, for a batch


@dataclass(slots=True)
class Finding:
    """A protocol problem found on an event: a stable ``code`` and a sentence a person understands."""

    code: str
    text: str
    #: ``error``, ``warning``, or ``info`` (expected and explained: no problem, e.g. a refused probe)
    severity: str = "error"

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "text": self.text, "severity": self.severity}


class Event:
    """One thing that happened in a session. See ``docs/capture-format.md`` for how it is saved.

    ``raw`` is the exact bytes without the line terminator; ``eol`` is the terminator that followed them on
    the wire (``b"\\n"``, ``b"\\r\\n"`` or ``b""`` for an unterminated last line). For an oversized line,
    ``raw`` holds only the head and ``data`` records the total size and the tail.

    A plain ``__slots__`` class rather than a dataclass: a session can hold millions of these, and the shared
    read-only defaults for ``findings`` and ``data`` save two containers per event.
    """

    __slots__ = ("kind", "raw", "dir", "eol", "reason", "rpc", "findings", "data", "seq", "t", "wall")

    def __init__(self, kind: str, raw: bytes = b"", dir: str | None = None, eol: bytes = b"",
                 reason: str | None = None, rpc: RpcInfo | None = None,
                 findings: list[Finding] | tuple[Finding, ...] = (), data: Mapping[str, Any] = NO_DATA,
                 seq: int = 0, t: float = 0.0, wall: float = 0.0) -> None:
        self.kind = kind
        self.raw = raw
        self.dir = dir  #: ``c2s``, ``s2c`` or None
        self.eol = eol
        self.reason = reason  #: why a framing error is one, in one sentence
        self.rpc = rpc
        #: protocol findings; a shared empty tuple until the first :meth:`add_finding`
        self.findings = findings
        #: free-form details: lifecycle fields (pid, argv, code, ...), oversize info, latency, pairing.
        #: Read-only until the first :meth:`put` (then a dict of the event's own).
        self.data = data
        self.seq = seq  #: assigned by the session when the event is emitted
        self.t = t  #: seconds since the session started (monotonic clock)
        self.wall = wall  #: wall-clock time, seconds since the epoch

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__
                   if name not in ("findings", "data")) \
            and list(self.findings) == list(other.findings) and dict(self.data) == dict(other.data)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return (f"Event(seq={self.seq}, kind={self.kind!r}, dir={self.dir!r}, raw={self.raw[:80]!r}, "
                f"eol={self.eol!r}, reason={self.reason!r})")

    @property
    def size(self) -> int:
        """How many bytes the event's raw text has (``raw`` may hold only the start of them: see
        :class:`inspector.core.capture.index.PartialEvent`)."""
        return len(self.raw)

    def text(self) -> str:
        """The raw bytes as text, with undecodable bytes shown as U+FFFD (for display only)."""
        return self.raw.decode("utf-8", errors="replace")

    def json(self) -> Any:
        """Parse the raw bytes again; only meaningful for ``message`` events (raises ValueError otherwise)."""
        return json.loads(self.raw)

    @property
    def method(self) -> str | None:
        return self.rpc.method if self.rpc else None

    def add_finding(self, code: str, text: str, severity: str = "error") -> None:
        self.add_findings([Finding(code, text, severity)])

    def add_findings(self, findings: list[Finding]) -> None:
        self.findings = [*self.findings, *findings]

    def put(self, **items: Any) -> None:
        """Add details to ``data``."""
        data = self.data if type(self.data) is dict else dict(self.data)
        data.update(items)
        self.data = data

    def drop(self, key: str) -> None:
        if key in self.data:
            data = dict(self.data)
            del data[key]
            self.data = data


def params_of(event: Event) -> dict[str, Any]:
    """A message event's ``params`` object; empty when the event is no JSON object or has no object params."""
    try:
        params = event.json().get("params")
    except (ValueError, AttributeError):
        return {}
    return params if isinstance(params, dict) else {}
