"""One run of the client bench as the window runs it: :class:`BenchRun` runs
:func:`~inspector.core.clientbench.bench.run_bench` as an asyncio task on the window's loop and says what happens
with signals (the dialog only shows them)."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from inspector.core.clientbench.bench import ScenarioResult, run_bench
from inspector.core.tasks import Tasks
from inspector.core.text import safe


class BenchRun(QObject):
    """Runs the bench on demand: :meth:`start`, :meth:`stop`; :attr:`state` is ``idle``, ``running`` or
    ``stopping``. Stop cancels the run: the client running then is ended with its process group (the bench's own
    handling of a cancellation: SIGTERM, then SIGKILL), and the run ends with :attr:`stopped`."""

    scenario_started = Signal(str)  #: a scenario's client runs
    scenario_done = Signal(object)  #: a :class:`ScenarioResult`
    finished = Signal(list)  #: every scenario's result: the run is over
    stopped = Signal(str)  #: a sentence: the run was stopped, or could not go on

    def __init__(self, tasks: Tasks, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tasks = tasks
        self.state = "idle"
        self.task: asyncio.Task[None] | None = None
        #: the process group of the client running now (its leader's pid), None between clients
        self.client_group: int | None = None

    def start(self, names: list[str], command: list[str], captures: Path, *, timeout: float,
              transport: str = "stdio", revision: str | None = None) -> None:
        """Run ``command`` against the scenarios ``names``, their captures in ``captures``; ``revision``: the one the
        scenario servers answer with (None: the client's own)."""
        if self.state != "idle":
            return
        self.state = "running"
        self.task = self.tasks.spawn(self._run(names, command, captures, timeout, transport, revision),
                                     "the client bench")

    async def _run(self, names: list[str], command: list[str], captures: Path, timeout: float,
                   transport: str, revision: str | None) -> None:
        try:
            results = await run_bench(names, command, captures, timeout=timeout, transport=transport,
                                      revision=revision, progress=self._done, started=self._started)
        except asyncio.CancelledError:
            self._end()
            self.stopped.emit("Stopped: the client and everything it started were ended.")
            raise
        except OSError as exc:
            self._end()
            self.stopped.emit(f"The captures folder {safe(str(captures))} cannot be written: "
                              f"{exc.strerror or exc}.")
            return
        except Exception as exc:  # never a dialog left "running": what went wrong is its sentence
            self._end()
            self.stopped.emit(f"The bench stopped: {safe(str(exc)) or type(exc).__name__}.")
            return
        self._end()
        self.finished.emit(results)

    def _started(self, name: str, pid: int) -> None:
        self.client_group = pid
        self.scenario_started.emit(name)

    def _done(self, result: ScenarioResult) -> None:
        self.client_group = None
        self.scenario_done.emit(result)

    def _end(self) -> None:
        self.state = "idle"
        self.task = None
        self.client_group = None

    def stop(self) -> None:
        """End the run now (the user's Stop, the dialog closing); its end is said with :attr:`stopped`."""
        if self.task is None or self.state != "running":
            return
        self.state = "stopping"
        self.task.cancel()

    def kill_now(self) -> None:
        """The window is going away: the running client's group gets SIGTERM without waiting, and the run is
        cancelled."""
        if self.client_group is not None:
            try:
                os.killpg(self.client_group, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                pass
        self.stop()
