"""Background asyncio tasks that are kept and whose failures are reported.

``asyncio.ensure_future(coro)`` without keeping the task is a known trap: the event loop holds only a weak
reference, so an unreferenced task can be garbage-collected mid-flight, and an exception it raises is only
logged ("Task exception was never retrieved") when it is collected, if ever. :class:`Tasks` keeps every task
until it ends and hands each failure, as one sentence, to a ``report`` callable (the window shows it in its
status bar; headless code may log it).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

log = logging.getLogger(__name__)

Report = Callable[[str], None]


def _log_report(text: str) -> None:
    log.warning("%s", text)


class Tasks:
    """A set of running tasks: :meth:`spawn` starts and keeps one; a failure is reported, never lost."""

    def __init__(self, report: Report | None = None) -> None:
        self.report: Report = report or _log_report
        self._running: set[asyncio.Task[Any]] = set()

    def __len__(self) -> int:
        return len(self._running)

    def spawn(self, coro: Coroutine[Any, Any, Any], what: str) -> asyncio.Task[Any]:
        """Run ``coro`` as a task; ``what`` names it in the failure sentence ("closing the tab failed: ...")."""
        task = asyncio.ensure_future(coro)
        self._running.add(task)
        task.add_done_callback(lambda done: self._done(done, what))
        return task

    def _done(self, task: asyncio.Task[Any], what: str) -> None:
        self._running.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            self.report(f"{what} failed: {exc or type(exc).__name__}")

    async def wait(self, timeout: float) -> None:
        """Wait at most ``timeout`` seconds for the running tasks to end."""
        if self._running:
            await asyncio.wait(list(self._running), timeout=timeout)

    def cancel_all(self) -> None:
        for task in list(self._running):
            task.cancel()
