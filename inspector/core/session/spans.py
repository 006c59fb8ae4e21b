"""Spans: the messages of one conversation that takes several requests, marked so the timeline draws them as one.

Two things in MCP take more than one request and answer: a task (2025-11-25 ``tasks``, or the 2026-07-28 tasks
extension: the call that created it, ``tasks/get`` polls, ``tasks/result``, ``tasks/update``, ``tasks/cancel``,
its status notifications and the server's requests that name it), and a multi round-trip call (2026-07-28
``input_required`` results: the rounds of one ``tools/call``, ``prompts/get`` or ``resources/read``, each a new
request id). Each such conversation is a span.

Events are immutable once saved (docs/architecture.md), and a span is known only once a conversation has begun
(the answer that creates a task, the first ``input_required``): the events saved before that are named by the
note that opens the span (``data.span``, ``data.span_label``, ``data.members``: their ``seq``), and every event
after it that belongs to the span gets ``data.span`` before it is saved (:class:`Spans` is one of the session's
annotators). Which events belong: the requests the owner claims by id (:meth:`Spans.claim`) and their
answers, and once a task is claimed (:meth:`Spans.claim_task`), the notifications and server requests naming it
(``params.taskId``, or ``_meta["io.modelcontextprotocol/related-task"].taskId``) and the client's answers to
those requests (an elicitation's answer); the progress notifications of a claimed token
(:meth:`Spans.claim_progress`) too.

No I/O, no Qt. The timeline's columns (:mod:`inspector.core.capture.columns`) read the same keys back, for a
live session and an opened capture alike.
"""

from __future__ import annotations

import json
from typing import Any

from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.ids import IdKey, id_key

#: The ``_meta`` key that ties a message to a task (2025-11-25 tasks).
RELATED_TASK = "io.modelcontextprotocol/related-task"
#: Scanned for a task id only when this small (a task's notifications and requests are); bigger ones are
#: looked at only if their bytes hold a claimed task id.
SCAN_BYTES = 64 * 1024


class Spans:
    """The session's open spans: which request ids and task ids belong to which span."""

    def __init__(self) -> None:
        self._by_id: dict[IdKey, str] = {}  #: a claimed request id (ours) -> its span
        self._by_task: dict[str, str] = {}  #: a claimed task id -> its span
        #: the server's requests marked with a span (by id): the client's answer to each is marked the same
        self._by_server_id: dict[IdKey, str] = {}
        self._by_token: dict[IdKey, str] = {}  #: a claimed progress token -> its span
        self._counter = 0

    def new(self, prefix: str) -> str:
        """A span id not used before in this session (``prefix`` says what it is: ``task``, ``rounds``)."""
        self._counter += 1
        return f"{prefix}-{self._counter}"

    def claim(self, span: str, msg_id: Any) -> None:
        """The request the client sends with ``msg_id``, and its answer, belong to ``span``."""
        self._by_id[id_key(msg_id)] = span

    def claim_task(self, span: str, task_id: str) -> None:
        """Every message naming task ``task_id`` belongs to ``span``."""
        self._by_task[task_id] = span

    def claim_progress(self, span: str, token: Any) -> None:
        """The progress notifications of ``token`` belong to ``span``."""
        self._by_token[id_key(token)] = span

    def release(self, span: str) -> None:
        """``span`` is over: nothing more is marked with it (a late answer to one of its requests still is)."""
        self._by_task = {k: v for k, v in self._by_task.items() if v != span}
        self._by_token = {k: v for k, v in self._by_token.items() if v != span}

    def annotate(self, events: list[Event]) -> None:
        """The session's annotator: give each event of a claimed request or task its ``data.span``."""
        if not (self._by_id or self._by_task or self._by_server_id or self._by_token):
            return
        for event in events:
            if event.kind != Kind.MESSAGE or event.rpc is None:
                continue
            span = self._span_of(event)
            if span is not None:
                event.put(span=span)
                rpc = event.rpc
                if event.dir == Direction.S2C and rpc.kind == jsonrpc.REQUEST and rpc.has_id:
                    self._by_server_id[id_key(rpc.id)] = span

    def _span_of(self, event: Event) -> str | None:
        rpc = event.rpc
        assert rpc is not None
        ours = (event.dir == Direction.C2S and rpc.kind == jsonrpc.REQUEST) or \
            (event.dir == Direction.S2C and rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR))
        if ours and rpc.has_id:
            span = self._by_id.get(id_key(rpc.id))
            if span is not None:
                return span
        if event.dir == Direction.C2S and rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR) and rpc.has_id \
                and self._by_server_id:  # our answer to a server request of the span's (answered once)
            span = self._by_server_id.pop(id_key(rpc.id), None)
            if span is not None:
                return span
        if self._by_token and rpc.kind == jsonrpc.NOTIFICATION and rpc.method == "notifications/progress":
            span = self._progress_span(event)
            if span is not None:
                return span
        if not self._by_task or (event.size > SCAN_BYTES and not any(
                t.encode() in event.raw for t in self._by_task)):
            return None
        task = _task_named(event)
        return self._by_task.get(task) if task is not None else None


    def _progress_span(self, event: Event) -> str | None:
        try:
            params = event.json().get("params")
        except (ValueError, AttributeError):
            return None
        token = params.get("progressToken") if isinstance(params, dict) else None
        return self._by_token.get(id_key(token)) if token is not None else None


def _task_named(event: Event) -> str | None:
    """The task a message names: ``params.taskId`` (status notifications, tasks/* requests) or the related-task
    ``_meta`` (a server request a task waits on, tasks/result's answer)."""
    try:
        obj = event.json()
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    for holder in (obj.get("params"), obj.get("result")):
        if not isinstance(holder, dict):
            continue
        task = holder.get("taskId")
        if isinstance(task, str):
            return task
        meta = holder.get("_meta")
        related = meta.get(RELATED_TASK) if isinstance(meta, dict) else None
        if isinstance(related, dict) and isinstance(related.get("taskId"), str):
            return str(related["taskId"])
    return None


def members_of(note_data: Any) -> list[int]:
    """The ``seq`` values a span's opening note names (an unreadable list: none)."""
    members = note_data.get("members") if isinstance(note_data, dict) else None
    if not isinstance(members, list):
        return []
    return [m for m in members if type(m) is int]


def short_task_id(task_id: str) -> str:
    """A task id short enough for a label (task ids are often UUIDs)."""
    text = json.dumps(task_id)[1:-1]
    return text if len(text) <= 12 else text[:8] + "…"
