"""One tab's problems: the judge's findings that are problems kept in a :class:`ProblemBook`, shown in the
Problems panel, the rules the user muted there applied, and which events' problems changed announced
(:attr:`ProblemMarks.changed`) for the tab to mark and repaint their rows. No widgets of its own.

What counts as a problem is :mod:`inspector.core.wire.problems`'; the tab marks a row from :meth:`is_problem`,
which also counts what the event itself carries (a framing error, its own findings).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from inspector.core.protocol.judge import ProtocolFinding
from inspector.core.wire.events import Event
from inspector.core.wire.problems import ProblemBook, event_severity
from inspector.ui.panels.problems import ProblemsPanel


class ProblemMarks(QObject):
    changed = Signal(set)  #: the seqs whose problems changed (found, muted or unmuted)

    def __init__(self, panel: ProblemsPanel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.book: ProblemBook[ProtocolFinding] = ProblemBook()
        self.panel = panel
        panel.muted_changed.connect(self.set_muted)

    def found(self, found: list[ProtocolFinding]) -> None:
        """Judged events: their problems go to the panel, and every seq judged is announced (the detail shows
        every finding, problem or not)."""
        self.panel.add(self.book.add(found))
        self.changed.emit({f.seq for f in found})

    def set_muted(self, muted: set[str]) -> None:
        """The panel's muted rules are now ``muted``: the events of the rules muted or unmuted are announced."""
        seqs: set[int] = set()
        for rule in muted ^ self.book.muted:
            seqs.update(self.book.set_muted(rule, rule in muted))
        self.changed.emit(seqs)

    def is_problem(self, event: Event) -> bool:
        """Whether ``event``'s row is a problem: a problem of the judge's not muted, or one it carries itself."""
        return self.book.is_problem(event.seq) or event_severity(event) is not None
