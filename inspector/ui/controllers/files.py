"""The window's capture files: File > Open capture…, Save capture as…, Export…, the recent files, and Session >
Copy server as config…. Each failure is one sentence in the status line or a plain-text warning."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog

if TYPE_CHECKING:
    from inspector.ui.main_window import MainWindow

MAX_RECENT = 10


class CaptureFiles(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window

    def open_dialog(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self.window, "Open capture", str(self.window.captures),
                                              "Captures (*.jsonl *.json);;All files (*)")
        if name:
            self.window.open_capture(Path(name))

    def save_as(self) -> None:
        tab = self.window.current_tab()
        if tab is None or tab.capture_path is None:
            return
        name, _ = QFileDialog.getSaveFileName(self.window, "Save capture as", str(Path.home() / tab.capture_path.name),
                                              "Captures (*.jsonl)")
        if name:
            problem = self.save_current(Path(name))
            self.window.statusBar().showMessage(problem or f"saved {name}")

    def save_current(self, path: Path) -> str | None:
        """Copy the current tab's capture to ``path``; a sentence when it cannot be done (a folder that is not
        there or not writable, a full disk), which File > Save capture as… puts in the status line."""
        tab = self.window.current_tab()
        if tab is None or tab.capture_path is None:
            return "no capture to save"
        if tab.live is not None and tab.live.writer is not None:
            tab.live.writer.flush()
        try:
            shutil.copyfile(tab.capture_path, path)
        except shutil.SameFileError:
            return f"{path} is the capture itself: it is already saved there"
        except OSError as exc:
            return f"cannot save the capture as {path}: {exc.strerror or exc}"
        self.remember(path)
        return None

    def export_dialog(self) -> None:
        """File > Export…: the current tab's capture as HAR, a Markdown or HTML report, or JSON-RPC lines."""
        tab = self.window.current_tab()
        if tab is None or tab.capture_path is None:
            return
        filters = self.export_formats()
        title = "Export" if any(to == "har" for to in filters.values()) else \
            "Export (HAR is for HTTP sessions; this one ran its server over stdio)"
        name, chosen = QFileDialog.getSaveFileName(self.window, title, str(Path.home() / tab.capture_path.stem),
                                                   ";;".join(filters))
        if name:
            problem = self.export_current(Path(name), filters.get(chosen, "html"))
            self.window.statusBar().showMessage(problem or f"exported {name}")

    def export_formats(self) -> dict[str, str]:
        """The formats File > Export… offers for the current tab (file filter -> format): HAR only for a session
        over HTTP (a stdio session has no HTTP exchange to export, so it is not offered, rather than refused)."""
        tab = self.window.current_tab()
        target = tab.target() if tab is not None else None
        formats = {"HTML report (*.html)": "html", "Markdown report (*.md)": "markdown"}
        if target is not None and target.is_http:
            formats["HAR, for a browser's network panel (*.har)"] = "har"
        formats["JSON-RPC lines (*.jsonl)"] = "jsonrpc"
        formats["OpenTelemetry traces, OTLP/JSON (*.otlp.jsonl)"] = "otlp"
        return formats

    def export_current(self, path: Path, to: str) -> str | None:
        """Write the current tab's capture to ``path`` in format ``to``; a sentence when it cannot be done."""
        from inspector.core.interop import FORMATS
        from inspector.core.interop.convert import export_to_file
        from inspector.core.interop.har import ExportError

        tab = self.window.current_tab()
        if tab is None or tab.capture_path is None:
            return "no capture to export"
        if tab.live is not None and tab.live.writer is not None:
            tab.live.writer.flush()
        if not path.suffix:
            path = path.with_suffix(FORMATS[to])
        try:
            export_to_file(tab.capture_path, to, path)  # streamed: a 200 MB capture is never whole in memory
        except ExportError as exc:
            return str(exc)
        except OSError as exc:
            return f"cannot write {path}: {exc.strerror}"
        return None

    def copy_server_config(self) -> None:
        """Session > Copy server as config…: the current tab's server as a client config entry."""
        from inspector.ui.config_dialog import ConfigDialog

        tab = self.window.current_tab()
        target = tab.target() if tab is not None else None
        if target is None:
            return
        self.config_dialog = ConfigDialog(target, self.window)
        self.config_dialog.open()

    def refresh_recent(self) -> None:
        self.window.recent_menu.clear()
        for path in self.recent_files():
            action = QAction(path, self)
            action.triggered.connect(lambda _=False, p=path: self.window.open_capture(Path(p)))
            self.window.recent_menu.addAction(action)
        self.window.recent_menu.setEnabled(bool(self.recent_files()))

    def recent_files(self) -> list[str]:
        value = self.window.settings.value("recent", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in value] if isinstance(value, list) else []

    def remember(self, path: Path) -> None:
        recent = [str(path)] + [p for p in self.recent_files() if p != str(path)]
        self.window.settings.setValue("recent", recent[:MAX_RECENT])
        self.refresh_recent()
