"""The events a check session keeps in memory: what the probes and the report read, within a bound.

A check's session saves every event to its capture, but keeps in memory only what its probes look at again
(:meth:`KeptEvents.since`) and what the report names: everything the inspector sent, every HTTP exchange,
lifecycle event and note, every answer to one of its requests, and of the rest (notifications, framing errors,
stderr, SSE comments, answers to nothing, the server's own requests) the first :data:`OTHER_EVENTS`. An event
of more than :data:`SLIM_BYTES` is kept as a slim copy of its head: the request that waits for it gets the
event itself, whole, and the report shows a few hundred characters of it. So a server that floods a gigabyte
of notifications or junk lines costs the check a bounded amount of memory (issue 26: 6.6 GB and 12.3 GB for
1 GB of stdout before), while the capture keeps every byte.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind

#: Events of the kinds no probe waits for that are kept (the first ones; the rest are in the capture only).
OTHER_EVENTS = 2_000
#: Answers from the server to no request of ours (an unknown or repeated id) that are kept.
STRAY_ANSWERS = 2_000
#: An event with more raw bytes than this is kept as a copy of its first SLIM_BYTES.
SLIM_BYTES = 64 * 1024

_ALWAYS = frozenset({Kind.HTTP, Kind.LIFECYCLE, Kind.NOTE})


class KeptEvents:
    """A session's keeper (:class:`~inspector.core.capture.pipeline.Keeper`) for ``check``: :attr:`events` in
    seq order, bounded as the module says; :attr:`dropped` counts what was left to the capture."""

    def __init__(self, other_events: int = OTHER_EVENTS, stray_answers: int = STRAY_ANSWERS,
                 slim_bytes: int = SLIM_BYTES) -> None:
        self.events: list[Event] = []
        self.dropped = 0
        self._other = other_events
        self._stray = stray_answers
        self._slim_bytes = slim_bytes

    def extend(self, events: Iterable[Event], /) -> None:
        for event in events:
            if self._wanted(event):
                self.events.append(self._slim(event) if len(event.raw) > self._slim_bytes else event)
            else:
                self.dropped += 1

    def since(self, mark: int) -> list[Event]:
        """The kept events with a seq above ``mark``."""
        return self.events[bisect.bisect_right(self.events, mark, key=_seq):]

    def _wanted(self, event: Event) -> bool:
        if event.dir == Direction.C2S or event.kind in _ALWAYS:
            return True
        rpc = event.rpc
        if event.kind == Kind.MESSAGE and rpc is not None and rpc.kind != jsonrpc.NOTIFICATION:
            if "reply_to" in event.data:
                return True  # the answer to one of our requests
            if self._stray > 0:
                self._stray -= 1
                return True
            return False
        if self._other > 0:
            self._other -= 1
            return True
        return False

    def _slim(self, event: Event) -> Event:
        """A copy of ``event`` with the head of its bytes (never saved: the capture has the event whole)."""
        data = {k: v for k, v in event.data.items() if not isinstance(v, (bytes, dict))}
        data["kept_bytes"] = self._slim_bytes
        data["total_bytes"] = len(event.raw)
        slim = Event(event.kind, raw=event.raw[: self._slim_bytes], dir=event.dir, eol=event.eol, reason=event.reason,
                     rpc=event.rpc, findings=list(event.findings), data=data, seq=event.seq, t=event.t,
                     wall=event.wall)
        return slim


def _seq(event: Event) -> int:
    return event.seq
