"""The protocol judge: fed a session's events in order (live, or from a capture), it says which break the
schema of the negotiated revision or a lifecycle rule (:mod:`inspector.core.protocol.rules`).

Events are immutable once saved (docs/architecture.md), so the judge never writes into them: its findings are
kept beside the events, by ``seq`` (:attr:`ProtocolJudge.findings`), and announced to listeners after each
batch. Findings the wire layer already put on an event (ids, batches, HTTP answers) stay on the event;
:func:`findings_of` gives both together.

A message over :data:`DEFER_BYTES` is not parsed on the hot path: its state rules are judged from its summary
(method, id) at once, and its schema waits in :attr:`ProtocolJudge.deferred` until the owner calls
:meth:`ProtocolJudge.judge_deferred` (``lint`` and ``show`` at the end) or
:meth:`ProtocolJudge.judge_deferred_off_loop` (the window: parsed and checked in a worker process,
:mod:`inspector.core.offload`, so the event loop never parses it).

The revision: the one the server chose in its answer to ``initialize`` or that ``server/discover`` and the
requests' ``_meta`` name (2026-07-28). Before it is known, ``initialize`` is judged against the revision it
asks for; other messages are judged against ``revision`` if the owner gave one (``lint --revision``), else
their schema is not judged.
"""

from __future__ import annotations

import json
import json.scanner
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspector.core import offload
from inspector.core.protocol import revisions
from inspector.core.protocol.extensions import extension_methods
from inspector.core.protocol.messages import for_revision
from inspector.core.protocol.promises import Promises
from inspector.core.protocol.rules import BY_ID, DEPRECATED
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Finding, Kind
from inspector.core.wire.framing import NOT_PARSED
from inspector.core.wire.ids import id_key

#: Messages larger than this are schema-judged later, off the hot path (parsing and validating a 50 MB
#: result holds the interpreter for seconds).
DEFER_BYTES = 1 << 20
_ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
#: Requests either side may send before the handshake completes.
_EARLY = frozenset({"initialize", "ping", "server/discover"})
_META_VERSION = "io.modelcontextprotocol/protocolVersion"
_META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
_META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
_META_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"
#: 2026-07-28: the notifications a subscriptions/listen filter governs, and the filter field that asks for each
_FILTERED = {"notifications/tools/list_changed": "toolsListChanged",
             "notifications/prompts/list_changed": "promptsListChanged",
             "notifications/resources/list_changed": "resourcesListChanged",
             "notifications/resources/updated": "resourceSubscriptions"}

#: method -> (the server capability it needs, the sub-capability or None), for what the client asks
_CLIENT_USES = {
    "tools/list": ("tools", None), "tools/call": ("tools", None),
    "prompts/list": ("prompts", None), "prompts/get": ("prompts", None),
    "resources/list": ("resources", None), "resources/read": ("resources", None),
    "resources/templates/list": ("resources", None), "resources/subscribe": ("resources", "subscribe"),
    "resources/unsubscribe": ("resources", "subscribe"), "logging/setLevel": ("logging", None),
    "completion/complete": ("completions", None),
}
#: method -> (the server capability it needs, sub-capability), for what the server announces
_SERVER_ANNOUNCES = {
    "notifications/tools/list_changed": ("tools", "listChanged"),
    "notifications/prompts/list_changed": ("prompts", "listChanged"),
    "notifications/resources/list_changed": ("resources", "listChanged"),
    "notifications/resources/updated": ("resources", "subscribe"),
    "notifications/message": ("logging", None),
}
#: method -> (the client capability it needs, sub-capability)
_SERVER_ASKS = {"sampling/createMessage": ("sampling", None), "elicitation/create": ("elicitation", None),
                "roots/list": ("roots", None)}
_CLIENT_ANNOUNCES = {"notifications/roots/list_changed": ("roots", "listChanged")}


@dataclass(frozen=True, slots=True)
class ProtocolFinding:
    """One rule broken by one event: its ``seq``, the rule's id, severity and a sentence."""

    seq: int
    rule: str
    severity: str
    text: str
    path: str = ""  #: the JSON path inside the message, for schema findings
    revision: str = ""

    def as_finding(self) -> Finding:
        return Finding(self.rule, self.text, self.severity)


Listener = Callable[[list[ProtocolFinding]], None]


@dataclass(slots=True)
class _Pending:
    method: str
    seq: int
    progress_token: Any = None
    log_level: bool = False


