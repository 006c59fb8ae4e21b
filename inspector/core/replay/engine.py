"""Replay: send a capture's client messages to a server again, and compare what comes back with what was recorded.

**The plan** (:class:`ReplayPlan`) is the capture's client-to-server wire events, in order, the handshake
included (``initialize`` with its recorded params and ``notifications/initialized``, or ``server/discover``
with the ``_meta`` each 2026-07-28 request already carries): the session does no handshake of its own.

* Requests get fresh ids (an integer for an integer, a string for a string) mapped to the recorded ones.
  A request whose recorded answer came before the next client message is waited for (``--timeout``); one
  that was left waiting in the recording (a probe, a slow call the user cancelled) is waited for as long as
  the recording waited before its next message, and its answer is still collected if it comes later.
* ``notifications/cancelled`` names the fresh id of the request it cancels; a 2026-07-28 retry after an
  ``input_required`` answer carries this run's ``requestState``, not the recorded one.
* Everything else is resent byte for byte as recorded: notifications, framing errors (lines that were sent
  raw, bytes that are not UTF-8), batches.
* The inspector's own answers to server requests are not in the plan: the replay's server request handler
  answers them the way the capture did (matched by method and order); ``ping`` and ``roots/list`` are
  answered by the session, with the recorded roots.
* A capture recorded with intercept rules is replayed as the server saw it (:func:`inspector.core.wire.intercepted.
  servers`): what a rule changed is sent as changed, what it held back is not sent, and the server's own answers
  are the recorded ones (not what a rule made of them): the rules are not applied again.
* :meth:`Step.check` gives the reason when a message cannot be replayed (a line over the size limit, of
  which only the start and end were recorded).

**The run** is its own capture: the header has ``"replay_of": {"path", "created"}`` and each wire event that
replays a recorded one has ``data.replay_of`` = that event's ``seq``. The recorded capture is only read.

**The comparison** (:class:`StepOutcome`): each response against its recorded counterpart, ids mapped and
``--ignore`` paths dropped (see :mod:`inspector.core.replay.diff`); an answer that is missing now, or that was not
recorded; and, per message, the server messages in its window (from sending it to sending the next):
notifications and server requests by method, framing errors, and responses that answer no request.

Exit status: 0 when everything matches, 1 when something differs, 2 when the replay could not be done
(the server did not start, the handshake that worked in the recording failed now).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.core.capture.reader import Capture
from inspector.core.connect.opened import CannotOpen, session_on
from inspector.core.connect.target import STDIO
from inspector.core.exits import EXIT_CANNOT_CONNECT, EXIT_CANNOT_REPLAY, EXIT_DIFFERENT, EXIT_OK
from inspector.core.record.run import DEFAULT_IDLE
from inspector.core.replay.diff import (
    JsonPath,
    MessageDiff,
    WindowDelta,
    clip_value,
    compare_windows,
    diff_messages,
)
from inspector.core.session.handshake import MODERN_REVISION
from inspector.core.session.outcomes import METHOD_NOT_FOUND, RequestTimeout, RpcError, ServerInfo, result_of
from inspector.core.session.server_requests import ServerRequestHandler
from inspector.core.session.session import DEFAULT_REQUEST_TIMEOUT, Session
from inspector.core.text import safe
from inspector.core.transports.base import CannotConnect, Transport, TransportClosed, TransportError
from inspector.core.waiting import wait_for
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.ids import id_key
from inspector.core.wire.intercepted import MARK, servers

EXIT_SAME = EXIT_OK

REQUEST = "request"  #: re-encoded with a fresh id, answer awaited and compared
MAPPED = "mapped"  #: re-encoded because it names a request id (notifications/cancelled)
RAW = "raw"  #: resent byte for byte
HANDSHAKE_METHODS = ("initialize", "server/discover")
#: Server requests the session answers itself; the recorded answers to them are not replayed by the handler.
SESSION_ANSWERED = ("ping", "roots/list")


# -- the plan ---------------------------------------------------------------------------------------------


@dataclass
class Step:
    """One recorded client-to-server wire event and how it is replayed."""

    index: int
    event: Event  #: the recorded event
    action: str  #: :data:`REQUEST`, :data:`MAPPED` or :data:`RAW`
    obj: Any = None  #: the parsed message (requests and mapped messages)
    method: str | None = None
    recorded_id: Any = None
    response: Event | None = None  #: the recorded answer to a request, if one came
    waited: bool = False  #: the recording had the answer before its next client message
    gap: float = 0.0  #: seconds from this message to the recording's next client message (or its end)
    cancels: int | None = None  #: for notifications/cancelled: the index of the request step it names
    note: str | None = None  #: how it is replayed, when that is not the plain way
    reason: str | None = None  #: why it cannot be replayed
    window: Counter[str] = field(default_factory=Counter)  #: recorded server messages in its window

    def check(self) -> str | None:
        """None when the message can be replayed, else the reason in one sentence."""
        return self.reason

    @property
    def is_request(self) -> bool:
        return self.action == REQUEST

    def label(self) -> str:
        """``tools/call #9``: the method (or what the message is) and its seq in the recorded capture."""
        if self.event.kind == Kind.FRAMING_ERROR:
            return f"framing error #{self.event.seq}"
        what = self.method or (self.event.rpc.kind if self.event.rpc else "message")
        return safe(f"{what} #{self.event.seq}")

    def title(self, live_id: Any = None, sent: bool = True) -> str:
        """``tools/call #9 (recorded id 3 -> now 7)``: the label and, for a request, the id mapping."""
        if self.is_request:
            now = f"now {json.dumps(live_id, ensure_ascii=False)}" if sent else "not sent"
            return safe(f"{self.method} #{self.event.seq} (recorded id "
                        f"{json.dumps(self.recorded_id, ensure_ascii=False)} -> {now})")
        return self.label()


