"""``mcp-inspector app``: one tool's app rendered offscreen, the inspector playing its host until it is idle.

:func:`run_headless` makes an offscreen Qt application with a qasync loop and runs :func:`play`: connect and do
the handshake (declaring the MCP Apps extension), find the tool and read its app (:mod:`inspector.core.apps.
loader`), render it (:class:`~inspector.ui.apps.run.AppRun`) while the tool is called, give the app the tool's
input and result once it is initialized, then wait until it is idle (everything answered, and nothing said for
:data:`IDLE_QUIET` seconds) or for ``--wait`` seconds. Then its visible text, a screenshot, the teardown, the
report (:mod:`inspector.core.apps.report`) and the exit status (:data:`inspector.core.exits.APP_EXITS`).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from inspector.core.apps.host import AppPhase, HostContext, system_locale, system_time_zone
from inspector.core.apps.job import AppJob
from inspector.core.apps.loader import AppSpec, AppUnreadable, NoApp, find_tool, load_app
from inspector.core.apps.meta import client_extension
from inspector.core.apps.report import (
    BUSY,
    CRASHED,
    IDLE,
    NOT_INITIALIZED,
    TORN_DOWN,
    UNRESPONSIVE,
    WAITED,
    Outcome,
    build_report,
    summary_lines,
)
from inspector.core.apps.sandbox import unsandboxed_sentence
from inspector.core.connect.opened import CannotOpen, new_session
from inspector.core.exits import (
    EXIT_APP_FAILED,
    EXIT_APP_POLICY,
    EXIT_BAD_INPUT,
    EXIT_NO_APP,
    EXIT_OK,
    EXIT_RPC_ERROR,
    EXIT_TOOL_ERROR,
)
from inspector.core.explore.arguments import ArgumentError, argument_problems, tool_arguments
from inspector.core.record.run import suggested_limit
from inspector.core.session.outcomes import UnreadableResponse, error_text, failure_exit, result_of
from inspector.core.session.session import Session
from inspector.core.sizes import format_size
from inspector.core.text import safe, safe_json
from inspector.core.transports.base import TransportError
from inspector.core.wire.events import Direction, Event, Kind

#: The app is idle when everything is answered and it has said nothing for this long.
IDLE_QUIET = 1.0
#: A renderer that runs no script of the host's for this long is unresponsive (an app that loops for ever).
RESPONSIVE_WITHIN = 5.0
#: The screenshot is at most this many times as tall as ``--size``'s height.
TALLEST = 4


@dataclass
class Played:
    """How a run went: the status, the report (None when no app was rendered), what to say on stderr."""

    code: int
    report: dict[str, Any] | None = None
    error: str | None = None
    problems: list[str] = field(default_factory=list)
    text: str | None = None
    failure: TransportError | None = None  #: what stopped the tool call, when something did (its sentence is said)


class _LargestUnread:
    """The size of the largest message from the server over ``--max-message`` (for the limit the sentence
    suggests)."""

    def __init__(self) -> None:
        self.largest = 0

    def saw(self, events: list[Event]) -> None:
        for event in events:
            if event.kind == Kind.FRAMING_ERROR and event.dir == Direction.S2C:
                oversize = event.data.get("oversize")
                if isinstance(oversize, dict):
                    self.largest = max(self.largest, int(oversize.get("total_bytes") or 0))


def failure_sentence(exc: TransportError, largest_unread: int, limit: int) -> str:
    """What stopped the run, in one sentence; a message over the size limit says how to raise it (as the
    one-shot commands do)."""
    if isinstance(exc, UnreadableResponse) and exc.too_large:
        return (f"{exc}; to read it whole, raise the limit with --max-message (for example --max-message "
                f"{suggested_limit(max(largest_unread, limit + 1))})")
    return str(exc)


def run_headless(job: AppJob) -> int:
    """Run ``job`` on an offscreen Qt application and print what it found; returns the exit status."""
    import qasync
    from PySide6.QtWidgets import QApplication

    from inspector.ui.apps import engine

    os.environ["QT_QPA_PLATFORM"] = "offscreen"  # headless: whatever display there is, nothing is shown
    engine.prepare(headless=True)
    engine.share_contexts()
    app = QApplication.instance() or QApplication(["mcp-inspector"])
    engine.quiet_qt_messages(lambda text: print(f"mcp-inspector: Qt says: {safe(text)}", file=sys.stderr))
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    warning = unsandboxed_sentence()
    if warning:
        print(f"mcp-inspector: {warning}", file=sys.stderr)
    with loop:
        played = loop.run_until_complete(play(job))
    _print(played, job)
    return played.code


def _print(played: Played, job: AppJob) -> None:
    try:
        if played.report is not None:
            if job.json:
                indent = 2 if sys.stdout.isatty() else None
                print(safe_json(json.dumps(played.report, ensure_ascii=False, indent=indent)))
            elif job.text:
                text = played.text or ""
                sys.stdout.write(safe(text) + ("" if text.endswith("\n") or not text else "\n"))
            else:
                for line in summary_lines(played.report):
                    print(safe(line))
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    if played.error:
        print(f"mcp-inspector: {safe(played.error)}", file=sys.stderr)
    for problem in played.problems:
        print(f"  {safe(problem)}", file=sys.stderr)


async def play(job: AppJob) -> Played:
    """Do ``job``; never raises for what the server, the app or the user did."""
    try:
        session, writer = new_session(job.target, job.out, answers=job.answers, roots=job.roots)
    except CannotOpen as exc:
        return Played(exc.exit_code, error=str(exc))
    session.extensions = client_extension()
    unread = _LargestUnread()
    session.listeners.append(unread.saw)
    started = connected = False
    try:
        try:
            await session.start()
            started = True
            await session.handshake(job.target.handshake, job.target.protocol_version, job.target.timeout)
            connected = True
            played = await _play_app(session, job)
        except TransportError as exc:
            session.note(str(exc), failure=True)
            return Played(failure_exit(exc, started=started, connected=connected),
                          error=failure_sentence(exc, unread.largest, job.target.max_message))
        if played.failure is not None and played.error == str(played.failure):
            played.error = failure_sentence(played.failure, unread.largest, job.target.max_message)
        return played
    finally:
        await session.close()
        if writer is not None:
            writer.close()


async def _play_app(session: Session, job: AppJob) -> Played:
    timeout = job.target.timeout
    try:
        tool, tools = await find_tool(session, job.tool, timeout)
    except NoApp as exc:
        return Played(EXIT_BAD_INPUT, error=str(exc))
    schema = tool.get("inputSchema")
    try:
        arguments = tool_arguments(schema, job.words, job.base)
    except ArgumentError as exc:
        return Played(EXIT_BAD_INPUT, error=str(exc))
    problems = argument_problems(schema, arguments)
    if problems:
        count = "1 way" if len(problems) == 1 else f"{len(problems)} ways"
        return Played(EXIT_BAD_INPUT, error=f"the arguments do not fit the inputSchema of {job.tool} ({count}); "
                                            "nothing was sent", problems=problems)
    try:
        spec = await load_app(session, tool, tools, timeout)
    except NoApp as exc:
        return Played(EXIT_NO_APP, error=str(exc))
    except AppUnreadable as exc:
        session.note(str(exc), failure=True)
        return Played(EXIT_RPC_ERROR if exc.error is not None else EXIT_APP_FAILED, error=str(exc))
    warning = unsandboxed_sentence()
    if warning:
        session.note(warning)
    return await _render(session, job, spec, arguments)


async def _render(session: Session, job: AppJob, spec: AppSpec, arguments: dict[str, Any]) -> Played:
    from inspector.ui.apps.run import AppRun

    width, height = job.size
    context = HostContext(theme=job.theme, width=width, max_height=height * TALLEST, locale=system_locale(),
                          time_zone=system_time_zone())
    call_id = session.next_id()
    run = AppRun(session, spec, arguments, 1, context=context, timeout=job.target.timeout, call_id=call_id,
                 max_message=job.target.max_message)
    run.view.resize(width, height)
    run.sized.connect(lambda tall: run.view.resize(width, max(height, min(tall, height * TALLEST))))
    run.view.show()
    began = time.monotonic()
    run.start()
    call: asyncio.Task[Event] = asyncio.ensure_future(session.request(
        "tools/call", {"name": spec.name, "arguments": arguments}, msg_id=call_id, timeout=job.target.timeout))
    call.add_done_callback(lambda done: _deliver(run, done))
    failure: TransportError | None = None
    try:
        ready = await run.until(lambda: run.host.state.phase == AppPhase.READY or run.closed, job.target.timeout)
        state = NOT_INITIALIZED
        if ready and not run.closed:
            try:
                await call
            except TransportError as exc:
                failure = exc
            if job.wait is not None:
                await run.until(lambda: run.closed, job.wait)
                state = WAITED
            else:
                idle = await run.until(lambda: run.closed or (run.host.settled
                                                              and run.host.quiet_for() >= IDLE_QUIET),
                                       job.target.timeout)
                state = IDLE if idle else BUSY
        if run.crash is not None:
            state = CRASHED
        elif run.closed:
            state = TORN_DOWN
        elif state != NOT_INITIALIZED and not await run.view.responsive(RESPONSIVE_WITHIN):
            state = UNRESPONSIVE
            run.unresponsive(f"it ran no script for {RESPONSIVE_WITHIN:g} s")
        shown = run.crash is None and not run.closed and state != UNRESPONSIVE
        text = await run.view.visible_text() if (job.text or job.json) and shown else None
        screenshot = _screenshot(run, job) if job.screenshot is not None and shown else None
    finally:
        if not call.done():
            call.cancel()
        await run.close("the inspector's run is over")
    outcome = Outcome(state, time.monotonic() - began, _sentence(state, run, job), list(run.console_errors))
    report = build_report(spec, run.host, run.blocked, outcome, text=text, screenshot=screenshot,
                          capture=str(job.out) if job.out is not None else None, unsandboxed=unsandboxed_sentence(),
                          oversize=run.oversize, max_message=run.max_message)
    code, error = _status(outcome, run, spec, call, failure)
    return Played(code, report, error=error, text=text, failure=failure)


def _deliver(run: Any, done: asyncio.Task[Event]) -> None:
    """The tool call that made the app came back: the app gets its result (or the error as one)."""
    if done.cancelled() or run.closed:
        return
    exc = done.exception()
    if exc is not None:
        run.host.tool_failed(str(exc))
        return
    result, error = result_of(done.result())
    if error is not None:
        run.host.tool_failed(error)
    else:
        run.host.tool_result(result)


def _screenshot(run: Any, job: AppJob) -> str | None:
    assert job.screenshot is not None
    image = run.view.screenshot()
    if image.isNull() or not image.save(str(job.screenshot), "PNG"):
        return None
    return str(job.screenshot)


def _sentence(state: str, run: Any, job: AppJob) -> str:
    if state == NOT_INITIALIZED:
        said = f"; its console said: {run.console_errors[0]}" if run.console_errors else ""
        return (f"the app did not finish its handshake (ui/initialize, then ui/notifications/initialized) within "
                f"{job.target.timeout:g} s{said}")
    if state == CRASHED:
        return f"the app's renderer ended: {run.crash}"
    if state == UNRESPONSIVE:
        return (f"the app's renderer stopped responding after its handshake: it ran no script for "
                f"{RESPONSIVE_WITHIN:g} s (a script of the app that never returns?)")
    if state == BUSY:
        return f"the app was still busy after {job.target.timeout:g} s (a request in flight, or messages every second)"
    if state == TORN_DOWN:
        return "the app asked to be torn down before it was idle"
    return ""


def _status(outcome: Outcome, run: Any, spec: AppSpec, call: asyncio.Task[Event],
            failure: TransportError | None) -> tuple[int, str | None]:
    """The exit status of a run that rendered the app, and the sentence for stderr."""
    if outcome.state in (NOT_INITIALIZED, CRASHED, UNRESPONSIVE):
        return EXIT_APP_FAILED, outcome.sentence
    if failure is not None:
        return failure_exit(failure, started=True, connected=True), str(failure)
    errors = [f for f in spec.findings if f.severity == "error"]
    requests = [b for b in run.blocked if b.request]
    if requests or errors or run.oversize:
        parts = []
        if run.oversize:
            count = len(run.oversize)
            parts.append(f"{count} message{'s' if count != 1 else ''} of the app {'were' if count != 1 else 'was'} "
                         f"over the size limit ({format_size(run.max_message)} per message), the largest of "
                         f"{max(run.oversize):,} bytes, and not passed on; to read them whole, raise the limit with "
                         f"--max-message (for example --max-message "
                         f"{suggested_limit(max(max(run.oversize), run.max_message + 1))})")
        if requests:
            parts.append(f"{len(requests)} request{'s' if len(requests) != 1 else ''} of the app "
                         f"{'were' if len(requests) != 1 else 'was'} blocked, the first: {requests[0].use} "
                         f"{requests[0].url}")
        if errors:
            parts.append(f"its metadata has {len(errors)} error{'s' if len(errors) != 1 else ''}: {errors[0].text}")
        return EXIT_APP_POLICY, "; ".join(parts)
    if call.done() and not call.cancelled() and call.exception() is None:
        result, error = result_of(call.result())
        if error is not None:
            return EXIT_RPC_ERROR, f"the server answered tools/call with an error: {error_text(error)}"
        if isinstance(result, dict) and result.get("isError") is True:
            return EXIT_TOOL_ERROR, "the tool's result says isError: true"
    return EXIT_OK, None
