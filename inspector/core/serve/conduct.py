"""The served session in time (sans-io): the twin's answers with faults, intercept rules and the capture's server
requests, each at the time it is due.

:class:`~inspector.core.serve.twin.Twin` answers at once and knows no time. A :class:`Conductor` sits between it
and a transport's loop (:mod:`inspector.core.serve.paced` on stdio; an HTTP host the same way) and says what
goes out when:

* :meth:`Conductor.receive` takes one decoded event of the client's (with the time), :meth:`Conductor.due`
  returns what is due by a time, in order (:class:`Item`: what to write and what to record),
  :meth:`Conductor.next_at` when something is due next. A host writes each ``s2c`` item whose ``write`` is
  true (a ``junk`` item as its transport breaks on: :func:`~inspector.core.serve.faults.junk_bytes`) and
  records every item.
* Intercept rules (``--rules``, :mod:`inspector.core.intercept`): the client's message meets the ``c2s`` rules
  before it is matched (changed, dropped, answered with an error, delayed), each message of the twin's meets the
  ``s2c`` rules before it is written; what is recorded is :func:`~inspector.core.intercept.records.records`'s
  list, as every host records.
* Faults (:class:`~inspector.core.serve.faults.Faults`, changeable while it runs): a dropped method gets
  nothing; an error-rate answer or an oversize padding takes the recorded answer's place; latency holds a
  request's answer (its notifications and server requests with it) while the others go on; junk comes before
  each answer; close-after ends the session (:attr:`Conductor.closing`) once the Nth request is answered;
  list-changed ticks once the handshake is answered.
* The capture's server requests (sampling, elicitation, roots) recorded while a request ran are sent before its
  answer, where the capture had them among its notifications, each with an id of the twin's; the answer waits
  for the client's answer to each (recorded, paired with the request). A client that never answers holds only
  that request's answer. Those recorded after a client's notification and before its next request (a roots/list
  after ``notifications/initialized``) follow that notification.
"""

from __future__ import annotations

import heapq
import itertools
import json
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from inspector.core.intercept.engine import Interceptor, Verdict
from inspector.core.intercept.records import records
from inspector.core.intercept.rules import Rules
from inspector.core.serve.batches import batch_route, faulted_batch
from inspector.core.serve.faults import Faults, fault_error
from inspector.core.serve.index import HANDSHAKE_METHODS
from inspector.core.serve.twin import Outgoing, Twin
from inspector.core.text import counted
from inspector.core.wire import intercepted, jsonrpc
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import NOT_PARSED, decode_line
from inspector.core.wire.ids import IdKey, id_key

LIST_CHANGED = b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}'
#: Roles of records that the peer never gets (recorded only).
_NOT_WRITTEN = frozenset({intercepted.ORIGINAL, intercepted.DROPPED, intercepted.HELD})


@dataclass(slots=True)
class Item:
    """One message of the session: ``dir`` ``c2s`` (the client's, recorded only) or ``s2c`` (the twin's, written
    when ``write``). ``mark`` is an intercept mark, ``served_from`` the seq of the recorded event it comes from,
    ``unmatched`` the sentence of a request without a recorded answer, ``fault`` the fault that made or
    withheld it, ``junk`` a junk item (no message: the host writes its transport's junk), ``event`` the
    client's decoded event, ``request`` the id of the client's request it answers or comes with (an HTTP host
    sends it on that request's stream, which ends with the response to it; an item of no request goes on the
    standalone stream)."""

    dir: str
    line: bytes
    write: bool = True
    mark: dict[str, Any] | None = None
    served_from: int | None = None
    unmatched: str | None = None
    fault: str | None = None
    junk: bool = False
    event: Event | None = None
    request: Any = None  #: the id of the client's request this item answers or comes with (None: of none)
    #: when it happened on the conductor's clock (a client's message: when it came; the twin's: when it was due
    #: and taken), so a host records it then and not when it got round to it
    at: float | None = None
    #: how the client's multi-round retry differs from the recorded one (its answer is the recorded round)
    differs: str | None = None


@dataclass(frozen=True, slots=True)
class _ServerRequest:
    row: int
    seq: int


@dataclass
class _Chain:
    """What answering one request sends, in order; it stops at a server request until the client answers it."""

    steps: list[Item | _ServerRequest]
    request: Any = None


