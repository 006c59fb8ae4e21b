"""Session > Compare with…: the current tab's capture (A) against another capture or a live server (B), in a new
tab. A live server (the current session's, or a saved profile's) is listed and asked A's requests again in a
session of its own, saved in the captures folder (:func:`inspector.core.compare.against.probe_server`, as
``diff --against`` does); nothing runs that the person did not choose."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject

from inspector.core.clients.profiles import ServerProfile
from inspector.core.connect.target import Target
from inspector.core.tasks import Tasks
from inspector.ui.host import SessionRunner, ViewHost

A_FILE = "a capture file…"
SAME = "the same server, now"
PROFILE = "profile: "


class Comparisons(SessionRunner):
    def __init__(self, host: ViewHost, tasks: Tasks, captures: Path, prepare: Callable[[Target], Target],
                 profiles: Callable[[], list[ServerProfile]], parent: QObject | None = None) -> None:
        """Comparisons run in ``tasks``; a live server's session is saved in ``captures``; ``prepare`` applies the
        window's session settings to its target; ``profiles``: the saved servers to choose from."""
        super().__init__(host, tasks, captures, prepare, parent)
        self.profiles = profiles

    def compare_current(self) -> None:
        """Ask what to compare the current tab's capture with, then compare in the background."""
        from PySide6.QtWidgets import QFileDialog, QInputDialog

        tab = self.host.current_tab()
        if tab is None or tab.capture_path is None:
            return
        parent = self.host.window()
        choices = [A_FILE] + ([SAME] if tab.live is not None else []) + \
            [f"{PROFILE}{p.name}" for p in self.profiles()]
        choice, ok = QInputDialog.getItem(parent, "Compare with…", f"Compare {tab.capture_path.name} with:",
                                          choices, 0, False)
        if not ok:
            return
        if choice == A_FILE:
            name, _ = QFileDialog.getOpenFileName(parent, "Compare with capture", str(self.captures),
                                                  "Captures (*.jsonl);;All files (*)")
            if name:
                self.tasks.spawn(self.run_compare(tab.capture_path, capture=Path(name)), "the comparison")
            return
        # B's session declares what A's did: a server hides what needs a capability (server-everything's
        # elicitation, sampling and roots tools) from a client without it, and they were reported removed
        session = tab.live.session if tab.live is not None else None
        capabilities = session.client_capabilities() if session is not None else None
        if choice == SAME and tab.live is not None:
            target: Target = tab.live.target
        else:
            profile = next(p for p in self.profiles() if p.name == choice[len(PROFILE):])
            target = Target.from_profile(profile)
        self.tasks.spawn(self.run_compare(tab.capture_path, target=target, capabilities=capabilities),
                         "the comparison")

    async def run_compare(self, a_path: Path, *, capture: Path | None = None, target: Target | None = None,
                          capabilities: dict[str, Any] | None = None) -> Any:
        """Compare ``a_path`` with ``capture`` or the live ``target`` (its session declaring ``capabilities``);
        returns the view it opened, or None (a sentence in a warning and the status bar)."""
        from inspector.core.compare.against import probe_server
        from inspector.core.compare.differ import compare
        from inspector.core.compare.sessions import CompareError, read_server
        from inspector.core.connect.opened import CannotOpen
        from inspector.core.paths import capture_name
        from inspector.ui.compare.view import CompareView

        self.flush_current()
        b_capture = None
        try:
            a = read_server(a_path)
            if capture is not None:
                b = read_server(capture)
            else:
                assert target is not None
                target = self.prepare(target)
                b_capture = self.captures / ("compare-" + capture_name(target.name or "server"))
                self.say(f"comparing {a_path.name} with {target.describe()}…")
                b = await probe_server(target, a.exchanges, b_capture, capabilities=capabilities)
                if not capabilities:
                    b.notes.append("its session declared no client capabilities, so the server may have hidden "
                                   "what needs them (tools that ask for input, sampling or roots)")
        except (CompareError, CannotOpen) as exc:
            self.host.warn("Compare", str(exc))
            self.say(str(exc))
            return None
        result = compare(a, b)
        view = CompareView(result, b_capture, self.host.window())
        self.show_view(view, f"compare: {a_path.stem}")
        self.say(f"compared with {b.describe()}: "
                 f"{'no differences' if result.same else f'{result.differences} differences'}")
        return view
