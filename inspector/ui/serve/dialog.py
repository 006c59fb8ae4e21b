"""The "Serve this capture…" dialog: the capture's twin on stdio (the command line and a client's config entry, to
copy) or over HTTP (Start gives a loopback URL to copy; Stop, closing the dialog or its tab ends it)."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from inspector.core.clients.config_out import CLIENTS, config_snippet
from inspector.core.serve.launch import command_line, stdio_argv
from inspector.ui.serve.http import HttpServing
from inspector.ui.wheel_guard import guard_wheel

#: The name the served capture gets in a client's config.
CONFIG_NAME_SUFFIX = "-twin"


W = TypeVar("W", bound=QWidget)


def _fixed(widget: W) -> W:
    widget.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    return widget


def _copy_row(field: QLineEdit, parent: QWidget) -> tuple[QHBoxLayout, QPushButton]:
    row = QHBoxLayout()
    row.addWidget(field, 1)
    button = QPushButton("Copy", parent)
    button.clicked.connect(lambda: QGuiApplication.clipboard().setText(field.text()))
    row.addWidget(button)
    return row, button


def _label(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


class ServeDialog(QDialog):
    """Two ways to serve ``capture``: stdio (to paste) and HTTP (run by ``http``, which this dialog stops when it
    closes)."""

    def __init__(self, capture: Path, http: HttpServing, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Serve {capture.name}")
        self.capture = capture
        self.http = http
        self.ways = QTabWidget(self)
        self.ways.addTab(self._stdio_page(), "stdio")
        self.ways.addTab(self._http_page(), "HTTP")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(_label(f"A twin of {capture}: it answers a client as the recorded server did. "
                                "A served session shows live in a tab of its own (serve: "
                                f"{capture.name}), each request the capture has no answer to marked.", self))
        layout.addWidget(self.ways, 1)
        layout.addWidget(buttons)
        http.started.connect(self._serving)
        http.stopped.connect(self._stopped)
        self.finished.connect(lambda _result: http.stop())  # the port listens only while the dialog is open
        self.resize(640, 420)

    # -- stdio ----------------------------------------------------------------------------------------------------

    def _stdio_page(self) -> QWidget:
        page = QWidget(self)
        argv = stdio_argv(self.capture)
        self.command = _fixed(QLineEdit(command_line(argv), page))
        self.command.setReadOnly(True)
        row, self.copy_command = _copy_row(self.command, page)
        self.client = guard_wheel(QComboBox(page))
        self.client.addItems(CLIENTS)
        self.snippet = QPlainTextEdit(page)
        _fixed(self.snippet)
        self.snippet.setReadOnly(True)
        self.copy_snippet = QPushButton("Copy", page)
        self.copy_snippet.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.snippet.toPlainText()))
        chooser = QHBoxLayout()
        chooser.addWidget(QLabel("Client config:", page))
        chooser.addWidget(self.client, 1)
        chooser.addWidget(self.copy_snippet)
        layout = QVBoxLayout(page)
        layout.addWidget(_label("The command a client runs as its server (the twin speaks on its stdin and "
                                "stdout):", page))
        layout.addLayout(row)
        layout.addLayout(chooser)
        layout.addWidget(self.snippet, 1)
        self.client.currentTextChanged.connect(self._show_snippet)
        self._show_snippet(self.client.currentText())
        return page

    def _show_snippet(self, client: str) -> None:
        name = self.capture.stem + CONFIG_NAME_SUFFIX
        self.snippet.setPlainText(config_snippet(client, name, argv=stdio_argv(self.capture)))

    # -- HTTP -----------------------------------------------------------------------------------------------------

    def _http_page(self) -> QWidget:
        page = QWidget(self)
        self.start_button = QPushButton("Start", page)
        self.stop_button = QPushButton("Stop", page)
        self.start_button.clicked.connect(self._start)
        self.stop_button.clicked.connect(self.http.stop)
        self.url = _fixed(QLineEdit(page))
        self.url.setReadOnly(True)
        self.url.setPlaceholderText("not serving")
        row, self.copy_url = _copy_row(self.url, page)
        self.http_state = _label("", page)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(page)
        layout.addWidget(_label("Start serves the capture on a free port of 127.0.0.1 (Streamable HTTP): give a "
                                "client the URL. The port listens until Stop, or until this dialog or its tab "
                                "closes.", page))
        layout.addLayout(buttons)
        layout.addLayout(row)
        layout.addWidget(self.http_state)
        layout.addStretch(1)
        self._show_state()
        return page

    def _start(self) -> None:
        self.http.start()
        self.http_state.setText("Starting…")
        self._show_state()

    def _serving(self, url: str) -> None:
        self.url.setText(url)
        self.http_state.setText("Serving.")
        self._show_state()

    def _stopped(self, sentence: str) -> None:
        self.url.clear()
        self.http_state.setText(sentence)
        self._show_state()

    def _show_state(self) -> None:
        state = self.http.state
        self.start_button.setEnabled(state == "stopped")
        self.stop_button.setEnabled(state in ("starting", "serving"))
        self.copy_url.setEnabled(state == "serving")

    def closeEvent(self, event: QCloseEvent) -> None:
        self.http.stop()
        super().closeEvent(event)
