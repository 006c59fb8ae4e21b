"""Session > Test a client…: one dialog per window (:class:`~inspector.ui.clientbench.dialog.TestClientDialog`) on
a :class:`~inspector.ui.clientbench.bench_run.BenchRun`; a check activated there opens its scenario's capture in a
tab of its own with the client's offending message selected (once its row is loaded)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject

from inspector.core.paths import capture_name
from inspector.core.tasks import Tasks
from inspector.ui.clientbench.bench_run import BenchRun
from inspector.ui.clientbench.dialog import TestClientDialog
from inspector.ui.host import Controller, ViewHost


class ClientBenches(Controller):
    def __init__(self, host: ViewHost, tasks: Tasks, captures: Path, parent: QObject | None = None) -> None:
        """Runs go in ``tasks``; each run's captures in a folder of its own in ``captures``."""
        super().__init__(host, parent)
        self.tasks = tasks
        self.captures = captures
        self.dialog: TestClientDialog | None = None

    def open_dialog(self) -> TestClientDialog:
        """Show the dialog (the open one, with its run and results, when there is one)."""
        if self.dialog is None:
            run = BenchRun(self.tasks, self)
            self.dialog = TestClientDialog(run, self._run_folder, self.host.window())
            self.dialog.message_wanted.connect(self.show_message)
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    def _run_folder(self) -> Path:
        return self.captures / capture_name("test-client").removesuffix(".jsonl")

    def show_message(self, capture: Path, seq: int | None) -> None:
        """Open ``capture`` in a tab (bring forward the one that has it open already) and select event ``seq`` in
        it (as soon as its row is loaded)."""
        tab = next((t for t in self.host.session_tabs() if t.read_only and t.capture_path == capture), None)
        if tab is not None:
            self.host.show_tab(tab)
        else:
            self.capture_wanted.emit(capture)
            tab = self.host.current_tab()
            if tab is None or tab.capture_path != capture:
                return  # it could not be opened: the window said why
        if seq is None:
            return
        if tab.timeline.select_seq(seq) or tab.feed is None:
            return
        feed = tab.feed

        def retry(*_args: object) -> None:
            if tab.timeline.select_seq(seq) or not tab.loading:
                feed.rows_arrived.disconnect(retry)
                feed.progress.disconnect(retry)

        feed.rows_arrived.connect(retry)
        feed.progress.connect(retry)

    def stop(self) -> None:
        """The window closes: the running client's group is ended now."""
        if self.dialog is not None:
            self.dialog.run.kill_now()
