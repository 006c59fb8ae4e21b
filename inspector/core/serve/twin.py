"""The twin: each message a client sends, and what the served capture sends back (sans-io).

:meth:`Twin.receive` takes one decoded event of the client's (from :class:`~inspector.core.wire.framing.LineDecoder`,
whatever the transport) and returns what to send, in order (:class:`Outgoing`): the recorded answer with the
client's id, the server's notifications recorded around it, or a JSON-RPC error. A transport loop
(:mod:`inspector.core.serve.stdio`; HTTP later) writes them; faults, when they come, sit between the two.

* A request: ``initialize`` and ``server/discover`` by :mod:`~inspector.core.serve.handshake`; ``ping``,
  ``logging/setLevel`` and (un)subscribing (:data:`~inspector.core.serve.index.HOUSEKEEPING`, which clients send
  of their own accord) as a recorded one with the same params was answered, else with the empty result the spec
  gives them; any other by the :class:`~inspector.core.serve.matcher.Matcher`. A request without a recorded
  answer gets the matcher's sentence as the error's message, with ``data.closest`` naming the closest recorded
  request, and is kept in :attr:`Twin.unmatched`.
* A multi-round call (2026-07-28's ``input_required``, :mod:`~inspector.core.serve.rounds`): the client's retry
  of a call answered with input_required gets the call's recorded next round, whatever its input; ``differs``
  on the answer says how its input differs from the recorded retry's.
* A notification: the server's notifications recorded after the same notification of the recorded client (a
  list_changed after ``notifications/initialized``) follow it.
* The server's notifications recorded while a request ran (progress, log lines) come before its answer, those
  after it follow; progress carries the client's own progress token, and is left out when the client asked for
  none.
* Bytes that are no JSON: the spec's parse error (-32700, id null); a line over ``--max-message`` or a JSON value
  that is no request: invalid request (-32600). A blank line gets nothing. Answers of the client to requests of
  the server are taken and not answered (the twin sends no server requests yet).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from inspector.core.serve.batches import batch_refusal_text, recorded_batch
from inspector.core.serve.handshake import ServedHandshake
from inspector.core.serve.index import HANDSHAKE_METHODS, HOUSEKEEPING, ServeIndex
from inspector.core.serve.matcher import Hit, Matcher, Miss, request_key
from inspector.core.serve.rounds import ROUND_METHODS, UPDATE_METHODS, Rounds
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Event, Kind
from inspector.core.wire.framing import NOT_PARSED

#: Recorded answers kept ready to send (a client that asks the same few things again and again, as a load test
#: does, costs no read of the capture), each at most PREPARED_MAX_BYTES.
PREPARED_KEPT = 1024
PREPARED_MAX_BYTES = 64 << 10
#: Requests without a recorded answer listed one by one at the end (a client that floods the twin with them is
#: counted, not remembered).
LISTED_UNMATCHED = 100
#: At most this many recorded housekeeping requests of a method are compared with the client's.
HOUSEKEEPING_COMPARED = 64
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One message the twin sends: ``line`` is its JSON text (no newline); ``served_from`` the seq of the recorded
    event it comes from; ``unmatched`` the sentence on an error answering a request without a recorded answer;
    ``differs`` the sentence on a multi-round retry answered with the recorded round though its input differs
    (:mod:`~inspector.core.serve.rounds`)."""

    line: bytes
    served_from: int | None = None
    unmatched: str | None = None
    differs: str | None = None


@dataclass(frozen=True, slots=True)
class _Prepared:
    """A recorded answer ready to send: ``head``, the client's id, ``tail``; the notifications recorded before and
    after it; the recorded request's progress token; the answer's ``nextCursor``."""

    head: bytes
    tail: bytes
    seq: int
    before: list[int]
    after: list[int]
    token: Any
    cursor: str | None


@dataclass(frozen=True, slots=True)
class Unmatched:
    """A request of the client's that got no recorded answer."""

    method: str
    id: Any
    text: str


