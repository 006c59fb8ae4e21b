"""The HTTP twin of a capture as the window runs it: :class:`HttpServing` starts and stops an
:class:`~inspector.core.serve.launch.HttpTwin` and says what happened with signals (the dialog only shows them)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QObject, Signal

from inspector.core.serve.launch import HttpTwin, LaunchError
from inspector.core.tasks import Tasks


class HttpServing(QObject):
    """``argv`` (:func:`~inspector.core.serve.launch.http_argv`) run on demand: :meth:`start`, :meth:`stop`;
    :attr:`state` is ``stopped``, ``starting``, ``serving`` or ``stopping``."""

    started = Signal(str)  #: the twin's URL: it listens
    stopped = Signal(str)  #: a sentence: the twin is not running (any more), and why when it failed

    def __init__(self, argv: Sequence[str], tasks: Tasks, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.argv = list(argv)
        self.tasks = tasks
        self.twin: HttpTwin | None = None
        self.state = "stopped"

    @property
    def url(self) -> str | None:
        return self.twin.url if self.twin is not None else None

    def start(self) -> None:
        if self.state != "stopped":
            return
        self.state = "starting"
        self.twin = HttpTwin(self.argv)
        self.tasks.spawn(self._start(self.twin), "serving the capture over HTTP")

    async def _start(self, twin: HttpTwin) -> None:
        try:
            url = await twin.start()
        except LaunchError as exc:
            if self._starting(twin):  # not stopped by the user meanwhile (that says so itself)
                self.state = "stopped"
                self.stopped.emit(f"Not serving: {exc}")
            return
        if not self._starting(twin):  # stopped while it started (its process may have come after the stop)
            await twin.stop()
            return
        self.state = "serving"
        self.started.emit(url)

    def _starting(self, twin: HttpTwin) -> bool:
        return self.twin is twin and self.state == "starting"

    def stop(self) -> None:
        """Stop listening (the dialog closed, its tab closed, or the user asked)."""
        if self.twin is None or self.state in ("stopped", "stopping"):
            return
        self.state = "stopping"
        self.tasks.spawn(self._stop(self.twin), "stopping the served capture")

    async def _stop(self, twin: HttpTwin) -> None:
        await twin.stop()
        self.state = "stopped"
        self.stopped.emit("Stopped: the port no longer listens.")

    def kill_now(self) -> None:
        """The window is going away: the twin gets SIGTERM without waiting."""
        if self.twin is not None:
            self.twin.kill_now()
        self.state = "stopped"
