"""A collection run in the window: one row per saved request (passed or failed, its latency), under it one row per
expectation with its outcome and sentence, filled as the answers come (it subscribes to the run's results,
:meth:`CollectionView.add_result`); the selected request's answer below. The run is
:func:`inspector.core.collections.runner.run_collection`, the same as ``mcp-inspector run``."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from inspector.core.collections.runner import CollectionRun, RequestResult
from inspector.ui.sides import as_text

PASSED = QColor(46, 160, 67, 90)
FAILED = QColor(218, 54, 51, 110)
COLUMNS = ("request / expectation", "outcome", "why")


class CollectionView(QWidget):
    open_capture_requested = Signal(object)

    def __init__(self, name: str, capture: Any = None, parent: Any = None) -> None:
        super().__init__(parent)
        self.summary = QLabel(f"running {name}…", self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.open_button = QPushButton("Open the run's timeline", self)
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(lambda: self.open_capture_requested.emit(capture))
        self.tree = QTreeWidget(self)
        self.tree.setColumnCount(len(COLUMNS))
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.header().setStretchLastSection(True)
        self.answer = QPlainTextEdit(self)
        self.answer.setReadOnly(True)
        body = QSplitter(Qt.Orientation.Vertical, self)
        body.addWidget(self.tree)
        body.addWidget(self.answer)
        body.setSizes([500, 200])
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.open_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(body, 1)
        self.tree.currentItemChanged.connect(self._selected)
        self.results: list[RequestResult] = []

    def add_result(self, result: RequestResult) -> None:
        """One request's outcome, as it comes."""
        self.results.append(result)
        took = f"{result.latency * 1000:.1f} ms" if result.latency is not None else ""
        row = QTreeWidgetItem([result.request.name, "passed" if result.passed else "FAILED",
                               took if result.passed else f"{len(result.failures())} of {len(result.outcomes)} "
                                                          f"expectations failed"])
        row.setData(0, Qt.ItemDataRole.UserRole, result)
        row.setBackground(1, QBrush(PASSED if result.passed else FAILED))
        for outcome in result.outcomes:
            child = QTreeWidgetItem([outcome.expectation, "passed" if outcome.passed else "FAILED", outcome.sentence])
            child.setBackground(1, QBrush(PASSED if outcome.passed else FAILED))
            child.setData(0, Qt.ItemDataRole.UserRole, result)
            row.addChild(child)
        self.tree.addTopLevelItem(row)
        row.setExpanded(not result.passed)  # what failed, open; what passed, one line
        self.summary.setText(f"{len(self.results)} request{'' if len(self.results) == 1 else 's'} run, "
                             f"{sum(1 for r in self.results if not r.passed)} failed…")

    def finished(self, run: CollectionRun | None, problem: str | None = None) -> None:
        if run is None:
            self.summary.setText(problem or "the collection could not run")
            return
        self.summary.setText(f"{run.summary()} in {run.seconds:.2f} s")
        self.open_button.setEnabled(run.capture is not None)

    def _selected(self, item: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None = None) -> None:
        result = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        if isinstance(result, RequestResult):
            self.answer.setPlainText(as_text(result.response) if result.response is not None else "(no answer)")
