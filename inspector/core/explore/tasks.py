"""Tasks: a tool call that the server runs in the background, followed until it ends. Both forms of it:

* **2025-11-25 tasks** (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks): the
  server declares ``tasks.requests.tools.call`` and each tool its ``execution.taskSupport`` (``required``,
  ``optional``, ``forbidden``). A ``tools/call`` with ``params.task`` is answered with a ``CreateTaskResult``
  (``{"task": {...}}``); the client polls ``tasks/get`` at the task's ``pollInterval``, calls ``tasks/result``
  when the task needs input (the server's elicitation then comes as an ordinary server request naming the task)
  or has ended, and may ``tasks/cancel``. ``notifications/tasks/status`` may say a status early.
* **the tasks extension** ``io.modelcontextprotocol/tasks`` (SEP-2663, for 2026-07-28 servers that declare it):
  the client declares the extension on the request, and the server alone decides to answer with
  ``resultType: "task"`` and the task's fields (``taskId``, ``status``, ``ttlMs``, ``pollIntervalMs``). The
  client polls ``tasks/get`` (the final ``result`` or ``error`` comes inline), answers ``inputRequests`` with
  ``tasks/update`` (``inputResponses``, each key once), and may ``tasks/cancel`` (an acknowledgement only).

:func:`plan` says whether and how a call runs as a task: a tool whose ``taskSupport`` is ``required`` always,
``optional`` when asked (``call --task``, "Run as task" in the Explorer), ``forbidden`` never; with the
extension the server decides, so the capability is always declared. :class:`TaskBook` keeps the session's tasks
(:class:`TaskRun`), learnt from everything on the wire (the composer's task calls included), and runs a call as a
task (:meth:`TaskBook.call_tool`): the polls honour the server's interval, input is answered through the
session's handler (the window's elicitation forms, the headless ``--answer`` policies), every request of a task
is one span in the timeline (:mod:`inspector.core.session.spans`), and the whole is bounded by the session's
``max_request_time``. No Qt: listeners are plain callables called with the run that changed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from inspector.core.protocol.extensions import TASKS as TASKS_EXTENSION
from inspector.core.session.outcomes import RequestCancelled, RequestTimeout, ServerInfo, result_of
from inspector.core.session.rounds import answer_input_requests, can_answer
from inspector.core.session.session import DEFAULT_REQUEST_TIMEOUT, Session
from inspector.core.session.spans import short_task_id
from inspector.core.transports.base import TransportError
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind, params_of
from inspector.core.wire.ids import IdKey, id_key

LEGACY = "2025-11-25"  #: the form of tasks in the 2025-11-25 revision
EXTENSION = "extension"  #: the tasks extension (SEP-2663)
WORKING, INPUT_REQUIRED, COMPLETED, FAILED, CANCELLED = "working", "input_required", "completed", "failed", "cancelled"
TERMINAL = frozenset({COMPLETED, FAILED, CANCELLED})
#: Seconds between polls when the server suggests no interval.
DEFAULT_POLL = 1.0
#: Bounds on the server's suggested interval: never a busy loop (a pollInterval of 0), never blind for long.
MIN_POLL, MAX_POLL = 0.1, 60.0
#: After a ``tasks/cancel`` the server only acknowledged (the extension's), polls to learn the task's end.
CANCEL_POLLS = 5
#: Tasks whose early status notifications are kept for their span, and notifications kept of each (the rest:
#: not drawn with it).
EARLY_TASKS = 64
#: Answers bigger than this are not parsed to learn tasks from (a task's answers are small; a result may not be).
LEARN_BYTES = 1 << 20
_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
_TASK_METHODS = frozenset({"tools/call", "tasks/get", "tasks/cancel", "tasks/list", "tasks/result"})


class TaskError(TransportError):
    """A call cannot run as asked (a tool that forbids tasks, a server without them); ``str()`` is a sentence."""


@dataclass
class TaskRun:
    """One task of the session, as last heard: what the Tasks view shows. Owned by :class:`TaskBook`."""

    task_id: str
    form: str  #: :data:`LEGACY` or :data:`EXTENSION`
    tool: str = ""
    status: str = WORKING
    message: str = ""
    created_at: str = ""
    updated_at: str = ""
    ttl_ms: int | None = None
    poll_ms: int | None = None
    progress: dict[str, Any] | None = None  #: the last progress notification's params
    progress_token: Any = None
    span: str = ""
    cancel_requested: bool = False
    started: float = field(default_factory=time.time)  #: when this inspector first heard of it (epoch seconds)
    ended: float | None = None
    wake: Wake | None = None  #: set when news arrive, to end a wait between polls early

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @property
    def label(self) -> str:
        return f"task {short_task_id(self.task_id)}" + (f" ({self.tool})" if self.tool else "")

    def line(self) -> str:
        """One line: the task, its status and message, its progress."""
        text = f"{self.label}: {self.status.replace('_', ' ')}"
        if self.cancel_requested and not self.terminal:
            text += " (cancel requested)"
        if self.message:
            text += f" — {self.message}"
        progress = self.progress or {}
        done, total = progress.get("progress"), progress.get("total")
        if _number(done):
            text += f" [{done:g}/{total:g}]" if _number(total) else f" [{done:g}]"
        return text

    def learn(self, task: dict[str, Any]) -> bool:
        """Take a Task object's fields (both forms' names); whether anything shown changed."""
        before = (self.status, self.message, self.ttl_ms, self.poll_ms, self.updated_at)
        status = task.get("status")
        if isinstance(status, str) and not (self.terminal and status not in TERMINAL):  # terminal stays terminal
            self.status = status
        message = task.get("statusMessage")
        if isinstance(message, str):
            self.message = message
        elif self.status != before[0]:  # the old status's message ("Generating report…") is not the new one's
            self.message = ""
        for name, attr in (("createdAt", "created_at"), ("lastUpdatedAt", "updated_at")):
            if isinstance(task.get(name), str):
                setattr(self, attr, task[name])
        ttl = task.get("ttlMs", task.get("ttl"))
        if _number(ttl):
            self.ttl_ms = int(ttl)
        elif ttl is None and ("ttlMs" in task or "ttl" in task):  # null: unlimited
            self.ttl_ms = None
        poll = task.get("pollIntervalMs", task.get("pollInterval"))
        if _number(poll):
            self.poll_ms = int(poll)
        if self.terminal and self.ended is None:
            self.ended = time.time()
        return before != (self.status, self.message, self.ttl_ms, self.poll_ms, self.updated_at)

    def interval(self) -> float:
        """Seconds to the next poll: the server's suggestion within :data:`MIN_POLL`..:data:`MAX_POLL`."""
        if self.poll_ms is None:
            return DEFAULT_POLL
        return min(MAX_POLL, max(MIN_POLL, self.poll_ms / 1000))


