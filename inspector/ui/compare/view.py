"""The result of Session > Compare with…: every interface and behaviour difference listed, and for the one
selected the two sides (A: the current capture; B: the other capture or the live server) side by side, the
changed lines tinted, the differences spelled out below. Shows a :class:`inspector.core.compare.differ.Comparison`
(the same as ``mcp-inspector diff``); server text is plain text only."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QWidget,
)

from inspector.core.compare.differ import BehaviourChange, Comparison, InterfaceChange
from inspector.core.compare.report import MARKS
from inspector.core.replay.diff import MessageDiff
from inspector.ui.panels.comparison_layout import lay_out_comparison
from inspector.ui.sides import SideBySide

DIFFERS = QColor(220, 50, 47)


def _who(record: Any) -> str:
    return " ".join(x for x in (record.name, record.version) if x) or "unnamed server"


class CompareView(QWidget):
    open_capture_requested = Signal(object)  #: the path of B's capture (a live server's session)

    def __init__(self, result: Comparison, b_capture: Any = None, parent: Any = None) -> None:
        super().__init__(parent)
        self.result = result
        self.summary = QLabel(self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.summary.setText(self._summary())
        self.open_button = QPushButton("Open B's timeline", self)
        self.open_button.setEnabled(b_capture is not None)
        self.open_button.clicked.connect(lambda: self.open_capture_requested.emit(b_capture))
        self.items = QListWidget(self)
        self.items.setMinimumWidth(280)
        self.sides = SideBySide(f"A: {_who(result.a)}", f"B: {_who(result.b)}", self)
        self.differences = QPlainTextEdit(self)
        self.differences.setReadOnly(True)
        self.differences.setMaximumHeight(130)
        lay_out_comparison(self, self.items, self.sides, self.differences, self.summary, self.open_button, 360)
        for change in result.interface:
            self._add(f"{MARKS[change.change]} {change.describe()}", change, True)
        for behaviour in result.behaviour:
            self._add(f"{'~' if behaviour.counts else '?'} {behaviour.describe()}", behaviour, behaviour.counts)
        for note in result.notes:
            self._add(f"note: {note}", None, False)
        if self.items.count():
            self.items.currentItemChanged.connect(self._selected)
            self.items.setCurrentRow(0)
        else:
            self.differences.setPlainText("no differences")

    def _summary(self) -> str:
        result = self.result
        kinds = ", ".join(result.compared_kinds) or "nothing"
        verdict = "no differences" if result.same else f"{result.differences} difference" + \
            ("s" if result.differences != 1 else "")
        return (f"A: {result.a.describe()}\nB: {result.b.describe()}\n{verdict} (interface: {kinds} compared; "
                f"{result.compared_requests} request{'' if result.compared_requests == 1 else 's'} answered on both "
                "sides)")

    def _add(self, text: str, change: Any, differs: bool) -> None:
        item = QListWidgetItem(text)
        item.setData(Qt.ItemDataRole.UserRole, change)
        if differs:
            item.setForeground(QBrush(DIFFERS))
        self.items.addItem(item)

    def _selected(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None = None) -> None:
        change = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if isinstance(change, InterfaceChange):
            self.sides.show_pair(change.old if change.old is not None else "(not there)",
                                 change.new if change.new is not None else "(not there)",
                                 [d.path for d in change.diffs])
            self._diffs(change.diffs, change.describe())
        elif isinstance(change, BehaviourChange):
            old = change.a.response if change.a is not None and change.a.response is not None else "(no answer)"
            new = change.b.response if change.b is not None and change.b.response is not None else "(no answer)"
            self.sides.show_pair(old, new, [d.path for d in change.diffs])
            self._diffs(change.diffs, change.describe())
        else:
            self.sides.show_pair("", "", [])
            self.differences.setPlainText(item.text() if item is not None else "")

    def _diffs(self, diffs: tuple[MessageDiff, ...], head: str) -> None:
        self.differences.setPlainText("\n".join([head, *(d.describe() for d in diffs)]))