@dataclass
class RecordedAnswer:
    """How the recording answered one server request: ``result``, ``error``, or nothing (``answered`` false)."""

    seq: int | None
    answered: bool
    result: Any = None
    error: Any = None


class ReplayError(Exception):
    """A replay that cannot start, said in one sentence."""


@dataclass
class ReplayPlan:
    header: dict[str, Any]
    steps: list[Step]
    #: method -> the recorded answers to the server's requests of that method, in order
    answers: dict[str, list[RecordedAnswer]] = field(default_factory=dict)
    roots: list[dict[str, Any]] = field(default_factory=list)
    handler_answers: int = 0  #: recorded client answers to server requests (the handler gives them now)
    source: Path | None = None
    stdio_source: bool = False  #: recorded over stdio: raw lines keep their recorded terminators

    @classmethod
    def from_capture(cls, capture: Capture, source: str | os.PathLike[str] | None = None) -> ReplayPlan:
        events = capture.events
        stdio_source = capture.target.get("transport") == STDIO
        steps: list[Step] = []
        positions: list[int] = []
        pending: dict[tuple[str, Any], Step] = {}  # requests from the client waiting for their answer
        server_pending: dict[tuple[str, Any], Event] = {}  # requests from the server, likewise
        server_requests: list[Event] = []
        answered_by: dict[int, Event] = {}  # server request seq -> the client's answer
        by_id: dict[tuple[str, Any], Step] = {}
        for position, event in enumerate(events):
            if event.kind not in (Kind.MESSAGE, Kind.FRAMING_ERROR) or event.dir is None:
                continue
            if not servers(event.dir, event.data):  # held back from the server, or made in its place
                continue
            rpc = event.rpc if event.kind == Kind.MESSAGE else None
            if event.dir == Direction.S2C:
                if rpc is None:
                    continue
                if rpc.kind == jsonrpc.REQUEST:
                    server_pending[id_key(rpc.id)] = event
                    server_requests.append(event)
                elif rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR) and rpc.has_id:
                    step = pending.pop(id_key(rpc.id), None)
                    if step is not None:
                        step.response = event
                continue
            if rpc is not None and rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR) and rpc.has_id:
                asked = server_pending.pop(id_key(rpc.id), None)
                if asked is not None:
                    answered_by[asked.seq] = event
                    continue
            step = _make_step(len(steps), event, by_id, stdio_source)
            if step.is_request:
                pending[id_key(step.recorded_id)] = step
                by_id[id_key(step.recorded_id)] = step
            steps.append(step)
            positions.append(position)
        for i, step in enumerate(steps):
            start = 0 if i == 0 else positions[i]
            end = positions[i + 1] if i + 1 < len(steps) else len(events)
            step.window = window_counts(events[start:end])
            later = events[end].t if i + 1 < len(steps) else (events[-1].t if events else step.event.t)
            step.gap = max(0.0, later - step.event.t)
            step.waited = step.response is not None and (
                i + 1 == len(steps) or step.response.seq < steps[i + 1].event.seq)
        answers: dict[str, list[RecordedAnswer]] = {}
        roots: list[dict[str, Any]] | None = None
        for asked in server_requests:
            method = asked.method or ""
            answer = answered_by.get(asked.seq)
            recorded = _recorded_answer(answer)
            if method == "roots/list":
                if (roots is None and isinstance(recorded.result, dict)
                        and isinstance(recorded.result.get("roots"), list)):
                    roots = [r for r in recorded.result["roots"] if isinstance(r, dict)]
                continue
            if method in SESSION_ANSWERED:
                continue
            answers.setdefault(method, []).append(recorded)
        return cls(capture.header, steps, answers, roots or [], len(answered_by),
                   Path(source) if source is not None else None, stdio_source)

    @classmethod
    def load(cls, source: Path) -> tuple[ReplayPlan, list[str]]:
        """Read the capture ``source`` and plan its replay; returns the plan and the reader's warnings (lines it
        skipped). Raises :class:`ReplayError` when the file cannot be read or holds nothing to replay: the
        command line and the window give the same sentences."""
        from inspector.core.capture.format import CaptureError
        from inspector.core.capture.reader import read_capture

        try:
            capture = read_capture(source)
        except CaptureError as exc:
            raise ReplayError(f"cannot replay: {exc}") from None
        plan = cls.from_capture(capture, source)
        reason = plan.check()
        if reason is not None:
            raise ReplayError(f"cannot replay {source}: {reason}")
        return plan, capture.warnings

    def check(self) -> str | None:
        """None when there is something to replay, else why not."""
        if not self.steps:
            return "the capture has no message sent to the server, so there is nothing to replay"
        return None

    @property
    def handshake_index(self) -> int | None:
        """The step of the recorded handshake (initialize, or server/discover) that the server answered with a
        result; a replay that fails there could not be done at all."""
        for step in self.steps:
            if step.is_request and step.method in HANDSHAKE_METHODS and step.response is not None:
                result, error = result_of(step.response)
                if error is None and isinstance(result, dict):
                    return step.index
        return None


