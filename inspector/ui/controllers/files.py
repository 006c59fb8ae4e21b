"""The window's capture files: File > Open capture…, Save capture as…, Export…, the recent files, and Session >
Copy server as config…. Each failure is one sentence in the status line or a plain-text warning."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import QObject, QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu

from inspector.ui.host import Controller, ViewHost

MAX_RECENT = 10


class CaptureFiles(Controller):
    def __init__(self, host: ViewHost, settings: QSettings, captures: Path, recent_menu: QMenu,
                 parent: QObject | None = None) -> None:
        """The recent files are kept in ``settings`` and listed in ``recent_menu`` (File > Open recent);
        ``captures`` is where Open capture… starts."""
        super().__init__(host, parent)
        self.settings = settings
        self.captures = captures
        self.recent_menu = recent_menu

    def open_dialog(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self.host.window(), "Open capture", str(self.captures),
                                              "Captures (*.jsonl *.json);;All files (*)")
        if name:
            self.capture_wanted.emit(Path(name))

    def save_as(self) -> None:
        tab = self.host.current_tab()
        if tab is None or tab.capture_path is None:
            return
        name, _ = QFileDialog.getSaveFileName(self.host.window(), "Save capture as",
                                              str(Path.home() / tab.capture_path.name), "Captures (*.jsonl)")
        if name:
            problem = self.save_current(Path(name))
            self.say(problem or f"saved {name}")

    def save_current(self, path: Path) -> str | None:
        """Copy the current tab's capture to ``path``; a sentence when it cannot be done (a folder that is not
        there or not writable, a full disk), which File > Save capture as… puts in the status line."""
        tab = self.host.current_tab()
        if tab is None or tab.capture_path is None:
            return "no capture to save"
        self.flush_current()
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
        tab = self.host.current_tab()
        if tab is None or tab.capture_path is None:
            return
        filters = self.export_formats()
        title = "Export" if any(to == "har" for to in filters.values()) else \
            "Export (HAR is for HTTP sessions; this one ran its server over stdio)"
        name, chosen = QFileDialog.getSaveFileName(self.host.window(), title,
                                                   str(Path.home() / tab.capture_path.stem), ";;".join(filters))
        if name:
            problem = self.export_current(Path(name), filters.get(chosen, "html"))
            self.say(problem or f"exported {name}")

    def export_formats(self) -> dict[str, str]:
        """The formats File > Export… offers for the current tab (file filter -> format): HAR only for a session
        over HTTP (a stdio session has no HTTP exchange to export, so it is not offered, rather than refused)."""
        tab = self.host.current_tab()
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

        tab = self.host.current_tab()
        if tab is None or tab.capture_path is None:
            return "no capture to export"
        self.flush_current()
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

        tab = self.host.current_tab()
        target = tab.target() if tab is not None else None
        if target is None:
            return
        self.config_dialog = ConfigDialog(target, self.host.window())
        self.config_dialog.open()

    def refresh_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.recent_files():
            action = QAction(path, self)
            action.triggered.connect(lambda _=False, p=path: self.capture_wanted.emit(Path(p)))
            self.recent_menu.addAction(action)
        self.recent_menu.setEnabled(bool(self.recent_files()))

    def recent_files(self) -> list[str]:
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in value] if isinstance(value, list) else []

    def remember(self, path: Path) -> None:
        recent = [str(path)] + [p for p in self.recent_files() if p != str(path)]
        self.settings.setValue("recent", recent[:MAX_RECENT])
        self.refresh_recent()
