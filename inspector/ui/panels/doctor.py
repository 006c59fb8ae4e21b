"""Diagnose, in the window: when a live session fails to connect, a button beside its status line runs the
connection doctor (:func:`inspector.core.doctor.runner.diagnose`, the steps of ``mcp-inspector doctor``) on the
same target and shows its steps in a dialog as they come.

The doctor runs as an asyncio task on the Qt loop (qasync), like every connection of the window: the GUI thread
never waits on a process, a socket or a name lookup. Closing the dialog cancels it (its session is shut down).
The window's own session signs in with OAuth; the doctor's does not (``sign_in=False``), so a 401 there is a
warning that says where the sign-in goes. Everything shown is plain text.
"""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
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

from inspector.core.connect.target import Target
from inspector.core.doctor.model import FAILED, PASSED, SKIPPED, WARNING, Report, Step

#: Status tints that read on light and dark palettes alike (behind the status cell).
STATUS_COLOURS = {PASSED: QColor(46, 160, 67, 90), FAILED: QColor(218, 54, 51, 110),
                  WARNING: QColor(210, 153, 34, 90), SKIPPED: QColor(128, 128, 128, 50)}
COLUMNS = ("status", "step", "detail")
BUTTON_TEXT = "Diagnose…"
BUTTON_TIP = "Run the connection doctor on this server: which step fails (name, port, TLS, path, transport, " \
             "sign-in, handshake) and how to fix it"


class DoctorDialog(QDialog):
    """The doctor's steps for ``target``, added as they come; the selected step's detail and fix below.
    ``finished_report`` carries the :class:`Report` once every step is known."""

    finished_report = Signal(object)

    def __init__(self, target: Target, timeout: float, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.target = target
        self.timeout = timeout
        self.report: Report | None = None
        self.steps: list[Step] = []
        self._task: asyncio.Task[None] | None = None
        self.setWindowTitle(f"Diagnose: {target.name or target.describe()}")
        self.resize(820, 440)
        layout = QVBoxLayout(self)
        self.summary = QLabel(f"diagnosing {target.describe()}…")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        splitter = QSplitter(Qt.Orientation.Vertical)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)  # one line a step: the whole detail and the fix are below
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self._selected)
        splitter.addWidget(self.table)
        self.explained = QPlainTextEdit()
        self.explained.setReadOnly(True)
        self.explained.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        splitter.addWidget(self.explained)
        splitter.setSizes([260, 140])
        layout.addWidget(splitter, 1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.copy = QPushButton("Copy as text")
        self.copy.setEnabled(False)
        self.copy.clicked.connect(self._copy)
        buttons.addWidget(self.copy)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        buttons.addWidget(close)
        layout.addLayout(buttons)

    # -- the run -------------------------------------------------------------------------------------------

    def start(self) -> asyncio.Task[None]:
        """Run the doctor in the background (on the running loop: the window's qasync loop)."""
        self._task = asyncio.ensure_future(self._run())
        return self._task

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def _run(self) -> None:
        from inspector.core.doctor.runner import diagnose

        try:
            report = await diagnose(self.target, timeout=self.timeout, on_step=self.add_step, sign_in=False)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug of ours: said in the dialog, not lost in a task nobody awaits
            self.summary.setText(f"the diagnosis stopped on an unexpected error ({type(exc).__name__}: {exc})")
            return
        self.report = report
        self.summary.setText(report.summary())
        self.copy.setEnabled(True)
        # the step to read first: the first failure, else the first warning, explained below the table (left
        # unselected, so that its status keeps its colour)
        first = report.first_failure or next((s for s in report.steps if s.status == WARNING), None)
        if first is not None:
            self._explain(first)
        self.finished_report.emit(report)

    def add_step(self, step: Step) -> None:
        """One more step, as a row (the doctor calls this as each step is known)."""
        self.steps.append(step)
        row = self.table.rowCount()
        self.table.insertRow(row)
        for column, text in enumerate((step.status, step.step, step.detail.splitlines()[0] if step.detail else "")):
            item = QTableWidgetItem(text)
            item.setToolTip("")  # server text is never rich text
            if column == 0:
                item.setBackground(QBrush(STATUS_COLOURS.get(step.status, QColor(0, 0, 0, 0))))
            self.table.setItem(row, column, item)

    def _selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows or rows[0].row() >= len(self.steps):
            self.explained.setPlainText("")
            return
        self._explain(self.steps[rows[0].row()])

    def _explain(self, step: Step) -> None:
        text = f"{step.step}: {step.status}\n\n{step.detail}"
        if step.fix:
            text += f"\n\nfix: {step.fix}"
        self.explained.setPlainText(text)

    def _copy(self) -> None:
        if self.report is not None:
            from inspector.core.doctor.text import report_text

            QGuiApplication.clipboard().setText(report_text(self.report))

    def closeEvent(self, event: Any) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()  # the doctor's session is shut down by its own cleanup
        super().closeEvent(event)


class DiagnoseButton(QPushButton):
    """"Diagnose…" beside a live session's status line: shown while its connection has failed, hidden otherwise;
    it opens a :class:`DoctorDialog` on the session's target."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(BUTTON_TEXT, parent)
        self.setToolTip(BUTTON_TIP)
        self.hide()
        self.target: Target | None = None
        self.dialog: DoctorDialog | None = None
        self.clicked.connect(self.diagnose)

    def watch(self, live: Any, failed: str) -> None:
        """Follow a :class:`~inspector.ui.session.live.LiveSession`: shown when it enters its state ``failed``
        (the session's own constant, handed in by the tab that composes both: a pane does not import the tab's
        package)."""
        self.target = live.target
        live.state_changed.connect(lambda state, _sentence: self.setVisible(state == failed))

    def diagnose(self) -> DoctorDialog | None:
        """Open the doctor's dialog on the watched target and start it (an open one is brought forward)."""
        if self.target is None:
            return None
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.raise_()
            self.dialog.activateWindow()
            return self.dialog
        from inspector.core.doctor.runner import DEFAULT_DOCTOR_TIMEOUT

        timeout = min(self.target.timeout, DEFAULT_DOCTOR_TIMEOUT)
        dialog = self.dialog = DoctorDialog(self.target, timeout, self.window())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # closing cancels its run; nothing is kept
        dialog.destroyed.connect(self._forget)
        dialog.show()
        dialog.start()
        return dialog

    def _forget(self) -> None:
        self.dialog = None
