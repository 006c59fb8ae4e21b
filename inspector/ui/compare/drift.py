"""Tool baselines in the window: Session > Save tool baseline… keeps the live session's tools
(:class:`inspector.core.compare.baseline.Baseline`) in a file and, for a profile's session, the file's path in the
profile; a later session of that profile checks the tools as soon as the explorer has listed them and warns, in
a message box that does not block and in the status bar, naming each tool added, removed or changed and which
fields (the "rug pull" after approval). The check is :func:`inspector.core.compare.baseline.check`, the same as
``mcp-inspector baseline check``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox

from inspector.core.clients.profiles import ProfileStore, ServerProfile
from inspector.core.compare.baseline import Baseline, BaselineError, Drift, check, record_of_tools
from inspector.core.explore.catalog import Notice
from inspector.core.notices import What
from inspector.ui.host import Controller, ViewHost

if TYPE_CHECKING:
    from inspector.core.connect.target import Target
    from inspector.ui.session.tab import SessionTab


class DriftWatch(QObject):
    """Checks one session's tools against a baseline, once, when they are first listed."""

    drifted = Signal(object)  #: the Drift, when the tools differ from the baseline
    checked = Signal(object)  #: the Drift, whatever it found

    def __init__(self, baseline: Baseline, path: str, tab: SessionTab, parent: Any = None) -> None:
        super().__init__(parent)
        self.baseline = baseline
        self.path = path
        self.tab = tab
        self.drift: Drift | None = None
        self.box: QMessageBox | None = None

    def notice(self, notice: Notice) -> None:
        """A catalog listener: the first complete tools listing is checked."""
        if self.drift is not None or notice.what != What.LISTED or notice.kind != "tools":
            return
        catalog = self.tab.explorer.catalog
        if catalog is None:
            return
        server = catalog.session.server
        record = record_of_tools(catalog.items["tools"], self.tab.title,
                                 server.name if server else None, server.version if server else None)
        self.drift = check(self.baseline, record)
        self.checked.emit(self.drift)
        if self.drift.drifted:
            self.drifted.emit(self.drift)


class Baselines(Controller):
    """Save tool baseline…, and the drift check of each profile's live session when its tools are first listed."""

    profiles_changed = Signal()  #: a profile now keeps its baseline's path: the server list reloads

    def __init__(self, host: ViewHost, store: ProfileStore, profiles: Callable[[], list[ServerProfile]],
                 parent: QObject | None = None) -> None:
        """``store`` keeps each profile's baseline path; ``profiles``: the saved servers as the window lists them."""
        super().__init__(host, parent)
        self.store = store
        self.profiles = profiles

    def watch(self, tab: SessionTab, target: Target) -> DriftWatch | None:
        """For a profile's live session whose profile keeps a baseline: check the tools once listed, and warn when
        they drifted. None when there is nothing to check; an unreadable baseline is said in the status bar."""
        if not target.named_by_user or tab.explorer.catalog is None:
            return None
        profile = next((p for p in self.profiles() if p.name == target.name), None)
        if profile is None or not profile.baseline:
            return None
        try:
            baseline = Baseline.load(profile.baseline)
        except BaselineError as exc:
            self.say(f"the tool baseline of {profile.name} cannot be checked: {exc}")
            return None
        watch = DriftWatch(baseline, profile.baseline, tab, tab)
        tab.explorer.catalog.listeners.append(watch.notice)
        watch.drifted.connect(lambda drift: self._warn(watch, drift))
        tab.drift_watch = watch  # type: ignore[attr-defined]  # kept with the tab it watches, for as long as it lives
        return watch

    def _warn(self, watch: DriftWatch, drift: Drift) -> None:
        lines = [f"The tools of {watch.tab.title} are not the ones approved in {watch.path} "
                 f"({drift.baseline.created}):", ""]
        for change in drift.changes:
            lines.append(f"• {change.describe()}")
            lines += [f"    {d.describe()}" for d in change.diffs[:5]]
        lines += ["", "Check what changed before you let a client use them; save a new baseline (Session > Save tool "
                      "baseline…) once you approve."]
        box = QMessageBox(QMessageBox.Icon.Warning, "The server's tools drifted", "", QMessageBox.StandardButton.Ok,
                          self.host.window())
        box.setTextFormat(Qt.TextFormat.PlainText)  # tool names and descriptions are the server's text
        box.setText("\n".join(lines))
        box.setModal(False)
        box.show()
        watch.box = box
        self.say(f"{watch.tab.title}: {drift.summary()}")

    def save_baseline_current(self) -> None:
        """Session > Save tool baseline…: ask where, then save the current session's tools there."""
        from PySide6.QtWidgets import QFileDialog

        tab = self.host.current_tab()
        if tab is None or tab.live is None:
            self.say("Save tool baseline needs a live session whose tools are listed")
            return
        from inspector.core.clients.profiles import config_dir

        suggested = config_dir() / "baselines" / f"{tab.title or 'server'}.baseline.json"
        name, _ = QFileDialog.getSaveFileName(self.host.window(), "Save tool baseline", str(suggested),
                                              "Baselines (*.json)")
        if name:
            self.say(self.save_baseline(tab, Path(name)))

    def save_baseline(self, tab: SessionTab, path: Path) -> str:
        """Save ``tab``'s listed tools as a baseline at ``path`` (and, for a profile's session, the path in the
        profile); returns the sentence for the status bar."""
        catalog = tab.explorer.catalog
        live = tab.live
        if catalog is None or live is None or not catalog.declares("tools") or "tools" in catalog.problems:
            return "the session has no tools listed to keep"
        server = catalog.session.server
        baseline = Baseline.of(record_of_tools(catalog.items["tools"], live.target.describe(),
                                               server.name if server else None, server.version if server else None))
        try:
            baseline.save(path)
        except BaselineError as exc:
            return str(exc)
        said = f"{len(baseline.tools)} tools kept in {path}"
        if live.target.named_by_user:
            from inspector.core.clients.profiles import ProfileError

            try:
                self.store.update(live.target.name, replace(self.store.get(live.target.name), baseline=str(path)))
                self.profiles_changed.emit()
            except (ProfileError, OSError) as exc:
                return f"{said}, but the profile could not keep its path: {exc}"
            said += f"; the profile {live.target.name} checks it at every connect"
        return said
