"""The Explorer's Tasks page and its "Run as task" option: the session's tasks, live, from the core's
:class:`~inspector.core.explore.tasks.TaskBook`.

The page lists every task of the session (the Explorer's own calls and any the composer made): its id, tool,
form, status with its message and progress, when it started and its time to live; Cancel sends ``tasks/cancel``
for the selected one, and "List on server" asks a 2025-11-25 server that declares ``tasks.list`` for the tasks it
keeps. :class:`TaskOption` is the check box beside Call: checked and fixed for a tool whose ``taskSupport`` is
``required``, free for ``optional``, hidden otherwise (with the tasks extension the server decides, so it is
hidden too). Everything a task sends is the core's; this module only shows it. Server text is plain text.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from inspector.core.explore.tasks import LEGACY, TaskBook, TaskRun, form_of, task_support
from inspector.core.session.outcomes import ServerInfo
from inspector.core.session.spans import short_task_id
from inspector.core.text import counted
from inspector.core.transports.base import TransportError

COLUMNS = ("Task", "Tool", "Status", "Progress")
(COL_TASK, COL_TOOL, COL_STATUS, COL_PROGRESS) = range(len(COLUMNS))
_ROLE_ID = Qt.ItemDataRole.UserRole
Spawn = Callable[[Coroutine[Any, Any, Any], str], Any]


class TasksPage(QWidget):
    """The table of the session's tasks. :meth:`bind` it to a book; it follows the book's news."""

    def __init__(self, spawn: Spawn, say: Callable[..., None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._spawn = spawn
        self._say = say
        self.book: TaskBook | None = None
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        for column in (COL_TASK, COL_TOOL, COL_PROGRESS):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(COL_STATUS, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.detail = QLabel(self)
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setWordWrap(True)
        self.cancel_button = QPushButton("Cancel task", self)
        self.cancel_button.setToolTip("Send tasks/cancel for the selected task")
        self.cancel_button.clicked.connect(self.cancel_selected)
        self.list_button = QPushButton("List on server", self)
        self.list_button.setToolTip("tasks/list: the tasks the server keeps for this client (2025-11-25 tasks)")
        self.list_button.clicked.connect(self.list_on_server)
        row = QHBoxLayout()
        row.addWidget(self.cancel_button)
        row.addWidget(self.list_button)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.detail)
        layout.addLayout(row)
        self._rows: dict[str, int] = {}
        self._selection_changed()

    def bind(self, book: TaskBook) -> None:
        self.book = book
        book.listeners.append(self.show_run)

    def server_ready(self, server: ServerInfo | None) -> None:
        caps = server.capabilities if server is not None else {}
        tasks = caps.get("tasks") if isinstance(caps, dict) else None
        self.list_button.setVisible(form_of(server) == LEGACY and isinstance(tasks, dict) and "list" in tasks)

    # -- the rows ------------------------------------------------------------------------------------------

    def show_run(self, run: TaskRun) -> None:
        """Add or refresh the row of ``run`` (a book listener)."""
        row = self._rows.get(run.task_id)
        if row is None:
            row = self._rows[run.task_id] = self.table.rowCount()
            self.table.insertRow(row)
        progress = run.progress or {}
        done, total = progress.get("progress"), progress.get("total")
        status = run.status.replace("_", " ") + (" (cancel requested)" if run.cancel_requested and not run.terminal
                                                  else "")
        cells = {
            COL_TASK: short_task_id(run.task_id),
            COL_TOOL: run.tool,
            COL_STATUS: f"{status} — {run.message}" if run.message else status,
            COL_PROGRESS: (f"{done:g}" + (f" / {total:g}" if isinstance(total, (int, float)) else ""))
            if isinstance(done, (int, float)) else "",
        }
        for column, text in cells.items():
            item = QTableWidgetItem(text)
            item.setData(_ROLE_ID, run.task_id)
            item.setToolTip(describe(run))
            self.table.setItem(row, column, item)
        self._selection_changed()

    def selected(self) -> TaskRun | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows or self.book is None:
            return None
        item = self.table.item(rows[0].row(), COL_TASK)
        return self.book.runs.get(item.data(_ROLE_ID)) if item is not None else None

    def _selection_changed(self) -> None:
        run = self.selected()
        self.cancel_button.setEnabled(run is not None and not run.terminal and not run.cancel_requested)
        if run is not None:
            self.detail.setText(describe(run))
        elif self.table.rowCount():
            self.detail.setText("Select a task to see it in full, or to cancel it.")
        else:
            self.detail.setText("Tasks of this session appear here as they start.")

    # -- the user's requests ---------------------------------------------------------------------------------

    def cancel_selected(self) -> None:
        run = self.selected()
        if run is None or self.book is None:
            return
        self._spawn(self._cancel(run), f"cancelling {run.label}")

    async def _cancel(self, run: TaskRun) -> None:
        assert self.book is not None
        try:
            await self.book.cancel(run.task_id)
        except TransportError as exc:
            self._say(str(exc), failure=True)
            return
        self._say(f"tasks/cancel sent for {run.label}")

    def list_on_server(self) -> None:
        if self.book is not None:
            self._spawn(self._list(), "listing the server's tasks")

    async def _list(self) -> None:
        assert self.book is not None
        try:
            runs = await self.book.list_on_server()
        except TransportError as exc:
            self._say(str(exc), failure=True)
            return
        self._say(f"the session knows {counted(len(runs), 'task')}")


def describe(run: TaskRun) -> str:
    """A task in full, a few lines: its id, form, status, progress, when it started and how long it is kept."""
    form = "2025-11-25 tasks" if run.form == LEGACY else "io.modelcontextprotocol/tasks extension"
    ttl = "unlimited" if run.ttl_ms is None else f"{run.ttl_ms / 1000:g} s"
    poll = f"; polled every {run.interval():g} s" if not run.terminal else ""
    started = time.strftime("%H:%M:%S", time.localtime(run.started))
    return f"{run.line()}\ntask id {run.task_id} ({form}); started {started}; kept for {ttl} after its creation{poll}"


class TaskOption(QCheckBox):
    """"Run as task" beside Call: follows the selected tool and the server's form of tasks."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Run as task", parent)
        self.server: ServerInfo | None = None
        self.hide()

    def follow(self, tool: dict[str, Any] | None) -> None:
        """Show the option as ``tool`` allows it (``required``: checked and fixed; ``optional``: free)."""
        support = task_support(tool)
        legacy = form_of(self.server) == LEGACY
        self.setVisible(legacy and tool is not None and support != "forbidden")
        self.setEnabled(support == "optional")
        if support == "required":
            self.setChecked(True)
            self.setToolTip("This tool's execution.taskSupport is required: it always runs as a task")
        else:
            self.setChecked(False)
            self.setToolTip("Call the tool as a 2025-11-25 task (tasks/get, tasks/result): its status and "
                            "progress show in the Tasks page, where it can be cancelled")

    def wanted(self) -> bool:
        """Whether the user asked for a task (a required tool runs as one anyway)."""
        return not self.isHidden() and self.isChecked() and self.isEnabled()