class Wake:
    """What a follower waits on between polls, woken early by news: a future of the running loop, made afresh
    for each wait (an ``asyncio.Event`` binds a loop in ways the window's Qt loop does not always provide)."""

    def __init__(self) -> None:
        self._future: asyncio.Future[None] | None = None
        self._pending = False  #: set while no wait was under way: the next wait returns at once

    def clear(self) -> None:
        """News so far are acted on (the follower looks at the task right after this)."""
        self._pending = False

    def set(self) -> None:
        if self._future is not None and not self._future.done():
            self._future.set_result(None)
        else:
            self._pending = True

    async def wait(self, timeout: float) -> None:
        """Return after ``timeout`` seconds, or as soon as :meth:`set` is called (or was, since the last wait)."""
        if self._pending:
            self._pending = False
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        self._future = future = loop.create_future()
        try:
            # a timer of the window's Qt loop may fire a little early (coarse timers: up to 5 %): wait out the rest,
            # so that a poll never comes sooner than the server asked
            while not future.done() and (left := deadline - loop.time()) > 0:
                await asyncio.wait((future,), timeout=left)
        finally:
            self._future = None


def _number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def task_support(tool: dict[str, Any] | None) -> str:
    """A tool's ``execution.taskSupport``: ``required``, ``optional`` or ``forbidden`` (the default)."""
    execution = tool.get("execution") if isinstance(tool, dict) else None
    support = execution.get("taskSupport") if isinstance(execution, dict) else None
    return support if support in ("required", "optional") else "forbidden"


def form_of(server: ServerInfo | None) -> str | None:
    """Which form of tasks the server offers for tools/call: :data:`EXTENSION` (a 2026-07-28 server declaring
    the extension), :data:`LEGACY` (``tasks.requests.tools.call``), or None."""
    caps = server.capabilities if server is not None else {}
    if server is not None and server.era == "modern":
        extensions = caps.get("extensions")
        return EXTENSION if isinstance(extensions, dict) and TASKS_EXTENSION in extensions else None
    tasks = caps.get("tasks")
    requests = tasks.get("requests") if isinstance(tasks, dict) else None
    tools = requests.get("tools") if isinstance(requests, dict) else None
    return LEGACY if isinstance(tools, dict) and "call" in tools else None


