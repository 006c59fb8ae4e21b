"""One tab: a live session or an opened capture. Timeline in the centre, detail below, composer, server
requests and stderr beside it, and a status line that explains the connection's state in one sentence."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QSplitter,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from inspector.core.capture.columns import category_table
from inspector.core.capture.index import CaptureIndex, PartialEvent
from inspector.core.capture.live import TapIndex
from inspector.core.connect.target import Target
from inspector.core.explore.catalog import Catalog, Notice
from inspector.core.explore.history import History
from inspector.core.explore.listing import LISTS, listed_in
from inspector.core.notices import What
from inspector.core.protocol.judge import ProtocolJudge
from inspector.core.session.outcomes import ServerInfo
from inspector.core.session.status import capture_status, live_status, tap_dropped, tap_ended_state, tap_status
from inspector.core.tap.breakpoint_link import WindowSide
from inspector.core.tasks import Tasks
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind
from inspector.ui import otel_export
from inspector.ui.explorer.panel import ExplorerPanel
from inspector.ui.intercept.fault_panel import FaultsPanel
from inspector.ui.intercept.hookup import hook_up, row_menu
from inspector.ui.intercept.panel import BreakpointsPanel
from inspector.ui.intercept.queue import InterceptedQueue
from inspector.ui.intercept.tap_link import TapBreakpoints
from inspector.ui.json_highlighter import is_dark
from inspector.ui.panels.composer import STATUS_COLOURS, Composer
from inspector.ui.panels.detail import DetailView, pretty
from inspector.ui.panels.doctor import DiagnoseButton
from inspector.ui.panels.problems import ProblemsPanel
from inspector.ui.panels.server_requests import ServerRequestsPanel
from inspector.ui.panels.stderr import MAX_LINES as STDERR_PANE_LINES
from inspector.ui.panels.stderr import StderrPane
from inspector.ui.session.copying import MessageCopier
from inspector.ui.session.feed import TimelineFeed
from inspector.ui.session.live import CLOSED, FAILED, READY, LiveSession
from inspector.ui.session.problem_marks import ProblemMarks
from inspector.ui.session.room import FormRoom
from inspector.ui.timeline.model import TimelineModel

if TYPE_CHECKING:  # Reload on save is loaded by the tabs that watch
    from inspector.ui.session.reload import Reloader, ReloadPanel
from inspector.ui.timeline.view import TimelineView

#: the answers to each list method an opened capture's composer learns from (the last, with its earlier pages)
CATALOG_ANSWERS = 20
#: At close, how long the tab's sends under way may take to fail once the session is closed (at once, normally).
CLOSE_GRACE = 2.0


class SessionTab(QWidget):
    title_changed = Signal(str)
    breakpoints: BreakpointsPanel  #: a live session's breakpoints (made in attach_live)
    intercepted: InterceptedQueue  #: the messages they paused, each waiting for the person (made in attach_live)
    timeline: TimelineView  #: the filter bar and the table (made in _build)
    copier: MessageCopier  #: copy the selected message as JSON-RPC, a command or curl (made in _build)

    def __init__(self, title: str, parent: Any = None) -> None:
        super().__init__(parent)
        self.title = title
        #: the tab's background sends and cancellations; a failure is said in the status line
        self.tasks = Tasks(report=lambda sentence: self.say(sentence, failure=True))
        self.live: LiveSession | None = None
        self.capture_path: Path | None = None
        self._capture_header: dict[str, Any] | None = None  #: an opened capture's header (attach_index)
        self.tap_hello: dict[str, Any] = {}  #: a live tap's hello: its name, target and capture (attach_tap)
        #: a live tap's breakpoints, when its relay linked them to this tab (attach_tap_breakpoints)
        self.tap_breakpoints: TapBreakpoints | None = None
        #: a served capture's Faults tab, when its twin linked its faults to this tab (fault_panel.attach_faults)
        self.serve_faults: FaultsPanel | None = None
        self.read_only = False
        self.closed = False  #: closing or closed: nothing more is shown in it
        self.events: list[Event] = []
        self.model: TimelineModel | None = None
        self.index: CaptureIndex | None = None
        self.loading = False  #: an opened capture is still being scanned
        #: the one way events reach this tab (live session, tap, opened capture): kept, judged, announced
        self.feed: TimelineFeed | None = None
        #: protocol findings, kept beside the events by seq (events are never changed once saved)
        self.judge = ProtocolJudge()
        #: Reload on save (:func:`inspector.ui.session.reload.watch`): its logic and its tab
        self.reloader: Reloader | None = None
        self.reload_panel: ReloadPanel | None = None
        #: the session's problems (what F8, "problems only", the Problems panel and the rows' colours show)
        self._build()

    # -- construction ----------------------------------------------------------------------------------

    def _build(self) -> None:
        self.timeline = TimelineView(self)
        self.timeline.selected.connect(self._selected)
        # the timeline's parts, as the tab's (the actions, the tests and the benchmarks reach them so)
        self.table, self.proxy, self.follow = self.timeline.table, self.timeline.proxy, self.timeline.follow
        self.filter_text, self.filter_method = self.timeline.filter_text, self.timeline.filter_method
        self.problems_only, self.filter_bar = self.timeline.problems_only, self.timeline.filter_bar
        # the Explorer's place: beside the timeline while both fit, folded away when they do not (live only)
        self.explorer_toggle = QToolButton(self)
        self.explorer_toggle.setText("Explorer")
        self.explorer_toggle.setCheckable(True)
        self.explorer_toggle.toggled.connect(self._explorer_toggled)
        self.explorer_toggle.hide()
        self.filter_bar.add_trailing(self.explorer_toggle)
        #: the user's own choice (shown or folded), which the tab's width no longer overrules; None: by width
        self.explorer_choice: bool | None = None

        self.detail = DetailView(self)
        self.detail.lookup_exchange = self.timeline.exchange_events
        self.timeline.said.connect(self.say)
        self.copier = MessageCopier(self.timeline, self.target, lambda: self.live is not None, self.say, self)
        self.composer = Composer(self)
        self.requests = ServerRequestsPanel(self)
        self.stderr = StderrPane(self)
        self.explorer = ExplorerPanel(self)
        self.side = QTabWidget(self)
        self.side.addTab(self.composer, "Composer")
        self.side.addTab(self.requests, "Server requests")
        self.side.addTab(self.stderr, "stderr")
        self.problems = ProblemsPanel(self)
        self.side.addTab(self.problems, "Problems")
        self.problems.jump_requested.connect(self.timeline.select_seq)
        self.marks = ProblemMarks(self.problems, self)
        self.marks.changed.connect(self._problems_changed)
        self.detail.extra_findings = lambda event: [f.as_finding() for f in self.judge.of(event.seq)
                                                    if f.rule not in self.marks.book.muted]

        lower = QSplitter(Qt.Orientation.Horizontal, self)
        lower.addWidget(self.detail)
        lower.addWidget(self.side)
        lower.setSizes([640, 420])
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(lower)
        self.splitter.setSizes([420, 300])
        self.splitter.setCollapsible(0, False)  # the timeline never folds away
        self.form_room = FormRoom(self.splitter, lower)
        self.app_room = FormRoom(self.splitter, lower)  # the same room for an MCP App while it is shown
        # the explorer beside the timeline, its whole height: what it sends shows up in the rows at once
        self.beside = QSplitter(Qt.Orientation.Horizontal, self)
        self.beside.addWidget(self.splitter)
        self.beside.addWidget(self.explorer)
        self.beside.setStretchFactor(0, 3)
        self.beside.setStretchFactor(1, 2)
        self.beside.setSizes([640, 440])
        self.beside.setCollapsible(0, False)  # the timeline never folds away
        self.explorer.hide()  # live sessions only (attach_live places it)

        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(220)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.diagnose = DiagnoseButton(self)  # shown while a live session's connection has failed
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.diagnose)
        bottom.addWidget(self.progress)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(self.filter_bar)
        layout.addWidget(self.beside, 1)
        layout.addLayout(bottom)

        self.composer.send_requested.connect(self._send)
        self.composer.send_raw_requested.connect(self._send_raw)
        self.requests.pending_changed.connect(self._pending_requests)

        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)

    # -- sources ---------------------------------------------------------------------------------------

    def attach_live(self, live: LiveSession, history: History | None = None) -> None:
        live.keep_parse = self.judge.verdict  # each notification's schema checked while its parse is fresh
        session = live.make_session()
        # breakpoints: their tabs, the timeline's "Break on messages like this", the Explorer's "Break on calls"
        self.breakpoints, self.intercepted = hook_up(live.intercept, self.side)
        self.copier.more.append(row_menu(live.intercept, self.timeline.current_event, lambda: (
            self.model.event(row) if self.model is not None and (row := self.timeline.pair_row()) is not None
            else None)))
        self.explorer.break_on_tool.connect(live.intercept.add_tool)
        self.explorer.break_on_tool.connect(lambda _name: self.side.setCurrentWidget(self.breakpoints))
        live.intercept.paused_changed.connect(lambda _count: self.update_counts())
        if live.login is not None:  # an OAuth-protected server: its sign-in, step by step
            from inspector.ui.panels.auth import AuthPanel

            self.auth = AuthPanel(live.login, self)
            self.side.addTab(self.auth, "Auth")
            live.login.attention.connect(lambda: self.side.setCurrentWidget(self.auth))
        catalog = Catalog(session, timeout=live.target.timeout)
        self.explorer.bind(catalog, live.target, history)
        catalog.listeners.append(self._catalog_changed)  # the composer's templates name what the Explorer listed
        from inspector.ui.apps.panel import AppsPanel  # MCP Apps: the app of a tool the explorer called

        self.apps = AppsPanel(self.explorer.catalog, self)  # type: ignore[arg-type]  # bound on the line above
        self.apps.max_message = live.target.max_message
        self.side.addTab(self.apps, "Apps")
        self.apps.rendering.connect(self._app_rendering)
        self.apps.app_ended.connect(lambda: self.app_room.follow(0))
        self.explorer.said.connect(self._explorer_said)
        self.explorer_toggle.show()
        self.place_explorer()
        self.live = live
        self.capture_path = live.capture_path
        assert live.index is not None
        model = TimelineModel(index=live.index, live=True, t0=session.started_at)  # bounded: see LiveIndex
        self.events = model.events
        self.detail.raw_pieces = functools.partial(_raw_pieces, live.index)
        self._set_model(model)
        self._attach_feed(live.index).follow_session(session)
        live.state_changed.connect(self._state_changed)
        self.diagnose.watch(live, FAILED)
        live.server_known.connect(self._server_known)
        self.composer.in_flight = session.pending_requests
        self.composer.set_line_framed(not live.target.is_http)
        self.composer.set_enabled_for_session(True)
        self._ticker.start()
        live.start()

    def _app_rendering(self) -> None:
        self.side.setCurrentWidget(self.apps)
        self.app_room.follow(1)

    def cannot_start(self, sentence: str) -> None:
        """The session could not even be built (a URL or header its transport refuses): say why, start nothing."""
        self.composer.set_enabled_for_session(False)
        self.say(f"{FAILED}: {sentence}", failure=True)

    def attach_tap(self, hello: dict[str, Any]) -> None:
        """A live tap: a real client drives the server, we only watch (read-only)."""
        self.read_only = True
        self.tap_hello = hello
        capture = hello.get("capture")
        self.capture_path = Path(capture) if capture else None
        index = TapIndex(capture)  # bounded: older rows are read back from the tap's capture
        model = TimelineModel(index=index, live=True)
        self.events = model.events
        self.detail.raw_pieces = functools.partial(_raw_pieces, index)
        self._set_model(model)
        self._attach_feed(index)
        self.composer.set_enabled_for_session(False)
        self.side.setCurrentWidget(self.stderr)
        self._tap_status("live")

    def attach_tap_breakpoints(self, side: WindowSide) -> TapBreakpoints:
        """The tap's relay linked its breakpoints to this tab: the Breakpoints and Intercepted tabs, as a live
        session's, deciding for the real client's messages (:mod:`inspector.ui.intercept.tap_link`)."""
        link = TapBreakpoints(side, self)
        self.tap_breakpoints = link
        self.breakpoints, self.intercepted = hook_up(link.control, self.side)
        self.copier.more.append(row_menu(link.control, self.timeline.current_event, lambda: (
            self.model.event(row) if self.model is not None and (row := self.timeline.pair_row()) is not None
            else None)))
        link.control.paused_changed.connect(lambda _count: self._tap_status(
            "live" if self.feed is not None and not self.feed.detached else "ended"))
        return link

    def add_tap_events(self, events: list[Event]) -> None:
        """Events of the live tap: they take the same path as a live session's (kept, judged, announced)."""
        if self.feed is not None and not self.closed:
            self.feed.push(events)

    def tap_ended(self, end: dict[str, Any] | None, dropped: int = 0) -> None:
        if self.feed is None or self.closed:
            return  # the tab was closed meanwhile
        self.feed.flush_now()
        self.status.setText(tap_status(self.tap_hello, tap_ended_state(end, self.tap_hello), len(self.events))
                            + tap_dropped(dropped))

    def _tap_status(self, state: str) -> None:
        paused = len(self.tap_breakpoints.control.queue) if self.tap_breakpoints is not None else 0
        self.status.setText(tap_status(self.tap_hello, state, len(self.events), paused))

    def attach_index(self, index: CaptureIndex, path: Path) -> None:
        """An opened capture, indexed rather than read: the first rows show at once, the rest of the file is
        scanned in short slices (the feed's) with a progress bar, and the window stays responsive."""
        self.read_only = True
        self.capture_path = path
        self.index = index
        self._capture_header = index.header
        self.detail.raw_pieces = lambda event: index.raw_pieces(event) if isinstance(event, PartialEvent) else None
        model = TimelineModel(index=index)
        self._set_model(model)
        self.events = model.events
        self.composer.set_enabled_for_session(False)
        self.side.setCurrentWidget(self.stderr)
        self.loading = True
        self.progress.show()
        self._capture_status("loading 0%")
        feed = self._attach_feed(index)
        feed.progress.connect(self._loading)
        feed.judging.connect(self._judging_capture)
        feed.load()  # the first rows at once; the rest of the file in the background

    def _loading(self, progress: float) -> None:
        """An opened capture's loading moved on (1.0: its rows and stderr are read)."""
        if progress < 1.0:
            self.progress.setValue(int(progress * 1000))  # QProgressBar repaints at once
            self._capture_status(f"loading {progress:.0%}")
            return
        self.loading = False
        self._capture_status()
        self.composer.set_catalog(**_composer_catalog(listed_in(self._catalog_answers())))

    def _judging_capture(self, progress: float) -> None:
        """The opened capture is judged in the background after loading, with progress."""
        if progress < 1.0:
            self.progress.setValue(int(progress * 1000))
            self._capture_status(f"judging {progress:.0%}")
            return
        self.progress.hide()
        self._capture_status()

    def _catalog_answers(self) -> list[tuple[str, Any]]:
        """The last answers to each list method of an opened capture, ``(method, result)`` in order (a listing of
        several pages is joined by :func:`listed_in`)."""
        assert self.index is not None
        columns = self.index.columns
        events = []
        for method, _field, _capability in LISTS.values():
            if method in columns.method_names:
                table = bytes(name == method for name in columns.method_names)
                rows = columns.select(0, len(columns), category_table(), table)
                events += [self.index.event(row) for row in rows[-CATALOG_ANSWERS:]]
        answers = []
        for event in sorted(events, key=lambda e: e.seq):
            if event.kind != Kind.MESSAGE or event.rpc is None or event.rpc.kind != jsonrpc.RESPONSE:
                continue
            try:
                answers.append((str(event.data.get("request_method", "")), event.json().get("result")))
            except (ValueError, AttributeError):
                continue
        return answers

    def _capture_status(self, state: str = "") -> None:
        assert self.index is not None
        index = self.index
        self.status.setText(capture_status(self.capture_path, state, len(index), self.loading, index.header,
                                           index.target, index.warnings))

    def _set_model(self, model: TimelineModel) -> None:
        self.model = model
        model.problems = self.marks.book
        self.timeline.set_model(model)

    # -- the explorer's place --------------------------------------------------------------------------

    def explorer_fits(self) -> bool:
        """Whether the Explorer fits beside the timeline at the tab's width, the timeline keeping every column
        (:meth:`TimelineView.min_width`)."""
        room = self.beside.width() if self.beside.width() else self.width()
        room -= self.beside.handleWidth()
        return room >= self.timeline.min_width() + self.explorer.minimumSizeHint().width()

    def place_explorer(self) -> None:
        """Show the Explorer beside the timeline when both fit (or the user asked for it), else fold it away;
        the Explorer button (View > Explorer, Ctrl+E) says which and brings it back. A live session's only."""
        if self.live is None:
            return
        shown = self.explorer_fits() if self.explorer_choice is None else self.explorer_choice
        if shown != self.explorer.isVisibleTo(self):
            self.explorer.setVisible(shown)
        if shown:  # the timeline first: the Explorer gets what its columns leave, at least its own minimum
            total = sum(self.beside.sizes())
            timeline = max(self.timeline.min_width(), self.beside.sizes()[0])
            explorer = max(self.explorer.minimumSizeHint().width(), total - timeline)
            if total and self.beside.sizes()[1] != explorer:
                self.beside.setSizes([total - explorer, explorer])
        self.explorer_toggle.blockSignals(True)
        self.explorer_toggle.setChecked(shown)
        self.explorer_toggle.blockSignals(False)
        self.explorer_toggle.setToolTip(
            "Hide the Explorer (Ctrl+E)" if shown else
            "Show the Explorer: the server's tools, resources and prompts (Ctrl+E)"
            + ("; it is folded because the window is too narrow for it and every timeline column"
               if self.explorer_choice is None else ""))

    def _explorer_toggled(self, shown: bool) -> None:
        self.explorer_choice = shown
        self.place_explorer()

    def toggle_explorer(self) -> None:
        """View > Explorer: show it if folded, fold it if shown (live sessions only)."""
        if self.live is not None:
            self.explorer_toggle.toggle()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.place_explorer()

    # -- live updates ----------------------------------------------------------------------------------

    def _attach_feed(self, index: CaptureIndex) -> TimelineFeed:
        """The tab's one ingest path (:class:`TimelineFeed`): the timeline, the stderr pane, the Problems panel
        and the status line subscribe to it."""
        feed = TimelineFeed(index, self.judge, self.tasks, self, stderr_keep=STDERR_PANE_LINES)
        feed.rows_arrived.connect(self._rows_arrived)
        feed.stderr_lines.connect(self.stderr.append_events)
        feed.found.connect(self.marks.found)
        feed.said.connect(self.say)
        self.feed = feed
        return feed

    def _rows_arrived(self) -> None:
        self.timeline.catch_up()
        if self.live is not None:
            self.update_counts()
            self.composer.refresh()  # an id the composer warned about may have been answered
        elif self.index is None:
            self._tap_status("live" if self.feed is not None and not self.feed.detached else "ended")

    def _problems_changed(self, seqs: set[int]) -> None:
        """The problems of these events changed: their rows are marked again and repainted, the filter sees it."""
        if self.model is None or not seqs:
            return
        columns, marked = self.model.columns, False
        for seq in seqs:
            row = columns.row_of_seq(seq)  # (rows the model has yet to announce are marked too)
            if row is not None and row < len(columns):
                marked |= columns.set_flagged(row, self.marks.is_problem(self.model.events[row]))
        self.model.judged_changed(seqs)
        if marked and self.problems_only.isChecked():
            self.timeline.set_filter()  # rows that became (or stopped being) problems show (or hide) at once
        if self.detail.current is not None and self.detail.current.seq in seqs:
            self.detail.show_event(self.detail.current)

    def _catalog_changed(self, notice: Notice) -> None:
        """The Explorer's catalog listed a kind again (every page of it): the composer's templates follow."""
        if notice.what == What.LISTED and self.explorer.catalog is not None:
            self.composer.set_catalog(**_composer_catalog(self.explorer.catalog.items))

    def _tick(self) -> None:
        if self.model is not None:
            self.model.refresh_pending()

    def _state_changed(self, state: str, sentence: str) -> None:
        self.update_counts(state, sentence)
        if state == READY and not self._ticker.isActive():  # up again after a reload (Reload on save)
            self._ticker.start()
            self.composer.set_enabled_for_session(True)
        if state in (CLOSED, FAILED):
            self._ticker.stop()
            if self.feed is not None:
                self.feed.flush_now()
            if self.model is not None:
                self.model.connection_ended()  # what is still pending will get no answer now
            self.composer.set_enabled_for_session(False)
            self.explorer.connection_ended()
            self.requests.cancel_all()  # nobody can answer them any more

    def _server_known(self, info: ServerInfo) -> None:
        if self.explorer.catalog is not None:  # again after a reload that followed a failed start: hear changes
            self.explorer.catalog.attach()
        self.explorer.server_ready()
        self.composer.set_revision(info.protocol_version or "2025-11-25")
        self.intercepted.set_revision(info.protocol_version or "2025-11-25")
        if info.name and not (self.live is not None and self.live.target.named_by_user):
            self.title = info.name
            self.title_changed.emit(info.name)

    def update_counts(self, state: str | None = None, sentence: str | None = None) -> None:
        if self.live is None or self.live.session is None:
            return  # taps and captures say their own status
        state = state or self.live.state
        sentence = sentence if sentence is not None else self.live.sentence
        text = live_status(state, sentence, self.live.server, self.live.session.counts,
                           otel_export.status_words(self.live.exporter),  # --otlp-endpoint
                           paused=len(self.live.intercept.queue))
        failure = bool(sentence) and self.live.failure
        if self.reloader is not None and self.reloader.last is not None:  # the last reload's word stays said
            reload_sentence, reload_failed = self.reloader.last
            text, failure = f"{text} · {reload_sentence}", failure or reload_failed
        self.say(text, failure=failure)

    def say(self, text: str, *, failure: bool = False) -> None:
        """Put ``text`` in the status line: red when it says something failed, the palette's text colour
        otherwise (a state, a note, counts)."""
        self.status.setText(text)
        if self.status.property("failure") is not failure:  # called for every batch of events: repaint only
            self.status.setProperty("failure", failure)
            palette = self.palette()
            if failure:
                light, dark = STATUS_COLOURS["error"]
                palette.setColor(QPalette.ColorRole.WindowText, QColor(dark if is_dark(palette) else light))
            self.status.setPalette(palette)

    def _pending_requests(self, count: int) -> None:
        self.side.setTabText(1, f"Server requests ({count})" if count else "Server requests")
        if count:
            self.side.setCurrentWidget(self.requests)
        self.form_room.follow(count)

    # -- what the selected row offers --------------------------------------------------------------------

    def _selected(self, event: Event | None) -> None:
        if event is None:
            self.detail.clear()
        else:
            self.detail.show_event(event)

    def cancel_selected(self) -> bool:
        """Cancel the selected request if it is still waiting: notifications/cancelled (or, on 2026-07-28
        HTTP, closing its stream), once however often it is asked. The request keeps its row, which says
        "cancelled"; the server's reaction (a late answer, paired) follows in the timeline."""
        event = self.timeline.current_event()
        if (self.live is None or self.live.session is None or event is None or event.rpc is None
                or event.dir != Direction.C2S or event.rpc.kind != jsonrpc.REQUEST
                or self.timeline.pair_row() is not None):
            return False
        if self.live.session.was_cancelled(event.rpc.id):
            self.say(f"request {json.dumps(event.rpc.id)} was already cancelled; nothing more is sent")
            return False
        self.tasks.spawn(self.live.session.cancel(event.rpc.id, "cancelled by the user in mcp-inspector"),
                         "cancelling the request")
        return True

    def resend_selected(self) -> bool:
        """Put the selected sent message in the composer, to send again as it is or edited (Ctrl+Enter): with a
        fresh id unless the user ticks "keep the id"; a line that was not a message goes back in raw mode, its
        newline included, to be sent byte for byte again."""
        event = self.timeline.current_event()
        if event is None or event.dir != Direction.C2S or event.kind not in (Kind.MESSAGE, Kind.FRAMING_ERROR) \
                or self.read_only:
            return False
        if event.kind == Kind.MESSAGE:
            self.composer.resend(pretty(event.raw))
        else:
            self.composer.resend((event.raw + event.eol).decode("utf-8", errors="replace"), raw=True)
        self.side.setCurrentWidget(self.composer)
        return True

    def _explorer_said(self, text: str, failure: bool) -> None:
        """The explorer's failures go to the status line, unless the session has ended: then the line keeps the
        session's own sentence (why it ended), which the explorer's failed listing only follows from."""
        if failure and (self.live is None or self.live.state not in (CLOSED, FAILED)):
            self.say(text, failure=True)

    def target(self) -> Target | None:
        """The server of this tab: the live session's target, the one an opened capture names, or a tap's."""
        if self.live is not None:
            return self.live.target
        if self._capture_header is not None:
            return Target.from_capture_header(self._capture_header, self.title)
        if isinstance(tapped := self.tap_hello.get("target"), dict):  # a tap's, as its hello says
            return Target.from_capture_header({"target": tapped}, str(self.tap_hello.get("name") or self.title))
        return None

    @property
    def capture_header(self) -> dict[str, Any] | None:
        """The header of the capture this tab opened (None for a live session or a tap)."""
        return self._capture_header

    # -- sending ---------------------------------------------------------------------------------------

    def _send(self, obj: dict[str, Any]) -> None:
        if self.live is not None and self.live.state == READY:
            self.tasks.spawn(self.live.send(obj), "sending the message")

    def _send_raw(self, data: bytes) -> None:
        if self.live is not None and self.live.state == READY:
            self.tasks.spawn(self.live.send_raw(data), "sending the text")

    async def close(self) -> None:  # type: ignore[override]  # not QWidget.close: ends the session first
        """End the tab's session (a live one is stopped, its last events shown) and detach the tab from its
        feed: nothing reaches it afterwards (a tap still running keeps recording to its capture)."""
        self.closed = True
        self._ticker.stop()
        if self.reloader is not None:  # no reload starts while the session ends
            self.reloader.stop()
        if self.tap_breakpoints is not None:  # what waits at a breakpoint goes on unchanged; the relay decides alone
            self.tap_breakpoints.close()
        if self.serve_faults is not None:  # the twin goes back to its command line's faults
            self.serve_faults.control.close()
        if self.live is not None:
            await self.apps.close()  # its teardown is recorded before the session ends
            await self.live.stop()
            await self.explorer.close()
            await self.tasks.wait(CLOSE_GRACE)  # sends under way fail at once now: none is left half-sent
        if self.feed is not None:
            self.feed.flush_now()  # the session's end is in the rows
            self.feed.detach()
        index = self.model.index_of_file if self.model is not None else None  # an opened capture's, or a live one's
        if index is not None:
            index.close()


def _composer_catalog(items: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """A catalog's items as the composer takes them: the resource templates among the resources (for
    completion/complete)."""
    return {"tools": items.get("tools", []), "prompts": items.get("prompts", []),
            "resources": items.get("resources", []) + items.get("templates", [])}


def _raw_pieces(index: CaptureIndex, event: Event) -> Iterator[bytes] | None:
    """All the raw bytes of a long line read back from a capture (None for an event held whole)."""
    return index.raw_pieces(event) if isinstance(event, PartialEvent) else None
