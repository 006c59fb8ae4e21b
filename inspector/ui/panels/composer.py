"""The composer: write a JSON-RPC message, see at once whether and how it would be sent, send it.

A method picker loads a template (:func:`inspector.core.session.compose.template`) prefilled from what the server
listed; the editor checks the text on every change and the status line under it says, in one sentence,
what would go on the wire ("valid request tools/call add (id added at send)") or where the JSON breaks
("line 3, column 5: Expecting ',' delimiter"). Raw mode sends the text byte for byte, broken JSON and
newlines included, which is how framing bugs in a server are provoked on purpose; over stdio the status line
says when the text has no final newline (the server then waits for the rest of the line, and what is sent
next joins it) and a button adds one.

Request ids (and ``_meta`` in the 2026-07-28 era) are not written here: the session adds them at send time
(``Session.prepare_request``), so :attr:`Composer.send_requested` carries the message without an id unless
the user typed one. A message put back by Resend gets a fresh id unless "keep the id" is ticked (to test a
duplicate id on purpose), and the status line warns when an id it would send is still waiting for its
answer. Everything that may come from the server (tool names, URIs) reaches the screen as plain text only.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFontDatabase,
    QKeyEvent,
    QKeySequence,
    QPalette,
    QShortcut,
    QTextCharFormat,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from inspector.core.session import compose
from inspector.core.wire.events import Event
from inspector.core.wire.ids import describe_id, id_key
from inspector.ui.json_highlighter import JsonHighlighter, is_dark
from inspector.ui.wheel_guard import guard_wheel

#: Sent messages (and replaced drafts) kept for recall; older ones are dropped.
HISTORY_LIMIT = 100
#: Editor texts above this many characters are shown without colours (typing stays responsive).
HIGHLIGHT_LIMIT = 512 * 1024
#: The method picker's first choice when nothing else was chosen yet.
DEFAULT_METHOD = "tools/list"

SEND_KEYS = ("Ctrl+Return", "Ctrl+Enter")
#: (light-background colour, dark-background colour) of the status line, by severity.
STATUS_COLOURS = {
    "ok": ("#1a7f37", "#7ee787"),
    "warning": ("#9a6700", "#e3b341"),
    "error": ("#cf222e", "#ff7b72"),
    "raw": ("#0b57a4", "#8cc8ff"),
    "off": ("#6e7781", "#8b949e"),
}


@dataclass
class HistoryEntry:
    text: str
    label: str
    raw: bool = False
    sent: bool = True
    keep_id: bool = True  #: a typed id was sent as written (False: a fresh id replaced it)


class Composer(QWidget):
    """Method picker, JSON editor with live checks, Raw switch, Send, and a history of what was sent.

    Signals: ``send_requested(dict)`` with the parsed message (requests without an id unless typed; a batch
    array is sent as compact bytes through ``send_raw_requested`` instead, since ids are never added to
    batches), and ``send_raw_requested(bytes)`` with the exact UTF-8 of the text in raw mode. The first is
    declared ``Signal(object)``: a ``Signal(dict)`` goes through QVariantMap, which sorts keys and mangles
    big integers, and the inspector must send exactly the message shown.
    """

    send_requested = Signal(object)
    send_raw_requested = Signal(bytes)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._revision: str | None = None
        self._catalog: dict[str, list[dict[str, Any]]] = {"tools": [], "resources": [], "prompts": []}
        self._template_text = ""
        self._history: list[HistoryEntry] = []
        self._recall: int | None = None  #: index into _history while recalling, else None
        self._stash: tuple[str, bool] | None = None  #: (text, raw) before recalling started
        self._session_enabled = True
        self._validation = compose.validate("")
        #: messages sent and still waiting for an answer (the session's pending requests), for the id warning
        self.in_flight: Callable[[], list[Event]] = list
        self._line_framed = True  #: the transport frames messages by newlines (stdio)
        #: bytes sent raw since the last newline: the server holds them as the start of a line
        self._open_line = 0
        self._build()
        self.set_revision(None)

    # -- construction ----------------------------------------------------------------------------------

    def _build(self) -> None:
        self.method_box = guard_wheel(QComboBox(self))
        self.method_box.setObjectName("method")
        self.method_box.setToolTip("Load a template for this method (the current text stays in the history)")
        self.method_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        # narrow minimums (the row stretches them where there is room): beside the Explorer on a 1280x720 screen at
        # 1.5x, 14 and 8 characters made the tab wider than the window (issue 39)
        self.method_box.setMinimumContentsLength(6)
        self.history_box = guard_wheel(QComboBox(self))
        self.history_box.setObjectName("history")
        self.history_box.setPlaceholderText("History")
        self.history_box.setToolTip("Recall a sent message (Alt+Up / Alt+Down)")
        self.history_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.history_box.setMinimumContentsLength(5)
        method_label = QLabel("Method", self)
        method_label.setBuddy(self.method_box)
        top = QHBoxLayout()
        top.addWidget(method_label)
        top.addWidget(self.method_box, 3)
        top.addWidget(self.history_box, 2)

        self.editor = QPlainTextEdit(self)
        self.editor.setObjectName("editor")
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.editor.setTabStopDistance(self.editor.fontMetrics().horizontalAdvance(" ") * 2)
        self.editor.setPlaceholderText('{"jsonrpc": "2.0", "method": "tools/list"}')
        self.highlighter = JsonHighlighter(self.editor.document(), self.editor.palette())
        self._switching_highlighter = False

        self.status = QLabel(self)
        self.status.setObjectName("status")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.setWordWrap(True)
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

        self.raw = QCheckBox("Raw", self)
        self.raw.setObjectName("raw")
        self.raw.setToolTip("Send the text exactly as typed: no parsing, no id, newlines and broken JSON included")
        self.keep_id = QCheckBox("keep the id", self)
        self.keep_id.setObjectName("keep_id")
        self.keep_id.setToolTip("Send the id as written, even one already used (to test how the server takes a "
                                "duplicate id); unticked, the session gives the request a fresh id")
        self.keep_id.setChecked(True)
        self.keep_id.hide()
        self.add_newline = QPushButton("Add final newline", self)
        self.add_newline.setObjectName("add_newline")
        self.add_newline.setToolTip("End the text with a newline, so the server reads it as a complete line")
        self.add_newline.setAutoDefault(False)
        self.add_newline.hide()
        self.send_button = QPushButton("Send", self)
        self.send_button.setObjectName("send")
        self.send_button.setToolTip("Send (Ctrl+Enter)")
        self.send_button.setDefault(False)
        self.send_button.setAutoDefault(False)
        hint = QLabel("Ctrl+Enter", self)
        hint.setEnabled(False)  # drawn in the palette's disabled (subdued) colour
        bottom = QHBoxLayout()
        bottom.addWidget(self.raw)
        bottom.addWidget(self.keep_id)
        bottom.addWidget(self.add_newline)
        bottom.addStretch(1)
        bottom.addWidget(hint)
        bottom.addWidget(self.send_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.status)
        layout.addLayout(bottom)

        self.method_box.currentIndexChanged.connect(self._method_changed)
        self.method_box.activated.connect(self._method_activated)
        self.history_box.activated.connect(self._history_activated)
        self.editor.textChanged.connect(self._text_changed)
        self.raw.toggled.connect(lambda _on: self._refresh_status())
        self.keep_id.toggled.connect(lambda _on: self._refresh_status())
        self.add_newline.clicked.connect(self._add_final_newline)
        self.send_button.clicked.connect(self.send)

        # Scoped to the composer: window-wide, they would clash with every other tab's composer and the
        # server requests panel (PySide6 ignores a context= keyword in this constructor, so it is set after).
        for keys, slot in [*((keys, self.send) for keys in SEND_KEYS), ("Alt+Up", self.recall_previous),
                           ("Alt+Down", self.recall_next)]:
            QShortcut(QKeySequence(keys), self, slot).setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        # Key presses delivered straight to the editor (no shortcut map: an inactive window, synthetic
        # events) still send and recall.
        self.editor.installEventFilter(self)

    # -- public API ------------------------------------------------------------------------------------

    @property
    def revision(self) -> str | None:
        return self._revision

    @property
    def validation(self) -> compose.Validation:
        """The check of the editor's current text."""
        return self._validation

    def text(self) -> str:
        return self.editor.toPlainText()

    def set_text(self, text: str) -> None:
        """Replace the editor's text (undoable with Ctrl+Z)."""
        cursor = QTextCursor(self.editor.document())
        cursor.beginEditBlock()
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.insertText(text)
        cursor.endEditBlock()
        self.editor.moveCursor(QTextCursor.MoveOperation.Start)

    def set_revision(self, revision: str | None) -> None:
        """Offer the methods a client may send in ``revision`` (every known method when it is unknown or None).

        The chosen method stays chosen if the revision has it; an untouched template is rebuilt for the
        revision (an edited text is left alone).
        """
        self._revision = revision
        current = self.current_method() or DEFAULT_METHOD
        requests = compose.client_requests(revision)
        notifications = compose.client_notifications(revision)
        box = self.method_box
        box.blockSignals(True)
        try:
            box.clear()
            for method in requests:
                box.addItem(method, method)
            if requests and notifications:
                box.insertSeparator(box.count())
            for method in notifications:
                box.addItem(method, method)
            index = box.findData(current)
            if index < 0:
                index = box.findData(DEFAULT_METHOD)
            box.setCurrentIndex(max(index, 0))
        finally:
            box.blockSignals(False)
        self._reload_if_untouched()

    def set_catalog(self, *, tools: list[dict[str, Any]] | None = None,
                    resources: list[dict[str, Any]] | None = None,
                    prompts: list[dict[str, Any]] | None = None) -> None:
        """Remember what the server listed, for templates (``None`` keeps what was known).

        ``resources`` may also hold resource templates (entries with ``uriTemplate``), used by
        completion/complete. An untouched template is rebuilt so it names the server's first tool etc.
        """
        for key, value in (("tools", tools), ("resources", resources), ("prompts", prompts)):
            if value is not None:
                self._catalog[key] = [item for item in value if isinstance(item, dict)]
        self._reload_if_untouched()

    def current_method(self) -> str | None:
        data = self.method_box.currentData()
        return data if isinstance(data, str) else None

    def load_template(self, method: str) -> None:
        """Put ``method``'s template in the editor; an edited text is kept in the history first."""
        text = json.dumps(compose.template(method, self._revision, **self._catalog), indent=2, ensure_ascii=False)
        self._keep_draft()
        self._template_text = text
        self._recall = None
        self.raw.setChecked(False)
        self.keep_id.setChecked(True)
        self.set_text(text)

    def resend(self, text: str, *, raw: bool = False) -> None:
        """Put a message sent before back in the editor, to send again as it is or edited. Its id is replaced
        by a fresh one at send unless the user ticks "keep the id"; ``raw``: sent byte for byte (a line that
        was not a message)."""
        self._keep_draft()
        self._recall = None
        self.raw.setChecked(raw)
        self.keep_id.setChecked(False)
        self.set_text(text)

    def set_line_framed(self, framed: bool) -> None:
        """Whether the session's transport ends a message at a newline (stdio), so that raw text without a final
        newline is held by the server as the start of a line (HTTP and WebSocket send a body or a frame)."""
        self._line_framed = framed
        self._refresh_status()

    def refresh(self) -> None:
        """Say again what Send would do: a request that was in flight may have been answered since (called for
        every batch of events, so only a text with an id is looked at again)."""
        if self._typed_id()[0]:
            self._refresh_status()

    def set_enabled_for_session(self, enabled: bool) -> None:
        """Allow sending only with a live session (a read-only capture or a closed one sends nothing)."""
        self._session_enabled = enabled
        self.raw.setEnabled(enabled)
        if not enabled:
            self._open_line = 0
        self._refresh_status()

    def history(self) -> list[HistoryEntry]:
        """Oldest first."""
        return list(self._history)

    def send(self) -> bool:
        """Send the editor's text as it stands (the Send button, Ctrl+Enter). Returns whether it was sent."""
        if not self.can_send():
            return False
        text = self.text()
        if self.raw.isChecked():
            data = text.encode("utf-8", errors="surrogatepass")
            self._remember(HistoryEntry(text, f"raw, {len(data):,} bytes", raw=True))
            newline = data.rfind(b"\n")
            self._open_line = self._open_line + len(data) if newline < 0 else len(data) - newline - 1
            self.send_raw_requested.emit(data)
            self._refresh_status()
            return True
        validation = self._validation
        obj = copy.deepcopy(validation.obj)  # receivers may change what they get
        fresh_id = self._replaces_id()
        if fresh_id:
            del obj["id"]  # the session gives it the next id of its own
        self._remember(HistoryEntry(text, compose.history_label(validation), keep_id=not fresh_id))
        self._open_line = 0  # a parsed message is sent as one line, newline included
        if isinstance(obj, list):
            self.send_raw_requested.emit(json.dumps(obj, ensure_ascii=False,
                                                    separators=(",", ":")).encode("utf-8", "surrogatepass"))
        else:
            self.send_requested.emit(obj)
        self._refresh_status()
        return True

    def can_send(self) -> bool:
        if not self._session_enabled:
            return False
        if self.raw.isChecked():
            return bool(self.text())
        return self._validation.ok

    def recall_previous(self) -> None:
        """Show the message sent before the one shown (Alt+Up)."""
        if not self._history:
            return
        if self._recall is None:
            self._stash = (self.text(), self.raw.isChecked())
            self._recall = len(self._history) - 1
        elif self._recall > 0:
            self._recall -= 1
        self._show_entry(self._history[self._recall])

    def recall_next(self) -> None:
        """Show the message sent after the one shown, then the text from before recalling (Alt+Down)."""
        if self._recall is None:
            return
        self._recall += 1
        if self._recall >= len(self._history):
            self._recall = None
            text, raw = self._stash or ("", False)
            self._stash = None
            self.raw.setChecked(raw)
            self.set_text(text)
        else:
            self._show_entry(self._history[self._recall])

    # -- internals -------------------------------------------------------------------------------------

    def _reload_if_untouched(self) -> None:
        method = self.current_method()
        if method is not None and self.text() in ("", self._template_text) and not self.raw.isChecked():
            self.load_template(method)

    def _method_changed(self, _index: int) -> None:
        method = self.current_method()
        if method is not None:
            self.load_template(method)

    def _method_activated(self, _index: int) -> None:
        # Choosing the method that is already chosen brings its template back (after edits).
        method = self.current_method()
        if method is not None and self.text() != self._template_text:
            self.load_template(method)

    def _keep_draft(self) -> None:
        text = self.text()
        if not text.strip() or text == self._template_text or any(e.text == text for e in self._history):
            return
        validation = compose.validate(text)
        self._remember(HistoryEntry(text, "draft " + compose.history_label(validation), raw=self.raw.isChecked(),
                                    sent=False))

    def _remember(self, entry: HistoryEntry) -> None:
        self._history.append(entry)
        del self._history[:-HISTORY_LIMIT]
        self._recall = None
        self._stash = None
        stamp = time.strftime("%H:%M:%S")
        box = self.history_box
        box.insertItem(0, f"{stamp} {entry.label}", entry.text)
        while box.count() > HISTORY_LIMIT:
            box.removeItem(box.count() - 1)
        box.setCurrentIndex(-1)

    def _history_activated(self, index: int) -> None:
        position = len(self._history) - 1 - index  # the box lists the newest first
        if 0 <= position < len(self._history):
            if self._recall is None:
                self._stash = (self.text(), self.raw.isChecked())
            self._recall = position
            self._show_entry(self._history[position])
        self.history_box.setCurrentIndex(-1)

    def _show_entry(self, entry: HistoryEntry) -> None:
        self.raw.setChecked(entry.raw)
        self.keep_id.setChecked(entry.keep_id)
        self.set_text(entry.text)

    def _text_changed(self) -> None:
        if self._switching_highlighter:
            return  # detaching the highlighter clears its formats, which is itself a change of the text
        text = self.text()
        wanted = self.editor.document() if len(text) <= HIGHLIGHT_LIMIT else None
        if self.highlighter.document() is not wanted:
            self._switching_highlighter = True
            try:
                self.highlighter.setDocument(wanted)
            finally:
                self._switching_highlighter = False
        self._validation = compose.validate(text)
        self._mark_error()
        self._follow_method()
        self._refresh_status()

    def _mark_error(self) -> None:
        """Tint the line where the JSON breaks and underline the character the parser stopped at."""
        mark_json_error(self.editor, self._validation)

    def error_marks(self) -> list[tuple[int, int]]:
        """(start, end) document positions of the marks the editor shows for a JSON error (for tests)."""
        return [(sel.cursor.selectionStart(), sel.cursor.selectionEnd()) for sel in self.editor.extraSelections()]

    def _follow_method(self) -> None:
        """Point the picker at the method the text names, without loading its template."""
        obj = self._validation.obj
        method = obj.get("method") if isinstance(obj, dict) else None
        if isinstance(method, str) and method != self.current_method():
            index = self.method_box.findData(method)
            if index >= 0:
                self.method_box.blockSignals(True)
                self.method_box.setCurrentIndex(index)
                self.method_box.blockSignals(False)

    def _typed_id(self) -> tuple[bool, Any]:
        """Whether the text is a request with an id, and the id."""
        obj = self._validation.obj
        if self._validation.kind == "request" and isinstance(obj, dict) and "id" in obj:
            return True, obj["id"]
        return False, None

    def _replaces_id(self) -> bool:
        """Whether Send gives the request a fresh id instead of the one in the text."""
        return not self.raw.isChecked() and self._typed_id()[0] and not self.keep_id.isChecked()

    def _in_flight(self, msg_id: Any) -> Event | None:
        """The request sent with ``msg_id`` (the same JSON type too) that still waits for its answer."""
        key = id_key(msg_id)
        return next((e for e in self.in_flight() if e.rpc is not None and id_key(e.rpc.id) == key), None)

    def _refresh_status(self) -> None:
        validation = self._validation
        has_id, msg_id = self._typed_id()
        raw = self.raw.isChecked()
        self.keep_id.setVisible(has_id and not raw and self._session_enabled)
        self.add_newline.setVisible(False)
        if not self._session_enabled:
            severity, message = "off", ("no live session: nothing can be sent (a read-only capture, or a session "
                                        "that closed or failed)")
        elif raw:
            severity, message = self._raw_status()
        else:
            severity, message = validation.severity, validation.message
            if validation.ok and self._open_line and self._line_framed:
                severity = "warning"
                message += (f", but the server still holds {self._open_line:,} bytes sent raw without a final "
                            "newline: this message would join their line")
        if self._session_enabled and has_id:
            if not raw and not self.keep_id.isChecked():
                message += (f" (a fresh id replaces {_id_text(msg_id)} at send; tick \"keep the id\" to send it "
                            "as written)")
            else:
                waiting = self._in_flight(msg_id)
                if waiting is not None:
                    severity = "warning" if severity in ("ok", "raw") else severity
                    message += (f"; id {describe_id(msg_id)} is already in flight (request #{waiting.seq} has no "
                                "answer yet): the server gets a duplicate id")
        self.status.setText(message)
        self.status.setProperty("severity", severity)
        self._colour_status(severity)
        self.send_button.setEnabled(self.can_send())

    def _raw_status(self) -> tuple[str, str]:
        validation = self._validation
        data = self.text().encode("utf-8", errors="surrogatepass")
        lines = data.count(b"\n")
        extra = f", {lines} newline{'s' if lines != 1 else ''}" if lines else ""
        note = "" if validation.ok or not data else f"; not a message: {validation.message}"
        message = f"raw: sent exactly as typed ({len(data):,} bytes{extra}){note}"
        if not self._line_framed or not data:
            return "raw", message
        severity = "raw"
        if self._open_line:
            severity = "warning"
            message += (f"; the server still holds {self._open_line:,} bytes sent without a final newline: "
                        "this text continues their line")
        if not data.endswith(b"\n"):
            self.add_newline.setVisible(True)
            severity = "warning"
            message += ("; no final newline: the server will wait for the rest of the line (send again and the "
                        "copies join into one long line)")
        return severity, message

    def _add_final_newline(self) -> None:
        cursor = QTextCursor(self.editor.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText("\n")

    def _colour_status(self, severity: str) -> None:
        light, dark = STATUS_COLOURS[severity]
        palette = self.status.palette()
        palette.setColor(QPalette.ColorRole.WindowText, QColor(dark if is_dark(self.palette()) else light))
        self.status.setPalette(palette)

    def status_colour(self) -> QColor:
        return self.status.palette().color(QPalette.ColorRole.WindowText)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self.highlighter.set_palette(self.palette())
            self._colour_status(str(self.status.property("severity") or "ok"))
        super().changeEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.editor and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            key, modifiers = event.key(), event.modifiers()
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and modifiers & Qt.KeyboardModifier.ControlModifier:
                self.send()
                return True
            if modifiers & Qt.KeyboardModifier.AltModifier and key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
                self.recall_previous() if key == Qt.Key.Key_Up else self.recall_next()
                return True
        return super().eventFilter(watched, event)


def mark_json_error(editor: QPlainTextEdit, validation: compose.Validation) -> None:
    """Tint the line of ``editor`` where its JSON breaks (``validation``'s line and column) and underline the character
    the parser stopped at; clear the marks when it does not break (the composer's, and the Intercepted queue's)."""
    if validation.line is None or validation.column is None:
        editor.setExtraSelections([])
        return
    document = editor.document()
    block = document.findBlockByNumber(validation.line - 1)
    if not block.isValid():
        block = document.lastBlock()
    prefix = block.text()[: validation.column - 1]
    position = block.position() + len(prefix.encode("utf-16-le")) // 2
    colour = QColor(STATUS_COLOURS["error"][1 if is_dark(editor.palette()) else 0])
    line = QTextEdit.ExtraSelection()
    tint = QColor(colour)
    tint.setAlpha(40)
    line.format.setBackground(tint)
    line.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
    line.cursor = QTextCursor(block)
    selections = [line]
    if position < block.position() + block.length() - 1:
        char = QTextEdit.ExtraSelection()
        char.format.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
        char.format.setUnderlineColor(colour)
        char.format.setBackground(tint)
        cursor = QTextCursor(document)
        cursor.setPosition(position)
        cursor.movePosition(QTextCursor.MoveOperation.NextCharacter, QTextCursor.MoveMode.KeepAnchor)
        char.cursor = cursor
        selections.append(char)
    editor.setExtraSelections(selections)


def _id_text(value: Any) -> str:
    """An id as JSON writes it (a string with its quotes)."""
    return json.dumps(value, ensure_ascii=False)


__all__ = ["Composer", "HistoryEntry", "HISTORY_LIMIT"]
