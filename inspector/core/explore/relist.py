"""When to list a kind again after the server says it changed: the explorer's rule, without I/O and without Qt.

A server announces ``notifications/tools/list_changed`` (and the resources and prompts ones) only if it declared
``listChanged`` for that capability (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#capabilities:
"listChanged indicates whether the server will emit notifications when the list of available tools changes").
One that sends it without declaring breaks that rule: the protocol judge flags it
(``server-capability-undeclared``), and the explorer does not list again for it. And whatever a server sends,
one list is listed again at most once every :data:`MIN_RELIST_INTERVAL`: a server that answers every
``tools/list`` with a ``list_changed`` (1,538 listings in 12 s before this rule) or floods the notification gets
one listing a second, which still shows the latest list.

:class:`RelistPolicy` decides; its owner (:class:`~inspector.core.explore.catalog.Catalog`) tells it what
happens (a change, a listing that starts or ends) with the time, and does the listing when told to, after the
delay the policy gives. The policy never reads a clock nor sleeps, so its tests need neither.
"""

from __future__ import annotations

from typing import Any

from inspector.core.explore.listing import LIST_CHANGED, LISTS

#: Seconds between the starts of two listings of one kind that a server's notifications cause: a server cannot
#: make the explorer list one list more often than this, however many notifications it sends.
MIN_RELIST_INTERVAL = 1.0
#: What a list_changed makes stale: the spec has no separate notification for resource templates.
STALE_WITH = {"resources": ("resources", "templates")}


def declares_list_changed(capabilities: Any, kind: str) -> bool:
    """Whether ``capabilities`` (the server's, from initialize) say it announces changes of ``kind``'s list:
    ``{"tools": {"listChanged": true}}`` for tools (templates change with resources)."""
    if not isinstance(capabilities, dict):
        return False
    capability = capabilities.get(LISTS[kind][2])
    return isinstance(capability, dict) and capability.get("listChanged") is True


def stale_kinds(method: str) -> tuple[str, ...]:
    """The kinds a list_changed notification ``method`` makes stale (none for any other method)."""
    kind = LIST_CHANGED.get(method)
    if kind is None:
        return ()
    return STALE_WITH.get(kind, (kind,))


class RelistPolicy:
    """Per kind: is a listing under way, when did the last one start, is a change waiting, is a listing
    scheduled. Every method takes ``now`` (seconds on any monotonic clock) and those that can ask for a
    listing return the delay after which the owner is to call :meth:`due` (None: nothing to schedule)."""

    def __init__(self, interval: float = MIN_RELIST_INTERVAL) -> None:
        self.interval = interval
        self._last_start: dict[str, float] = {}
        self._listing: set[str] = set()
        self._waiting: set[str] = set()  #: a change came that no listing under way or scheduled covers yet
        self._scheduled: set[str] = set()
        self._unsent: set[str] = set()  #: listings under way whose first request has not gone out yet

    def changed(self, kind: str, now: float) -> float | None:
        """The server said ``kind`` changed. Returns the delay of the listing to schedule, or None when one is
        under way (it is followed by another once it ends) or already scheduled (it will show this change)."""
        if kind in self._scheduled:
            return None
        if kind in self._listing:
            self._waiting.add(kind)
            return None
        self._scheduled.add(kind)
        return self._delay(kind, now)

    def due(self, kind: str, now: float) -> bool:
        """A scheduled listing's time came: whether to list now (False: a listing started meanwhile, and the
        change that scheduled this one waits for it to end). True also counts the listing as started at
        ``now``: the owner starts it at once, and a change that arrives before its request goes out waits for it
        rather than scheduling another (two listings 6 ms apart, seen in a window test)."""
        self._scheduled.discard(kind)
        if kind in self._listing:
            self._waiting.add(kind)
            return False
        self.started(kind, now)
        return True

    def dropped(self, kind: str) -> None:
        """The listing scheduled for ``kind`` will not happen (its owner stopped listening)."""
        self._scheduled.discard(kind)

    def started(self, kind: str, now: float) -> None:
        """A listing of ``kind`` starts (any: the first, one a change caused): it will show every change so far."""
        self._listing.add(kind)
        self._waiting.discard(kind)
        self._last_start[kind] = now
        self._unsent.add(kind)

    def sent(self, kind: str, now: float) -> None:
        """The first request of the listing of ``kind`` under way went out at ``now``: the next listing is paced
        from here, so two requests on the wire are a whole interval apart however long the first took to leave
        (a busy loop delayed one by 60 ms, and the two went out 0.94 s apart)."""
        if kind in self._unsent and kind in self._listing:
            self._unsent.discard(kind)
            self._last_start[kind] = max(self._last_start.get(kind, now), now)

    def finished(self, kind: str, now: float) -> float | None:
        """The listing of ``kind`` ended. Returns the delay of the next one if a change came while it ran."""
        self._listing.discard(kind)
        self._unsent.discard(kind)
        if kind not in self._waiting or kind in self._scheduled:
            return None
        self._waiting.discard(kind)
        self._scheduled.add(kind)
        return self._delay(kind, now)

    def busy(self) -> bool:
        """A listing is under way or scheduled."""
        return bool(self._listing or self._scheduled)

    def _delay(self, kind: str, now: float) -> float:
        last = self._last_start.get(kind)
        return 0.0 if last is None else max(0.0, last + self.interval - now)
