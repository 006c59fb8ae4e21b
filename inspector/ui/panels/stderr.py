"""The server's stderr, per session: timestamped lines, ANSI colour codes stripped, searchable, bounded.

The pane keeps at most :data:`MAX_LINES` lines of at most :data:`MAX_LINE_CHARS` characters each (so a
few tens of MB at worst); older lines stay in the session and its capture. Text goes in as plain text:
nothing a server writes is interpreted.
"""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QKeySequence, QShortcut, QTextDocument
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from inspector.core.wire.events import Event

MAX_LINES = 20_000
MAX_LINE_CHARS = 2_000
#: CSI and OSC escape sequences (colours, cursor moves, titles) and other C0 controls but tab.
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|[\x00-\x08\x0b-\x1f\x7f]")


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


class StderrPane(QWidget):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.view = QPlainTextEdit(self)
        self.view.setReadOnly(True)
        self.view.setMaximumBlockCount(MAX_LINES)
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.view.setPlaceholderText("The server's stderr appears here.")
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Find in stderr")
        self.search.returnPressed.connect(self.find_next)
        self.count_label = QLabel("0 lines", self)
        next_button = QPushButton("Next", self)
        next_button.clicked.connect(self.find_next)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("stderr", self))
        bar.addWidget(self.search, 1)
        bar.addWidget(next_button)
        bar.addWidget(self.count_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.view)
        self.lines = 0
        shortcut = QShortcut(QKeySequence.StandardKey.FindNext, self)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)  # F3 in this pane, not window-wide
        shortcut.activated.connect(self.find_next)

    def append_events(self, events: list[Event]) -> None:
        if not events:
            return
        lines = []
        for event in events:
            text = strip_ansi(event.text())
            if len(text) > MAX_LINE_CHARS:
                text = text[:MAX_LINE_CHARS] + f" … ({len(event.raw):,} bytes, all in the capture)"
            lines.append(f"{event.t:9.3f}  {text}")
        self.lines += len(lines)
        self.view.appendPlainText("\n".join(lines))
        self.count_label.setText(f"{self.lines:,} lines")

    def find_next(self) -> bool:
        needle = self.search.text()
        if not needle:
            return False
        if self.view.find(needle):
            return True
        cursor = self.view.textCursor()
        cursor.movePosition(cursor.MoveOperation.Start)
        self.view.setTextCursor(cursor)
        return self.view.find(needle, QTextDocument.FindFlag(0))

    def text(self) -> str:
        return self.view.toPlainText()


__all__ = ["StderrPane", "strip_ansi"]
