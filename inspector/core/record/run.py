"""The headless ``record`` run: launch, handshake, send a script of messages, wait, shut down, summarize.

Used by ``mcp-inspector record`` and ``--demo``; returns a :class:`RecordResult` instead of printing, so the
CLI, the GUI and tests share it. Exit statuses: :data:`inspector.core.exits.RECORD_EXITS` (0 when every request
got a result; 3 cannot start or connect, 4 timeout, 1 any other failure; 6 protocol violation, 5 an error
answer; 2 unusable input).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from inspector.core.connect.opened import CannotOpen, new_session
from inspector.core.connect.target import InputError, Target
from inspector.core.exits import (
    EXIT_OK,
    EXIT_PROTOCOL,
    EXIT_RPC_ERROR,
)
from inspector.core.intercept.engine import Interceptor
from inspector.core.intercept.rules import Rules
from inspector.core.intercept.transport import HELD_AT_END
from inspector.core.session.outcomes import HandshakeError, UnreadableResponse, failure_exit, result_of
from inspector.core.session.session import Session
from inspector.core.text import safe
from inspector.core.transports.base import TransportError
from inspector.core.waiting import wait_for
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import server_broke_framing
from inspector.core.wire.intercepted import MARK, mark_of, rule_label

#: Default wait after the last response, for trailing notifications.
DEFAULT_IDLE = 0.5
#: What ``--send -`` and ``--out -`` mean: standard input, standard output.
STDIO_NAME = "-"


@dataclass
class RecordOptions:
    """What to record (the ``target``: its handshake, timeout and redaction too), where, and what to send."""

    target: Target
    out: Path
    messages: list[dict[str, Any]] = field(default_factory=list)
    idle: float = DEFAULT_IDLE
    roots: list[dict[str, str]] = field(default_factory=list)
    answers: dict[str, str] = field(default_factory=dict)  #: headless answers: elicitation=..., sampling=...
    progress: bool = False  #: add a progressToken to requests of the script that have none
    max_time: float = 600.0  #: bound on one request however much progress it reports
    #: write the capture here instead of to ``out`` (``--out -``: the CLI passes standard output)
    stream: IO[str] | None = None
    #: send a span per request to this OTLP/HTTP collector as the session goes (``--otlp-endpoint``)
    otlp_endpoint: str | None = None
    #: intercept rules (``--rules``, checked: no pause rule): every message each way goes through them
    rules: Rules | None = None

    @property
    def out_name(self) -> str:
        """The capture's destination as sentences name it."""
        return "stdout" if self.stream is not None else str(self.out)


@dataclass
class RecordResult:
    exit_code: int
    summary: str
    error: str | None = None
    server: Any = None
    #: what went wrong besides the session itself (the OTLP export), one sentence each
    warnings: list[str] = field(default_factory=list)


