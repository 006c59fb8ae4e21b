"""The result of a replay in the window: each replayed message, and for those that differ the recorded and
the new answer side by side, with the changed lines marked. The replay's own capture opens as a timeline.

The engine is :mod:`inspector.core.replay.engine` (the same as ``mcp-inspector replay``); this view only shows
its :class:`~inspector.core.replay.engine.ReplayResult`.
"""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFontDatabase, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from inspector.core.replay.engine import ReplayResult, StepOutcome
from inspector.ui.json_highlighter import JsonHighlighter
from inspector.ui.panels.comparison_layout import lay_out_comparison
from inspector.ui.panels.detail import pretty

CHANGED = QColor(220, 160, 40, 90)


def _editor(parent: QWidget) -> QPlainTextEdit:
    editor = QPlainTextEdit(parent)
    editor.setReadOnly(True)
    editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    return editor


def _last_key(path: str) -> str | None:
    """The last member name of a diff path (``result.content[0].text`` -> ``text``)."""
    names = re.findall(r"[A-Za-z_$][\w$-]*", path)
    return names[-1] if names else None


class ReplayView(QWidget):
    open_capture_requested = Signal(object)  #: Path of the replay's capture

    def __init__(self, result: ReplayResult, source: str, parent: Any = None) -> None:
        super().__init__(parent)
        self.result = result
        self.summary = QLabel(self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        text = f"replay of {source}: {result.summary}"
        if result.error:
            text += f"\n{result.error}"
        self.summary.setText(text)
        self.open_button = QPushButton("Open the replay's timeline", self)
        self.open_button.setEnabled(result.out is not None)
        self.open_button.clicked.connect(lambda: self.open_capture_requested.emit(result.out))
        self.steps = QListWidget(self)
        self.recorded = _editor(self)
        self.now = _editor(self)
        self._highlighters = [JsonHighlighter(self.recorded.document()), JsonHighlighter(self.now.document())]
        self.differences = QPlainTextEdit(self)
        self.differences.setReadOnly(True)
        self.differences.setMaximumHeight(120)
        sides = QSplitter(Qt.Orientation.Horizontal, self)
        for title, editor in (("recorded", self.recorded), ("now", self.now)):
            box = QWidget(sides)
            layout = QVBoxLayout(box)
            layout.setContentsMargins(0, 0, 0, 0)
            label = QLabel(title, box)
            label.setTextFormat(Qt.TextFormat.PlainText)
            layout.addWidget(label)
            layout.addWidget(editor)
            sides.addWidget(box)
        lay_out_comparison(self, self.steps, sides, self.differences, self.summary, self.open_button, 340)
        for outcome in result.outcomes:
            item = QListWidgetItem(self._label(outcome))
            item.setData(Qt.ItemDataRole.UserRole, outcome)
            if outcome.differs:
                item.setForeground(QBrush(QColor(220, 50, 47)))
            self.steps.addItem(item)
        self.steps.currentItemChanged.connect(self._selected)
        differing = [i for i, o in enumerate(result.outcomes) if o.differs]
        self.steps.setCurrentRow(differing[0] if differing else 0)

    @staticmethod
    def _label(outcome: StepOutcome) -> str:
        title = outcome.step.title(outcome.live_id, outcome.sent)
        if outcome.differs:
            return f"≠ {title} ({outcome.difference_count} difference{'s' if outcome.difference_count != 1 else ''})"
        return f"= {title}"

    def _selected(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None = None) -> None:
        outcome = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if not isinstance(outcome, StepOutcome):
            return
        recorded = outcome.step.response
        self.recorded.setPlainText(pretty(recorded.raw) if recorded is not None else "(no answer recorded)")
        self.now.setPlainText(pretty(outcome.response.raw) if outcome.response is not None
                              else f"(no answer now: {outcome.problem or 'none came'})")
        self.differences.setPlainText("\n".join(outcome.lines()) or "the same as recorded")
        keys = {key for key in (_last_key(d.path) for d in outcome.diffs) if key}
        for editor in (self.recorded, self.now):
            self._mark(editor, keys)

    @staticmethod
    def _mark(editor: QPlainTextEdit, keys: set[str]) -> None:
        """Tint the lines that hold a changed key."""
        selections = []
        fmt = QTextCharFormat()
        fmt.setBackground(CHANGED)
        fmt.setProperty(QTextCharFormat.Property.FullWidthSelection, True)
        block = editor.document().firstBlock()
        while block.isValid():
            text = block.text()
            if any(f'"{key}":' in text for key in keys):
                selection = QTextEdit.ExtraSelection()
                selection.format = fmt
                selection.cursor = QTextCursor(block)
                selections.append(selection)
            block = block.next()
        editor.setExtraSelections(selections)

    def marked_lines(self, editor: QPlainTextEdit) -> list[str]:
        return [s.cursor.block().text() for s in editor.extraSelections()]