def _make_step(index: int, event: Event, by_id: dict[tuple[str, Any], Step], stdio_source: bool) -> Step:
    step = Step(index, event, RAW)
    oversize = event.data.get("oversize")
    if isinstance(oversize, dict):
        step.reason = (f"it was over the size limit ({oversize.get('total_bytes', '?'):,} bytes), so only its "
                       "start and end were recorded" if isinstance(oversize.get("total_bytes"), int) else
                       "it was over the size limit, so only its start and end were recorded")
        return step
    if event.kind == Kind.FRAMING_ERROR:
        try:
            event.raw.decode("utf-8")
            step.note = f"resent byte for byte: it was a framing error ({event.reason or 'not a message'})"
        except UnicodeDecodeError:
            step.note = "resent byte for byte: its bytes are not valid UTF-8"
        return step
    rpc = event.rpc
    try:
        obj = event.json()
    except ValueError:
        step.note = "resent byte for byte: it does not parse as JSON any more"
        return step
    step.method = rpc.method if rpc is not None else None
    if rpc is None:
        return step
    if rpc.kind == jsonrpc.BATCH:
        step.note = "resent byte for byte: a batch; the answers to it are not compared"
    elif rpc.kind == jsonrpc.REQUEST and isinstance(obj, dict):
        step.action, step.obj, step.recorded_id = REQUEST, obj, obj.get("id")
        if not _mappable(step.recorded_id):
            step.note = (f"its id {json.dumps(step.recorded_id)} is neither a string nor an integer, so it is sent "
                         "with that id again")
        if stdio_source and event.eol not in (b"\n", b""):
            step.note = f"resent with a plain newline (it was recorded with {event.eol!r})"
    elif rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR):
        step.note = "resent byte for byte: it answers no request of the server"
    elif rpc.method == "notifications/cancelled" and isinstance(obj, dict):
        params = obj.get("params")
        named = params.get("requestId") if isinstance(params, dict) else None
        target = by_id.get(id_key(named)) if named is not None else None
        if target is not None and _mappable(target.recorded_id):
            step.action, step.obj, step.cancels = MAPPED, obj, target.index
    return step


