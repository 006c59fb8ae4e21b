"""The event pipeline: every event a session or a tap records passes through here, in order.

For each batch (what one read produced, so its events share one time): number (``seq``), time (``t``,
``wall``), pair (:class:`~inspector.core.wire.correlation.Correlator`: ``reply_to``, ``latency``,
``request_method`` and id findings on responses), count, save (an optional
:class:`~inspector.core.capture.writer.CaptureWriter`), keep (an optional list) and announce (listeners,
plain callables called with the batch). Used by :class:`~inspector.core.session.session.Session`, which
stamps batches with its own clock, and by the tap's recorder (:mod:`inspector.core.tap.recorder`), which
passes the times the relay read the bytes: one set of rules, so a capture says the same whichever wrote it.

An event is complete before it is saved: everything that annotates it (the decoder's framing findings, the
pairing and its findings) has happened when the capture gets it, and nothing here changes it afterwards.

A probe's refusal is negotiation, not a fault: over HTTP a server that speaks only revisions before 2026-07-28
answers ``server/discover`` with a 4xx, often carrying a JSON-RPC error whose id is null (it has no session to
read the id in). That HTTP answer and that error get an ``info`` finding saying so, and the error loses its
``id-null`` finding (red elsewhere).

The batch rule depends on the negotiated revision (only 2025-03-26 allows batches); the pipeline learns it
from the answer to ``initialize``, whoever sent it. A session that learns it otherwise (``server/discover``)
sets ``correlator.protocol_version`` itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from inspector.core.capture.writer import CaptureWriter
from inspector.core.wire import jsonrpc
from inspector.core.wire.correlation import Correlator
from inspector.core.wire.events import Direction, Event, Kind, Lifecycle
from inspector.core.wire.framing import server_broke_framing
from inspector.core.wire.intercepted import HELD, MARK, delivered, mark_of

#: Called with each batch of new events, after they are numbered, paired, counted, saved and kept.
Listener = Callable[[list[Event]], None]


class Keeper(Protocol):
    """Where the pipeline keeps what it saw: a list, or a :class:`~inspector.core.capture.live.LiveIndex`."""

    def extend(self, events: Iterable[Event], /) -> None: ...


#: What the pipeline's owner may have to react to: an event, and for a response the request it answers.
Reaction = tuple[Event, Event | None]

#: Lifecycle events after which a request can no longer be answered (its HTTP exchange or stream failed).
_REQUEST_LOST = (Lifecycle.REQUEST_FAILED, Lifecycle.STREAM_LOST)
#: Requests a client sends to learn what the server speaks: a 4xx to them over HTTP is an answer, not a fault.
PROBE_METHODS = frozenset({"server/discover"})


class EventPipeline:
    """Numbers, times, pairs, counts, saves, keeps and announces batches of events.

    ``counts`` holds ``c2s`` and ``s2c`` (messages each way), ``framing_errors`` (the server's: not a line
    our own stop cut short, which ``cut_by_stop`` counts), ``stderr`` (lines) and ``findings`` (problems of
    severity ``error``).
    """

    def __init__(self, capture: CaptureWriter | None = None, keep: Keeper | None = None) -> None:
        self.capture = capture
        self.kept = keep  #: every event, in order, when given a list (or a live index)
        self.listeners: list[Listener] = []
        #: called with each batch before anything else, while its events may still change (after this they are
        #: numbered and saved, and never change again): what the owner adds to them (replay: ``replay_of``)
        self.annotators: list[Listener] = []
        self.correlator = Correlator()
        self.counts = {"c2s": 0, "s2c": 0, "framing_errors": 0, "cut_by_stop": 0, "stderr": 0, "findings": 0}
        self.seq = 0  #: the seq of the last event
        self._probes: dict[object, str] = {}  # HTTP exchange -> probe method, until its HTTP answer
        self._refused: dict[object, str] = {}  # HTTP exchange -> what its 4xx said, for the error in its body

    def push(self, events: list[Event], t: float, wall: float) -> list[Reaction]:
        """Take one batch, stamped ``t`` (seconds since the start) and ``wall`` (epoch seconds).

        Returns what the owner may have to react to, in order: every message that is not a notification,
        with the request it answers (None for a request, and for a response that answers nothing), every
        framing error and every lifecycle event. Notifications, stderr and notes are left out: during a flood of
        notifications the list stays empty.
        """
        for annotate in self.annotators:
            annotate(events)
        seq = self.seq
        observe = self.correlator.observe
        counts = self.counts
        reactions: list[Reaction] = []
        for event in events:
            seq += 1
            event.seq = seq
            event.t = t
            event.wall = wall
            kind = event.kind
            if kind == Kind.MESSAGE:
                counts[event.dir or "s2c"] += 1
                rpc = event.rpc
                if rpc is not None and rpc.kind != jsonrpc.NOTIFICATION and MARK in event.data:
                    self._intercepted(event, reactions)
                elif rpc is not None and rpc.kind != jsonrpc.NOTIFICATION:
                    if rpc.method in PROBE_METHODS and "exchange" in event.data and event.dir == Direction.C2S:
                        self._probes[event.data["exchange"]] = rpc.method or ""
                    elif self._refused and rpc.kind == jsonrpc.ERROR and event.dir == Direction.S2C:
                        self._explain_refusal(event)
                    request = observe(event)
                    if request is not None and request.rpc is not None and request.rpc.method == "initialize":
                        self._learn_revision(event)
                    if rpc.kind == jsonrpc.BATCH and self.correlator.batch_answers:
                        reactions += [(batch_answer(event, item, answered), answered)
                                      for item, answered in self.correlator.batch_answers]
                    reactions.append((event, request))
            elif kind == Kind.FRAMING_ERROR:
                counts["framing_errors" if server_broke_framing(event) else "cut_by_stop"] += 1
                reactions.append((event, None))
            elif kind == Kind.STDERR:
                counts["stderr"] += 1
            elif kind == Kind.HTTP and self._probes:
                self._probe_answered(event)
            elif kind == Kind.LIFECYCLE:
                if event.data.get("what") in _REQUEST_LOST:
                    self.correlator.forget(Direction.C2S, event.data.get("request_id"))
                reactions.append((event, None))
            if event.findings:
                counts["findings"] += sum(1 for f in event.findings if f.severity == "error")
        self.seq = seq
        if self.capture is not None:
            self.capture.write_many(events)
        if self.kept is not None:
            self.kept.extend(events)
        for listener in self.listeners:
            listener(events)
        return reactions

    def _intercepted(self, event: Event, reactions: list[Reaction]) -> None:
        """A message an intercept rule acted on (:mod:`inspector.core.wire.intercepted`): one its peer never got
        is not paired and asks for no reaction; a held request is paired (the inspector's answer answers it) and
        asks for none (its peer never got it to act on)."""
        if not delivered(event.data):
            return
        request = self.correlator.observe(event)
        if (mark_of(event.data) or {}).get("role") != HELD:
            reactions.append((event, request))

    def _probe_answered(self, event: Event) -> None:
        """The HTTP answer to a probe: a 4xx is the expected refusal of a server that speaks older revisions."""
        exchange = event.data.get("exchange")
        status = event.data.get("status")
        method = self._probes.get(exchange)
        if method is None or not isinstance(status, int) or event.data.get("phase") == "end":
            return
        del self._probes[exchange]
        if any(finding.code == "oauth" for finding in event.findings):
            return  # a 401 that starts the OAuth flow: the probe is sent again once authorized
        if 400 <= status < 500:
            text = (f"the server refused our {method} probe with HTTP {status}: expected negotiation with a server "
                    "that speaks only revisions before 2026-07-28, not a fault")
            self._refused[exchange] = text
            event.add_finding("probe-refused", text, "info")

    def _explain_refusal(self, event: Event) -> None:
        """The JSON-RPC error in the body of a refused probe: explained, and its id null is no fault there."""
        text = self._refused.pop(event.data.get("exchange"), None)
        if text is None:
            return
        event.findings = [f for f in event.findings if f.code != "id-null"]
        event.add_finding("probe-refused", text, "info")

    def _learn_revision(self, response: Event) -> None:
        """The revision the server chose in its answer to ``initialize`` decides whether batches are allowed."""
        try:
            version = response.json().get("result", {}).get("protocolVersion")
        except (ValueError, AttributeError):
            return
        if isinstance(version, str):
            self.correlator.protocol_version = version


def batch_answer(batch: Event, item: dict[str, Any], request: Event) -> Event:
    """One answer inside a JSON-RPC batch the server sent, as the response its request waits for (2025-03-26:
    "MUST support receiving JSON-RPC batches", https://modelcontextprotocol.io/specification/2025-03-26/basic).
    It is a view for whoever waits, never saved: the capture keeps the batch, one event, as it came; its
    ``seq`` is the batch's, so an exchange shown from it points at the saved line."""
    raw = json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode("utf-8", errors="surrogatepass")
    info, _ = jsonrpc.classify(item)
    answer = Event(Kind.MESSAGE, raw=raw, dir=batch.dir, seq=batch.seq, t=batch.t, wall=batch.wall,
                   data={"reply_to": request.seq, "in_batch": batch.seq})
    answer.rpc = info
    return answer