class ProtocolJudge:
    """Judges events in order; see the module's notes. ``revision`` is the one to assume until the session
    names one (None: messages before negotiation are not schema-judged, except ``initialize``)."""

    def __init__(self, revision: str | None = None, *, defer_bytes: int = DEFER_BYTES) -> None:
        self.assumed = revision
        self.revision: str | None = None  #: the negotiated revision, once known
        self.defer_bytes = defer_bytes
        self.findings: dict[int, list[ProtocolFinding]] = {}
        self.listeners: list[Listener] = []
        self.deferred: list[tuple[Event, str, str | None]] = []  #: (event, revision, answering method)
        self.counts: dict[str, int] = {}  #: rule id -> findings
        self._requested: str | None = None
        self._handshake_era = False
        self._init_answered = False
        self._initialized = False
        self._init_id: Any = None
        self._server_caps: dict[str, Any] | None = None
        self._client_caps: dict[str, Any] | None = None
        self._pending: dict[str, dict[tuple[str, Any], _Pending]] = {Direction.C2S: {}, Direction.S2C: {}}
        self._issued: dict[str, set[tuple[str, Any]]] = {Direction.C2S: set(), Direction.S2C: set()}
        self._progress: dict[tuple[str, Any], float | None] = {}  # active token -> last progress value
        self._new: list[ProtocolFinding] = []
        self._meta_by_exchange: dict[Any, tuple[Event, str]] = {}  # HTTP exchange -> (request, _meta revision)
        #: deprecated features already said (once a session), and those seen before the revision was known
        self._deprecations_said: set[str] = set()
        self._deprecations_early: list[tuple[Event, str]] = []
        #: subscriptions/listen requests by id: their filter, and whether the server acknowledged them yet
        self._listens: dict[tuple[str, Any], tuple[dict[str, Any], list[bool]]] = {}
        #: (revision, method) -> the yes/no check of its request or notification (None: none to run)
        self._fast: dict[tuple[str, str | None], Any] = {}
        #: method -> (revision or None, what verdict() checks its notifications with then, the verdicts from the
        #: server and from the client)
        self._verdict_checks: dict[str | None, tuple[str | None, Any, Verdict, Verdict]] = {}
        #: (revision, method, direction) -> this judge's verdict "its schema check passed"
        self._valid: dict[tuple[str | None, str | None, str], Verdict] = {}
        #: what requests in flight asked of their answers (outputSchema, requestedSchema) and tool names
        self._promises = Promises()

    # -- feeding ------------------------------------------------------------------------------------------

    def feed(self, events: Iterable[Event | None], parsed: Sequence[Any] | None = None,
             fetch: Callable[[int], Event] | None = None) -> list[ProtocolFinding]:
        """Judge a batch (in order); returns the new findings and announces them to the listeners.

        ``parsed``, when given, holds what the decoder parsed of each event, in the same order (see
        :class:`inspector.core.wire.framing.Batch`; :data:`NOT_PARSED` where it did not): the judge reads
        those instead of parsing each message again, and never changes or keeps them. They must be the parse
        of exactly the event's bytes, which a decoder's batch guarantees. With ``fetch``, an event may be None
        where its value is a :class:`Verdict` (the pacer does not read those rows back): ``fetch(i)`` gives
        the ``i``-th event if the judge needs it after all."""
        self._new = []
        if parsed is None:
            for event in events:
                assert event is not None
                if event.kind == Kind.MESSAGE and event.rpc is not None and event.dir is not None:
                    self._message(event, NOT_PARSED)
                elif event.kind in (Kind.HTTP, Kind.SSE):
                    self._transport_event(event)
        else:
            listed = events if isinstance(events, list) else list(events)
            if len(listed) != len(parsed):
                raise ValueError(f"{len(listed)} events but {len(parsed)} parses")
            self._feed_parsed(listed, parsed, fetch)
        new = self._new
        if new:
            for listener in self.listeners:
                listener(new)
        return new

    def _feed_parsed(self, events: list[Event | None], parsed: Sequence[Any],
                     fetch: Callable[[int], Event] | None) -> None:
        # A notification whose method changes no state (neither the judge's nor what its rules read) is judged
        # against the same state as the one before it, as long as only such notifications came between: if its
        # (method, direction) found nothing then, its rules find nothing now. `quiet` holds those pairs, and is
        # emptied by every other message (any of which may change the state).
        # A Verdict (see verdict()) stands for a parse whose schema check passed when it was decoded, for one
        # (revision, method, direction): it holds when it is this judge's and its revision is the one the judge
        # judges by now; otherwise the message is parsed again from its bytes and judged in full. Only a
        # non-stateful notification without wire findings gets one, so its rules read nothing of the body, and
        # a run of the same verdict after a quiet one costs an identity test (`last`), with no event read.
        message, judge, defer = Kind.MESSAGE, self._message, self.defer_bytes
        quiet: set[tuple[str | None, str]] = set()
        now = self.revision if self.revision is not None else self.assumed  # only _message changes it
        last: Any = _UNKNOWN  # the last verdict found quiet in this batch (same pair, same state)
        for i, value in enumerate(parsed):
            if value is last:
                continue
            if type(value) is Verdict and value.judge is self and value.revision == now:
                if value.pair in quiet or self._rules_quiet(self._event_at(events, i, fetch), value.method, {}):
                    quiet.add(value.pair)
                    last = value
                continue
            event = self._event_at(events, i, fetch)
            rpc = event.rpc
            if event.kind != message or rpc is None or event.dir is None:
                if event.kind in (Kind.HTTP, Kind.SSE):
                    self._transport_event(event)
                continue
            if type(value) is Verdict:
                value = NOT_PARSED  # another judge's, or checked against another revision: parsed again
            if rpc.kind != _NOTIFICATION or value is NOT_PARSED or len(event.raw) > defer \
                    or rpc.method in _STATEFUL_NOTIFICATIONS:
                quiet.clear()
                last = _UNKNOWN
                judge(event, value)
                now = self.revision if self.revision is not None else self.assumed
                continue
            if now is not None and value is not None:  # the schema, as _message's direct route
                self._schema(event, value, now, None)
            pair = (rpc.method, event.dir)
            if pair not in quiet and self._rules_quiet(event, rpc.method, value if isinstance(value, dict) else {}):
                quiet.add(pair)

    @staticmethod
    def _event_at(events: list[Event | None], i: int, fetch: Callable[[int], Event] | None) -> Event:
        """The ``i``-th event of a batch, read back with ``fetch`` when the pacer left it out (a verdict's row)."""
        event = events[i]
        if event is None:
            assert fetch is not None
            event = fetch(i)
        return event

    def _rules_quiet(self, event: Event, method: str | None, body: dict[str, Any]) -> bool:
        """Run a notification's rules; True when they found nothing."""
        found = len(self._new)
        self._notification(event, method or "", body)
        return len(self._new) == found

    def verdict(self, event: Event, value: Any) -> Any:
        """What a decoder should keep of its parse of ``event`` until :meth:`feed` reaches it (the decoder's
        ``keep``, :class:`inspector.core.wire.framing.Batch`), called while the parse is fresh: for a notification
        that changes no state, carries no wire finding and passes its schema's generated check against the
        revision the judge would use now, a shared :class:`Verdict` for its (revision, method, direction) (no
        parse tree outlives its line: held parses were the judged flood's garbage-collector cost, issue 15);
        else the value itself. :meth:`feed` reads a verdict as the check passing only when the revision is
        still the same by then, and parses the message again otherwise, so the findings are exactly those of
        judging the bytes. Only the verdict's revision is read from the judge's state, and nothing is changed."""
        rpc = event.rpc
        # (a parsed line with a JSON-RPC summary is a message: only its findings and size are asked)
        if rpc is None or rpc.kind != _NOTIFICATION or event.findings or len(event.raw) > self.defer_bytes:
            return value
        revision = self.revision if self.revision is not None else self.assumed
        entry = self._verdict_checks.get(rpc.method)
        if entry is None or entry[0] != revision:
            entry = self._verdict_checks[rpc.method] = self._verdict_check(revision, rpc.method)
        check = entry[1]
        if check is None or not check(value):
            return value  # judged in full when fed (rare: invalid, stateful, or a method the revision lacks)
        return entry[2] if event.dir == _S2C else entry[3] if event.dir == _C2S else value

    def _verdict_check(self, revision: str | None, method: str | None) -> tuple[str | None, Any, Verdict, Verdict]:
        """(``revision``, what :meth:`verdict` runs on a notification of ``method`` while the judge uses that
        revision (None: keep the parse), this judge's verdict for it from the server, and from the client)."""
        verdicts = []
        for direction in (Direction.S2C, Direction.C2S):
            key = (revision, method, direction)
            valid = self._valid.get(key)
            if valid is None:
                valid = self._valid[key] = Verdict(self, revision, method, direction)
            verdicts.append(valid)
        check = None if method in _STATEFUL_NOTIFICATIONS else \
            _always if revision is None else _fast_check(revision, method)
        return revision, check, verdicts[0], verdicts[1]

    def judge_deferred(self, limit: int | None = None) -> list[ProtocolFinding]:
        """Schema-judge the big messages set aside (at most ``limit`` of them); announces what it found."""
        self._new = []
        count = len(self.deferred) if limit is None else min(limit, len(self.deferred))
        todo, self.deferred = self.deferred[:count], self.deferred[count:]
        for event, revision, answering in todo:
            obj = _parse(event)
            if obj is not None:
                self._schema(event, obj, revision, answering)
        new = self._new
        if new:
            for listener in self.listeners:
                listener(new)
        return new

    async def judge_deferred_off_loop(self) -> list[ProtocolFinding]:
        """Schema-judge the big messages set aside, each parsed and checked in the worker process (in place
        when workers are off); announces the findings of each as it comes. The messages are taken at once:
        a second call meanwhile judges only those deferred after."""
        todo, self.deferred = self.deferred, []
        found: list[ProtocolFinding] = []
        for event, revision, answering in todo:
            if event.rpc is None:
                continue
            violations = await offload.run(schema_violations, event.raw, revision, event.rpc.kind,
                                           event.rpc.method, answering)
            self._new = []
            for sentence, path in violations:
                self._add(event, "schema", sentence, path=path, revision=revision)
            new = self._new
            if new:
                found.extend(new)
                for listener in self.listeners:
                    listener(new)
        return found

    def of(self, seq: int) -> list[ProtocolFinding]:
        return self.findings.get(seq, [])

    # -- one message --------------------------------------------------------------------------------------

    def _message(self, event: Event, value: Any) -> None:
        rpc = event.rpc
        assert rpc is not None and event.dir is not None
        if rpc.kind == _NOTIFICATION and value is not NOT_PARSED and len(event.raw) <= self.defer_bytes:
            # the common case (a flood is notifications), parsed by the decoder: what the general path below
            # does for it, without the steps that cannot apply, and the schema's generated check called here
            revision = self.revision if self.revision is not None else self.assumed
            if revision is not None and value is not None:
                self._schema(event, value, revision, None)
            self._notification(event, rpc.method or "", value if isinstance(value, dict) else {})
            return
        big = event.size > self.defer_bytes
        if big or rpc.kind == jsonrpc.INVALID:
            obj = None
        elif value is NOT_PARSED:
            obj = _parse(event)
        else:
            obj = value
        if rpc.kind == jsonrpc.BATCH:
            return  # batches: their JSON-RPC rules are the wire layer's (batch-not-allowed)
        answering = event.data.get("request_method") if rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR) else None
        revision = self._schema_revision(rpc.kind, rpc.method, obj)
        if revision is not None and rpc.kind != jsonrpc.INVALID:
            if big:
                self.deferred.append((event, revision, answering))
            elif obj is not None:
                self._schema(event, obj, revision, answering)
        body = obj if isinstance(obj, dict) else {}
        if rpc.kind == jsonrpc.REQUEST:
            self._request(event, rpc.method or "", rpc.id, body)
        elif rpc.kind == jsonrpc.NOTIFICATION:
            self._notification(event, rpc.method or "", body)
        elif rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR) and rpc.has_id:
            self._response(event, rpc.kind, rpc.id, answering, body)

    def _schema_revision(self, kind: str, method: str | None, obj: Any) -> str | None:
        if self.revision is not None:
            return self.revision
        if kind == jsonrpc.REQUEST and method == "initialize" and isinstance(obj, dict):
            asked = _get(obj, "params", "protocolVersion")
            if asked in revisions.REVISIONS:
                return str(asked)
        if kind == jsonrpc.REQUEST and method == "server/discover":
            return revisions.STATELESS_FROM
        if kind == jsonrpc.REQUEST and isinstance(obj, dict):
            named = _get(obj, "params", "_meta", _META_VERSION)
            if named in revisions.REVISIONS:
                return str(named)
        return self.assumed

    def _schema(self, event: Event, obj: Any, revision: str, answering: str | None) -> None:
        rpc = event.rpc
        if rpc is None:
            return
        if rpc.kind in _BY_METHOD:  # the common case: one generated check, found once per revision and method
            key = (revision, rpc.method)
            fast = self._fast.get(key, _UNKNOWN)
            if fast is _UNKNOWN:
                fast = self._fast[key] = _fast_check(revision, rpc.method)
            if fast is not None and fast(obj):
                return
        schema = for_revision(revision)
        if schema is None:
            return
        for violation in schema.check(obj, rpc.kind, rpc.method, answering):
            self._add(event, "schema", violation.sentence, path=violation.path, revision=revision)

    def _request(self, event: Event, method: str, msg_id: Any, body: dict[str, Any]) -> None:
        direction = event.dir or Direction.C2S
        meta = _get(body, "params", "_meta")
        meta = meta if isinstance(meta, dict) else {}
        if direction == Direction.C2S:
            if method == "initialize":
                self._handshake_era = True
                self._init_id = id_key(msg_id)
                asked = _get(body, "params", "protocolVersion")
                self._requested = asked if isinstance(asked, str) else None
                caps = _get(body, "params", "capabilities")
                self._client_caps = caps if isinstance(caps, dict) else {}
            elif method == "server/discover":
                self._requested = revisions.STATELESS_FROM
            elif method == "subscriptions/listen":
                wanted = _get(body, "params", "notifications")
                self._listens[id_key(msg_id)] = (wanted if isinstance(wanted, dict) else {}, [False])
            if method == "logging/setLevel" or _META_LOG_LEVEL in meta:
                self._deprecated(event, "logging")
            named = meta.get(_META_VERSION)
            if isinstance(named, str) and method not in _EARLY:
                self._meta_revision(event, named)
            if method not in _EARLY and not self._init_answered and not isinstance(named, str) \
                    and self.revision is None:
                self._add(event, "request-before-handshake",
                          f"{method} sent before the server answered initialize; only ping may come first")
            self._uses_server_capability(event, method)
            self._promises.client_request(method, msg_id, body.get("params"))
        else:
            if self._handshake_era and not self._initialized and method != "ping":
                self._add(event, "request-before-handshake",
                          f"the server sent {method} before the client's notifications/initialized; only ping "
                          "and logging may come first")
            self._uses_client_capability(event, method, _SERVER_ASKS)
            self._asks(event, method, body.get("params"))
            self._promises.server_request(method, msg_id, body.get("params"))
        self._not_in_revision(event, method)
        token = meta.get("progressToken")
        pending = _Pending(method, event.seq, id_key(token) if token is not None else None,
                           _META_LOG_LEVEL in meta)
        key = id_key(msg_id)
        self._pending[direction][key] = pending
        self._issued[direction].add(key)
        if pending.progress_token is not None:
            self._progress[pending.progress_token] = None

    def _response(self, event: Event, kind: str, msg_id: Any, answering: str | None, body: dict[str, Any]) -> None:
        origin = Direction.S2C if event.dir == Direction.C2S else Direction.C2S
        pending = self._pending[origin].pop(id_key(msg_id), None)
        if pending is not None and pending.progress_token is not None and not _creates_task(body):
            # a task's progressToken stays valid for the task's whole life (2025-11-25 tasks: "Task Progress
            # Notifications"), after the answer that created it
            self._progress.pop(pending.progress_token, None)
        answer = r if kind == jsonrpc.RESPONSE and isinstance(r := body.get("result"), dict) else None
        if event.dir == Direction.C2S:
            for rule, text in self._promises.client_answer(msg_id, answer):
                self._add(event, rule, text)
            return
        revision = self.revision or self.assumed or ""
        for rule, text in self._promises.server_answer(msg_id, answering, answer, revision):
            self._add(event, rule, text)
        if kind != jsonrpc.RESPONSE:
            return
        result = answer if answer is not None else {}
        asked = result.get("inputRequests") if result.get("resultType") == "input_required" else None
        for ask in asked.values() if isinstance(asked, dict) else ():
            if isinstance(ask, dict):
                self._asks(event, str(ask.get("method")), ask.get("params"))
        if answering == "initialize":
            self._init_answered = True
            chosen = result.get("protocolVersion")
            caps = result.get("capabilities")
            self._server_caps = caps if isinstance(caps, dict) else {}
            if isinstance(chosen, str):
                self._chosen(event, chosen)
        elif answering == "server/discover":
            caps = result.get("capabilities")
            self._server_caps = caps if isinstance(caps, dict) else {}
            self.revision = revisions.STATELESS_FROM
            self._init_answered = self._initialized = True
            self._revision_known()

    def _chosen(self, event: Event, chosen: str) -> None:
        if chosen not in revisions.REVISIONS:
            self._add(event, "revision-unknown",
                      f"the server chose protocol revision {json.dumps(chosen)}, which no MCP specification "
                      f"defines (known: {', '.join(revisions.REVISIONS)})")
            return
        if self._requested is not None and chosen != self._requested:
            self._add(event, "revision-other",
                      f"the client asked for revision {self._requested} and the server chose {chosen}: right "
                      f"only if the server does not support {self._requested}")
        self.revision = chosen
        self._revision_known()

    def _notification(self, event: Event, method: str, body: dict[str, Any]) -> None:
        if method in _STATEFUL_NOTIFICATIONS:
            params = body.get("params")
            params = params if isinstance(params, dict) else {}
            if method == "notifications/initialized" and event.dir == Direction.C2S:
                self._initialized = True
            elif method == "notifications/progress":
                self._progress_rule(event, params)
            elif method == "notifications/cancelled":
                self._cancel_rule(event, params)
        if event.dir == Direction.S2C:
            if self.revision == revisions.STATELESS_FROM and (method in _FILTERED or method == _ACKNOWLEDGED):
                self._subscription_rules(event, method, body)
            if method in _SERVER_ANNOUNCES:
                self._uses_server_capability(event, method, _SERVER_ANNOUNCES)
            if method == "notifications/message":
                self._deprecated(event, "logging")
            if method == "notifications/message" and self.revision == revisions.STATELESS_FROM \
                    and not any(p.log_level for p in self._pending[Direction.C2S].values()):
                self._add(event, "log-without-level",
                          "a log message while no request in flight set io.modelcontextprotocol/logLevel in _meta")
        elif method in _CLIENT_ANNOUNCES:
            self._uses_client_capability(event, method, _CLIENT_ANNOUNCES)
        if self.revision is not None and method:
            self._not_in_revision(event, method)

    # -- rules --------------------------------------------------------------------------------------------

    def _asks(self, event: Event, method: str, params: Any) -> None:
        """The server asks for roots or sampling (a request of its own, or an ``inputRequests`` entry)."""
        if method == "roots/list":
            self._deprecated(event, "roots")
        elif method == "sampling/createMessage":
            self._deprecated(event, "sampling")
            if isinstance(params, dict) and params.get("includeContext") in ("thisServer", "allServers"):
                self._deprecated(event, "include-context")

    def _transport_event(self, event: Event) -> None:
        """HTTP and SSE events: the MCP-Protocol-Version header rule; the deprecated HTTP+SSE transport (its
        ``endpoint`` event) and Dynamic Client Registration (the OAuth flow's registration POST)."""
        if event.kind == Kind.HTTP and self._meta_by_exchange:
            self._header_rule(event)
        if event.kind == Kind.SSE and event.data.get("event") == "endpoint":
            self._deprecated(event, "http+sse")
        elif event.kind == Kind.HTTP and event.data.get("auth_step") == "registration" \
                and event.data.get("method") == "POST":
            self._deprecated(event, "dcr")

    def _deprecated(self, event: Event, feature: str) -> None:
        """A feature 2026-07-28 deprecates is used: an ``info`` finding, once a session, in a 2026-07-28 session
        (one seen before the revision is known is said if the session turns out to be one)."""
        if feature in self._deprecations_said:
            return
        if self.revision is None:
            if len(self._deprecations_early) < len(DEPRECATED):
                self._deprecations_early.append((event, feature))
            return
        if self.revision != revisions.STATELESS_FROM:
            return
        self._deprecations_said.add(feature)
        self._add(event, "deprecated-feature", DEPRECATED[feature])

    def _revision_known(self) -> None:
        """The session's revision is known: the deprecations seen before it are said now (or dropped)."""
        early, self._deprecations_early = self._deprecations_early, []
        for event, feature in early:
            self._deprecated(event, feature)

    def _subscription_rules(self, event: Event, method: str, body: dict[str, Any]) -> None:
        """2026-07-28: a list change or resource update comes on a subscription that asked for it, after that
        subscription's acknowledgement (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/
        subscriptions)."""
        params = p if isinstance(p := body.get("params"), dict) else {}
        meta = m if isinstance(m := params.get("_meta"), dict) else {}
        if _META_SUBSCRIPTION not in meta:
            if method in _FILTERED:
                self._add(event, "subscription-filter", f"{method} outside any subscription: a 2026-07-28 server "
                                                        "sends it only on a subscriptions/listen stream that asked")
            return
        found = self._listens.get(id_key(meta[_META_SUBSCRIPTION]))
        if found is None:
            return  # a subscription this judge did not see opened (a capture that starts later)
        wanted, acknowledged = found
        if method == _ACKNOWLEDGED:
            acknowledged[0] = True
            return
        subscription = json.dumps(meta[_META_SUBSCRIPTION])
        if not acknowledged[0]:
            self._add(event, "subscription-before-ack", f"{method} on subscription {subscription} before its "
                                                        "notifications/subscriptions/acknowledged")
        field = _FILTERED[method]
        uris = wanted.get(field)
        asked = isinstance(uris, list) and params.get("uri") in uris if field == "resourceSubscriptions" \
            else wanted.get(field) is True
        if not asked:
            what = f"updates of {json.dumps(params.get('uri'))}" if field == "resourceSubscriptions" else field
            self._add(event, "subscription-filter", f"{method} on subscription {subscription}, whose filter did not "
                                                    f"ask for {what}")

    def _progress_rule(self, event: Event, params: dict[str, Any]) -> None:
        token = params.get("progressToken")
        if token is None:
            return  # the schema says it is missing
        key = id_key(token)
        if key not in self._progress:
            self._add(event, "progress-unknown-token",
                      f"progress for token {json.dumps(token)}, which no request in flight carried")
            return
        value = params.get("progress")
        last = self._progress[key]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if last is not None and value <= last:
                self._add(event, "progress-not-increasing",
                          f"progress {json.dumps(value)} for token {json.dumps(token)} does not increase on the "
                          f"previous {json.dumps(last)}")
            else:
                self._progress[key] = value

    def _cancel_rule(self, event: Event, params: dict[str, Any]) -> None:
        if "requestId" not in params:
            return
        request_id = params.get("requestId")
        key = id_key(request_id)
        if event.dir == Direction.C2S and self._init_id is not None and key == self._init_id:
            self._add(event, "cancel-initialize", "the client cancelled its initialize request")
            return
        if key not in self._issued[event.dir or Direction.C2S]:
            who = "client" if event.dir == Direction.C2S else "server"
            self._add(event, "cancel-unknown-request",
                      f"cancels request {json.dumps(request_id)}, which the {who} never sent")

    def _meta_revision(self, event: Event, named: str) -> None:
        if "exchange" in event.data:
            self._meta_by_exchange[event.data["exchange"]] = (event, named)
        if self.revision is not None and named != self.revision:
            self._add(event, "meta-revision-mismatch",
                      f"_meta names revision {named}, but the session speaks {self.revision}")
        elif self.revision is None and named in revisions.REVISIONS and not self._handshake_era:
            self.revision = named
            self._revision_known()

    def _header_rule(self, event: Event) -> None:
        """The HTTP exchange that carried a request: its MCP-Protocol-Version header must agree with _meta."""
        found = self._meta_by_exchange.pop(event.data.get("exchange"), None)
        headers = event.data.get("request_headers")
        if found is None or not isinstance(headers, dict):
            return
        message, named = found
        header = next((v for k, v in headers.items() if str(k).lower() == "mcp-protocol-version"), None)
        if isinstance(header, str) and header != named:
            self._add(message, "meta-revision-mismatch",
                      f"_meta names revision {named}, but the MCP-Protocol-Version header says {header}")

    def _not_in_revision(self, event: Event, method: str) -> None:
        if self.revision is None or not method or method in revisions.methods(self.revision):
            return
        if method in extension_methods(self._server_caps):
            return  # a method of an extension the server declared (tasks, skills): no revision defines it
        if any(method in revisions.methods(r) for r in revisions.REVISIONS):
            has = [r for r in revisions.REVISIONS if method in revisions.methods(r)]
            self._add(event, "method-not-in-revision",
                      f"{method} is not part of revision {self.revision} (it is in {', '.join(has)})")

    def _uses_server_capability(self, event: Event, method: str,
                                table: Mapping[str, tuple[str, str | None]] = _CLIENT_USES) -> None:
        need = table.get(method)
        if need is None or self._server_caps is None or self.revision is None:
            return
        self._capability(event, method, need, self._server_caps, "ServerCapabilities", "server",
                         "server-capability-undeclared")

    def _uses_client_capability(self, event: Event, method: str, table: Mapping[str, tuple[str, str | None]]) -> None:
        need = table.get(method)
        if need is None or self._client_caps is None or self.revision is None \
                or self.revision == revisions.STATELESS_FROM:
            return
        self._capability(event, method, need, self._client_caps, "ClientCapabilities", "client",
                         "client-capability-undeclared")

    def _capability(self, event: Event, method: str, need: tuple[str, str | None], declared: dict[str, Any],
                    definition: str, who: str, rule_id: str) -> None:
        assert self.revision is not None
        name, sub = need
        defined = revisions.definitions(self.revision).get(definition, {}).get("properties", {})
        if name not in defined:
            return  # the revision has no such capability (completions before 2025-03-26): nothing to declare
        have = declared.get(name)
        if not isinstance(have, dict):
            self._add(event, rule_id, f"{method} needs the {who} capability {name}, which the {who} did not "
                                      "declare")
        elif sub is not None and have.get(sub) is not True:
            self._add(event, rule_id, f"{method} needs the {who} capability {name}.{sub}, which the {who} did not "
                                      "declare")

    def _add(self, event: Event, rule_id: str, text: str, *, path: str = "", revision: str = "") -> None:
        rule = BY_ID[rule_id]
        finding = ProtocolFinding(event.seq, rule_id, rule.severity, text, path, revision or self.revision or "")
        self.findings.setdefault(event.seq, []).append(finding)
        self.counts[rule_id] = self.counts.get(rule_id, 0) + 1
        self._new.append(finding)