def _mappable(msg_id: Any) -> bool:
    return isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool)


def _recorded_answer(answer: Event | None) -> RecordedAnswer:
    if answer is None:
        return RecordedAnswer(None, False)
    try:
        obj = answer.json()
    except ValueError:
        obj = None
    if isinstance(obj, dict) and "error" in obj:
        return RecordedAnswer(answer.seq, True, error=obj["error"])
    return RecordedAnswer(answer.seq, True, result=obj.get("result") if isinstance(obj, dict) else None)


def window_label(event: Event) -> str | None:
    """How a server wire event counts in a window, or None when it does not: notifications and server
    requests by method, framing errors, and responses that answer no request."""
    if event.dir != Direction.S2C or not servers(event.dir, event.data):  # not the server's (a rule made it)
        return None
    if event.kind == Kind.FRAMING_ERROR:
        return "framing error"
    if event.kind != Kind.MESSAGE or event.rpc is None:
        return None
    kind = event.rpc.kind
    if kind == jsonrpc.NOTIFICATION:
        return event.rpc.method
    if kind == jsonrpc.REQUEST:
        return f"{event.rpc.method} request"
    # an answer a rule kept from the session (changed, dropped) is unpaired in the capture, yet answers its request
    if kind in (jsonrpc.RESPONSE, jsonrpc.ERROR) and "reply_to" not in event.data and MARK not in event.data:
        return f"{kind} that answers no request"
    return None


