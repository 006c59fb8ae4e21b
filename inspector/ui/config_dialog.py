"""Session > Copy server as config…: the tab's server as an entry of a client's MCP config, to paste."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from inspector.core.clients.config_out import CLIENTS, config_snippet
from inspector.core.connect.target import Target
from inspector.ui.wheel_guard import guard_wheel


class ConfigDialog(QDialog):
    """A client chooser and the config text for it; Copy puts the text on the clipboard."""

    def __init__(self, target: Target, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Copy server as config")
        self.target = target
        self.client = guard_wheel(QComboBox(self))
        self.client.addItems(CLIENTS)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.copy_button = buttons.addButton("Copy", QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.clicked.connect(self.copy)
        buttons.rejected.connect(self.reject)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        row = QHBoxLayout()
        row.addWidget(QLabel("Client:", self))
        row.addWidget(self.client, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.note)
        layout.addWidget(buttons)
        self.client.currentTextChanged.connect(self._show)
        self._show(self.client.currentText())
        self.resize(560, 360)

    def _show(self, client: str) -> None:
        target = self.target
        name = target.name if target.named_by_user or not (target.url or target.argv) else \
            (target.argv[0].rsplit("/", 1)[-1] if target.argv else "server")
        try:
            self.text.setPlainText(config_snippet(client, name or "server", argv=target.argv, env=target.env,
                                                  cwd=target.cwd, url=target.url, headers=target.headers,
                                                  transport=target.transport))
        except ValueError as exc:
            self.text.setPlainText(str(exc))
        hidden = "[redacted]" in self.text.toPlainText()
        self.note.setText("The capture kept its secrets out: replace each [redacted] with the real value."
                          if hidden else "")
        self.note.setVisible(hidden)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.text.toPlainText())
