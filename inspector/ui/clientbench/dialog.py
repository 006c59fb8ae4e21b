"""The "Test a client…" dialog: the client's command (stdio: the scenario server's command appended; HTTP: its
URL appended), the scenarios ticked (each with what it checks; the defaults ticked), a timeout, Run and Stop;
progress per scenario, then the results as a tree, scenario (status) → checks (status, sentence), the selected
check's spec link below. Activating a check asks (:attr:`TestClientDialog.message_wanted`) for its scenario's
capture with the client's offending message selected. It only shows :class:`BenchRun`'s signals."""

from __future__ import annotations

import html
import shlex
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QBrush, QCloseEvent, QColor, QDesktopServices, QFontDatabase, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from inspector.core.clientbench.bench import ScenarioResult
from inspector.core.clientbench.checks import FAILED, INCOMPLETE, NOT_APPLICABLE, PASSED, CheckResult
from inspector.core.clientbench.names import DEFAULT_SCENARIOS, DEFAULT_TIMEOUT
from inspector.core.clientbench.scenarios import SCENARIOS
from inspector.core.protocol.revisions import HANDSHAKE_REVISIONS
from inspector.core.urls import url_refusal
from inspector.ui.clientbench.bench_run import BenchRun
from inspector.ui.wheel_guard import guard_wheel

#: Where every check's spec text lives: the only links the dialog opens (they are ours, never a client's).
SPEC_PREFIX = "https://modelcontextprotocol.io/specification/"
#: The transports, as the combo box names them, and what the bench calls them.
TRANSPORTS = {"stdio": "stdio", "HTTP": "http"}
#: The revision choice that leaves it to the client (``test-client`` without ``--revision``).
CLIENTS_OWN = "the client's own"
WAITING, RUNNING = "waiting", "running…"
HINT = "Double-click a check to see the client's message in its scenario's capture."
_COLOURS = {FAILED: "#c62828", INCOMPLETE: "#b26a00", PASSED: "#2e7d32", NOT_APPLICABLE: "#757575"}
CAPTURE_ROLE = Qt.ItemDataRole.UserRole
SEQ_ROLE = Qt.ItemDataRole.UserRole + 1
SPEC_ROLE = Qt.ItemDataRole.UserRole + 2


def open_spec_link(url: str) -> bool:
    """Open a check's spec page: an https page of the MCP specification; anything else is not opened."""
    if url_refusal(url) is not None or not url.startswith(SPEC_PREFIX):
        return False
    return QDesktopServices.openUrl(QUrl(url))


def _sentence(text: str) -> str:
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "?", "!")) else text + "."