def plan(server: ServerInfo | None, tool: dict[str, Any] | None, asked: bool) -> str | None:
    """How a call of ``tool`` runs: :data:`LEGACY` (as a task), :data:`EXTENSION` (the server may answer with
    one) or None (a plain call). ``asked``: the user asked for a task. Raises :class:`TaskError` when a task
    was asked for and cannot be had."""
    form = form_of(server)
    name = tool.get("name") if isinstance(tool, dict) else None
    if form == EXTENSION:
        return EXTENSION  # the server decides; the capability says we can follow a task
    support = task_support(tool)
    if asked and form is None:
        raise TaskError(f"the server does not run tools as tasks (it declares neither tasks.requests.tools.call "
                        f"nor the {TASKS_EXTENSION} extension); {name} was not called")
    if asked and support == "forbidden" and tool is not None:
        raise TaskError(f"{name} cannot run as a task (its execution.taskSupport is forbidden or absent); it was "
                        "not called")
    if form == LEGACY and (support == "required" or asked):
        return LEGACY
    return None


def created_task(result: dict[str, Any]) -> dict[str, Any] | None:
    """The task a ``tools/call`` result creates, or None: a 2025-11-25 ``CreateTaskResult``'s ``task``, or the
    extension's ``resultType: "task"`` result with the task's fields in it (also, leniently, under ``task``: a
    result that says it is a task is never the call's answer, whatever its shape). Only a task with a string
    ``taskId`` can be followed."""
    nested = result.get("task")
    task: dict[str, Any] | None
    if result.get("resultType") == "task":
        task = result if isinstance(result.get("taskId"), str) or not isinstance(nested, dict) else nested
    else:
        task = nested if isinstance(nested, dict) else None
    return task if task is not None and isinstance(task.get("taskId"), str) else None


def outcome_of(response: Event) -> tuple[Any, Any]:
    """``(result, error)`` of the last answer of a call, as :func:`~inspector.core.session.outcomes.result_of`
    says, but for a call that ran as an extension task (its last answer is a ``tasks/get`` of an ended task) the
    task's own ``result`` or ``error`` (a cancelled task: an error saying so)."""
    result, error = result_of(response)
    if error is not None or response.data.get("request_method") != "tasks/get" or not isinstance(result, dict):
        return result, error
    status = result.get("status")
    if status == COMPLETED and isinstance(result.get("result"), dict):
        return result["result"], None
    if status == FAILED:
        found = result.get("error")
        return None, found if isinstance(found, dict) else {"code": None, "message": result.get("statusMessage")
                                                            or "the task failed without saying why"}
    if status == CANCELLED:
        return None, {"code": None, "message": f"the task {result.get('taskId')} was cancelled"}
    return result, error


