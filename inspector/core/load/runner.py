"""A load run: one request (a tool call, or any method with its params) sent again and again through one session,
at most ``concurrency`` waiting for their answers at once, for ``duration`` seconds or ``requests`` requests, at
most ``rate`` started a second; every request and answer goes through the session's pipeline, so the run is
numbered, paired and saved like any session (its capture).

How it keeps up (benchmarks/load.py): the request is encoded once, as the bytes before and after its id; the
answers are taken from the session's listener (the pipeline pairs them and measures their latency, so nothing
waits on a future per request), and each batch of answers is refilled with one write of as many new requests
on stdio (one POST each over HTTP, concurrently). On stdio the write carries the events its lines make, built
from the template the decoder made of the first (:func:`request_template`), so the transport records them
without parsing the bytes it was just given (issue 39: a client's CPU per call decides the throughput when it
shares two cores with its server). A request not answered within the target's timeout counts
as ``no_answer`` and its place is given to a new one; its late answer is ignored.

Errors: a JSON-RPC error answer (``rpc_error``, its message kept), a tool result with ``isError: true``
(``tool_error``: seen in the answer's bytes without parsing it; ``"isError"`` with its quotes cannot occur
inside a JSON string, where quotes are escaped), no answer in time (``no_answer``).

A run the transport stops (a server that stops reading its stdin, a connection that closes under a write) ends
there: the requests still waiting count as unanswered with that reason, and the figures say why it stopped
(``stopped``). A run cancelled from outside (Ctrl-C) keeps its figures so far: :meth:`LoadRun.figures`.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inspector.core.load.stats import NO_ANSWER, RPC_ERROR, TOOL_ERROR, LoadStats, Snapshot
from inspector.core.session.session import Session
from inspector.core.transports.base import TransportClosed, TransportError
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind, RpcInfo
from inspector.core.wire.framing import LineDecoder

#: How often the progress callback is told how the run goes (seconds).
PROGRESS_INTERVAL = 0.5
#: How often requests waiting longer than the timeout are given up on.
SWEEP_INTERVAL = 0.25
_IS_ERROR = re.compile(rb'"isError"\s*:\s*true')


class LoadError(ValueError):
    """A load plan that cannot run; ``str()`` is a sentence."""


@dataclass
class LoadPlan:
    """What to send, how much and how fast."""

    method: str
    params: Any = None
    concurrency: int = 10
    duration: float | None = None  #: seconds; stop starting requests after this long
    requests: int | None = None  #: stop after starting this many
    rate: float | None = None  #: start at most this many a second, spread evenly

    def problem(self) -> str | None:
        """Why the plan cannot run (one sentence), or None."""
        if self.concurrency < 1:
            return "--concurrency must be 1 or more"
        if self.duration is None and self.requests is None:
            return "say how long: --duration S or --requests N"
        if self.duration is not None and not self.duration > 0:
            return "--duration must be more than 0 seconds"
        if self.requests is not None and self.requests < 1:
            return "--requests must be 1 or more"
        if self.rate is not None and not self.rate > 0:
            return "--rate must be more than 0 a second"
        return None


class LoadRun:
    """One load run on an open session (see the module). :meth:`run` returns the figures
    (:meth:`inspector.core.load.stats.LoadStats.result`)."""

    def __init__(self, session: Session, plan: LoadPlan, *, http: bool, timeout: float,
                 on_progress: Callable[[Snapshot], None] | None = None) -> None:
        problem = plan.problem()
        if problem:
            raise LoadError(problem)
        self.session = session
        self.plan = plan
        self.http = http
        self.timeout = timeout
        self.on_progress = on_progress
        self.stats = LoadStats()
        self.inflight: dict[int, float] = {}  #: request id -> when it was sent (monotonic)
        self.stopped = False  #: set by :meth:`stop` (the window's Stop): no more requests are started
        self._wake = asyncio.Event()
        self._head = b""
        self._tail = b""
        self._sent: list[Event] = []  #: the events of the requests last written (stdio)
        self._at_once = False  #: refill from the session's after_batch hook (stdio with a template, no --rate)
        self._due = False  #: answers came in the batch being announced: refill once it has been
        self._deadline: float | None = None  #: when no more requests start (monotonic), with --duration
        self._template: Event | None = None  #: stdio: the request's line as its decoder makes it (request_template)
        self._t0 = 0.0
        self._ended = 0.0
        self._failures: list[BaseException] = []
        self._posts: set[asyncio.Task[None]] = set()  #: HTTP: the POSTs under way (kept until they end)
        self.stopped_by: str | None = None  #: why the transport ended the run early (a sentence), if it did

    def stop(self) -> None:
        """Start no more requests; the run ends once those waiting are answered (or time out)."""
        self.stopped = True
        self._wake.set()

    @property
    def elapsed(self) -> float:
        return (self._ended or time.monotonic()) - self._t0 if self._t0 else 0.0

    async def run(self) -> dict[str, Any]:
        self._encode()
        # on stdio without --rate, answers are refilled at once, once every listener has seen them (after_batch):
        # no turn of the loop for the driver per batch of answers; it still starts the run, and waits, paces and
        # writes whatever the pipe cannot take at once
        self._at_once = self._template is not None and self.plan.rate is None
        self.session.listeners.append(self._saw)
        self.session.after_batch.append(self._after_batch)
        ticker = asyncio.ensure_future(self._tick())
        try:
            self._t0 = time.monotonic()
            try:
                await self._drive()
                await self._drain()
            except TransportError as exc:  # a write failed: what was sent may be cut short, so nothing more is
                self.stopped_by = str(exc)
                self._give_up(f"not answered: the run stopped: {exc}")
        finally:
            self._ended = time.monotonic()
            ticker.cancel()
            self.session.listeners.remove(self._saw)
            self.session.after_batch.remove(self._after_batch)
        if self.on_progress is not None:
            self.on_progress(self.stats.snapshot(self.elapsed))
        return self.figures()

    def figures(self) -> dict[str, Any]:
        """The figures so far (:meth:`LoadStats.result`); at the end of :meth:`run`, the run's. ``waiting``: the
        requests sent and neither answered nor given up on yet (only a run cut short has any); ``stopped``: why
        the transport ended the run early."""
        figures = self.stats.result(self.elapsed, self.plan.concurrency)
        figures["waiting"] = len(self.inflight)
        if self.stopped_by is not None:
            figures["stopped"] = self.stopped_by
        return figures

    def _give_up(self, why: str) -> None:
        """Count every request still waiting as unanswered, for ``why``."""
        for _ in range(len(self.inflight)):
            self.stats.failed(NO_ANSWER, why)
        self.inflight.clear()

    def _encode(self) -> None:
        """The request as the bytes around its id; ``_meta`` as the session adds it in the 2026-07-28 era."""
        obj = self.session.prepare_request({"jsonrpc": "2.0", "id": 0, "method": self.plan.method,
                                            **({} if self.plan.params is None else {"params": self.plan.params})})
        rest = {k: v for k, v in obj.items() if k not in ("jsonrpc", "id")}
        body = json.dumps(rest, ensure_ascii=False, separators=(",", ":")).encode()
        self._head = b'{"jsonrpc":"2.0","id":'
        self._tail = b"," + body[1:] + (b"" if self.http else b"\n")
        self._template = None if self.http else request_template(self._head + b"0" + self._tail)

    async def _drive(self) -> None:
        plan = self.plan
        deadline = self._deadline = self._t0 + plan.duration if plan.duration is not None else None
        if plan.duration is not None:  # the deadline wakes a driver waiting for answers
            asyncio.get_running_loop().call_later(plan.duration, self._wake.set)
        while not self.stopped and not self.session.closed:
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return
            started = self.stats.started
            if plan.requests is not None and started >= plan.requests:
                return
            free = self._room(now)
            if free > 0 and plan.rate is not None:
                due = int((now - self._t0) * plan.rate) + 1 - started  # the first at once, then one every 1/rate s
                if due <= 0:
                    pause = self._t0 + started / plan.rate - now
                    await asyncio.sleep(min(pause, deadline - now) if deadline is not None else pause)
                    continue
                free = min(free, due)
            if free > 0:
                await self._send(free, now)
                if self._failures:
                    raise self._failures[0]
                continue
            self._wake.clear()
            await self._wake.wait()

    def _room(self, now: float) -> int:
        """How many requests may start now (not counting --rate): none once stopped, closed, past the deadline or
        at --requests; else the free places under the concurrency."""
        plan = self.plan
        if self.stopped or self.session.closed or (self._deadline is not None and now >= self._deadline):
            return 0
        free = plan.concurrency - len(self.inflight)
        if plan.requests is not None:
            free = min(free, plan.requests - self.stats.started)
        return free

    def _after_batch(self) -> None:
        """The session's after_batch hook: a batch that answered requests is refilled at once when the pipe takes
        it without waiting (:attr:`_at_once`); else the driver is woken to do it (or to end)."""
        if not self._due:
            return
        self._due = False
        now = time.monotonic()
        count = self._room(now)
        if count > 0 and self.session.can_send_now():
            data, events = self._batch(count, now)
            self.session.send_decoded_now(data, events)
            return
        self._wake.set()

    def _start(self, count: int, now: float) -> tuple[list[bytes], list[int]]:
        """``count`` requests numbered, marked waiting and counted: their lines and ids."""
        lines = []
        ids = []
        next_id = self.session.next_id
        head = self._head
        tail = self._tail
        for _ in range(count):
            msg_id = next_id()
            self.inflight[msg_id] = now
            ids.append(msg_id)
            lines.append(head + str(msg_id).encode() + tail)
        self.stats.started += count
        return lines, ids

    def _batch(self, count: int, now: float) -> tuple[bytes, list[Event]]:
        """On stdio with a template: ``count`` requests started, as the bytes to write and their events."""
        template = self._template
        assert template is not None
        lines, ids = self._start(count, now)
        # the events the transport's decoder would make of these lines, made from the template's: only the id
        # (and so the bytes) differ, and nothing the decoder finds depends on which integer an id is
        method, findings = template.method, template.findings
        events = [Event(Kind.MESSAGE, line[:-1], Direction.C2S, b"\n", None,
                        RpcInfo(jsonrpc.REQUEST, method, msg_id, True), findings and list(findings))
                  for line, msg_id in zip(lines, ids, strict=True)]
        self._sent = events
        return b"".join(lines), events

    async def _send(self, count: int, now: float) -> None:
        if not self.http and self._template is not None:
            data, events = self._batch(count, now)
            await self.session.send_decoded(data, events)
            return
        lines, _ = self._start(count, now)
        if not self.http:
            await self.session.send_raw(b"".join(lines))
            return
        for line in lines:  # one POST each, all at once: their answers come back on their own
            task = asyncio.ensure_future(self._post(line))
            self._posts.add(task)
            task.add_done_callback(self._posts.discard)

    async def _post(self, line: bytes) -> None:
        try:
            await self.session.send_raw(line)
        except TransportClosed as exc:
            self._failures.append(exc)
            self._wake.set()
        except TransportError as exc:  # this POST failed (the transport noted it): the request failed
            msg_id = int(line[len(self._head):line.index(b",", len(self._head))])
            if self.inflight.pop(msg_id, None) is not None:
                self.stats.failed(RPC_ERROR, str(exc))
            self._wake.set()

    async def _drain(self) -> None:
        """Wait for the requests still out, at most the timeout (the sweep gives up on them); those a server that
        went away never answered count as unanswered."""
        while self.inflight and not self.session.closed:
            self._wake.clear()
            await self._wake.wait()
        if self.inflight:
            self._give_up(f"no answer: {self.session.diagnosis() or 'the connection closed'}")

    def _saw(self, events: list[Event]) -> None:
        """A session listener: answers to our requests, counted."""
        if events is self._sent:  # the requests just written, announced as they were sent: no answer among them
            return
        inflight = self.inflight
        stats = self.stats
        got = False
        for event in events:
            rpc = event.rpc
            if rpc is None or event.dir != Direction.S2C or event.kind != Kind.MESSAGE:
                continue
            if rpc.kind == jsonrpc.RESPONSE:
                if inflight.pop(rpc.id, None) is None:
                    continue
                got = True
                latency = event.data.get("latency")
                stats.latencies.append(latency if isinstance(latency, float) else 0.0)
                if _IS_ERROR.search(event.raw) is not None:
                    stats.failed(TOOL_ERROR, "the tool answered isError: true")
            elif rpc.kind == jsonrpc.ERROR and inflight.pop(rpc.id, None) is not None:
                got = True
                latency = event.data.get("latency")
                stats.latencies.append(latency if isinstance(latency, float) else 0.0)
                stats.failed(RPC_ERROR, _error_message(event))
        if got:
            if self._at_once:
                self._due = True  # refilled by _after_batch, once every listener has seen this batch
            else:
                self._wake.set()

    async def _tick(self) -> None:
        """Progress and the sweep of requests waiting too long, on a timer of their own."""
        last_progress = 0.0
        while True:
            await asyncio.sleep(SWEEP_INTERVAL)
            now = time.monotonic()
            old = [msg_id for msg_id, sent in self.inflight.items() if now - sent > self.timeout]
            for msg_id in old:
                del self.inflight[msg_id]
                self.stats.failed(NO_ANSWER, f"no answer within {self.timeout:g} s")
            if old or self.session.closed or self._due:  # (_due: a batch whose after_batch never came)
                self._due = False
                self._wake.set()
            if self.on_progress is not None and now - last_progress >= PROGRESS_INTERVAL:
                last_progress = now
                self.on_progress(self.stats.snapshot(now - self._t0))


def request_template(line: bytes) -> Event | None:
    """What the stdio transport's decoder makes of a load run's request ``line`` (its id 0, its newline), when
    it is a request whose every other id's line :meth:`LoadRun._send` can record the same way; else None (each
    line is then decoded as it is written)."""
    events = LineDecoder(Direction.C2S).feed(line)
    if len(events) != 1:
        return None
    event = events[0]
    rpc = event.rpc
    if type(event) is not Event or event.kind != Kind.MESSAGE or event.eol != b"\n" or event.data \
            or event.reason is not None or rpc is None or rpc.kind != jsonrpc.REQUEST or type(rpc.id) is not int \
            or event.raw + event.eol != line:
        return None
    return event


def _error_message(event: Event) -> str:
    try:
        error = event.json().get("error")
    except (ValueError, AttributeError):
        return "an error answer that is not JSON"
    if isinstance(error, dict):
        return f"{error.get('message', '(no message)')} (code {error.get('code')})"
    return "an error answer"


@dataclass
class ToolCall:
    """``load TOOL KEY=VALUE...``: a tool and its arguments as typed on the command line."""

    tool: str
    words: list[str]
    base: dict[str, Any] | None = None  #: ``--args JSON`` under the words


async def call_params(session: Session, call: ToolCall, timeout: float) -> dict[str, Any]:
    """The ``tools/call`` params of ``call``, its arguments typed and checked against the tool's inputSchema from
    the server's list (as ``call`` does). Raises LoadError naming what is wrong."""
    from inspector.core.explore.arguments import argument_problems, did_you_mean, tool_arguments
    from inspector.core.explore.listing import ListingError, list_all

    try:
        tools = (await list_all(session, "tools", timeout=timeout)).items
    except ListingError as exc:
        raise LoadError(f"cannot check {call.tool} against the server's tools: {exc}") from None
    tool = next((t for t in tools if t.get("name") == call.tool), None)
    if tool is None:
        names = [str(t.get("name")) for t in tools if isinstance(t.get("name"), str)]
        raise LoadError(f"the server has no tool named {call.tool}; {did_you_mean(call.tool, names)}")
    schema = tool.get("inputSchema")
    arguments = tool_arguments(schema, call.words, call.base)
    problems = argument_problems(schema, arguments)
    if problems:
        raise LoadError(f"the arguments do not fit the inputSchema of {call.tool}: {problems[0]}; nothing was sent")
    return {"name": call.tool, "arguments": arguments}
