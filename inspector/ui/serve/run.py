"""Session > Serve this capture…: the current tab's capture (an opened file, a finished session's or tap's) served
as a twin, through :class:`~inspector.ui.serve.dialog.ServeDialog`; one dialog per tab, and its HTTP twin ends
with the dialog, the tab or the window."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject

from inspector.core.serve.launch import http_argv
from inspector.core.tasks import Tasks
from inspector.ui.host import Controller, ViewHost
from inspector.ui.serve.dialog import ServeDialog
from inspector.ui.serve.http import HttpServing


class ServeCaptures(Controller):
    def __init__(self, host: ViewHost, tasks: Tasks, socket: Path | None, parent: QObject | None = None,
                 argv: Callable[[Path, Path | None], list[str]] = http_argv) -> None:
        """HTTP twins run in ``tasks``; ``socket``: the window's tap socket (None: the user's own), where the
        served sessions stream to; ``argv``: the HTTP twin's command for a capture and that socket."""
        super().__init__(host, parent)
        self.tasks = tasks
        self.socket = socket
        self.argv = argv
        self.dialogs: dict[int, ServeDialog] = {}  #: the open dialog of each tab, by the tab's id

    def serve_current(self) -> ServeDialog | None:
        """Open the dialog for the current tab's capture (bring back its open one); None, said why, when the tab
        has no complete capture yet."""
        tab = self.host.current_tab()
        if tab is None:
            return None
        path = tab.capture_path
        if path is None or not path.is_file():
            self.say("Serve this capture needs a capture file: this tab has none")
            return None
        if tab.live is not None and not tab.live.finished:
            self.say("Serve this capture needs the whole capture: stop the session first")
            return None
        key = id(tab)
        dialog = self.dialogs.get(key)
        if dialog is None:
            http = HttpServing(self.argv(path, self.socket), self.tasks)
            # not the dialog's child: its stop outlives the dialog (closing it stops the twin, which takes a moment)
            dialog = ServeDialog(path, http, self.host.window())
            self.dialogs[key] = dialog
            dialog.finished.connect(lambda _result: self._forget(key))
            tab.destroyed.connect(lambda _obj=None: self._tab_gone(key))
        dialog.show()
        dialog.raise_()
        return dialog

    def _forget(self, key: int) -> None:
        dialog = self.dialogs.pop(key, None)
        if dialog is not None:
            dialog.deleteLater()

    def _tab_gone(self, key: int) -> None:
        """The tab closed: its twin stops and its dialog goes."""
        dialog = self.dialogs.get(key)
        if dialog is not None:
            dialog.http.stop()
            dialog.close()

    def stop(self) -> None:
        """The window closes: every HTTP twin ends now."""
        for dialog in list(self.dialogs.values()):
            dialog.http.kill_now()
