"""Pairing of responses with requests, per direction, with latency and the id problems a debugger must flag.

A request sent in one direction is answered in the other. Ids are compared with their JSON type: ``"2"``
does not answer ``2`` (https://www.jsonrpc.org/specification#response_object), and we say so when it was
probably meant to. Batches are checked against the negotiated revision: only 2025-03-26 allows them.

A tool's result with ``"isError": true`` gets a ``tool-error`` finding of severity ``warning``: the tool failed,
but the server did what the protocol asks (tool failures are reported inside a result, so the model can see
them), so it is not a protocol problem, is not counted as one, and does not make ``record`` or ``check`` fail.
"""

from __future__ import annotations

import re
from typing import Any

from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.ids import IdKey, describe_id, id_key

#: The only protocol revision whose JSON-RPC layer allows batches.
BATCH_REVISIONS = frozenset({"2025-03-26"})
#: Requests answered by a CallToolResult (tasks/result: a task-augmented tools/call's result).
TOOL_RESULT_METHODS = frozenset({"tools/call", "tasks/result"})
TOOL_ERROR = "tool-error"
#: Only a response whose text has this is parsed again to look for ``result.isError`` (most have none).
_IS_ERROR_TRUE = re.compile(rb'"isError"\s*:\s*true')


def _other(direction: str | None) -> str:
    return Direction.S2C if direction == Direction.C2S else Direction.C2S


class Correlator:
    """Observes message events in order, pairs them, and annotates the event it is given, before it is saved.

    On a paired response it sets ``data["reply_to"]`` (the request's seq), ``data["latency"]`` (seconds) and
    ``data["request_method"]``. Problems become findings on the event, and so does a tool's failure
    (``tool-error``, a warning). The request is never touched: it was saved when it was sent, and a saved
    event does not change. That a request was answered is derived from
    the response's ``reply_to`` (:meth:`inspector.core.capture.columns.Columns.pair`).
    """

    def __init__(self) -> None:
        self.protocol_version: str | None = None
        # pending[d] holds requests sent in direction d that are waiting for an answer
        # by direction; a message always has one, so None (no direction) is never a key
        self._pending: dict[str | None, dict[IdKey, Event]] = {Direction.C2S: {}, Direction.S2C: {}}
        self._answered: dict[str, dict[IdKey, int]] = {Direction.C2S: {}, Direction.S2C: {}}
        #: the answers the last batch observed carried: each element with the request it answers (the batch's
        #: owner completes those requests: 2025-03-26 clients must accept batches)
        self.batch_answers: list[tuple[dict[str, Any], Event]] = []

    def pending(self, direction: str = Direction.C2S) -> list[Event]:
        """Requests sent in ``direction`` that have no answer yet, oldest first."""
        return list(self._pending[direction].values())

    def forget(self, direction: str, msg_id: Any) -> None:
        """A request that can no longer be answered (its HTTP exchange failed): stop waiting for it, so a
        resend with the same id is not a reuse."""
        self._pending[direction].pop(id_key(msg_id), None)

    def observe(self, event: Event) -> Event | None:
        """Annotate ``event``; returns the request it answers, if it is a response that pairs with one."""
        if event.kind != Kind.MESSAGE or event.rpc is None or event.dir is None:
            return None
        kind = event.rpc.kind
        if kind == jsonrpc.BATCH:
            return self._observe_batch(event)
        if kind == jsonrpc.REQUEST:
            self._request(event, event.rpc.id)
        elif kind in (jsonrpc.RESPONSE, jsonrpc.ERROR) and event.rpc.has_id:
            request = self._response(event, event.rpc.id)
            if request is not None and kind == jsonrpc.RESPONSE:
                _check_tool_result(event, request)
            return request
        return None

    def _request(self, event: Event, msg_id: Any, where: str = "") -> None:
        key = id_key(msg_id)
        pending = self._pending[event.dir]
        if key in pending:
            event.add_finding(
                "id-reused",
                f"{where}id {describe_id(msg_id)} is reused while request #{pending[key].seq} with the same id "
                "is still waiting for its answer",
            )
        pending[key] = event

    def _response(self, event: Event, msg_id: Any, where: str = "") -> Event | None:
        if msg_id is None:
            return None  # id null: an error about an unparseable request, nothing to pair
        origin = _other(event.dir)
        key = id_key(msg_id)
        request = self._pending[origin].pop(key, None)
        if request is not None:
            self._answered[origin][key] = event.seq
            method = request.rpc.method if request.rpc is not None else None
            if method:
                event.put(reply_to=request.seq, latency=round(event.t - request.t, 6), request_method=method)
            else:
                event.put(reply_to=request.seq, latency=round(event.t - request.t, 6))
            return request
        previous = self._answered[origin].get(key)
        if previous is not None:
            event.add_finding(
                "already-answered", f"{where}answers id {describe_id(msg_id)}, already answered by #{previous}"
            )
            return None
        twin = self._type_twin(origin, msg_id)
        if twin is not None:
            event.add_finding(
                "id-type-mismatch",
                f"{where}answers id {describe_id(msg_id)}, but request #{twin.seq} has id "
                f"{describe_id(twin.rpc.id if twin.rpc else None)}: ids must match in type as well as value",
            )
            return None
        event.add_finding("unknown-id",
                          f"{where}answers id {describe_id(msg_id)}, but no request with that id was sent")
        return None

    def _type_twin(self, origin: str, msg_id: Any) -> Event | None:
        """A pending request whose id has the same text but another JSON type ("2" against 2)."""
        text = str(msg_id)
        for (tag, value), request in self._pending[origin].items():
            if str(value) == text and (tag == "s") != isinstance(msg_id, str):
                return request
        return None

    def _observe_batch(self, event: Event) -> Event | None:
        self.batch_answers = []
        if self.protocol_version is not None and self.protocol_version not in BATCH_REVISIONS:
            event.add_finding(
                "batch-not-allowed",
                f"a JSON-RPC batch, but protocol revision {self.protocol_version} does not allow batches "
                "(only 2025-03-26 did)",
            )
        try:
            items = event.json()
        except ValueError:
            return None
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            info, _ = jsonrpc.classify(item)
            where = f"batch element {index}: "
            if info.kind == jsonrpc.REQUEST:
                self._request(event, info.id, where)
            elif info.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR) and info.has_id:
                request = self._response(event, info.id, where)
                if request is not None:
                    self.batch_answers.append((item, request))
        return None


def _check_tool_result(response: Event, request: Event) -> None:
    """A ``tool-error`` warning on ``response`` when it answers a tool call and its ``result.isError`` is true.
    (Inside a batch, which only 2025-03-26 allowed, an answer's request method is not known: not checked.)"""
    if request.rpc is None or request.rpc.method not in TOOL_RESULT_METHODS:
        return
    raw = response.raw
    # a plain search first (the pattern's own scan of a 50 MB result takes ~80 ms); rfind, as bytes.rfind scans
    # a long text about 4x faster than find (10 ms, not 40, for 50 MB), and the first one only when there is one
    if raw.rfind(b'"isError"') < 0:
        return
    at = raw.find(b'"isError"')
    if not _IS_ERROR_TRUE.search(raw, at):
        return
    try:
        obj = response.json()
    except (ValueError, RecursionError):
        return
    result = obj.get("result") if isinstance(obj, dict) else None
    if isinstance(result, dict) and result.get("isError") is True:
        response.add_finding(TOOL_ERROR, 'the tool failed: its result says "isError": true', "warning")
