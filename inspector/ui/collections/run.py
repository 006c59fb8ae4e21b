"""Session > Run collection…: a collection file run against the current tab's server (its live session's target)
in a session of its own, saved in the captures folder; each expectation's outcome shows as the answers come."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.core.connect.target import Target

if TYPE_CHECKING:
    from inspector.ui.main_window import MainWindow


def run_collection_current(window: MainWindow) -> None:
    from PySide6.QtWidgets import QFileDialog

    tab = window.current_tab()
    if tab is None or tab.live is None:
        window.statusBar().showMessage("Run collection needs a live session: connect to the server first")
        return
    name, _ = QFileDialog.getOpenFileName(window, "Run collection", str(Path.home()),
                                          "Collections (*.json);;All files (*)")
    if name:
        window.tasks.spawn(run_collection_view(window, tab.live.target, Path(name)), "the collection run")


async def run_collection_view(window: MainWindow, target: Target, path: Path) -> Any:
    """Run the collection at ``path`` against ``target`` in a new tab; returns the view once the run is over."""
    from inspector.core.collections.format import CollectionError, load
    from inspector.core.collections.runner import run_collection
    from inspector.core.connect.opened import CannotOpen
    from inspector.core.paths import capture_name
    from inspector.ui.collections.view import CollectionView

    target = window.session_settings.apply(target)
    out = window.captures / ("run-" + capture_name(target.name or "server"))
    view = CollectionView(path.name, out, window)
    view.open_capture_requested.connect(lambda p: window.open_capture(Path(p)))
    index = window.tabs.addTab(view, f"run: {path.stem}")
    window.tabs.setCurrentIndex(index)
    try:
        collection = load(path)
        run = await run_collection(collection, target, out, on_result=view.add_result)
    except (CollectionError, CannotOpen) as exc:
        view.finished(None, str(exc))
        window.statusBar().showMessage(f"run collection: {exc}")
        return view
    view.finished(run)
    window.statusBar().showMessage(run.summary())
    return view
