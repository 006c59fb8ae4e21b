"""What the window runs against a server besides a session: Session > Replay session…, Check server and
Reconnect to the capture's server…. A capture's server is started only after the person saw exactly what would
run and agreed (:meth:`ServerRuns.confirmed_capture_target`, the one gate of all three); the results open in tabs
of their own."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QMessageBox

from inspector.core.clients.profiles import ServerProfile
from inspector.core.connect.target import Target, make_transport
from inspector.core.tasks import Tasks
from inspector.core.transports.base import TransportError
from inspector.ui.host import Controller, ViewHost


class ServerRuns(Controller):
    def __init__(self, host: ViewHost, tasks: Tasks, captures: Path, prepare: Callable[[Target], Target],
                 with_timeout: Callable[[Target], Target], profiles: Callable[[], list[ServerProfile]],
                 parent: QObject | None = None) -> None:
        """Runs go in ``tasks``, their captures in ``captures``; ``prepare`` applies the window's session settings
        to a target, ``with_timeout`` gives a capture's server the window's request timeout; ``profiles`` are the
        saved servers to choose from."""
        super().__init__(host, parent)
        self.tasks = tasks
        self.captures = captures
        self.prepare = prepare
        self.with_timeout = with_timeout
        self.profiles = profiles

    def reconnect_current(self) -> None:
        """Start the server a capture names, after showing exactly what would run and asking; refused, as replay
        and check refuse it, when the capture does not name one or kept its secrets out (``[redacted]``)."""
        tab = self.host.current_tab()
        header = tab.capture_header if tab is not None else None
        if tab is None or header is None:
            return
        target = self.confirmed_capture_target(header, tab.title, "Reconnect")
        if target is not None:
            self.session_wanted.emit(self.with_timeout(target))

    def replay_current(self) -> None:
        """Replay the current session or capture against a server the user picks: the same one (a capture's
        command or URL only after showing it and asking) or a saved profile. The result opens in a new tab."""
        from PySide6.QtWidgets import QInputDialog

        tab = self.host.current_tab()
        if tab is None or tab.capture_path is None:
            return
        header = tab.capture_header
        same = tab.live.target if tab.live is not None else None
        choices = (["the same server"] if (same is not None or header is not None) else []) + \
                  [f"profile: {p.name}" for p in self.profiles()]
        if not choices:
            QMessageBox.information(self.host.window(), "Replay",
                                    "There is no server to replay against: add a profile first.")
            return
        choice, ok = QInputDialog.getItem(self.host.window(), "Replay session", "Replay against:", choices, 0, False)
        if not ok:
            return
        if choice.startswith("profile: "):
            profile = next(p for p in self.profiles() if p.name == choice[len("profile: "):])
            target = Target.from_profile(profile)
        elif same is not None:
            target = same
        else:
            confirmed = self.confirmed_capture_target(header or {}, tab.title, "Replay")
            if confirmed is None:
                return
            target = confirmed
        self.tasks.spawn(self.run_replay(tab.capture_path, target), "the replay")

    def confirmed_capture_target(self, header: dict[str, Any], name: str, action: str) -> Target | None:
        """The server a capture names, once the person saw exactly what would run and agreed; None when they did
        not, or when it cannot run as recorded (no server named, secrets redacted: said in a warning titled
        ``action``). The one gate of Reconnect, Replay and Check in front of a capture's server."""
        recorded = Target.from_capture_header(header, name)
        problem = recorded.rerun_problem()
        if problem is not None:
            self.host.warn(action, f"{problem}: use a saved server (a profile) instead.")
            return None
        box = QMessageBox(self.host.window())
        box.setWindowTitle("Start this server?")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(f"{action} will start (or contact) the server this capture names, exactly as shown:\n\n"
                    + "\n".join(recorded.describe_lines())
                    + "\n\nOnly continue if you trust where this capture came from.")
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        if box.exec() != QMessageBox.StandardButton.Yes:
            return None
        return recorded

    async def run_replay(self, source: Path, target: Target) -> Any:
        """Replay ``source`` against ``target``; returns the view it opened (or None when it could not)."""
        from inspector.core.paths import capture_name
        from inspector.core.replay.engine import ReplayError, ReplayOptions, ReplayPlan, replay
        from inspector.ui.panels.replay import ReplayView

        self.flush_current()
        try:
            # only built: nothing starts before the replay
            transport = make_transport(self.prepare(target))
            plan, _ = ReplayPlan.load(source)  # what the reader skipped shows when the capture is opened
        except (ReplayError, TransportError, ValueError, OSError) as exc:  # nothing to replay, a bad URL, ...
            self.host.warn("Replay", str(exc))
            return None
        out = self.captures / ("replay-" + capture_name(target.name))
        self.say(f"replaying {source.name} against {target.describe()}…")
        result = await replay(plan, transport, ReplayOptions(out=out))
        view = ReplayView(result, source.name, self.host.window())
        self.show_view(view, f"replay: {source.stem}")
        self.say(result.summary)
        return view

    def check_current(self) -> None:
        """Session > Check server: the checks of ``mcp-inspector check`` against the current tab's server (a
        capture's only after showing it and asking), in new sessions saved as captures; the report opens in a
        new tab."""
        tab = self.host.current_tab()
        if tab is None:
            return
        if tab.live is not None:
            target: Target | None = tab.live.target
        else:
            header = tab.capture_header
            target = self.confirmed_capture_target(header, tab.title, "Check") if header is not None else None
        if target is None:
            return
        self.tasks.spawn(self.run_check(target), "the server check")

    async def run_check(self, target: Target) -> Any:
        """Check ``target``'s server; returns the report view it opened."""
        from inspector.core.check.checks import DEFAULT_CHECK_TIMEOUT
        from inspector.core.check.context import CheckOptions
        from inspector.core.check.runner import CheckRun, run_checks
        from inspector.core.paths import capture_name
        from inspector.ui.panels.check_report import CheckReportView

        base = self.captures / ("check-" + capture_name(target.name)).removesuffix(".jsonl")
        self.say(f"checking {target.describe()}…")
        # each answer is waited for as the command line's check does, or the session's timeout when shorter
        timeout = min(target.timeout, DEFAULT_CHECK_TIMEOUT)
        # the window calls no tools: a check skipped for that names the command line's options as such
        options = CheckOptions(call_tools_hint="mcp-inspector check --call-tools (Check server here calls none)",
                               call_all_tools_hint="mcp-inspector check --call-all-tools")
        report = await run_checks(CheckRun(self.prepare(target), base, options=options, timeout=timeout))
        view = CheckReportView(report, self.host.window())
        self.show_view(view, f"check: {target.name or target.describe()}", target.describe())
        self.say(f"check of {target.describe()}: {report.summary()}")
        return view