def load_messages(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Read a ``--send`` file: one JSON object per line; blank lines and ``//`` comments are skipped. ``-`` is
    standard input, read to its end (UTF-8, as a file is)."""
    name = os.fspath(path)
    try:
        if name == STDIO_NAME:
            name = "stdin"
            text = sys.stdin.buffer.read().decode("utf-8") if sys.stdin is not None else ""
        else:
            text = Path(name).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{name} cannot be read: {exc}") from None
    messages = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{name} line {number} is not JSON: {exc.msg} at column {exc.colno}") from None
        except RecursionError:  # Python's json reads about a thousand levels
            raise InputError(f"{name} line {number} is JSON nested too deep to read") from None
        if not isinstance(obj, dict):
            raise InputError(f"{name} line {number} is not a JSON object")
        if not isinstance(obj.get("method"), str) and "result" not in obj and "error" not in obj:
            raise InputError(f'{name} line {number} has no "method"')
        obj.setdefault("jsonrpc", "2.0")
        messages.append(obj)
    return messages


def is_notification(obj: dict[str, Any]) -> bool:
    method = obj.get("method")
    return isinstance(method, str) and method.startswith("notifications/") and "id" not in obj


def with_progress_token(request: dict[str, Any]) -> dict[str, Any]:
    """The request with ``params._meta.progressToken`` (``progress-<id>``) unless it has one."""
    params = dict(request.get("params") or {})
    meta = dict(params.get("_meta") or {})
    meta.setdefault("progressToken", f"progress-{request.get('id')}")
    params["_meta"] = meta
    return {**request, "params": params}


async def record(options: RecordOptions) -> RecordResult:
    try:
        session, writer = new_session(options.target, options.out, answers=options.answers,
                                      stream=options.stream, roots=options.roots,
                                      interceptor=Interceptor(options.rules) if options.rules is not None else None)
    except CannotOpen as exc:
        return RecordResult(exc.exit_code, "", str(exc))
    assert writer is not None  # a capture was asked for
    outcome = _Outcome()
    session.listeners.append(outcome.saw)
    exporter = await _start_export(options.otlp_endpoint, writer.header, session)
    try:
        await _drive(session, options, outcome)
    finally:
        await session.close()
        writer.close()
        if exporter is not None:
            await exporter.close()
    warnings = [sentence] if exporter is not None and (sentence := exporter.report()) else []
    return RecordResult(outcome.exit_code(), summarize(session, options.out_name, outcome.intercepted),
                        outcome.sentence(options),
                        session.server, warnings)


async def _start_export(endpoint: str | None, header: dict[str, Any], session: Session) -> Any:
    """The live OTLP exporter of ``--otlp-endpoint``, listening to ``session``; None without one."""
    if endpoint is None:
        return None
    from inspector.core.interop.otlp import start_export

    return start_export(endpoint, header, session.listeners)


class _Outcome:
    """How the run went, for its exit status: what stopped it (an exception, at which stage), and what the
    server did on the way that breaks the protocol or answers with an error."""

    def __init__(self) -> None:
        self.error: str | None = None  #: the sentence that says what went wrong
        self.failure: BaseException | None = None
        self.started = False  #: the transport started (the command runs; a URL transport is ready to connect)
        self.connected = False  #: the handshake got through: a failure to connect later is no start-up problem
        self.violations = 0  #: framing errors and invalid JSON-RPC from the server
        self.error_answers = 0  #: requests of --send answered with a JSON-RPC error
        self.first_error_answer = ""  #: ``method: message (code N)`` of the first
        self.rule_error_answers = 0  #: of those, answers an intercept rule made (``--rules``)
        self.last_answer_was_error = False  #: the server's latest response is a JSON-RPC error
        self.largest_unread = 0  #: the size of the longest line over --max-message
        self.intercepted = 0  #: messages --rules acted on (each way; an original and its change count two)
        self.held_at_end = ""  #: the rule that still held a request of ours when the session gave up on it

    def saw(self, events: list[Event]) -> None:
        for event in events:
            if MARK in event.data:
                self.intercepted += 1
                found = mark_of(event.data)
                if found is not None and found.get("note") == HELD_AT_END and event.dir == Direction.C2S:
                    self.held_at_end = rule_label(found)
            if event.dir != Direction.S2C:
                continue
            if event.kind == Kind.FRAMING_ERROR:
                # a line over --max-message is our limit, not the server's fault; it fails the request it
                # answers (UnreadableResponse) and is counted in the summary
                # (and a line our own stop cut short is ours too: counted in the summary, not a violation)
                oversize = event.data.get("oversize")
                if isinstance(oversize, dict):
                    self.largest_unread = max(self.largest_unread, int(oversize.get("total_bytes") or 0))
                elif server_broke_framing(event):
                    self.violations += 1
            elif event.kind == Kind.MESSAGE and event.rpc is not None:
                rpc_kind = event.rpc.kind
                if rpc_kind == jsonrpc.NOTIFICATION and not event.findings:
                    continue  # a flood's every message: nothing to count (no generator per message, issue 25)
                if rpc_kind == jsonrpc.INVALID or any(f.code in jsonrpc.INVALID_CODES for f in event.findings):
                    self.violations += 1
                if rpc_kind in (jsonrpc.RESPONSE, jsonrpc.ERROR):
                    self.last_answer_was_error = rpc_kind == jsonrpc.ERROR

    def failed(self, exc: BaseException, sentence: str | None = None) -> None:
        self.failure = exc
        self.error = sentence or str(exc)

    def answered(self, method: str, response: Event) -> None:
        """A request of the script got ``response``."""
        if response.rpc is not None and response.rpc.kind == jsonrpc.RESPONSE:
            return  # a result: nothing to count, and a big one is not parsed again (memory: 2x its size)
        error = result_of(response)[1]
        if error is not None:
            self.error_answers += 1
            found = mark_of(response.data)  # an intercept rule's answer, not the server's
            if found is not None:
                self.rule_error_answers += 1
            if not self.first_error_answer:
                text = error.get("message", "(no message)") if isinstance(error, dict) else repr(error)
                code = error.get("code") if isinstance(error, dict) else None
                by = f", by {rule_label(found)}" if found is not None else ""
                self.first_error_answer = safe(f"{method}: {text} (code {code}){by}")

    def sentence(self, options: RecordOptions) -> str | None:
        """What went wrong, in one sentence (None when nothing did)."""
        if self.error is not None:
            if self.held_at_end:  # the rule, not the server, kept the answer from coming
                return (f"{self.error} ({self.held_at_end} was still holding the request: its delay counts against "
                        "--timeout)")
            return self.error
        if self.violations:
            n = self.violations
            lines = "1 of its lines is not a valid JSON-RPC message" if n == 1 else \
                f"{n} of its lines are not valid JSON-RPC messages"
            return (f"the server broke the protocol: {lines} (mcp-inspector show "
                    f"{options.out_name if options.stream is None else 'CAPTURE'} shows why)")
        n, by_rules = self.error_answers, self.rule_error_answers
        if not n:
            return None
        if not by_rules:
            return (f"the server answered {_plural(n, 'request')} with a JSON-RPC error "
                    f"(the first: {self.first_error_answer})")
        if n == by_rules:
            return (f"--rules answered {_plural(n, 'request')} with a JSON-RPC error in the server's place "
                    f"(the first: {self.first_error_answer})")
        return (f"{_plural(n, 'request')} got a JSON-RPC error answer, {by_rules} of them from --rules "
                f"(the first: {self.first_error_answer})")

    def exit_code(self) -> int:
        exc = self.failure
        if exc is None:
            return EXIT_PROTOCOL if self.violations else EXIT_RPC_ERROR if self.error_answers else EXIT_OK
        return failure_exit(exc, started=self.started, connected=self.connected,
                            refused=self.last_answer_was_error)


async def _drive(session: Session, options: RecordOptions, outcome: _Outcome) -> None:
    """Run the script; what went wrong (if anything) is in ``outcome``."""
    try:
        await session.start()
    except TransportError as exc:
        session.note(str(exc), failure=True)
        outcome.failed(exc)
        return
    outcome.started = True
    session.max_request_time = options.max_time
    target = options.target
    try:
        await session.handshake(target.handshake, target.protocol_version, target.timeout)
        outcome.connected = True
        for obj in options.messages:
            if "method" in obj and not is_notification(obj):
                request = session.prepare_request(obj)
                if options.progress:
                    request = with_progress_token(request)
                outcome.answered(str(request.get("method")), await session.request_object(request,
                                                                                          timeout=target.timeout))
            else:
                await session.send_object(obj)
    except HandshakeError as exc:  # the capture says why the session ended (a timeout or an exit says so already)
        session.note(str(exc), failure=True)
        outcome.failed(exc)
        return
    except UnreadableResponse as exc:
        outcome.failed(exc, f"{exc}; to read it whole, raise the limit with --max-message (for example "
                            f"--max-message {suggested_limit(max(outcome.largest_unread, target.max_message + 1))})"
                       if exc.too_large else None)
        return
    except TransportError as exc:
        outcome.failed(exc)
        return
    if options.idle > 0 and not session.closed:
        try:
            await wait_for(session.wait_closed(), options.idle)
        except TimeoutError:
            pass


def suggested_limit(size: int) -> str:
    """The ``--max-message`` value to suggest for a message of ``size`` bytes: the next power of two in MiB."""
    mib = 1
    while mib * 1024 * 1024 < size:
        mib *= 2
    return f"{mib}M"


def summarize(session: Session, out: Path | str, intercepted: int = 0) -> str:
    """The summary line; ``intercepted``: how many of the messages counted intercept rules acted on."""
    c = session.counts
    parts = [f"{c['c2s']} sent", f"{c['s2c']} received", _plural(c["framing_errors"], "framing error"),
             _plural(c["stderr"], "stderr line")]
    if c["cut_by_stop"]:  # the server was still writing when it was stopped: its last line is kept as it came
        parts.append(f"{_plural(c['cut_by_stop'], 'line')} cut by mcp-inspector's stop")
    if c["findings"]:
        parts.append(_plural(c["findings"], "protocol finding"))
    if intercepted:  # the counts hold what the rules recorded too: an original never delivered, a held request
        parts.append(f"{_plural(intercepted, 'message')} marked by --rules (show says what each rule did)")
    return f"{out}: {', '.join(parts)}; {session.ending()}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
