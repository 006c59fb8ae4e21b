"""The Explorer's small parts, shared by its pages: list lines (names, titles, annotation badges), the "Copy as"
button, the keys that call a tool, and a field that asks the server for completions as the user types."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, QStringListModel, Qt, QTimer
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QCompleter, QLineEdit, QMenu, QPushButton, QWidget

#: Keys that call the selected tool (as the composer's send keys).
CALL_KEYS = ("Ctrl+Return", "Ctrl+Enter")
#: Typing pauses this long before the server is asked for completions (one request per pause, not per key).
COMPLETION_DELAY_MS = 250
#: Annotation hints shown as badges, with the text of each (https://modelcontextprotocol.io/specification/2025-11-25/schema#toolannotations).
BADGES = (("readOnlyHint", "read-only"), ("destructiveHint", "destructive"), ("idempotentHint", "idempotent"),
          ("openWorldHint", "open-world"))
#: Where a list line keeps what it shows (the server's item, or a history call).
ROLE_ITEM = Qt.ItemDataRole.UserRole


def badges(tool: dict[str, Any]) -> list[str]:
    """The annotation hints a tool sets to true, as badge words."""
    annotations = tool.get("annotations")
    if not isinstance(annotations, dict):
        return []
    return [word for key, word in BADGES if annotations.get(key) is True]


def item_text(item: dict[str, Any], key: str = "name") -> str:
    """A list line: the name, and the title when it says more."""
    name = str(item.get(key) or "?")
    title = item.get("title")
    return f"{name} — {title}" if isinstance(title, str) and title and title != name else name


def copy_as_button(parent: QWidget, command: Callable[[], str], rpc: Callable[[], str],
                   copy: Callable[[str], None]) -> QPushButton:
    """One "Copy as" button with a menu (as an ``mcp-inspector`` command, as JSON-RPC): one button, not two,
    keeps the Explorer narrow enough to sit beside the timeline on a small screen. A push button: its menu
    arrow gets a place of its own (a tool button's was drawn over the end of the text)."""
    button = QPushButton("Copy as", parent)
    menu = QMenu(button)
    menu.addAction("Copy as command", lambda: copy(command()))
    menu.addAction("Copy as JSON-RPC", lambda: copy(rpc()))
    button.setMenu(menu)
    return button


class CallKeys(QObject):
    """Ctrl+Enter pressed in an editor that swallows it (a text editor inserts a line) calls ``slot``: key
    presses delivered straight to a widget (an inactive window, synthetic events) meet no shortcut map."""

    def __init__(self, slot: Callable[[], None], parent: QObject) -> None:
        super().__init__(parent)
        self._slot = slot

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) \
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) \
                and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self._slot()
            return True
        return False

    def watch(self, widget: QWidget) -> None:
        widget.installEventFilter(self)
        for child in widget.findChildren(QWidget):
            child.installEventFilter(self)


class CompletingField(QLineEdit):
    """A line edit whose suggestions come from ``completion/complete`` as the user types (after a pause)."""

    def __init__(self, ask: Callable[[str], None] | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.suggestions = QStringListModel(self)
        completer = QCompleter(self.suggestions, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.setCompleter(completer)
        self._ask = ask
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(COMPLETION_DELAY_MS)
        self._timer.timeout.connect(self.ask_now)
        if ask is not None:
            self.textEdited.connect(lambda _text: self._timer.start())

    def ask_now(self) -> None:
        if self._ask is not None:
            self._ask(self.text())

    def offer(self, typed: str, values: list[str]) -> None:
        """The server's suggestions for ``typed``; shown when the field still holds it."""
        if self.text() != typed:
            return
        self.suggestions.setStringList(values)
        if values and self.hasFocus():
            self.completer().complete()
