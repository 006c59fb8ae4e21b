"""Where each request the client sent stands while it has no answer, learnt from the events that follow it.

A timeline row of a request without an answer says more than "pending": "waiting for your answer to
elicitation/create #4" while a server request it may belong to waits for the user (the session's ``paused``
note, until the user's answer or the server's cancel); "cancelled" (a ``notifications/cancelled`` naming it, or
the session's ``cancelled`` note); "no answer (timed out)" (the session's ``gave_up`` note); "HTTP 400" (its
POST's status) or "no answer (request failed)" / "(stream lost)"; and once the connection is over, "no answer
(connection closed)" (a new server spawned in the same session, reload on save, starts afresh: what is sent to it
is pending again). An answer that comes after a cancel or a timeout is still paired, and its latency says
"after cancel" / "after timeout".

:class:`RequestStates` works this out from the events alone, row by row, in the order they arrived, for a live
session and a capture read as it is written alike: no Qt, no clock (the caller formats "pending N s"). It is the
timeline model's (``inspector/ui/timeline/model.py``), which only turns these states into cell text.
"""

from __future__ import annotations

from typing import Any

from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind, Lifecycle, NoteKey
from inspector.core.wire.ids import IdKey, id_key, id_text

#: Lifecycle events after which nothing more can be answered: the connection is over.
CONNECTION_OVER = frozenset({Lifecycle.EXITED, Lifecycle.DISCONNECTED, Lifecycle.CLOSED})
#: Lifecycle events after which one request can no longer be answered, and how its row says it.
REQUEST_LOST = {Lifecycle.REQUEST_FAILED: "no answer (request failed)",
                Lifecycle.STREAM_LOST: "no answer (stream lost)"}
CANCELLED = "cancelled"
TIMED_OUT = "no answer (timed out)"
CONNECTION_CLOSED = "no answer (connection closed)"


def is_sent_request(event: Event) -> bool:
    """A request the inspector (or the tapped client) sent: the rows that wait for an answer."""
    rpc = event.rpc
    return rpc is not None and rpc.kind == jsonrpc.REQUEST and event.kind == Kind.MESSAGE \
        and event.dir == Direction.C2S


def cancelled_id(event: Event) -> Any:
    """The request a ``notifications/cancelled`` names (None when it names none)."""
    try:
        return event.json()["params"]["requestId"]
    except (ValueError, KeyError, TypeError):
        return None


