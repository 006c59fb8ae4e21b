"""Run a client once per scenario and judge what it did.

For each scenario the client's command is started with the scenario server's argv appended (``python -m
inspector scenario-server NAME --out CAPTURE``), ``MCP_INSPECTOR_SCENARIO=NAME`` in its environment, stdin
closed, in a process group of its own. Its stdout and stderr are read as they come (the last
:data:`KEPT_OUTPUT` bytes of each kept, so a client that floods them is drained, never held); its exit status
is recorded. A client still running after ``timeout`` seconds is ended with its whole group (SIGTERM, then
SIGKILL: :class:`~inspector.core.transports.process_group.ProcessGroup`), and so is every client when the run is
cancelled (Ctrl-C). The scenario server the client launched ends when its stdin does, and writes its last note;
the capture is then judged (:mod:`.verdicts`).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from inspector.core.capture import CaptureError
from inspector.core.capture.reader import read_capture
from inspector.core.clientbench.checks import INCOMPLETE, CheckResult, scenario_status
from inspector.core.clientbench.http_server import ScenarioHttp
from inspector.core.clientbench.names import DEFAULT_TIMEOUT, ENV_SCENARIO
from inspector.core.clientbench.scenarios import make
from inspector.core.clientbench.server import NOTE_END
from inspector.core.clientbench.verdicts import Outcome, judge
from inspector.core.text import safe
from inspector.core.transports.process_group import ProcessGroup
from inspector.core.waiting import wait_for
from inspector.core.wire.events import Event

#: The last bytes of the client's stdout and stderr kept for the report.
KEPT_OUTPUT = 16 << 10
#: How long, once the client ended, the scenario server gets to write its last note.
END_WAIT = 3.0
END_POLL = 0.02


@dataclass
class ScenarioResult:
    """One scenario's verdict: its checks, the client's outcome, its capture and what the client printed."""

    name: str
    checks: list[CheckResult]
    outcome: Outcome
    capture: Path | None
    stdout: str = ""
    argv: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        return scenario_status(self.checks)


def server_argv(name: str, capture: Path, revision: str | None) -> list[str]:
    """The scenario server's argv, appended to the client's command."""
    argv = [sys.executable, "-m", "inspector", "scenario-server", name, "--out", str(capture)]
    if revision:
        argv += ["--revision", revision]
    return argv


#: ``started(scenario, pid)``: the client of a scenario is running, in the process group ``pid`` (the window's Stop
#: and its closing end that group at once, without waiting for the run's task).
Started = Callable[[str, int], None]


async def run_scenario(name: str, command: list[str], captures: Path, *, timeout: float = DEFAULT_TIMEOUT,
                       revision: str | None = None, transport: str = "stdio",
                       started: Started | None = None) -> ScenarioResult:
    """Run ``command`` against the scenario ``name``; the capture goes to ``captures/NAME.jsonl``. Over
    ``http`` the scenario server runs here, on 127.0.0.1, and its URL is appended to the command."""
    capture = captures / f"{name}.jsonl"
    if capture.exists():
        capture.unlink()
    if transport == "http":
        http = ScenarioHttp(make(name, revision), capture, name)
        record = http.record
        try:
            argv = [*command, await http.start()]
            outcome, stdout = await _run_client(name, argv, timeout, started)
        finally:
            await http.close()
            record.note("the scenario server ends", **{NOTE_END: True})
            record.close()
    else:
        argv = [*command, *server_argv(name, capture, revision)]
        outcome, stdout = await _run_client(name, argv, timeout, started)
    events = [] if outcome.error else await _captured(capture)
    checks = judge(name, events, outcome, timeout, revision)
    return ScenarioResult(name, checks, outcome, capture if capture.exists() else None, stdout=stdout, argv=argv)


async def _run_client(name: str, argv: list[str], timeout: float,
                      started: Started | None = None) -> tuple[Outcome, str]:
    """Run the client to its end (or ``timeout``): how it went, and the tail of its stdout."""
    env = {**os.environ, ENV_SCENARIO: name}
    start = time.monotonic()
    try:
        proc = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL,
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                    env=env, start_new_session=True)
    except OSError as exc:
        return Outcome(error=f"the client's command {safe(argv[0])} cannot be started: {exc.strerror or exc}"), ""
    assert proc.stdout is not None and proc.stderr is not None
    if started is not None:
        started(name, proc.pid)
    out, err = bytearray(), bytearray()
    readers = [asyncio.ensure_future(_drain(proc.stdout, out)), asyncio.ensure_future(_drain(proc.stderr, err))]
    group = ProcessGroup(proc.pid, lambda *_a, **_k: None)
    timed_out = False
    try:
        try:
            await wait_for(proc.wait(), timeout)
        except TimeoutError:
            timed_out = True
            await group.stop(_exited(proc), 0)
        else:
            await group.reap()  # what the client left running in its group
    except asyncio.CancelledError:
        await group.stop(_exited(proc), 0)
        raise
    finally:
        await asyncio.wait(readers, timeout=1.0)
        for reader in readers:
            reader.cancel()
    outcome = Outcome(exit_code=None if timed_out else proc.returncode, timed_out=timed_out,
                      seconds=time.monotonic() - start, stderr=err.decode("utf-8", "replace"))
    return outcome, out.decode("utf-8", "replace")


async def run_bench(names: list[str], command: list[str], captures: Path, *, timeout: float = DEFAULT_TIMEOUT,
                    revision: str | None = None, transport: str = "stdio",
                    progress: Callable[[ScenarioResult], None] | None = None,
                    started: Started | None = None) -> list[ScenarioResult]:
    """Every scenario in ``names``, one after the other: ``started`` when each one's client runs, ``progress``
    with each one's result."""
    captures.mkdir(parents=True, exist_ok=True)
    results = []
    for name in names:
        result = await run_scenario(name, command, captures, timeout=timeout, revision=revision,
                                    transport=transport, started=started)
        results.append(result)
        if progress is not None:
            progress(result)
        if result.outcome.error:  # the command cannot start: the other scenarios would say the same
            for rest in names[len(results):]:
                results.append(ScenarioResult(rest, [CheckResult("client-spoke", INCOMPLETE, result.outcome.error,
                                                                 result.checks[0].spec)], result.outcome, None))
            break
    return results


def _exited(proc: asyncio.subprocess.Process) -> Callable[[float], asyncio.Future[bool]]:
    async def exited(grace: float) -> bool:
        try:
            await wait_for(proc.wait(), grace)
        except TimeoutError:
            return False
        return True

    return lambda grace: asyncio.ensure_future(exited(grace))


async def _drain(stream: asyncio.StreamReader, kept: bytearray) -> None:
    while True:
        chunk = await stream.read(64 << 10)
        if not chunk:
            return
        kept += chunk
        if len(kept) > KEPT_OUTPUT:
            del kept[:-KEPT_OUTPUT]


async def _captured(path: Path) -> list[Event]:
    """The capture's events, once the scenario server wrote its last note (or :data:`END_WAIT` passed)."""
    deadline = time.monotonic() + END_WAIT
    while time.monotonic() < deadline and not _ended(path):
        await asyncio.sleep(END_POLL)
    try:
        return read_capture(path).events
    except (CaptureError, OSError):
        return []


def _ended(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            f.seek(max(0, path.stat().st_size - 4096))
            return NOTE_END.encode() in f.read()
    except OSError:
        return False
