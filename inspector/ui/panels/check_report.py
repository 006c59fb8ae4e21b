"""The report of Session > Check server, read-only: a table of checks (status coloured), and the selected
check's sentence, spec rule and exchange below it. Server text is shown as plain text only."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from inspector.core.check.checks import FAILED, INCOMPLETE, NOT_APPLICABLE, PASSED, Result
from inspector.core.check.runner import Report

#: Status colours that read on light and dark palettes alike (a tint behind the status cell).
STATUS_COLOURS = {PASSED: QColor(46, 160, 67, 90), FAILED: QColor(218, 54, 51, 110),
                  NOT_APPLICABLE: QColor(128, 128, 128, 50), INCOMPLETE: QColor(210, 153, 34, 90)}
COLUMNS = ("revision", "check", "level", "status", "why")


class CheckReportView(QWidget):
    """One check run's report. ``open_capture_requested`` carries a capture path (the button under the table)."""

    open_capture_requested = Signal(str)

    def __init__(self, report: Report, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report = report
        layout = QVBoxLayout(self)
        self.summary = QLabel(report.summary() + (f" — {report.error}" if report.error else ""))
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.summary)
        splitter = QSplitter(Qt.Orientation.Vertical)
        self.table = QTableWidget(len(report.results), len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)  # one line a check: the whole sentence is below, with the exchange
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        for row, result in enumerate(report.results):
            cells = (result.revision or "", result.check.id, result.check.level, result.status, result.sentence)
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip("")  # server text is never rich text
                if column == 3:
                    item.setBackground(QBrush(STATUS_COLOURS[result.status]))
                self.table.setItem(row, column, item)
        splitter.addWidget(self.table)
        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        self.detail.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.detail.setPlaceholderText("Select a check to see why, its rule, and for a failure the exchange.")
        splitter.addWidget(self.detail)
        splitter.setSizes([300, 200])
        layout.addWidget(splitter)
        self.open_button = QPushButton("Open the capture of the selected check")
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(self._open_capture)
        layout.addWidget(self.open_button)
        self.table.itemSelectionChanged.connect(self._selected)

    def result_at(self, row: int) -> Result:
        return self.report.results[row]

    def select(self, row: int) -> None:
        self.table.selectRow(row)

    def _selected(self) -> None:
        rows = {index.row() for index in self.table.selectedIndexes()}
        if not rows:
            return
        result = self.result_at(min(rows))
        self.detail.setPlainText(detail_text(result))
        self.open_button.setEnabled(bool(result.capture))

    def _open_capture(self) -> None:
        rows = {index.row() for index in self.table.selectedIndexes()}
        if rows and self.result_at(min(rows)).capture:
            self.open_capture_requested.emit(self.result_at(min(rows)).capture or "")


def detail_text(result: Result) -> str:
    source = result.check.source_for(result.revision)
    lines = [f"{result.check.id} ({result.check.level}) at {result.revision or 'no revision'}: {result.status}",
             result.sentence, "", result.check.title + ". " + result.check.rationale]
    if source.quote:
        lines.append(f"Spec ({source.revision}): {source.quote}")
    lines.append(source.url)
    if result.check.conformance:  # to read the report beside the official suite's
        lines.append("The conformance suite's checks: " + ", ".join(result.check.conformance))
    if result.exchange:
        lines += ["", f"Exchange (capture {result.capture}):", *result.exchange]
    return "\n".join(lines)
