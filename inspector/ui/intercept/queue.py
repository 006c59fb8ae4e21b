"""The Intercepted queue: the messages a breakpoint paused, oldest first, and for the one selected an editor with
the composer's live checks (its JSON colours, :func:`~inspector.core.session.compose.validate`'s sentence and its
marks where the JSON breaks, and the negotiated revision's schema) and what the person can do with it: Forward (as
it came), Forward edited, Drop, Answer with error (code and message), Delay (ms). Everything else keeps flowing
meanwhile.

A thin view of :class:`~inspector.ui.intercept.control.InterceptControl`: it lists ``control.paused`` when
``paused_changed`` says the queue changed, and hands each decision to ``control.decide``; what cannot be done is
one sentence under the buttons.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QFontDatabase, QPalette
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from inspector.core.intercept.breakpoints import Paused
from inspector.core.protocol.messages import for_revision
from inspector.core.session import compose
from inspector.core.wire import jsonrpc
from inspector.ui.intercept.control import InterceptControl
from inspector.ui.intercept.panel import scrolled
from inspector.ui.json_highlighter import JsonHighlighter, is_dark
from inspector.ui.panels.composer import STATUS_COLOURS, mark_json_error
from inspector.ui.panels.detail import pretty
from inspector.ui.wheel_guard import guard_wheel

ROLE_PAUSED = Qt.ItemDataRole.UserRole + 1
#: How many schema problems the status line names before "and N more".
SCHEMA_NAMED = 2


class InterceptedQueue(QWidget):
    """The paused messages and the editor of the selected one (see the module)."""

    def __init__(self, control: InterceptControl, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.control = control
        self.revision: str | None = None  #: the session's revision, for the schema checks (None: not known yet)
        self._deciding = False
        self.list = QListWidget(self)
        self.list.setObjectName("paused")
        self.list.currentItemChanged.connect(lambda item, _old: self._show(item))
        self.editor = QPlainTextEdit(self)
        self.editor.setObjectName("editor")
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.editor.setPlaceholderText("no message is paused: add a breakpoint in the Breakpoints tab")
        self.highlighter = JsonHighlighter(self.editor.document(), self.editor.palette())
        self.editor.textChanged.connect(self._check)
        self.status = QLabel(self)
        self.status.setObjectName("status")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

        self.forward_button = QPushButton("Forward", self)
        self.forward_button.setToolTip("Send the message on as it came")
        self.forward_button.clicked.connect(lambda: self.decide("forward"))
        self.forward_edited_button = QPushButton("Forward edited", self)
        self.forward_edited_button.setToolTip("Send the edited message on instead (the capture keeps both)")
        self.forward_edited_button.clicked.connect(lambda: self.decide("forward", edited=True))
        self.drop_button = QPushButton("Drop", self)
        self.drop_button.setToolTip("Never deliver it (recorded as dropped)")
        self.drop_button.clicked.connect(lambda: self.decide("drop"))
        self.error_code = guard_wheel(QSpinBox(self))
        self.error_code.setRange(-2**31, 2**31 - 1)
        self.error_code.setValue(-32000)
        self.error_message = QLineEdit("injected by a breakpoint", self)
        self.error_button = QPushButton("Answer with error", self)
        self.error_button.setToolTip("A request: answer its sender with this JSON-RPC error instead (it never reaches "
                                     "its peer); a response: replace it with the error")
        self.error_button.clicked.connect(lambda: self.decide("error"))
        self.delay_ms = guard_wheel(QSpinBox(self))
        self.delay_ms.setRange(0, 3_600_000)
        self.delay_ms.setValue(1000)
        self.delay_ms.setSuffix(" ms")
        self.delay_button = QPushButton("Delay", self)
        self.delay_button.setToolTip("Send it on as it came after this many milliseconds")
        self.delay_button.clicked.connect(lambda: self.decide("delay"))
        self.message = QLabel(self)
        self.message.setObjectName("message")
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)

        first = QHBoxLayout()
        first.addWidget(self.forward_button)
        first.addWidget(self.forward_edited_button)
        first.addWidget(self.drop_button)
        first.addStretch(1)
        first.addWidget(self.delay_ms)
        first.addWidget(self.delay_button)
        second = QHBoxLayout()
        second.addWidget(self.error_code)
        second.addWidget(self.error_message, 1)
        second.addWidget(self.error_button)
        lower = QWidget(self)
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.editor, 1)
        lower_layout.addWidget(self.status)
        lower_layout.addLayout(first)
        lower_layout.addLayout(second)
        lower_layout.addWidget(self.message)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.list)
        split.addWidget(lower)
        split.setSizes([100, 400])
        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(split)
        scrolled(self, body)

        control.paused_changed.connect(lambda _count: self.refresh())
        control.said.connect(self._said)
        #: the waited seconds in the list move on while something is paused
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._retitle)
        self.refresh()

    # -- what is shown ---------------------------------------------------------------------------------

    def refresh(self) -> None:
        """List the control's paused messages again, keeping the selected one (and its edits) if it still waits."""
        current = self.current()
        paused = self.control.paused
        self.list.blockSignals(True)
        try:
            self.list.clear()
            for item in paused:
                row = QListWidgetItem(self._title(item))
                row.setData(ROLE_PAUSED, item)
                self.list.addItem(row)
        finally:
            self.list.blockSignals(False)
        keep = current if current in paused else (paused[0] if paused else None)
        if keep is not None:
            self.list.blockSignals(True)
            self.list.setCurrentRow(paused.index(keep))
            self.list.blockSignals(False)
        if keep is not current:
            self._show(self.list.currentItem() if keep is not None else None)
        self._enable(keep is not None)
        if paused:
            self._ticker.start()
        else:
            self._ticker.stop()

    def current(self) -> Paused | None:
        row = self.list.currentItem()
        found = row.data(ROLE_PAUSED) if row is not None else None
        return found if isinstance(found, Paused) else None

    def set_revision(self, revision: str | None) -> None:
        self.revision = revision
        self._check()

    def _title(self, item: Paused) -> str:
        rule = item.rule.label() if item.rule is not None else "a breakpoint"
        return f"{item.title()} · {rule} · {item.waited():.0f} s"

    def _retitle(self) -> None:
        for row in range(self.list.count()):
            entry = self.list.item(row)
            item = entry.data(ROLE_PAUSED)
            if isinstance(item, Paused):
                entry.setText(self._title(item))

    def _show(self, row: QListWidgetItem | None) -> None:
        item = row.data(ROLE_PAUSED) if row is not None else None
        self.editor.setPlainText(pretty(item.raw) if isinstance(item, Paused) else "")
        self.message.clear()

    def _enable(self, enabled: bool) -> None:
        for widget in (self.editor, self.forward_button, self.forward_edited_button, self.drop_button,
                       self.error_button, self.delay_button, self.error_code, self.error_message, self.delay_ms):
            widget.setEnabled(enabled)
        self._check()

    def _check(self) -> None:
        """The composer's live check of the editor's text, and the revision's schema."""
        text = self.editor.toPlainText()
        if not text.strip():
            self.editor.setExtraSelections([])
            self._status("off", "nothing paused")
            return
        validation = compose.validate(text)
        mark_json_error(self.editor, validation)  # the composer's marks: the line tinted, the character underlined
        severity, sentence = validation.severity, validation.message
        item = self.current()
        if validation.ok and isinstance(validation.obj, dict) and self.revision:
            schema = for_revision(self.revision)
            info, _findings = jsonrpc.classify(validation.obj)
            problems = schema.check(validation.obj, info.kind, info.method, None) if schema is not None else []
            if problems:
                severity = "warning"
                named = "; ".join(f"{p.path or '/'}: {p.sentence}" for p in problems[:SCHEMA_NAMED])
                more = f" (and {len(problems) - SCHEMA_NAMED} more)" if len(problems) > SCHEMA_NAMED else ""
                sentence += f"; against the {self.revision} schema: {named}{more}"
        if item is not None and item.direction == "s2c":  # compose speaks for the client: say who sends it
            sentence = sentence.replace("valid ", "valid server ", 1) if sentence.startswith("valid ") else sentence
        self._status(severity, sentence)
        self.forward_edited_button.setEnabled(item is not None and validation.ok)

    def _status(self, severity: str, sentence: str) -> None:
        self.status.setText(sentence)
        self.status.setProperty("severity", severity)
        light, dark = STATUS_COLOURS[severity]
        palette = self.status.palette()
        palette.setColor(QPalette.ColorRole.WindowText, QColor(dark if is_dark(self.palette()) else light))
        self.status.setPalette(palette)

    # -- what the person does --------------------------------------------------------------------------

    def decide(self, choice: str, *, edited: bool = False) -> bool:
        """Carry out the person's choice on the selected message; False when nothing is selected or it cannot be
        done (the sentence shown)."""
        item = self.current()
        if item is None:
            return False
        values: dict[str, Any] = {}
        if edited:
            values["edited"] = self.editor.toPlainText().encode("utf-8", errors="surrogatepass")
        elif choice == "error":
            values.update(code=self.error_code.value(), message=self.error_message.text())
        elif choice == "delay":
            values["ms"] = self.delay_ms.value()
        self._deciding = True
        try:
            return self.control.decide(item, choice, **values)
        finally:
            self._deciding = False

    def _said(self, text: str, failure: bool) -> None:
        if self._deciding:  # the panel says the rules' sentences; this one only its own decisions'
            self.message.setText(text)
            light, dark = STATUS_COLOURS["error" if failure else "ok"]
            palette = self.message.palette()
            palette.setColor(QPalette.ColorRole.WindowText, QColor(dark if is_dark(self.palette()) else light))
            self.message.setPalette(palette)
