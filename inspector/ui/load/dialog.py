"""Session > Load test…'s one dialog: the tool (the Explorer's selected one first), its arguments in the form its
input schema gives (prefilled with what the Explorer's form holds), the concurrency and the duration. Four
questions in one window, where there were four modal dialogs one after the other, the arguments as raw ``{}``."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from inspector.ui.explorer.arguments import arguments_editor_for

DEFAULT_CONCURRENCY, MAX_CONCURRENCY = 10, 1000
DEFAULT_DURATION, MIN_DURATION, MAX_DURATION = 10.0, 0.5, 3600.0


class LoadDialog(QDialog):
    """What to run: :meth:`choice` once accepted. ``tools`` are the server's (its tools/list entries);
    ``selected`` and ``arguments``: the Explorer's tool and what its form holds, to start from."""

    def __init__(self, tools: list[dict[str, Any]], parent: QWidget | None = None, *, selected: str | None = None,
                 arguments: dict[str, Any] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Load test")
        self._tools = {str(t.get("name")): t for t in tools if isinstance(t, dict)}
        self._start = (selected, dict(arguments or {}))
        self.tool = QComboBox(self)
        self.tool.addItems(sorted(self._tools))
        self.concurrency = QSpinBox(self)
        self.concurrency.setRange(1, MAX_CONCURRENCY)
        self.concurrency.setValue(DEFAULT_CONCURRENCY)
        self.concurrency.setToolTip("Calls under way at once")
        self.duration = QDoubleSpinBox(self)
        self.duration.setRange(MIN_DURATION, MAX_DURATION)
        self.duration.setDecimals(1)
        self.duration.setValue(DEFAULT_DURATION)
        self.duration.setSuffix(" s")
        self.problem = QLabel(self)
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.setWordWrap(True)
        self.problem.hide()
        self.arguments_editor: Any = None
        self._slot = QVBoxLayout()
        self._slot.setContentsMargins(0, 0, 0, 0)
        fields = QFormLayout()
        fields.addRow("Tool:", self.tool)
        fields.addRow("Concurrency:", self.concurrency)
        fields.addRow("Duration:", self.duration)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Run")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(fields)
        layout.addWidget(QLabel("Arguments of each call:", self))
        layout.addLayout(self._slot, 1)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.tool.currentTextChanged.connect(self._tool_chosen)
        if selected in self._tools:
            self.tool.setCurrentText(selected)
        self._tool_chosen(self.tool.currentText())
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(bool(self._tools))

    def _tool_chosen(self, name: str) -> None:
        if self.arguments_editor is not None:
            self.arguments_editor.deleteLater()
        tool = self._tools.get(name) or {}
        found = tool.get("inputSchema")
        schema: dict[str, Any] = found if isinstance(found, dict) else {"type": "object"}
        self.arguments_editor = arguments_editor_for(schema, self)
        if name == self._start[0] and self._start[1]:
            self.arguments_editor.set_arguments(self._start[1])
        self._slot.addWidget(self.arguments_editor)
        self.problem.hide()

    def accept(self) -> None:
        """Run, unless the arguments break the tool's schema (said in the dialog, which stays open)."""
        problems = [p for p in self.arguments_editor.problems() if getattr(p, "blocking", True)] \
            if self.arguments_editor is not None else []
        if problems:
            self.problem.setText(f"Not run: {getattr(problems[0], 'sentence', problems[0])}.")
            self.problem.show()
            return
        super().accept()

    def choice(self) -> tuple[str, dict[str, Any], int, float]:
        """The tool, its arguments, the concurrency and the duration in seconds."""
        arguments = self.arguments_editor.arguments() if self.arguments_editor is not None else {}
        return self.tool.currentText(), arguments, self.concurrency.value(), self.duration.value()