class RequestStates:
    """The unanswered requests of one session and where each stands. Rows are positions in the session's
    event order; :meth:`observe` is called once per row, in order."""

    def __init__(self) -> None:
        self.pending: set[int] = set()  #: rows of sent requests without an answer yet
        self._by_id: dict[IdKey, int] = {}  # id -> row of the pending request with it
        self._by_exchange: dict[Any, int] = {}  # HTTP exchange -> row of the pending request it carries
        self._stopped: dict[int, tuple[int, str]] = {}  # row -> (row of the cancel or timeout, "cancel"/"timeout")
        self._failed: dict[int, str] = {}  # row -> why it cannot be answered ("HTTP 400", "no answer (...)")
        self._keys: dict[int, tuple[IdKey, Any]] = {}  # pending row -> (its id's key, its HTTP exchange)
        self._held: dict[int, dict[IdKey, str]] = {}  # row -> server requests the user is asked meanwhile
        self._holding: dict[IdKey, list[int]] = {}  # server request -> rows it holds
        self.closed = False  #: the connection is over: nothing pending will be answered

    # -- learning --------------------------------------------------------------------------------------

    def observe(self, row: int, event: Event, answers: int | None, has_answer: bool) -> list[int]:
        """Learn from row ``row``. ``answers``: the row of the request it answers (None if it answers none);
        ``has_answer``: a later row already answers it (a capture read back). Returns the rows of earlier
        requests whose state it changed (answered, cancelled, lost, waiting for the user...)."""
        changed: list[int] = []
        if answers is not None and answers in self.pending:
            self._settle(answers)
            changed.append(answers)
        elif is_sent_request(event) and not has_answer:
            self.pending.add(row)
            key = id_key(event.rpc.id if event.rpc is not None else None)
            exchange = event.data.get("exchange")
            self._by_id[key] = row
            if exchange is not None:
                self._by_exchange[exchange] = row
            self._keys[row] = (key, exchange)
        elif event.kind != Kind.STDERR:
            self._learn(row, event, changed)
        return changed

    def connection_ended(self) -> list[int]:
        """The connection is over (its lifecycle event, or the session closed or failed): every request still
        pending says "no answer (connection closed)". Returns the rows that changed (none the second time)."""
        if self.closed:
            return []
        self.closed = True
        return sorted(self.pending)

    def answered(self, row: int) -> None:
        """Row ``row`` turned out to be answered (its partner was found later): it is no longer pending."""
        self.pending.discard(row)

    # -- reading ---------------------------------------------------------------------------------------

    def unanswered(self, row: int) -> str | None:
        """Where a request without an answer stands, when it is not simply pending (None then)."""
        stopped = self._stopped.get(row)
        if stopped is not None:
            return CANCELLED if stopped[1] == "cancel" else TIMED_OUT
        failed = self._failed.get(row)
        if failed is not None:
            return failed
        if self.closed:
            return CONNECTION_CLOSED
        held = self._held.get(row)
        if held:
            return f"waiting for your answer to {next(iter(held.values()))}"
        return None

    def late(self, request: int | None, response: int) -> str:
        """" after cancel" / " after timeout" for an answer (row ``response``) that came after its request
        (row ``request``) was given up; "" otherwise."""
        stopped = self._stopped.get(request) if request is not None else None
        if stopped is None or stopped[0] > response:
            return ""
        return " after cancel" if stopped[1] == "cancel" else " after timeout"

    @property
    def any_stopped(self) -> bool:
        """Whether any request was cancelled or timed out (a cheap test before :meth:`late`)."""
        return bool(self._stopped)

    # -- internals -------------------------------------------------------------------------------------

    def _settle(self, row: int) -> None:
        """A pending request got its answer: it is no longer looked up by id or exchange."""
        self.pending.discard(row)
        key, exchange = self._keys.pop(row, (None, None))
        if key is not None and self._by_id.get(key) == row:
            del self._by_id[key]
        if exchange is not None and self._by_exchange.get(exchange) == row:
            del self._by_exchange[exchange]
        self._held.pop(row, None)

    def _learn(self, row: int, event: Event, changed: list[int]) -> None:
        kind = event.kind
        data = event.data
        if kind == Kind.MESSAGE:
            rpc = event.rpc
            if rpc is None:
                return
            if rpc.method == "notifications/cancelled":
                named = cancelled_id(event)
                if event.dir == Direction.C2S:
                    self._stop(named, row, "cancel", changed)
                else:  # the server withdrew its own request: the user is no longer asked
                    self._release(named, changed)
            elif event.dir == Direction.C2S and rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR) and self._holding:
                self._release(rpc.id, changed)  # the user answered
        elif kind == Kind.NOTE:
            if data.get(NoteKey.GAVE_UP):
                self._stop(data.get(NoteKey.REQUEST_ID), row, "timeout", changed)
            elif NoteKey.CANCELLED in data:
                self._stop(data[NoteKey.CANCELLED], row, "cancel", changed)
            elif isinstance(data.get(NoteKey.PAUSED), list):
                self._hold(data[NoteKey.PAUSED], data.get(NoteKey.WAITING_ON),
                           str(data.get(NoteKey.WAITING_METHOD) or ""), changed)
        elif kind == Kind.LIFECYCLE:
            what = data.get("what")
            if what in REQUEST_LOST:
                target = self._by_id.get(id_key(data.get("request_id")))
                if target is not None:
                    self._failed.setdefault(target, REQUEST_LOST[what])
                    changed.append(target)
            elif what in CONNECTION_OVER:
                changed.extend(self.connection_ended())
            elif what == Lifecycle.SPAWNED and self.closed:  # reload on save: a new server in the same session
                self._reopen()
        elif kind == Kind.HTTP:
            status = data.get("status")
            target = self._by_exchange.get(data.get("exchange"))
            if target is not None and isinstance(status, int) and status >= 400:
                self._failed.setdefault(target, f"HTTP {status}")  # its answer, unless a JSON-RPC error pairs
                changed.append(target)

    def _reopen(self) -> None:
        """A new server after the connection was over (a reload): what was pending keeps "no answer (connection
        closed)", and what is sent from now on is pending again."""
        for row in self.pending:
            self._failed.setdefault(row, CONNECTION_CLOSED)
        self.closed = False

    def _stop(self, msg_id: Any, row: int, how: str, changed: list[int]) -> None:
        target = self._by_id.get(id_key(msg_id))
        if target is not None and target < row:
            self._stopped.setdefault(target, (row, how))
            changed.append(target)

    def _hold(self, ids: list[Any], waiting_on: Any, method: str, changed: list[int]) -> None:
        key = id_key(waiting_on)
        what = f"{method} #{id_text(waiting_on)}"
        for msg_id in ids:
            target = self._by_id.get(id_key(msg_id))
            if target is not None:
                self._held.setdefault(target, {})[key] = what
                self._holding.setdefault(key, []).append(target)
                changed.append(target)

    def _release(self, waiting_on: Any, changed: list[int]) -> None:
        key = id_key(waiting_on)
        for target in self._holding.pop(key, []):
            held = self._held.get(target)
            if held is not None:
                held.pop(key, None)
                if not held:
                    del self._held[target]
            changed.append(target)
