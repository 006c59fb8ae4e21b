"""Session > Run collection…: a collection file run against the current tab's server (its live session's target)
in a session of its own, saved in the captures folder; each expectation's outcome shows as the answers come."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.core.connect.target import Target
from inspector.ui.host import SessionRunner


class CollectionRuns(SessionRunner):
    def run_collection_current(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        tab = self.live_tab("Run collection")
        if tab is None or tab.live is None:
            return
        name, _ = QFileDialog.getOpenFileName(self.host.window(), "Run collection", str(Path.home()),
                                              "Collections (*.json);;All files (*)")
        if name:
            self.tasks.spawn(self.run_collection_view(tab.live.target, Path(name)), "the collection run")

    async def run_collection_view(self, target: Target, path: Path) -> Any:
        """Run the collection at ``path`` against ``target`` in a new tab; returns the view once the run is over."""
        from inspector.core.collections.format import CollectionError, load
        from inspector.core.collections.runner import run_collection
        from inspector.core.connect.opened import CannotOpen
        from inspector.core.paths import capture_name
        from inspector.ui.collections.view import CollectionView

        target = self.prepare(target)
        out = self.captures / ("run-" + capture_name(target.name or "server"))
        view = CollectionView(path.name, out, self.host.window())
        self.show_view(view, f"run: {path.stem}")
        try:
            collection = load(path)
            run = await run_collection(collection, target, out, on_result=view.add_result)
        except (CollectionError, CannotOpen) as exc:
            view.finished(None, str(exc))
            self.say(f"run collection: {exc}")
            return view
        view.finished(run)
        self.say(run.summary())
        return view
