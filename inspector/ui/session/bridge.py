"""Core session events -> Qt, in batches at most ~30 times a second.

The core calls its listeners synchronously for every batch a transport read; a flood would repaint the
window thousands of times a second. The bridge only counts, and a timer tells the models to catch up.
Signals fire after state changed: when ``events_arrived`` fires, the session already holds the events.
"""

from __future__ import annotations

import gc
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from inspector.core.session.session import Session
from inspector.core.wire.events import Event, Kind

#: At most this many model updates a second (the issue's "~30 times a second").
BATCH_INTERVAL_MS = 33
#: Freeze the collector's view of old objects each time the session grew by this many events.
FREEZE_EVERY_EVENTS = 20_000


class SessionBridge(QObject):
    events_arrived = Signal()  #: new events are kept (the session's list or live index); models should catch up
    stderr_lines = Signal(list)  #: stderr events of the batch, for the stderr pane

    def __init__(self, session: Session, parent: Any = None) -> None:
        super().__init__(parent)
        self.session = session
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(BATCH_INTERVAL_MS)
        self._timer.timeout.connect(self._flush)
        self._stderr: list[Event] = []
        self._frozen_at = 0
        self._seen = 0  # events announced so far
        gc.freeze()  # everything alive now (Qt wrappers, modules) need not be walked by full collections
        session.listeners.append(self._on_batch)

    def detach(self) -> None:
        if self._on_batch in self.session.listeners:
            self.session.listeners.remove(self._on_batch)
        self._timer.stop()

    def _on_batch(self, events: list[Event]) -> None:
        self._seen += len(events)
        for event in events:
            if event.kind == Kind.STDERR:
                self._stderr.append(event)
        if not self._timer.isActive():
            self._timer.start()

    def _freeze_old_objects(self) -> None:
        """Move what the session holds out of the cyclic garbage collector's view, now and then.

        Events are never in reference cycles, but a full collection still walks every one of them: with a few
        hundred thousand events that is a stall of 50-100 ms each time. Frozen objects are still freed by
        reference counting; only the cycle search skips them.
        """
        grown = self._seen - self._frozen_at
        if grown >= FREEZE_EVERY_EVENTS:
            gc.freeze()
            self._frozen_at = self._seen

    def flush_now(self) -> None:
        self._timer.stop()
        self._flush()

    def _flush(self) -> None:
        self._freeze_old_objects()
        self.events_arrived.emit()
        if self._stderr:
            lines, self._stderr = self._stderr, []
            self.stderr_lines.emit(lines)
