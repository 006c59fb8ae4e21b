"""The logic object of a tab's breakpoints: the core's :class:`~inspector.core.intercept.breakpoints.Breakpoints`
(the rules) and :class:`~inspector.core.intercept.breakpoints.PausedQueue` (the paused messages) with their
listeners turned into signals. The Breakpoints panel and the Intercepted queue subscribe to it and call it; they
never see the session. Another source of paused messages (a tap) makes another control over its own queue.

Every failure is a sentence on :attr:`InterceptControl.said` (and the method returns False), never an exception.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from inspector.core.intercept.breakpoints import Breakpoints, DecisionError, Paused, PausedQueue, when_like
from inspector.core.intercept.rules import RulesError
from inspector.core.text import safe


class InterceptControl(QObject):
    rules_changed = Signal()  #: a breakpoint was added, removed, enabled, disabled or imported
    paused_changed = Signal(int)  #: a message was paused or went on: how many wait now
    said = Signal(str, bool)  #: a sentence for the panel (and whether it says something failed)

    def __init__(self, breakpoints: Breakpoints, queue: PausedQueue, parent: Any = None) -> None:
        super().__init__(parent)
        self.breakpoints = breakpoints
        self.queue = queue
        breakpoints.listeners.append(self.rules_changed.emit)
        queue.listeners.append(lambda: self.paused_changed.emit(len(queue)))

    # -- the rules -------------------------------------------------------------------------------------

    def add(self, item: dict[str, Any]) -> bool:
        """Add a breakpoint in the rules-file shape; False (and the sentence said) when it cannot be used."""
        try:
            rule = self.breakpoints.add(item)
        except RulesError as exc:
            self.said.emit(str(exc), True)
            return False
        self.said.emit(f"added {rule.label()}: {rule.when.describe()}", False)
        return True

    def add_like(self, direction: str, raw: bytes, *, request_method: str | None = None,
                 request_tool: str | None = None) -> bool:
        """"Break on messages like this": its direction, method and tool, paused."""
        when = when_like(direction, raw, request_method=request_method, request_tool=request_tool)
        return self.add({"when": when, "do": "pause"})

    def add_tool(self, name: str) -> bool:
        """"Break on calls to this tool": the client's tools/call of ``name``, paused."""
        return self.add({"when": {"dir": "c2s", "method": "tools/call", "tool": name}, "do": "pause"})

    def remove(self, index: int) -> None:
        if 0 <= index < len(self.breakpoints):
            self.breakpoints.remove(index)

    def set_enabled(self, index: int, enabled: bool) -> None:
        if 0 <= index < len(self.breakpoints):
            self.breakpoints.set_enabled(index, enabled)

    def import_file(self, path: Path | str) -> bool:
        try:
            count = self.breakpoints.load(path)
        except RulesError as exc:
            self.said.emit(safe(str(exc)), True)
            return False
        self.said.emit(f"imported {count} rule{'s' if count != 1 else ''} from {path}", False)
        return True

    def export_file(self, path: Path | str) -> bool:
        try:
            self.breakpoints.save(path)
        except RulesError as exc:
            self.said.emit(str(exc), True)
            return False
        self.said.emit(f"exported {len(self.breakpoints)} rules to {path}", False)
        return True

    def set_max_wait(self, seconds: float | None) -> None:
        """The longest a message may stay paused before it goes on unchanged (None: until someone decides)."""
        self.queue.max_wait = seconds

    # -- the paused messages ---------------------------------------------------------------------------

    @property
    def paused(self) -> list[Paused]:
        return list(self.queue.items)

    def decide(self, item: Paused, choice: str, **values: Any) -> bool:
        """The person's decision on a paused message (see :meth:`PausedQueue.decide`); False and the sentence
        said when it cannot be carried out (the message stays paused)."""
        try:
            self.queue.decide(item, choice, **values)
        except DecisionError as exc:
            self.said.emit(str(exc), True)
            return False
        return True

    def release_all(self) -> int:
        return self.queue.release_all()