@dataclass
class Conductor:
    """The twin's session in time (see the module)."""

    twin: Twin
    faults: Faults = field(default_factory=Faults)
    rules: Rules | None = None
    interceptor: Interceptor | None = field(init=False, default=None)
    requests: int = 0  #: requests of the client's taken (close-after counts them)
    closing: str | None = None  #: the sentence once close-after ended the session
    sent_server_requests: int = 0
    answered_server_requests: int = 0
    faulted: Counter[str] = field(default_factory=Counter)  #: fault name -> how many messages it made or withheld
    _heap: list[tuple[float, int, bool, Callable[[float], None]]] = field(default_factory=list)
    _order: itertools.count[int] = field(default_factory=itertools.count)
    _outbox: list[Item] = field(default_factory=list)
    _waiting: dict[IdKey, _Chain] = field(default_factory=dict)
    _next_id: int = 0
    _handshaken: bool = False
    _ticking: bool = False

    def __post_init__(self) -> None:
        if self.rules is not None:
            self.interceptor = Interceptor(self.rules)

    # -- the host's side -----------------------------------------------------------------------------------

    def receive(self, event: Event, parsed: Any = NOT_PARSED, now: float = 0.0) -> None:
        """Take one event of the client's (``parsed``: the decoder's parse of it, when it kept one) at ``now``."""
        made = len(self._outbox)
        interceptor = self.interceptor
        if interceptor is None or not interceptor.active or event.kind != Kind.MESSAGE:
            self._take(event, parsed, now, None)
        else:
            verdict = interceptor.decide(Direction.C2S, event.raw)
            if verdict.delay > 0:
                self._at(now + verdict.delay, lambda t: self._delivered(event, parsed, verdict, now, t))
            else:
                self._delivered(event, parsed, verdict, None, now)
        for item in self._outbox[made:]:
            if item.at is None:
                item.at = now

    def due(self, now: float) -> list[Item]:
        """What is due by ``now``, in order (what :meth:`receive` made at once included)."""
        heap = self._heap
        while heap and heap[0][0] <= now:
            _, _, _, run = heapq.heappop(heap)
            run(now)
        self._tick_if_due(now)
        out, self._outbox = self._outbox, []
        for item in out:
            if item.at is None:
                item.at = now
        return out

    def answered_before(self, handshakes: int) -> None:
        """``handshakes`` requests of the handshake were answered before the conductor took over (by
        :mod:`inspector.core.serve.early`, which answers only when there are no faults nor rules): counted as its
        own."""
        self.requests += handshakes
        if handshakes:
            self._handshaken = True

    def next_at(self) -> float | None:
        """When something is due next (None: only when the client sends something)."""
        return self._heap[0][0] if self._heap else None

    def settled(self) -> bool:
        """Nothing is held to be sent later (list_changed ticks and answers waiting on the client aside)."""
        return not any(counts for _, _, counts, _ in self._heap)

    @property
    def finished(self) -> bool:
        """close-after ended the session and everything it answered went out."""
        return self.closing is not None and self.settled() and not self._waiting

    def summary(self) -> list[str]:
        """Lines for the end of the session (faults, server requests), for a person."""
        return summary_lines(self.faulted, self.sent_server_requests, self.answered_server_requests)

    # -- the client's messages -----------------------------------------------------------------------------

    def _delivered(self, event: Event, parsed: Any, verdict: Verdict, arrived: float | None, now: float) -> None:
        """A client's message after the ``c2s`` rules: what the twin gets, if anything."""
        delivered = None
        for record in records(Direction.C2S, event.raw, verdict, arrived=arrived):
            if record.dir == Direction.S2C:  # an error rule answered the request in the twin's place
                self._outbox.append(Item(Direction.S2C, record.raw, mark=record.mark,
                                         request=event.rpc.id if event.rpc is not None else None))
            elif record.mark is not None and record.mark["role"] in _NOT_WRITTEN:
                self._outbox.append(Item(Direction.C2S, record.raw, write=False, mark=record.mark,
                                         event=event if record.raw == event.raw else None))
            else:
                delivered = record
        if delivered is not None:
            same = delivered.raw == event.raw
            self._take(event if same else decode_line(delivered.raw, Direction.C2S), parsed if same else NOT_PARSED,
                       now, delivered.mark)

    def _take(self, event: Event, parsed: Any, now: float, mark: dict[str, Any] | None) -> None:
        item = Item(Direction.C2S, event.raw, write=False, mark=mark, event=event)
        self._outbox.append(item)
        rpc = event.rpc if event.kind == Kind.MESSAGE else None
        if rpc is not None and rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR):
            chain = self._waiting.pop(id_key(rpc.id), None)
            if chain is not None:  # the client's answer to a server request: the request's answer goes on
                self.answered_server_requests += 1
                self._run(chain, now)
            return
        request = rpc is not None and rpc.kind == jsonrpc.REQUEST
        if request and self.closing is not None:
            return  # close-after: the session is over, the client's late requests are recorded unanswered
        method = (rpc.method or "") if rpc is not None else ""
        if rpc is not None and rpc.kind == jsonrpc.BATCH:
            if self.closing is None:
                self._batch(event, parsed, now)
            return
        if request:
            self.requests += 1
            if method in self.faults.drop:
                item.fault = "drop"
                self.faulted["drop"] += 1
                self._count_close()
                return
        outgoing = self.twin.receive(event, parsed)
        for out in outgoing:
            if out.unmatched is not None:
                item.unmatched = out.unmatched
            if out.differs is not None:
                item.differs = out.differs
        if not request:
            steps: list[Item | _ServerRequest] = [_item(out) for out in outgoing]
            if rpc is not None and rpc.kind == jsonrpc.NOTIFICATION:
                steps = self._after_notification(steps)
            self._run(_Chain(steps), now)
            return
        self._answer(rpc.id if rpc is not None else None, method, outgoing, now)
        self._count_close()

    def _answer(self, request_id: Any, method: str, outgoing: list[Outgoing], now: float) -> None:
        """The twin's answer to a request (with what comes before and after it), faulted, in time."""
        faults = self.faults
        handshake = method in HANDSHAKE_METHODS
        steps: list[Item | _ServerRequest] = [_item(out) for out in outgoing]
        at = 0
        hit = self.twin.last_hit
        if hit is not None:
            answer_seq = self.twin.index.seq(hit[1])
            at = next((n for n, out in enumerate(outgoing) if out.served_from == answer_seq), 0)
        if hit is not None:
            steps, at = self._with_server_requests(steps, at, hit)
        if not handshake and faults.errs():
            steps, at = [Item(Direction.S2C, _dumps(fault_error(request_id, faults.spec("error-rate"))),
                              fault="error-rate")], 0
            self.faulted["error-rate"] += 1
        elif not handshake and faults.oversize is not None:
            answer = steps[at]
            assert isinstance(answer, Item)
            padded = faults.padded(json.loads(answer.line))
            if padded is not None:
                answer.line, answer.fault = _dumps(padded), "oversize"
                self.faulted["oversize"] += 1
        if faults.junk:
            steps.insert(at, Item(Direction.S2C, b"", junk=True, fault="junk"))
            self.faulted["junk"] += 1
        for step in steps:
            if isinstance(step, Item):
                step.request = request_id
        chain = _Chain(steps, request_id)
        delay = faults.delay()
        if delay > 0:
            self.faulted["latency"] += 1
            self._at(now + delay, lambda t: self._run(chain, t))
        else:
            self._run(chain, now)
        if handshake:
            self._handshaken = True

    def _batch(self, event: Event, parsed: Any, now: float) -> None:
        """The twin's answer to a JSON-RPC batch, faulted (:func:`~inspector.core.serve.batches.faulted_batch`),
        in time; what it sends goes where the batch waits (an HTTP host's POST: :func:`batch_route`)."""
        read = parsed if parsed is not NOT_PARSED else _parsed(event)
        members = read if isinstance(read, list) else []
        route = batch_route(members)
        asked = len(route) - 1 if route is not None else 0
        faults = self.faults
        items: list[Item] = []
        for out in self.twin.receive(event, read):  # read once: the twin does not parse the batch again
            step = _item(out)
            if out.line.startswith(b"["):
                errors = self.faulted["error-rate"]
                line = faulted_batch(out.line, members, faults, self.faulted)
                if line is None:  # every request dropped: no answer at all
                    continue
                if line != out.line:  # named by what faulted_batch counted, not by the text (a recorded -32603)
                    step.line, step.fault = line, "error-rate" if self.faulted["error-rate"] > errors else "drop"
                if faults.junk:
                    items.append(Item(Direction.S2C, b"", junk=True, fault="junk"))
                    self.faulted["junk"] += 1
            items.append(step)
        for item in items:
            item.request = route
        chain = _Chain(list(items), route)
        delay = faults.delay() if asked else 0.0
        if delay > 0:
            self.faulted["latency"] += 1
            self._at(now + delay, lambda t: self._run(chain, t))
        else:
            self._run(chain, now)
        self.requests += asked
        self._count_close()

    def _with_server_requests(self, steps: list[Item | _ServerRequest], at: int,
                              hit: tuple[int, int]) -> tuple[list[Item | _ServerRequest], int]:
        """``steps`` with the server requests recorded between the request and its answer put before the answer,
        among the notifications by their place in the capture."""
        rows = self.twin.index.server_request_rows
        first, last = bisect_right(rows, hit[0]), bisect_left(rows, hit[1])
        if first >= last:
            return steps, at
        index = self.twin.index
        asked = [_ServerRequest(row, index.seq(row)) for row in rows[first:last]]
        before = sorted([*steps[:at], *asked], key=lambda step: step.seq if isinstance(step, _ServerRequest)
                        else (step.served_from or 0))
        return [*before, *steps[at:]], len(before)

    def _after_notification(self, steps: list[Item | _ServerRequest]) -> list[Item | _ServerRequest]:
        """``steps`` (what follows a client's notification) with the server requests recorded after it and before
        the client's next answered request (the roots/list a server sends once initialized), in recorded order."""
        row = self.twin.last_notified
        rows = self.twin.index.server_request_rows
        if row is None or not rows:
            return steps
        requests = self.twin.index.requests
        at = bisect_right(requests, row)
        end = requests[at] if at < len(requests) else None
        first = bisect_right(rows, row)
        last = bisect_left(rows, end) if end is not None else len(rows)
        if first >= last:
            return steps
        index = self.twin.index
        asked = [_ServerRequest(r, index.seq(r)) for r in rows[first:last]]
        return sorted([*steps, *asked], key=lambda step: step.seq if isinstance(step, _ServerRequest)
                      else (step.served_from or 0))

    def _count_close(self) -> None:
        limit = self.faults.close_after
        if limit is not None and self.requests >= limit and self.closing is None:
            self.closing = f"the twin ended after {self.requests:,} requests, as --fault close-after={limit} asked"
            self.faulted["close-after"] += 1

    # -- what the twin sends -------------------------------------------------------------------------------

    def _run(self, chain: _Chain, now: float) -> None:
        steps = chain.steps
        while steps:
            step = steps.pop(0)
            if isinstance(step, Item):
                self._send([step], now)
                continue
            self._next_id += 1
            message = self.twin.index.message(step.row)
            message["id"] = self._next_id
            if self._send([Item(Direction.S2C, _dumps(message), served_from=step.seq, request=chain.request)], now):
                self.sent_server_requests += 1
                self._waiting[id_key(self._next_id)] = chain
                return

    def _send(self, items: list[Item], now: float) -> bool:
        """Send ``items`` through the ``s2c`` rules; whether the last one goes to the client (now or later)."""
        goes = False
        interceptor = self.interceptor
        for item in items:
            if item.junk or interceptor is None or not interceptor.active:
                self._outbox.append(item)
                goes = True
                continue
            verdict = interceptor.decide(Direction.S2C, item.line)
            goes = bool(verdict.out)
            if verdict.delay > 0:
                self._at(now + verdict.delay, partial(self._later, item, verdict, now))
            else:
                self._carry(item, verdict, None)
        return goes

    def _later(self, item: Item, verdict: Verdict, arrived: float, now: float) -> None:
        self._carry(item, verdict, arrived)

    def _carry(self, item: Item, verdict: Verdict, arrived: float | None) -> None:
        for record in records(Direction.S2C, item.line, verdict, arrived=arrived):
            if record.dir == Direction.C2S:  # an error rule answered a server request in the client's place
                self._outbox.append(Item(Direction.C2S, record.raw, write=False, mark=record.mark))
                continue
            written = record.mark is None or record.mark["role"] not in _NOT_WRITTEN
            self._outbox.append(Item(Direction.S2C, record.raw, write=written, mark=record.mark,
                                     served_from=item.served_from, fault=item.fault, request=item.request))

    # -- time ----------------------------------------------------------------------------------------------

    def _at(self, when: float, run: Callable[[float], None], counts: bool = True) -> None:
        heapq.heappush(self._heap, (when, next(self._order), counts, run))

    def _tick_if_due(self, now: float) -> None:
        period = self.faults.list_changed
        if period is not None and self._handshaken and not self._ticking:
            self._ticking = True
            self._at(now + period, self._tick, counts=False)

    def _tick(self, now: float) -> None:
        period = self.faults.list_changed
        if period is None:  # cleared while it ran
            self._ticking = False
            return
        self.faulted["list-changed"] += 1
        self._send([Item(Direction.S2C, LIST_CHANGED, fault="list-changed")], now)
        self._at(now + period, self._tick, counts=False)


def summary_lines(faulted: Counter[str], sent: int, answered: int) -> list[str]:
    """:meth:`Conductor.summary` of these counts (an HTTP host adds up its sessions')."""
    lines = []
    if faulted:
        lines.append("faults: " + ", ".join(f"{name} {count:,}" for name, count in sorted(faulted.items())))
    if sent:
        lines.append(f"{counted(sent, 'request')} of the server's (sampling, elicitation, roots) sent to the client, "
                     f"{answered:,} answered")
    return lines


def _item(out: Outgoing) -> Item:
    return Item(Direction.S2C, out.line, served_from=out.served_from)


def _parsed(event: Event) -> Any:
    try:
        return event.json()
    except ValueError:
        return None


def _dumps(message: Any) -> bytes:
    """As the twin writes a message (json: an integer past 64 bits in a recorded message stays what it was)."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8", errors="surrogatepass")