#: the C scanner json.loads uses, without its three Python calls a message (a flood's parse is the judge's
#: largest cost)
_scan_once = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # typeshed's context type


def _parse(event: Event) -> Any:
    try:
        value, _ = _scan_once(event.raw.decode("utf-8"), 0)
        return value
    except (ValueError, RecursionError, StopIteration, UnicodeDecodeError):
        return None


def schema_violations(raw: bytes, revision: str, kind: str, method: str | None,
                      answering: str | None) -> list[tuple[str, str]]:
    """(sentence, JSON path) of each way a message breaks its revision's schema: what
    :meth:`ProtocolJudge.judge_deferred_off_loop` has a worker process do (a module-level function, so it
    pickles)."""
    schema = for_revision(revision)
    if schema is None:
        return []
    try:
        value, _ = _scan_once(raw.decode("utf-8"), 0)
    except (ValueError, RecursionError, StopIteration, UnicodeDecodeError):
        return []
    return [(v.sentence, v.path) for v in schema.check(value, kind, method, answering)]


class Verdict:
    """Stands in a decoder's batch for the parse of a notification of ``method`` going ``dir`` whose schema
    check passed against ``revision`` when it was decoded (None: there was no revision to check against); see
    :meth:`ProtocolJudge.verdict`. Each judge has one per (revision, method, direction), and honours only its
    own."""

    __slots__ = ("judge", "revision", "method", "dir", "pair")

    def __init__(self, judge: ProtocolJudge, revision: str | None, method: str | None, direction: str) -> None:
        self.judge = judge
        self.revision = revision
        self.method = method
        self.dir = direction
        self.pair = (method, direction)

    def __repr__(self) -> str:
        return f"Verdict({self.revision!r}, {self.method!r}, {self.dir!r})"