@dataclass
class Twin:
    """A capture served as a server, one message of the client's at a time."""

    index: ServeIndex
    mode: str = "auto"
    matcher: Matcher = field(init=False)
    rounds: Rounds = field(init=False)  #: the multi-round calls under way
    handshake: ServedHandshake = field(init=False)
    unmatched: list[Unmatched] = field(default_factory=list)  #: the first :data:`LISTED_UNMATCHED` of them
    missed: int = 0  #: requests without a recorded answer, all of them
    answered: int = 0  #: requests answered from the capture (the handshake's and ping's included)
    #: the rows (request, answer) of the recorded exchange the last request was answered from, else None
    last_hit: tuple[int, int] | None = None
    #: the row of the recorded notification the last notification of the client's stood for, else None
    last_notified: int | None = None
    #: the revision the client's ``initialize`` was answered with (None before it)
    negotiated: str | None = None
    _notified: dict[str, int] = field(default_factory=dict)  # notification method -> how many the client sent
    _cache: dict[int, _Prepared] = field(default_factory=dict)  # position -> what serving it sends

    def __post_init__(self) -> None:
        self.matcher = Matcher(self.index, self.mode)
        self.rounds = Rounds(self.index)
        self.handshake = ServedHandshake(self.index.handshake_answer("initialize"),
                                         self.index.handshake_answer("server/discover"), self.index.methods())

    def receive(self, event: Event, parsed: Any = NOT_PARSED) -> list[Outgoing]:
        """What to send for one event of the client's, in order; ``parsed`` is the decoder's parse of it, when it
        kept one (:class:`~inspector.core.wire.framing.Batch`), so it is not parsed again."""
        if event.kind == Kind.FRAMING_ERROR:
            return self._bad_bytes(event)
        rpc = event.rpc
        if event.kind != Kind.MESSAGE or rpc is None:
            return []
        if rpc.kind in (jsonrpc.REQUEST, jsonrpc.NOTIFICATION):
            message = parsed
            if message is NOT_PARSED:
                try:
                    message = event.json()
                except ValueError:
                    message = {}
            params = message.get("params") if isinstance(message, dict) else None
            if rpc.kind == jsonrpc.NOTIFICATION:
                return self._notification(rpc.method or "")
            return self._request(rpc.method or "", rpc.id, params)
        if rpc.kind == jsonrpc.BATCH:
            members = parsed
            if members is NOT_PARSED:
                try:
                    members = event.json()
                except ValueError:
                    members = []
            return self._batch(members if isinstance(members, list) else [])
        if rpc.kind == jsonrpc.INVALID:
            answer_id = rpc.id if type(rpc.id) in (int, str) else None
            return [_error(answer_id, INVALID_REQUEST, "Invalid Request: the message is neither a request, a "
                                                        "notification nor a response")]
        return []  # the client's answer to a request of the server's: none are sent yet

    def _bad_bytes(self, event: Event) -> list[Outgoing]:
        if "oversize" in event.data:
            return [_error(None, INVALID_REQUEST, f"Invalid Request: {event.reason or 'the message is too long'}")]
        if not event.raw.strip() or event.data.get("cut_by_stop"):
            return []
        return [_error(None, PARSE_ERROR, f"Parse error: {event.reason or 'the line is not JSON'}")]

    def _request(self, method: str, request_id: Any, params: Any) -> list[Outgoing]:
        self.last_hit = None
        if method in HANDSHAKE_METHODS:
            reply = self.handshake.answer(method, params)
            self.answered += 1
            chosen = reply.body.get("result")
            if method == "initialize" and isinstance(chosen, dict) and isinstance(chosen.get("protocolVersion"), str):
                self.negotiated = chosen["protocolVersion"]
            out = [_line({"jsonrpc": "2.0", "id": request_id, **reply.body}, reply.served_from)]
            rows = self.index.handshake_rows(method)
            if rows is not None and reply.served_from == self.index.seq(rows[1]):
                out += self._notifications(self.index.followers(*rows)[1])
            return out
        if method in HOUSEKEEPING:
            self.answered += 1
            return [self._housekeeping(method, request_id, params)]
        found: Hit | Miss | None = None
        differs = None
        if self.mode != "sequential" and (method in ROUND_METHODS or method in UPDATE_METHODS):
            # (sequential: the next round comes next anyway)
            rounds, cursors = self.rounds, self.matcher.cursors
            retried = (rounds.retry(method, params, cursors) if method in ROUND_METHODS
                       else rounds.update(method, params, cursors))
            if retried is not None and self.matcher.take(retried[0]):
                found, differs = Hit(retried[0]), retried[1]
        if found is None:
            found = self.matcher.match(method, params)
        if not isinstance(found, Hit):
            self.missed += 1
            if len(self.unmatched) < LISTED_UNMATCHED:
                self.unmatched.append(Unmatched(method, request_id, found.text))
            data = {"closest": self.index.label(found.closest)} if found.closest is not None else None
            return [_error(request_id, found.code, found.text, data, unmatched=True)]
        self.answered += 1
        self.last_hit = (self.index.requests[found.position], self.index.answers[found.position])
        prepared = self._prepared(found.position)
        self.matcher.cursors.learn(prepared.cursor)
        if method in ROUND_METHODS and b'"input_required"' in prepared.tail:
            self.rounds.answered(found.position, self.index.message(self.index.answers[found.position]))
        token = _progress_token(params)
        answer = Outgoing(prepared.head + _dumps(request_id) + prepared.tail, prepared.seq, differs=differs)
        if not prepared.before and not prepared.after:
            return [answer]
        return [*self._notifications(prepared.before, prepared.token, token), answer,
                *self._notifications(prepared.after)]

    @property
    def revision(self) -> str | None:
        """The revision of the session: the one ``initialize`` was answered with, else the recorded one."""
        if self.negotiated is not None:
            return self.negotiated
        recorded = self.handshake.initialize
        result = recorded[1].get("result") if recorded is not None else None
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        return version if isinstance(version, str) else None

    def batch_refusal(self, revision: str | None = None) -> Outgoing | None:
        """The error a batch gets in ``revision`` (by default the session's), None when batches are served."""
        text = batch_refusal_text(revision or self.revision)
        return None if text is None else _error(None, INVALID_REQUEST, text)

    def _batch(self, members: list[Any]) -> list[Outgoing]:
        """A batch of the client's (see the module)."""
        self.last_hit = None
        refusal = self.batch_refusal()
        if refusal is not None:
            return [refusal]
        recorded = recorded_batch(self.index, members, self.matcher.cursors)
        if recorded is not None:
            self.answered += sum(1 for m in members if isinstance(m, dict) and "id" in m and "method" in m)
            line, row = recorded
            return [Outgoing(line, self.index.seq(row))]
        before: list[Outgoing] = []
        after: list[Outgoing] = []
        answers: list[Any] = []
        misses: list[str] = []
        for member in members:
            rpc = jsonrpc.classify(member)[0] if isinstance(member, (dict, list)) else None
            if rpc is None or rpc.kind in (jsonrpc.BATCH, jsonrpc.INVALID):
                answers.append(_message(None, INVALID_REQUEST, "Invalid Request: a batch member that is neither a "
                                                               "request, a notification nor a response"))
            elif rpc.kind == jsonrpc.NOTIFICATION:
                before += self._notification(rpc.method or "")
            elif rpc.kind == jsonrpc.REQUEST and rpc.method in HANDSHAKE_METHODS:
                answers.append(_message(rpc.id, INVALID_REQUEST, f"Invalid Request: {rpc.method} must not be part "
                                                                 "of a JSON-RPC batch"))
            elif rpc.kind == jsonrpc.REQUEST:
                out = self._request(rpc.method or "", rpc.id, member.get("params"))
                self.last_hit = None
                at = next(n for n, o in enumerate(out) if _is_response(o.line))
                before += out[:at]
                after += out[at + 1:]
                answer = out[at]
                answers.append(json.loads(answer.line))
                if answer.unmatched is not None:
                    misses.append(answer.unmatched)
        if not answers:
            return before + after
        return [*before, Outgoing(_dumps(answers), None, "; ".join(misses) or None), *after]

    def _prepared(self, position: int) -> _Prepared:
        """What serving the recorded request at ``position`` sends, read from the capture once (kept for the
        :data:`PREPARED_KEPT` last positions served, when the answer is small)."""
        prepared = self._cache.get(position)
        if prepared is not None:
            return prepared
        row, answer_row = self.index.requests[position], self.index.answers[position]
        answer = self.index.message(answer_row)
        rest = {key: value for key, value in answer.items() if key not in ("jsonrpc", "id")}
        body = _dumps(rest)
        before, after = self.index.followers(row, answer_row)
        result = rest.get("result")
        cursor = result.get("nextCursor") if isinstance(result, dict) else None
        prepared = _Prepared(b'{"jsonrpc":"2.0","id":', b"," + body[1:] if len(body) > 2 else b"}",
                             self.index.seq(answer_row), before, after, _progress_token(self.index.params(position)),
                             cursor if isinstance(cursor, str) else None)
        if len(body) <= PREPARED_MAX_BYTES:
            if len(self._cache) >= PREPARED_KEPT:
                self._cache.pop(next(iter(self._cache)))
            self._cache[position] = prepared
        return prepared

    def _housekeeping(self, method: str, request_id: Any, params: Any) -> Outgoing:
        """The recorded answer of the same request (its first few), else the empty result the spec gives it."""
        key = request_key(method, params)
        for request_row, answer_row in self.index.housekeeping.get(method, [])[:HOUSEKEEPING_COMPARED]:
            if request_key(method, self.index.message(request_row).get("params")) == key:
                answer = dict(self.index.message(answer_row))
                answer["id"] = request_id
                return _line(answer, self.index.seq(answer_row))
        return _line({"jsonrpc": "2.0", "id": request_id, "result": {}})

    def _notification(self, method: str) -> list[Outgoing]:
        rows = self.index.notification_rows(method)
        seen = self._notified.get(method, 0)
        self._notified[method] = seen + 1
        self.last_notified = rows[seen] if seen < len(rows) else None
        if seen >= len(rows):
            return []
        return self._notifications(self.index.followers(rows[seen])[1])

    def _notifications(self, rows: list[int], recorded_token: Any = None, token: Any = None) -> list[Outgoing]:
        """The recorded notifications of ``rows``; progress for the recorded request's token carries the
        client's ``token`` instead, or is left out when the client gave none."""
        out = []
        for row in rows:
            raw = self.index.raw(row)
            if recorded_token is not None and b"progress" in raw:
                message = self.index.message(row)
                params = message.get("params")
                if message.get("method") == "notifications/progress" and isinstance(params, dict) \
                        and params.get("progressToken") == recorded_token:
                    if token is None:
                        continue
                    message["params"] = {**params, "progressToken": token}
                    out.append(_line(message, self.index.seq(row)))
                    continue
            out.append(Outgoing(raw, self.index.seq(row)))
        return out

    def summary(self) -> list[str]:
        """The unmatched requests, a line each (for stderr at the end), the first :data:`LISTED_UNMATCHED` of them."""
        lines = [f"{u.method} (id {json.dumps(u.id)}): {u.text}" for u in self.unmatched]
        if self.missed > len(self.unmatched):
            lines.append(f"... and {self.missed - len(self.unmatched):,} more")
        return lines


def _progress_token(params: Any) -> Any:
    meta = params.get("_meta") if isinstance(params, dict) else None
    return meta.get("progressToken") if isinstance(meta, dict) else None


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _dumps(message: Any) -> bytes:
    if type(message) is int:
        return str(message).encode()
    return _ENCODE(message).encode("utf-8", errors="surrogatepass")


def _line(message: dict[str, Any], served_from: int | None = None) -> Outgoing:
    return Outgoing(_dumps(message), served_from)


def _message(request_id: Any, code: int, text: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": text}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def _error(request_id: Any, code: int, text: str, data: Any = None, unmatched: bool = False) -> Outgoing:
    return Outgoing(_dumps(_message(request_id, code, text, data)), None, text if unmatched else None)


def _is_response(line: bytes) -> bool:
    """Whether the twin's ``line`` is a response (not one of the server's notifications)."""
    if not line.startswith(b'{"jsonrpc":"2.0","id":'):
        try:
            message = json.loads(line)
        except ValueError:
            return False
        return isinstance(message, dict) and "method" not in message
    return True