class TestClientDialog(QDialog):
    """The bench's dialog over ``run``; ``captures()`` gives each run's new captures folder."""

    __test__ = False  # not a pytest class, though its name starts with Test

    message_wanted = Signal(object, object)  #: a scenario's capture (Path) and the seq to select (int or None)

    def __init__(self, run: BenchRun, captures: Callable[[], Path], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Test a client")
        self.run = run
        self.captures = captures
        self.items: dict[str, QTreeWidgetItem] = {}
        self.folder: Path | None = None
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self._settings())
        splitter.addWidget(self._results())
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 2)  # the results take the room the dialog gains
        splitter.setSizes([420, 680])
        layout = QVBoxLayout(self)
        layout.addWidget(splitter, 1)
        run.scenario_started.connect(self._started)
        run.scenario_done.connect(self._done)
        run.finished.connect(self._finished)
        run.stopped.connect(self._stopped)
        self.finished.connect(lambda _result: run.stop())  # closing the dialog ends its run
        self._show_state()
        self.resize(1100, 680)

    # -- the settings ---------------------------------------------------------------------------------------------

    def _settings(self) -> QWidget:
        page = QWidget(self)
        self.command = QLineEdit(page)
        self.command.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.command.setPlaceholderText("python my_client.py --")
        self.command.returnPressed.connect(self.start)
        self.transport = guard_wheel(QComboBox(page))
        self.transport.addItems(list(TRANSPORTS))
        self.transport.currentTextChanged.connect(self._show_how)
        self.how = QLabel(page)
        self.how.setWordWrap(True)
        self.how.setTextFormat(Qt.TextFormat.PlainText)
        self.timeout = guard_wheel(QDoubleSpinBox(page))
        self.timeout.setRange(1.0, 3600.0)
        self.timeout.setDecimals(0)
        self.timeout.setValue(DEFAULT_TIMEOUT)
        self.timeout.setSuffix(" s per scenario")
        form = QFormLayout()
        form.addRow("Client command:", self.command)
        transport = QVBoxLayout()
        transport.setSpacing(2)
        transport.addWidget(self.transport)
        transport.addWidget(self.how)
        form.addRow("Transport:", transport)
        form.addRow("Timeout:", self.timeout)
        self.revision = guard_wheel(QComboBox(page))
        self.revision.addItems([CLIENTS_OWN, *HANDSHAKE_REVISIONS])
        self.revision.setToolTip("The revision the scenario servers answer initialize with, whatever the client asks "
                                 "(the client's own: the one it asks for, when of the initialize era, else "
                                 "2025-11-25; the modern scenario speaks 2026-07-28 whatever this says).")
        form.addRow("Revision:", self.revision)
        self.boxes: dict[str, QCheckBox] = {}
        listing = QWidget(page)
        rows = QVBoxLayout(listing)
        for name, cls in SCENARIOS.items():
            box = QCheckBox(name, listing)
            box.setChecked(name in DEFAULT_SCENARIOS)
            what = QLabel(cls.summary, listing)
            what.setWordWrap(True)
            what.setTextFormat(Qt.TextFormat.PlainText)
            what.setContentsMargins(24, 0, 0, 4)
            what.setForegroundRole(QPalette.ColorRole.PlaceholderText)  # the name stands out, its summary less
            box.setToolTip(cls.summary)
            self.boxes[name] = box
            rows.addWidget(box)
            rows.addWidget(what)
        rows.addStretch(1)
        scroll = QScrollArea(page)
        scroll.setWidgetResizable(True)
        scroll.setWidget(listing)
        self.run_button = QPushButton("Run", page)
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.start)
        self.stop_button = QPushButton("Stop", page)
        self.stop_button.clicked.connect(self.run.stop)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(form)
        layout.addWidget(QLabel("Scenarios:", page))
        layout.addWidget(scroll, 1)
        layout.addLayout(buttons)
        self._show_how(self.transport.currentText())
        return page

    def _show_how(self, transport: str) -> None:
        self.how.setText("The client's command is run once per scenario with the scenario server's command "
                         "appended: the client launches it as its stdio server."
                         if TRANSPORTS[transport] == "stdio" else
                         "The scenario server listens on 127.0.0.1 and its URL is appended to the client's command "
                         "(as the official conformance suite does).")

    def ticked(self) -> list[str]:
        return [name for name, box in self.boxes.items() if box.isChecked()]

    # -- the results ----------------------------------------------------------------------------------------------

    def _results(self) -> QWidget:
        page = QWidget(self)
        self.progress = QProgressBar(page)
        self.progress.setFormat("%v of %m scenarios")
        self.state = QLabel(page)
        self.state.setWordWrap(True)
        self.state.setTextFormat(Qt.TextFormat.PlainText)
        self.tree = QTreeWidget(page)
        self.tree.setHeaderLabels(["Scenario / check", "Status", "What the client did"])
        self.tree.setWordWrap(True)
        header = self.tree.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.itemActivated.connect(self._activated)
        self.tree.currentItemChanged.connect(self._current_changed)
        self.detail = QLabel(page)
        self.detail.setWordWrap(True)
        self.detail.setTextFormat(Qt.TextFormat.RichText)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                            | Qt.TextInteractionFlag.LinksAccessibleByMouse
                                            | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
        self.detail.linkActivated.connect(open_spec_link)
        self.detail.setText(HINT)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.progress)
        layout.addWidget(self.state)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.detail)
        return page

    # -- a run ----------------------------------------------------------------------------------------------------

    def start(self) -> None:
        """Run the ticked scenarios; what stops it from starting is said in one sentence."""
        if self.run.state != "idle":
            return
        text = self.command.text().strip()
        try:
            command = shlex.split(text)
        except ValueError as exc:
            self.state.setText(f"The command cannot be read: {exc} (a quote left open?).")
            return
        if not command:
            self.state.setText("Give the client's command: the program and its arguments.")
            return
        names = self.ticked()
        if not names:
            self.state.setText("Tick at least one scenario.")
            return
        self.tree.clear()
        self.items = {}
        for name in names:
            item = QTreeWidgetItem([name, WAITING, ""])
            self.tree.addTopLevelItem(item)
            self.items[name] = item
        self.progress.setRange(0, len(names))
        self.progress.setValue(0)
        self.folder = self.captures()
        self.state.setText(f"Starting the client for {names[0]}…")
        self.run.start(names, command, self.folder, timeout=self.timeout.value(),
                       transport=TRANSPORTS[self.transport.currentText()],
                       revision=None if self.revision.currentText() == CLIENTS_OWN else self.revision.currentText())
        self._show_state()

    def _started(self, name: str) -> None:
        item = self.items.get(name)
        if item is not None:
            item.setText(1, RUNNING)
            self.tree.scrollToItem(item)
        self.state.setText(f"Running {name} ({len(self._done_names()) + 1} of {len(self.items)})…")

    def _done_names(self) -> list[str]:
        return [name for name, item in self.items.items() if item.text(1) not in (WAITING, RUNNING)]

    def _done(self, result: ScenarioResult) -> None:
        self.show_result(result)
        self.progress.setValue(len(self._done_names()))

    def show_result(self, result: ScenarioResult) -> None:
        """A scenario's row gets its status and its checks."""
        item = self.items.get(result.name)
        if item is None:
            item = QTreeWidgetItem([result.name])
            self.tree.addTopLevelItem(item)
            self.items[result.name] = item
        item.takeChildren()
        item.setText(1, result.status)
        item.setForeground(1, QBrush(QColor(_COLOURS[result.status])))
        failed = [c for c in result.checks if c.status == FAILED]
        item.setText(2, f"{len(failed)} of {len(result.checks)} checks failed" if failed else
                     f"{len(result.checks)} checks, client ran {result.outcome.seconds:.1f} s")
        capture = str(result.capture) if result.capture is not None else None
        item.setData(0, CAPTURE_ROLE, capture)
        for check in result.checks:
            item.addChild(self._check_item(check, capture))
        item.setExpanded(result.status != PASSED)

    @staticmethod
    def _check_item(check: CheckResult, capture: str | None) -> QTreeWidgetItem:
        child = QTreeWidgetItem([check.id, check.status, check.sentence])
        child.setForeground(1, QBrush(QColor(_COLOURS[check.status])))
        child.setToolTip(2, check.sentence)
        child.setData(0, CAPTURE_ROLE, capture)
        child.setData(0, SEQ_ROLE, check.seq)
        child.setData(0, SPEC_ROLE, check.spec)
        return child

    def _finished(self, results: list[ScenarioResult]) -> None:
        for result in results:
            if self.items.get(result.name) is None or self.items[result.name].text(1) in (WAITING, RUNNING):
                self.show_result(result)
        self.progress.setValue(len(results))
        error = next((r.outcome.error for r in results if r.outcome.error), None)
        if error:
            self.state.setText(_sentence(error))
        else:
            counts = {s: sum(1 for r in results if r.status == s) for s in (FAILED, INCOMPLETE, PASSED)}
            said = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
            self.state.setText(f"Done: {said}. The captures are in {self.folder}.")
        self._show_state()

    def _stopped(self, sentence: str) -> None:
        for item in self.items.values():
            if item.text(1) in (WAITING, RUNNING):
                item.setText(1, "not run")
        self.state.setText(sentence)
        self._show_state()

    def _show_state(self) -> None:
        idle = self.run.state == "idle"
        self.run_button.setEnabled(idle)
        self.stop_button.setEnabled(self.run.state == "running")

    # -- the tree -------------------------------------------------------------------------------------------------

    def _current_changed(self, current: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        spec = current.data(0, SPEC_ROLE) if current is not None else None
        if current is None or not isinstance(spec, str):
            self.detail.setText(HINT)
            return
        link = f'<a href="{html.escape(spec)}">{html.escape(spec)}</a>' if spec.startswith(SPEC_PREFIX) else \
            html.escape(spec)
        self.detail.setText(f"<b>{html.escape(current.text(0))}</b> ({html.escape(current.text(1))}): "
                            f"{html.escape(current.text(2))}<br>{link}")

    def _activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        capture = item.data(0, CAPTURE_ROLE)
        if not isinstance(capture, str):
            if item.text(1) not in (WAITING, RUNNING):
                self.state.setText(f"{item.text(0)} has no capture: the client never launched its scenario "
                                   "server.")
            return
        seq = item.data(0, SEQ_ROLE)
        self.message_wanted.emit(Path(capture), seq if isinstance(seq, int) else None)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.run.stop()
        super().closeEvent(event)
