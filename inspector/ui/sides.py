"""Two JSON documents side by side (old on the left, new on the right), the lines that hold a changed member
tinted: the comparison views' shared pane (Compare with…, the collection runner's answer)."""

from __future__ import annotations

import json
import re
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontDatabase, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QSizePolicy, QSplitter, QTextEdit, QVBoxLayout, QWidget

from inspector.ui.json_highlighter import JsonHighlighter

CHANGED = QColor(220, 160, 40, 90)


def as_text(value: Any) -> str:
    """A value as indented JSON (what a person reads), or its text."""
    if isinstance(value, str) and value.startswith("("):
        return value  # a sentence such as "(no answer)"
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return str(value)


def last_key(path: str) -> str | None:
    """The last member name of a diff path (``result.content[0].text`` -> ``text``)."""
    names = re.findall(r"[A-Za-z_$][\w$-]*", path)
    return names[-1] if names else None


class SideBySide(QSplitter):
    """Two read-only editors with titles; :meth:`show_pair` fills them and tints changed lines."""

    def __init__(self, left_title: str, right_title: str, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.left = self._side(left_title)
        self.right = self._side(right_title)
        self._highlighters = [JsonHighlighter(self.left.document()), JsonHighlighter(self.right.document())]

    def _side(self, title: str) -> QPlainTextEdit:
        box = QWidget(self)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        label = QLabel(title, box)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setToolTip("")  # a server's text is never rich text
        # a long title (a path) must not widen the pane: it is cut at the pane's edge
        label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        editor = QPlainTextEdit(box)
        editor.setReadOnly(True)
        editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        layout.addWidget(label)
        layout.addWidget(editor)
        self.addWidget(box)
        return editor

    def show_pair(self, old: Any, new: Any, changed_paths: list[str]) -> None:
        self.left.setPlainText(as_text(old))
        self.right.setPlainText(as_text(new))
        keys = {key for key in (last_key(path) for path in changed_paths) if key}
        for editor in (self.left, self.right):
            mark(editor, keys)


def mark(editor: QPlainTextEdit, keys: set[str]) -> None:
    """Tint the lines that hold a changed key."""
    selections = []
    fmt = QTextCharFormat()
    fmt.setBackground(CHANGED)
    fmt.setProperty(QTextCharFormat.Property.FullWidthSelection, True)
    block = editor.document().firstBlock()
    while block.isValid():
        if any(f'"{key}":' in block.text() for key in keys):
            selection = QTextEdit.ExtraSelection()
            selection.format = fmt
            selection.cursor = QTextCursor(block)
            selections.append(selection)
        block = block.next()
    editor.setExtraSelections(selections)


def marked_lines(editor: QPlainTextEdit) -> list[str]:
    return [s.cursor.block().text() for s in editor.extraSelections()]