def window_counts(events: Sequence[Event]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for event in events:
        label = window_label(event)
        if label is not None:
            counts[label] += 1
    return counts


# -- the run ----------------------------------------------------------------------------------------------


@dataclass
class ReplayOptions:
    out: Path
    timeout: float = DEFAULT_REQUEST_TIMEOUT  #: bound on each answer
    idle: float = DEFAULT_IDLE  #: after the last message, how long trailing server messages are collected
    ignore: list[JsonPath] = field(default_factory=list)


@dataclass
class StepOutcome:
    """What became of one step in the replay, compared with the recording."""

    step: Step
    live_id: Any = None
    sent: bool = False
    response: Event | None = None  #: the replayed answer
    problem: str | None = None  #: why there is no answer now (timeout, the server gone), or why not sent
    diffs: list[MessageDiff] = field(default_factory=list)
    window: list[WindowDelta] = field(default_factory=list)

    @property
    def missing_answer(self) -> bool:
        return self.step.is_request and self.step.response is not None and self.response is None

    @property
    def unexpected_answer(self) -> bool:
        return self.step.is_request and self.step.response is None and self.response is not None

    @property
    def differs(self) -> bool:
        return bool(self.diffs or self.window or self.missing_answer or self.unexpected_answer
                    or (not self.sent and self.step.check() is None))

    @property
    def difference_count(self) -> int:
        return len(self.diffs) + len(self.window) + int(self.missing_answer) + int(self.unexpected_answer) \
            + int(not self.sent and self.step.check() is None and not self.missing_answer)

    def lines(self) -> list[str]:
        """The readable diff of this step, one difference per line, each starting with the step's title."""
        title = self.step.title(self.live_id, self.sent)
        out: list[str] = []
        if self.step.check() is None and not self.sent:
            out.append(f"{title}: not sent: {safe(self.problem or 'the replay stopped')}")
        elif self.missing_answer:
            out.append(f"{title}: no answer now ({safe(self.problem or 'none came')}); recorded: "
                       f"{_answer_text(self.step.response)}")
        elif self.unexpected_answer:
            out.append(f"{title}: no answer recorded; now: {_answer_text(self.response)}")
        out.extend(f"{title}: {d.describe()}" for d in self.diffs)
        out.extend(f"{title}: {w.describe()}" for w in self.window)
        return out


def _answer_text(event: Event | None) -> str:
    if event is None:
        return "none"
    try:
        return clip_value(event.json())
    except ValueError:
        return clip_value(event.text())


@dataclass
class ReplayResult:
    exit_code: int
    outcomes: list[StepOutcome]
    out: Path | None
    error: str | None = None  #: why the replay could not be done (exit 2), one sentence
    notes: list[str] = field(default_factory=list)  #: how messages were replayed when not plainly

    @property
    def differing(self) -> list[StepOutcome]:
        return [o for o in self.outcomes if o.differs]

    def lines(self) -> list[str]:
        return [line for outcome in self.outcomes for line in outcome.lines()]

    @property
    def summary(self) -> str:
        sent = sum(1 for o in self.outcomes if o.sent)
        compared = sum(1 for o in self.outcomes if o.step.is_request and o.step.response is not None)
        text = (f"replayed {sent} of {len(self.outcomes)} messages ({compared} recorded "
                f"answer{'s' if compared != 1 else ''} to compare)")
        differing = self.differing
        if self.error is not None:
            text += ": the replay could not be done"
        elif differing:
            count = sum(o.difference_count for o in differing)
            text += (f": {len(differing)} {'differs' if len(differing) == 1 else 'differ'} from the recording "
                     f"({count} difference{'s' if count != 1 else ''})")
        else:
            text += ": everything matches the recording"
        if self.out is not None:
            text += f"; the replay is in {self.out}"
        return text


class RecordedAnswers(ServerRequestHandler):
    """The server request handler of a replay: answers each server request the way the capture answered the
    request of the same method in the same place of the order. A request the recording never answered stays
    unanswered (until the replay ends); one the recording never saw gets an error that says so."""

    def __init__(self, answers: dict[str, list[RecordedAnswer]]) -> None:
        self._queues = {method: deque(items) for method, items in answers.items()}
        self._counts = {method: len(items) for method, items in answers.items()}
        self._unanswered: set[asyncio.Future[None]] = set()

    async def __call__(self, method: str, params: Any) -> Any:
        queue = self._queues.get(method)
        if not queue:
            recorded = self._counts.get(method, 0)
            raise RpcError(METHOD_NOT_FOUND, f"mcp-inspector replay has no recorded answer for this {method} (the "
                                             f"recording answered {recorded} of them)")
        answer = queue.popleft()
        if not answer.answered:
            future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._unanswered.add(future)
            await future  # cancelled by stop(): the recording never answered either
        if answer.error is not None:
            error = answer.error if isinstance(answer.error, dict) else {}
            code = c if isinstance(c := error.get("code"), int) else -32603
            raise RpcError(code, str(error.get("message", "")), error.get("data"))
        return answer.result

    def stop(self) -> None:
        for future in self._unanswered:
            future.cancel()
        self._unanswered.clear()


class ReplayMarker:
    """Marks each outgoing wire event that replays a recorded one with ``data.replay_of``, as the session's annotate
    hook (:attr:`Session.annotators`): before the event is numbered and saved."""

    def __init__(self) -> None:
        self._expected: list[tuple[Callable[[Event], bool], int, asyncio.Future[Event]]] = []

    def expect(self, test: Callable[[Event], bool], recorded_seq: int) -> asyncio.Future[Event]:
        """The next outgoing wire event that passes ``test`` replays ``recorded_seq``; the future has it."""
        future: asyncio.Future[Event] = asyncio.get_running_loop().create_future()
        self._expected.append((test, recorded_seq, future))
        return future

    def forget_expected(self) -> None:
        self._expected.clear()

    def __call__(self, events: list[Event]) -> None:
        if not self._expected:
            return
        for event in events:
            if event.dir != Direction.C2S or event.kind not in (Kind.MESSAGE, Kind.FRAMING_ERROR):
                continue
            for i, (test, seq, future) in enumerate(self._expected):
                if test(event):
                    event.put(replay_of=seq)
                    del self._expected[i]
                    if not future.done():
                        future.set_result(event)
                    break


async def replay(plan: ReplayPlan, transport: Transport, options: ReplayOptions) -> ReplayResult:
    """Replay ``plan`` over ``transport`` (not started yet: :func:`inspector.core.connect.target.make_transport`
    makes it), saving the run to ``options.out`` with what the transport describes in its header."""
    reason = plan.check()
    if reason is not None:
        return ReplayResult(EXIT_CANNOT_REPLAY, [], None, reason)
    source = {"path": str(plan.source.resolve()) if plan.source else None, "created": plan.header.get("created")}
    answers = RecordedAnswers(plan.answers)
    try:
        session, writer = session_on(transport, options.out, handler=answers, roots=plan.roots, keep_events=True,
                                     what="the replay to", replay_of=source)
    except CannotOpen as exc:
        return ReplayResult(EXIT_CANNOT_REPLAY, [], None, str(exc))
    assert writer is not None  # options.out is a path
    marker = ReplayMarker()
    session.annotators.append(marker)
    engine = _Engine(plan, session, marker, transport.name, answers, options)
    try:
        await engine.run()
    finally:
        await engine.stop_waiting()
        await session.close()
        writer.close()
    outcomes = engine.compare()
    notes = [f"{s.label()}: not replayed: {s.check()}" for s in plan.steps if s.check()] + \
            [f"{s.label()}: {s.note}" for s in plan.steps if s.note and not s.check()]
    if engine.error is not None:
        code = EXIT_CANNOT_CONNECT if engine.unreachable else EXIT_CANNOT_REPLAY
    elif any(o.differs for o in outcomes):
        code = EXIT_DIFFERENT
    else:
        code = EXIT_SAME
    return ReplayResult(code, outcomes, options.out, engine.error, notes)


class _Engine:
    def __init__(self, plan: ReplayPlan, session: Session, marker: ReplayMarker, transport_name: str,
                 answers: RecordedAnswers, options: ReplayOptions) -> None:
        self.plan = plan
        self.session = session
        self.marker = marker  #: marks what replays what (the session's annotate hook)
        self.answers = answers
        self.options = options
        self.outcomes = [StepOutcome(step) for step in plan.steps]
        self.boundaries: list[int] = []  # len(session.events) when each step began: the windows
        self.tasks: dict[int, asyncio.Task[Event]] = {}
        self.collected: set[int] = set()
        self.live_state: dict[str, Any] = {}  # method -> requestState of this run's last input_required answer
        self.ready_pending = False
        self.error: str | None = None  # the replay could not be done
        self.unreachable = False  # ... because the server could not be started or connected to
        self.stopped: str | None = None  # why the remaining steps are not sent
        self.stdio_source = plan.stdio_source
        self.stdio_live = transport_name == STDIO

    # -- running ---------------------------------------------------------------------------------------

    async def run(self) -> None:
        session = self.session
        try:
            await session.start()
        except TransportError as exc:
            self.error = self.stopped = f"the server could not be started: {exc}"
            self.unreachable = True
            return
        session.note(f"replay of {self.plan.source or 'a capture'} (recorded {self.plan.header.get('created', '?')}): "
                     f"{len(self.plan.steps)} message{'s' if len(self.plan.steps) != 1 else ''} to send")
        handshake = self.plan.handshake_index
        if handshake is None:
            await session.handshake("none")
        for step in self.plan.steps:
            self.boundaries.append(len(session.events))
            outcome = self.outcomes[step.index]
            reason = step.check()
            if reason is not None:
                session.note(f"#{step.event.seq} not replayed: {reason}", replay_of=step.event.seq)
                continue
            closed = unreachable = False
            if self.stopped is not None:
                outcome.problem = self.stopped
            else:
                try:
                    await self._play(step, outcome)
                except TransportClosed as exc:
                    closed = True
                    outcome.problem = str(exc)
                    self.stopped = f"the replay stopped at #{step.event.seq}: {exc}"
                except TransportError as exc:  # this message failed; the connection may carry the next one
                    outcome.problem = str(exc)
                    unreachable = isinstance(exc, CannotConnect)
            # up to the handshake that worked in the recording, a lost connection means no replay at all; so
            # does a handshake that fails now (a probe that failed, as recorded, is no failure)
            if handshake is not None and step.index <= handshake and self.error is None:
                failure = outcome.problem if closed else \
                    self._handshake_failure(step, outcome) if step.index == handshake else None
                if failure is not None:
                    self.error = self.stopped = f"the handshake failed: {failure}"
                    self.unreachable = unreachable
        await self._finish()

    @staticmethod
    def _handshake_failure(step: Step, outcome: StepOutcome) -> str | None:
        """Why the handshake request (answered with a result in the recording) failed now, or None."""
        if outcome.response is None:
            return outcome.problem or f"no answer to {step.method}"
        _, error = result_of(outcome.response)
        if error is not None:
            text = error.get("message", "(no message)") if isinstance(error, dict) else repr(error)
            code = error.get("code") if isinstance(error, dict) else None
            return f"the server answered {step.method} with an error: {text} (code {code})"
        return None

    async def _play(self, step: Step, outcome: StepOutcome) -> None:
        self.marker.forget_expected()
        if self.ready_pending and step.method != "notifications/initialized":
            self._ready()
        if step.action == REQUEST:
            await self._request(step, outcome)
        elif step.action == MAPPED:
            obj = dict(step.obj)
            target = self.outcomes[step.cancels] if step.cancels is not None else None
            if target is not None and target.sent:
                obj["params"] = {**obj["params"], "requestId": target.live_id}
            method = step.method
            self.marker.expect(lambda e: e.rpc is not None and e.rpc.method == method, step.event.seq)
            await self.session.send_object(obj)
            outcome.sent = True
        else:
            raw = step.event.raw
            if self.stdio_live:
                payload = raw + (step.event.eol if self.stdio_source else b"\n")
            else:
                payload = raw
            self.marker.expect(lambda e: e.raw == raw, step.event.seq)
            await self.session.send_raw(payload)
            outcome.sent = True
        if step.method == "notifications/initialized" and self.ready_pending:
            self._ready()

    async def _request(self, step: Step, outcome: StepOutcome) -> None:
        obj = dict(step.obj)
        if _mappable(step.recorded_id):
            fresh = self.session.next_id()
            obj["id"] = fresh if isinstance(step.recorded_id, int) else str(fresh)
        params = obj.get("params")
        if isinstance(params, dict) and "inputResponses" in params and step.method in self.live_state:
            obj["params"] = {**params, "requestState": self.live_state[step.method]}
        outcome.live_id = obj.get("id")
        key = id_key(obj.get("id"))
        sent = self.marker.expect(
            lambda e: e.rpc is not None and e.rpc.kind == jsonrpc.REQUEST and id_key(e.rpc.id) == key, step.event.seq)
        # one request, one answer: request_object would fulfil input_required itself, but in a replay the
        # recorded retry is the next step of the script
        task = asyncio.ensure_future(self.session.request_one_round(obj, self.options.timeout, False))
        self.tasks[step.index] = task
        await asyncio.wait([task, sent], return_when=asyncio.FIRST_COMPLETED)
        # sent unless the send itself failed (a server gone before the message was written)
        outcome.sent = sent.done() or (task.done() and not task.cancelled() and task.exception() is None)
        if not task.done():
            if step.waited:
                await asyncio.wait([task])
            else:  # the recording went on without the answer: wait as long as it did, then go on too
                await asyncio.wait([task], timeout=min(step.gap, self.options.timeout))
        if task.done():
            self._collect(step, outcome, task, raise_closed=True)

    def _collect(self, step: Step, outcome: StepOutcome, task: asyncio.Task[Event], raise_closed: bool) -> None:
        if task.cancelled() or step.index in self.collected:
            return
        self.collected.add(step.index)
        exc = task.exception()
        if isinstance(exc, RequestTimeout):
            outcome.problem = str(exc)
            return
        if isinstance(exc, TransportError):
            outcome.problem = str(exc)
            if raise_closed and isinstance(exc, TransportClosed):
                raise exc
            return  # this exchange failed (an HTTP error, say); the connection may carry the next one
        if exc is not None:
            raise exc
        response = task.result()
        outcome.response = response
        result, error = result_of(response)
        if error is not None or not isinstance(result, dict):
            return
        if step.method == "initialize" and isinstance(result.get("protocolVersion"), str):
            version = result["protocolVersion"]
            info = result["serverInfo"] if isinstance(result.get("serverInfo"), dict) else {}
            caps = result["capabilities"] if isinstance(result.get("capabilities"), dict) else {}
            self.session.settle(ServerInfo("legacy", version, info.get("name"), info.get("version"), caps))
            self.ready_pending = True
        elif step.method == "server/discover":
            meta = (step.obj.get("params") or {}).get("_meta") if isinstance(step.obj.get("params"), dict) else None
            version = meta.get("io.modelcontextprotocol/protocolVersion") if isinstance(meta, dict) else None
            version = version if isinstance(version, str) else MODERN_REVISION
            self.session.settle(ServerInfo("modern", version))
            self.session.ready()
        elif result.get("resultType") == "input_required" and "requestState" in result and step.method:
            self.live_state[step.method] = result["requestState"]

    def _ready(self) -> None:
        self.ready_pending = False
        self.session.ready()

    async def _finish(self) -> None:
        """Collect the answers still expected (each bounded by its own timeout), then trailing messages for
        ``idle`` seconds; requests the recording never saw answered are not waited for beyond that."""
        expected = [t for i, t in self.tasks.items() if not t.done() and self.plan.steps[i].response is not None]
        if expected:
            await asyncio.wait(expected)
        if self.options.idle > 0 and not self.session.closed and self.error is None:
            try:
                await wait_for(self.session.wait_closed(), self.options.idle)
            except TimeoutError:
                pass
        await self.stop_waiting()
        for index, task in self.tasks.items():
            if task.done():
                self._collect(self.plan.steps[index], self.outcomes[index], task, raise_closed=False)

    async def stop_waiting(self) -> None:
        """Stop waiting for answers that will not count, and leave server requests the recording never
        answered unanswered."""
        self.answers.stop()
        pending = [t for t in self.tasks.values() if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending)

    # -- comparing -------------------------------------------------------------------------------------

    def compare(self) -> list[StepOutcome]:
        events = self.session.events
        bounds = self.boundaries + [len(events)] * (len(self.plan.steps) + 1 - len(self.boundaries))
        live = [window_counts(events[0 if i == 0 else bounds[i]:bounds[i + 1]]) for i in range(len(self.plan.steps))]
        windows = compare_windows([s.window for s in self.plan.steps], live)
        for outcome, delta in zip(self.outcomes, windows, strict=True):
            step = outcome.step
            outcome.window = delta
            if step.is_request and step.response is not None and outcome.response is not None:
                try:
                    recorded, replayed = step.response.json(), outcome.response.json()
                except ValueError:
                    continue
                outcome.diffs = diff_messages(recorded, replayed, self.options.ignore)
        return self.outcomes
