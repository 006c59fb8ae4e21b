"""Session > Serve this capture… on tabs that cannot be served yet, with a view host of its own (no window): the
status line says why; a finished session's capture opens one dialog, brought back when asked again."""

from __future__ import annotations

from types import SimpleNamespace

from PySide6.QtCore import QObject

from inspector.core.tasks import Tasks
from inspector.ui.serve.run import ServeCaptures


class Tab(QObject):
    def __init__(self, capture_path, live=None) -> None:
        super().__init__()
        self.capture_path = capture_path
        self.live = live


class Host:
    def __init__(self, tab) -> None:
        self.tab = tab

    def current_tab(self):
        return self.tab

    def window(self):
        return None


def serve(tab) -> tuple[object, list[str], ServeCaptures]:
    serves = ServeCaptures(Host(tab), Tasks(), None)
    said: list[str] = []
    serves.said.connect(said.append)
    return serves.serve_current(), said, serves


def test_a_tab_without_a_capture_file_says_so(qapp, tmp_path):
    for tab in (Tab(None), Tab(tmp_path / "gone.jsonl")):
        dialog, said, _ = serve(tab)
        assert dialog is None and said == ["Serve this capture needs a capture file: this tab has none"]


def test_a_session_still_running_is_served_once_it_is_stopped(qapp, tmp_path):
    capture = tmp_path / "live.jsonl"
    capture.write_text("", encoding="utf-8")
    dialog, said, _ = serve(Tab(capture, SimpleNamespace(finished=False)))
    assert dialog is None and said == ["Serve this capture needs the whole capture: stop the session first"]
    tab = Tab(capture, SimpleNamespace(finished=True))
    dialog, said, serves = serve(tab)
    assert dialog is not None and said == [] and dialog.capture == capture
    assert serves.serve_current() is dialog  # asked again: the same dialog, not a second twin
    dialog.close()
    qapp.processEvents()
    assert serves.dialogs == {}