def _always(value: Any) -> bool:
    """No revision to check against yet: nothing in the schema to break."""
    return True


_NOTIFICATION = jsonrpc.NOTIFICATION
_S2C, _C2S = Direction.S2C, Direction.C2S
#: notifications that change or consult the judge's state beyond capabilities and revision
#: notifications whose rules read their body or change the judge's state: judged in full, never by a verdict (the
#: subscription rules read _meta's subscriptionId; list changes and resource updates are few)
_STATEFUL_NOTIFICATIONS = frozenset({"notifications/initialized", "notifications/progress",
                                     "notifications/cancelled", _ACKNOWLEDGED, *_FILTERED})
#: kinds judged by their own method's definition
_BY_METHOD = frozenset({jsonrpc.REQUEST, jsonrpc.NOTIFICATION})
_UNKNOWN = object()


def _fast_check(revision: str, method: str | None) -> Callable[[Any], bool] | None:
    """The generated yes/no check of the request or notification ``method`` in ``revision`` (None when the
    revision has no schema or does not define the method: :meth:`RevisionSchema.check` decides then)."""
    schema = for_revision(revision)
    name = schema.methods.get(method or "") if schema is not None else None
    return schema.fast(name) if schema is not None and name else None


def _creates_task(body: dict[str, Any]) -> bool:
    """Whether a response is a CreateTaskResult: 2025-11-25 (``result.task``) or the tasks extension's
    (``resultType: "task"``)."""
    result = body.get("result")
    return isinstance(result, dict) and (isinstance(result.get("task"), dict) or result.get("resultType") == "task")


def _get(obj: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def findings_of(event: Event, judge: ProtocolJudge | None) -> list[Finding]:
    """What the wire layer found on ``event`` and what the judge found, together."""
    found = list(event.findings)
    if judge is not None:
        found.extend(f.as_finding() for f in judge.of(event.seq))
    return found


def judge_events(events: Iterable[Event], revision: str | None = None) -> ProtocolJudge:
    """Judge a whole sequence (a capture read back): every finding, the deferred ones included."""
    judge = ProtocolJudge(revision)
    batch: list[Event] = []
    for event in events:
        batch.append(event)
        if len(batch) >= 512:
            judge.feed(batch)
            batch = []
    judge.feed(batch)
    judge.judge_deferred()
    return judge
