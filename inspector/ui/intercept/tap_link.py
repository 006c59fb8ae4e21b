"""A tap tab's breakpoints: the same Breakpoints and Intercepted tabs as a live session's, over the tap relay's
breakpoint link (:mod:`inspector.core.tap.breakpoint_link`) instead of a session.

The tab's :class:`~inspector.core.intercept.breakpoints.Breakpoints` go to the relay on every change (the relay's
interceptor decides; this one only keeps the list); each message the relay pauses waits in the tab's
:class:`~inspector.core.intercept.breakpoints.PausedQueue` like a live session's, and the person's decision goes
back as the verdict it stands for. A tap's client is not ours, so no request clock is held: the client's own
timeout runs. When the tab closes, what waits goes on unchanged and the link ends (the relay passes everything
from then on).
"""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import QObject

from inspector.core.intercept.breakpoints import Breakpoints, PausedQueue
from inspector.core.intercept.engine import Interceptor, Verdict
from inspector.core.tap.breakpoint_link import WindowSide, decoded
from inspector.core.tasks import Tasks
from inspector.ui.intercept.control import InterceptControl


class TapBreakpoints(QObject):
    """The breakpoints of one tap tab, linked to its relay through ``side``; :attr:`control` is what the tabs use."""

    def __init__(self, side: WindowSide, parent: Any = None) -> None:
        super().__init__(parent)
        self.side = side
        interceptor = Interceptor()  # keeps the list only: the relay's own interceptor decides
        self.control = InterceptControl(Breakpoints(interceptor), PausedQueue(interceptor), self)
        self.control.rules_changed.connect(self._send_rules)
        self._tasks = Tasks()
        self.ended = asyncio.Event()

    def _send_rules(self) -> None:
        self.side.send_rules(list(self.control.breakpoints.rules.rules))

    async def run(self) -> None:
        """Send the breakpoints, then put each message the relay pauses in the queue until the relay goes away."""
        self._send_rules()
        try:
            async for paused in self.side.paused():
                self._tasks.spawn(self._wait_for_person(paused), "waiting for the person's decision")
        finally:
            self.control.release_all()
            self.ended.set()

    async def _wait_for_person(self, paused: dict[str, Any]) -> None:
        rules = self.control.breakpoints.rules.rules
        number = paused.get("breakpoint")
        rule = rules[number - 1] if isinstance(number, int) and 0 < number <= len(rules) else None
        verdict = await self.control.queue(str(paused.get("dir", "c2s")), decoded(paused), Verdict("pause", rule))
        self.side.decide_as(int(paused["id"]), verdict)

    def close(self) -> None:
        """The tab closes: everything paused goes on unchanged, and the relay is told nobody decides any more."""
        self.control.release_all()
        self.side.close()