class TaskBook:
    """The session's tasks: learnt from every message on the wire, and run by :meth:`call_tool`.

    :meth:`attach` it to hear the session; ``runs`` holds every task heard of (by id, oldest first), and each
    change is told to ``listeners`` (plain callables) with the run."""

    def __init__(self, session: Session, *, timeout: float = DEFAULT_REQUEST_TIMEOUT) -> None:
        self.session = session
        self.timeout = timeout
        self.runs: dict[str, TaskRun] = {}
        self.listeners: list[Callable[[TaskRun], None]] = []
        self._calls: dict[IdKey, tuple[str, Any, str]] = {}  #: tools/call id -> (tool, progress token, form)
        self._result_waits: dict[str, asyncio.Future[Event]] = {}  #: task id -> its tasks/result under way
        #: status notifications of tasks not known yet (sent before the answer that creates the task), by task id:
        #: their seqs join the task's span when it opens (a few, bounded)
        self._early: dict[str, list[int]] = {}

    def attach(self) -> None:
        if self._on_events not in self.session.listeners:
            self.session.listeners.append(self._on_events)

    def detach(self) -> None:
        if self._on_events in self.session.listeners:
            self.session.listeners.remove(self._on_events)

    # -- learning from the wire ----------------------------------------------------------------------

    def _on_events(self, events: list[Event]) -> None:
        for event in events:
            rpc = event.rpc
            if event.kind != Kind.MESSAGE or rpc is None or event.size > LEARN_BYTES:
                continue
            if event.dir == Direction.C2S and rpc.kind == jsonrpc.REQUEST and rpc.method == "tools/call":
                self._saw_call(event)
            elif event.dir != Direction.S2C:
                continue
            elif rpc.kind == jsonrpc.RESPONSE and event.data.get("request_method") in _TASK_METHODS:
                self._saw_answer(event)
            elif rpc.kind == jsonrpc.NOTIFICATION and rpc.method in ("notifications/tasks/status",
                                                                     "notifications/tasks"):
                params = params_of(event)
                run = self.runs.get(str(params.get("taskId")))
                if run is None and isinstance(params.get("taskId"), str):
                    early = self._early.get(params["taskId"])
                    if early is None and len(self._early) < EARLY_TASKS:
                        early = self._early[params["taskId"]] = []
                    if early is not None and len(early) < EARLY_TASKS:
                        early.append(event.seq)
                elif run is not None and run.learn(params):
                    self._tell(run)
            elif rpc.kind == jsonrpc.NOTIFICATION and rpc.method == "notifications/progress":
                self._saw_progress(params_of(event))

    def _saw_call(self, event: Event) -> None:
        params = params_of(event)
        meta = m if isinstance(m := params.get("_meta"), dict) else {}
        capabilities = c if isinstance(c := meta.get(_CAPABILITIES), dict) else {}
        extensions = capabilities.get("extensions")
        form = EXTENSION if isinstance(extensions, dict) and TASKS_EXTENSION in extensions else LEGACY
        assert event.rpc is not None
        self._calls[id_key(event.rpc.id)] = (str(params.get("name") or ""), meta.get("progressToken"), form)

    def _saw_answer(self, event: Event) -> None:
        assert event.rpc is not None
        result, _error = result_of(event)
        if not isinstance(result, dict):
            return
        method = event.data.get("request_method")
        if method == "tools/call":
            call = self._calls.pop(id_key(event.rpc.id), None)
            task = created_task(result)
            if task is None:
                return
            tool, token, form = call or ("", None, LEGACY)
            run = self.runs.setdefault(task["taskId"], TaskRun(task["taskId"], EXTENSION if result.get("resultType")
                                                               == "task" else LEGACY, tool, progress_token=token))
            run.learn(task)
            self._open_span(run, event)
            self._tell(run)
        elif method in ("tasks/get", "tasks/cancel") and isinstance(result.get("taskId"), str):
            known = self.runs.get(result["taskId"])
            if known is not None and known.learn(result):
                self._tell(known)
        elif method == "tasks/list" and isinstance(result.get("tasks"), list):
            for task in result["tasks"]:
                if isinstance(task, dict) and isinstance(task.get("taskId"), str):
                    run = self.runs.setdefault(task["taskId"], TaskRun(task["taskId"], LEGACY))
                    run.learn(task)
                    self._tell(run)

    def _saw_progress(self, params: dict[str, Any]) -> None:
        token = params.get("progressToken")
        if token is None:
            return
        for run in self.runs.values():
            if run.progress_token is not None and id_key(run.progress_token) == id_key(token) and not run.terminal:
                run.progress = params
                self._tell(run)
                return

    def _open_span(self, run: TaskRun, created: Event) -> None:
        """The answer that created the task opens its span (naming the call and this answer); from now on its
        polls, its notifications and the server's requests for it are marked as it."""
        if run.span:
            return
        spans = self.session.spans
        run.span = spans.new("task")
        spans.claim_task(run.span, run.task_id)
        if run.progress_token is not None:  # the call's progress, reported while the task runs
            spans.claim_progress(run.span, run.progress_token)
        form = "2025-11-25 tasks" if run.form == LEGACY else TASKS_EXTENSION
        self.session.note(f"{run.label} created ({form}): its requests are one span", span=run.span,
                          span_label=run.label, task_id=run.task_id,
                          members=[m for m in (created.data.get("reply_to"), *self._early.pop(run.task_id, ()),
                                               created.seq) if type(m) is int])

    def _tell(self, run: TaskRun) -> None:
        # a follower waiting between polls wakes for what it acts on at once (the end, a question, a cancel);
        # other news are shown and the next poll comes at the server's interval
        if run.wake is not None and (run.terminal or run.status == INPUT_REQUIRED or run.cancel_requested):
            run.wake.set()
        for listener in list(self.listeners):
            listener(run)

    # -- running a call as a task --------------------------------------------------------------------

    def call_params(self, params: dict[str, Any], form: str | None, ttl_ms: int | None = None) -> dict[str, Any]:
        """``tools/call`` params for ``form``: ``task`` (with ``ttl``) for a 2025-11-25 task, the extension in
        the request's client capabilities for the extension."""
        params = dict(params)
        if form == LEGACY:
            params["task"] = {"ttl": ttl_ms} if ttl_ms is not None else {}
        elif form == EXTENSION:
            meta = dict(params.get("_meta") or {})
            meta[_CAPABILITIES] = self._extension_capabilities()
            params["_meta"] = meta
        return params

    def _extension_capabilities(self) -> dict[str, Any]:
        caps = dict(self.session.client_capabilities())
        caps["extensions"] = {**(caps.get("extensions") or {}), TASKS_EXTENSION: {}}
        return caps

    async def call_tool(self, params: dict[str, Any], form: str | None, *, ttl_ms: int | None = None) -> Event:
        """``tools/call`` with ``params`` as ``form`` plans it (None: a plain call); when the server makes it a
        task, follow the task to its end. Returns the last answer (:func:`outcome_of` reads it). Raises the
        session's errors, :class:`RequestTimeout` when the task outlives ``max_request_time`` and
        :class:`RequestCancelled` when it was cancelled here."""
        self.attach()  # the answer that creates the task is learnt before this call hears it
        response = await self.session.request("tools/call", self.call_params(params, form, ttl_ms),
                                              timeout=self.timeout)
        result, error = result_of(response)
        if form is None or error is not None or not isinstance(result, dict):
            return response
        task = created_task(result)
        run = self.runs.get(task["taskId"]) if task is not None else None
        if run is None:
            if result.get("resultType") == "task":  # a task no one can follow is no answer either
                raise TaskError(f"the server answered tools/call {params.get('name')} with a task but no taskId "
                                "(a string), so it cannot be followed to its result")
            return response  # answered at once, with no task (the server's choice)
        return await self._follow(run, response)

    async def _follow(self, run: TaskRun, created: Event) -> Event:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.session.max_request_time
        run.wake = Wake()
        answered: set[str] = set()  # the extension's input keys already answered (each once)
        last = created
        try:
            while True:
                run.wake.clear()  # what is heard from here on wakes the wait below; the checks see the rest
                if run.status == CANCELLED or (run.cancel_requested and not run.terminal):
                    why = "tasks/cancel sent" if run.cancel_requested else "the server cancelled it"
                    raise RequestCancelled(f"tools/call {run.tool} was cancelled: {why} ({run.label})")
                if run.terminal:
                    return await self._final(run, last, deadline)
                if run.form == LEGACY and run.status == INPUT_REQUIRED:
                    self._start_result(run, deadline)  # the server's questions come on tasks/result's stream
                elif run.form == EXTENSION and run.status == INPUT_REQUIRED:
                    await self._give_input(run, last, answered)
                left = deadline - loop.time()
                if left <= 0:
                    raise self._outlived(run)
                await run.wake.wait(min(run.interval(), left))
                if not run.terminal and not run.cancel_requested:
                    last = await self._request("tasks/get", {"taskId": run.task_id}, run)
                    _result, error = result_of(last)
                    if error is not None:
                        return last  # the task is gone (not found, expired): the error is the call's outcome
        finally:
            run.wake = None
            pending = self._result_waits.pop(run.task_id, None)
            if pending is not None and not pending.done():
                pending.cancel()

    async def _final(self, run: TaskRun, last: Event, deadline: float) -> Event:
        """The ended task's outcome: 2025-11-25 ``tasks/result`` (already under way, or asked now); the
        extension's last ``tasks/get`` carries it inline (asked again if the news came by notification)."""
        if run.form == LEGACY:
            waiting = self._start_result(run, deadline)
            return await waiting
        if last.data.get("request_method") == "tasks/get" and _status_of(last) in TERMINAL:
            return last
        return await self._request("tasks/get", {"taskId": run.task_id}, run)

    def _start_result(self, run: TaskRun, deadline: float) -> asyncio.Future[Event]:
        """``tasks/result`` of a 2025-11-25 task, sent once: it blocks until the task ends, and while it does the
        server's requests for the task arrive and are answered as any server request is."""
        waiting = self._result_waits.get(run.task_id)
        if waiting is None:
            left = max(1.0, deadline - asyncio.get_running_loop().time())
            waiting = asyncio.ensure_future(self._request("tasks/result", {"taskId": run.task_id}, run, left))
            waiting.add_done_callback(lambda f: self._result_came(run, f))
            self._result_waits[run.task_id] = waiting
        return waiting

    @staticmethod
    def _result_came(run: TaskRun, waiting: asyncio.Future[Event]) -> None:
        """``tasks/result`` answered (or failed): the follower stops waiting between polls."""
        if not waiting.cancelled():
            waiting.exception()  # retrieved here; the follower awaits it and hears the same
        if run.wake is not None:
            run.wake.set()

    async def _give_input(self, run: TaskRun, last: Event, answered: set[str]) -> None:
        """The extension's ``input_required``: answer the requests not answered yet, with ``tasks/update``."""
        result, _error = result_of(last)
        asked = result.get("inputRequests") if isinstance(result, dict) else None
        fresh = {k: v for k, v in asked.items() if k not in answered} if isinstance(asked, dict) else {}
        if not fresh:
            return
        if not can_answer(self.session, fresh):
            names = ", ".join(f"{v.get('method')} ({k})" for k, v in fresh.items() if isinstance(v, dict))
            text = (f"{run.label} needs input ({names}) and nothing here can answer it (headless: give --answer, "
                    "for example --answer elicitation=accept-defaults); it was left waiting on the server")
            self.session.note(text, span=run.span, failure=True)
            raise TaskError(text)
        answers = await answer_input_requests(self.session, fresh)
        answered.update(fresh)
        await self._request("tasks/update", {"taskId": run.task_id, "inputResponses": answers}, run)

    async def _request(self, method: str, params: dict[str, Any], run: TaskRun, timeout: float | None = None) -> Event:
        """One request of ``run``'s, marked as its span (the extension's capability declared on it)."""
        msg_id = self.session.next_id()
        if run.span:
            self.session.spans.claim(run.span, msg_id)
        if run.form == EXTENSION:
            params = {**params, "_meta": {_CAPABILITIES: self._extension_capabilities()}}
        return await self.session.request(method, params, msg_id=msg_id, timeout=timeout or self.timeout)

    def _outlived(self, run: TaskRun) -> RequestTimeout:
        text = (f"{run.label} did not end within {self.session.max_request_time:g} s (its status: "
                f"{run.status}); it may still run on the server, tasks/cancel stops it")
        self.session.note(text, span=run.span, failure=True)
        return RequestTimeout(text)

    # -- the user's requests ---------------------------------------------------------------------------

    async def cancel(self, task_id: str) -> None:
        """``tasks/cancel`` for ``task_id``: whoever follows the task stops (with RequestCancelled). Raises
        TaskError when the server answers with an error, and the session's errors."""
        run = self.runs.get(task_id) or TaskRun(task_id, LEGACY)
        was = run.cancel_requested
        run.cancel_requested = True  # before the answer: the follower must know who ended the task
        try:
            response = await self._request("tasks/cancel", {"taskId": task_id}, run)
        except TransportError:
            run.cancel_requested = was
            raise
        _result, error = result_of(response)
        if error is not None:
            run.cancel_requested = was
            message = error.get("message") if isinstance(error, dict) else error
            raise TaskError(f"the server refused to cancel {run.label}: {message}")
        if task_id in self.runs:
            self._tell(run)
            if not run.terminal:  # the extension only acknowledges: ask what became of the task
                await self._confirm_cancel(run)

    async def _confirm_cancel(self, run: TaskRun) -> None:
        """After an acknowledged ``tasks/cancel`` that said no status: ``tasks/get`` at the task's interval, at
        most :data:`CANCEL_POLLS` times, until it is terminal (its row then says so, not "cancel requested")."""
        for _ in range(CANCEL_POLLS):
            response = await self._request("tasks/get", {"taskId": run.task_id}, run)
            _result, error = result_of(response)
            if error is not None or run.terminal:  # gone on the server, or ended: what the row shows now
                return
            await asyncio.sleep(run.interval())

    async def list_on_server(self) -> list[TaskRun]:
        """``tasks/list`` (2025-11-25, all pages): the tasks the server keeps for this client; each is learnt."""
        cursor: str | None = None
        seen: set[str] = set()
        for _page in range(100):
            response = await self.session.request("tasks/list", {"cursor": cursor} if cursor else None,
                                                  timeout=self.timeout)
            result, error = result_of(response)
            if error is not None:
                message = error.get("message") if isinstance(error, dict) else error
                raise TaskError(f"the server answered tasks/list with an error: {message}")
            cursor = result.get("nextCursor") if isinstance(result, dict) else None
            if not isinstance(cursor, str) or cursor in seen:
                break
            seen.add(cursor)
        return list(self.runs.values())


def _status_of(event: Event) -> str | None:
    result, _error = result_of(event)
    return result.get("status") if isinstance(result, dict) else None

