"""The arguments editor of a tool: :func:`arguments_editor_for` is the one place the explorer gets it from.

Every editor has the same interface (the schema form, ``inspector.ui.forms.form_widget.SchemaForm``, which
is what the explorer uses, and the plain JSON editor here): ``arguments() -> dict``, ``set_arguments(dict)``,
``problems() -> list`` (violations or sentences; empty when the arguments fit the schema and can be sent) and
the Qt signal ``changed(object)`` carrying the arguments after each edit.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from inspector.core.schemas.validate import violations
from inspector.ui.json_highlighter import JsonHighlighter


def defaults_of(schema: Any) -> dict[str, Any]:
    """The arguments a schema's property defaults give (``{}`` when none has one)."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict):
        return {}
    return {name: prop["default"] for name, prop in props.items() if isinstance(prop, dict) and "default" in prop}


class JsonArgumentsEditor(QWidget):
    """A JSON text editor for a tool's arguments, prefilled from the schema's defaults, checked on each edit."""

    changed = Signal(object)

    def __init__(self, schema: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.schema = schema if isinstance(schema, dict) else {}
        self.editor = QPlainTextEdit(self)
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.editor.setTabChangesFocus(True)
        self.editor.setPlaceholderText("{ }  arguments as a JSON object")
        self._highlighter = JsonHighlighter(self.editor.document(), self.palette())
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.setTextFormat(self.status.textFormat().PlainText)  # sentences quote server text
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.status)
        self.set_arguments(defaults_of(self.schema))
        self.editor.textChanged.connect(self._edited)

    def _parsed(self) -> tuple[dict[str, Any] | None, str | None]:
        text = self.editor.toPlainText().strip()
        if not text:
            return {}, None
        try:
            value = json.loads(text)
        except ValueError as exc:
            return None, f"the arguments are not JSON: {exc}"
        if not isinstance(value, dict):
            return None, "the arguments must be a JSON object"
        return value, None

    def arguments(self) -> dict[str, Any]:
        value, _ = self._parsed()
        return value if value is not None else {}

    def set_arguments(self, arguments: dict[str, Any]) -> None:
        self.editor.setPlainText(json.dumps(arguments, indent=2, ensure_ascii=False) if arguments else "{}")
        self._show_problems()

    def problems(self) -> list[str]:
        value, problem = self._parsed()
        if problem is not None:
            return [problem]
        return [v.sentence for v in violations(self.schema, value, root="arguments")] if self.schema else []

    def _show_problems(self) -> None:
        found = self.problems()
        self.status.setText(found[0] if found else "")
        self.status.setVisible(bool(found))

    def _edited(self) -> None:
        self._show_problems()
        self.changed.emit(self.arguments())


def arguments_editor_for(schema: dict[str, Any], parent: QWidget | None = None) -> QWidget:
    """The editor for arguments of ``schema`` (a tool's ``inputSchema``): the form generated from it
    (:class:`~inspector.ui.forms.form_widget.SchemaForm`, with its own JSON view of the same arguments)."""
    from inspector.ui.forms.form_widget import SchemaForm

    return SchemaForm(schema if isinstance(schema, dict) else {}, parent)
