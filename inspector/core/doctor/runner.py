"""The doctor's order of steps, for a command and for a URL, with each step handed out as soon as it is known.

Once a step failed, the steps after it are ``skipped`` ("not tried: the connect step failed"): the first failed
step is the cause to fix first, and what comes after it cannot be judged until it is fixed. One exception: a
command's ``stdout`` step is judged after a failed ``start`` when the process wrote lines on stdout before it
ended: they are known, and often say why it ended.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from inspector.core.connect.target import Target
from inspector.core.doctor.model import COMMAND_STEPS, URL_STEPS, Report, Step, skipped
from inspector.core.doctor.session_run import SessionRun, run_session

#: The handshake's bound when the caller gives none: a server that answers at all does so within seconds.
DEFAULT_DOCTOR_TIMEOUT = 10.0

StepSink = Callable[[Step], None]


class _Steps:
    """The report being made: each step added once, in order, and told to the sink."""

    def __init__(self, report: Report, sink: StepSink | None) -> None:
        self.report = report
        self.sink = sink

    def add(self, step: Step) -> None:
        self.report.steps.append(step)
        if self.sink is not None:
            self.sink(step)

    @property
    def failed(self) -> Step | None:
        return self.report.first_failure

    async def next(self, name: str, make: Callable[[], Awaitable[Step]]) -> None:
        """Add step ``name``: made by ``make``, or skipped after a failure."""
        failure = self.failed
        if failure is not None:
            self.add(skipped(name, f"not tried: the {failure.step} step failed"))
            return
        self.add(await make())


async def diagnose(target: Target, *, timeout: float = DEFAULT_DOCTOR_TIMEOUT, on_step: StepSink | None = None,
                   sign_in: bool = True) -> Report:
    """Diagnose the connection to ``target``: its steps in order (:data:`COMMAND_STEPS` or :data:`URL_STEPS`),
    each given to ``on_step`` as soon as it is known. ``timeout`` bounds the handshake; ``--connect-timeout``
    (``target.connect_timeout``) bounds resolving, connecting and TLS. ``sign_in``: the doctor's session runs
    the OAuth flow a target with ``--oauth`` asks for, as record would; the window passes False (its own session
    signs in, with the person), and a 401 is then a warning that says where the sign-in goes."""
    steps = _Steps(Report(target.describe()), on_step)
    if target.is_http:
        await _url(target, timeout, steps, sign_in)
    else:
        await _command(target, timeout, steps)
    return steps.report


async def _command(target: Target, timeout: float, steps: _Steps) -> None:
    from inspector.core.doctor.command import command_step, start_step, stdout_before_first_message, stdout_step
    from inspector.core.doctor.handshake import handshake_step

    steps.add(command_step(target))
    run: SessionRun | None = None
    if steps.failed is None:
        run = await run_session(target, timeout)
    await steps.next("start", _now(start_step, run))
    if run is not None and steps.failed is not None and steps.failed.step == "start" \
            and stdout_before_first_message(run)[0]:
        # what the process wrote on stdout before it ended is known, and often says why (a usage message)
        steps.add(stdout_step(run))
    else:
        await steps.next("stdout", _now(stdout_step, run))
    await steps.next("handshake", _now(handshake_step, run))
    assert [s.step for s in steps.report.steps] == list(COMMAND_STEPS)


async def _url(target: Target, timeout: float, steps: _Steps, sign_in: bool) -> None:
    from dataclasses import replace

    from inspector.core.doctor.authorization import auth_step
    from inspector.core.doctor.handshake import handshake_step
    from inspector.core.doctor.http_steps import asks_authorization, http_step, path_guesser, transport_step
    from inspector.core.doctor.network import connect_step, resolve_step, where
    from inspector.core.doctor.tls import tls_step

    place = where(target.url)
    connect = target.connect_timeout
    await steps.next("resolve", lambda: resolve_step(place, connect))
    await steps.next("connect", lambda: connect_step(place, connect))
    await steps.next("tls", lambda: tls_step(place, connect, ca_file=target.ca_file, insecure=target.insecure))
    run: SessionRun | None = None
    if steps.failed is None:
        run = await run_session(target if sign_in else replace(target, oauth=None), timeout)
    await steps.next("http", lambda: http_step(_ran(run), place, path_guesser(target, timeout)))
    await steps.next("transport", _now(lambda ran: transport_step(ran, target), run))
    await steps.next("auth", lambda: auth_step(_ran(run), target, sign_in=sign_in))
    if run is not None and run.server is None and asks_authorization(run) and steps.failed is None:
        steps.add(skipped("handshake", "not tried: the server lets no one in without a token"))
    else:
        await steps.next("handshake", _now(handshake_step, run))
    assert [s.step for s in steps.report.steps] == list(URL_STEPS)


def _ran(run: SessionRun | None) -> SessionRun:
    assert run is not None, "a session step ran without the session (only after a failure, which skips it)"
    return run


def _now(judge: Callable[[SessionRun], Step], run: SessionRun | None) -> Callable[[], Awaitable[Step]]:
    async def make() -> Step:
        return judge(_ran(run))

    return make

