"""One tab: a live session or an opened capture. Timeline in the centre, detail below, composer, server
requests and stderr beside it, and a status line that explains the connection's state in one sentence."""

from __future__ import annotations

import asyncio
import functools
import gc
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QProgressBar,
    QSplitter,
    QStyle,
    QTableView,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from inspector.core import offload
from inspector.core.capture.index import CaptureIndex, PartialEvent
from inspector.core.capture.live import TapIndex
from inspector.core.explore.catalog import Catalog
from inspector.core.explore.history import History
from inspector.core.interop.copy_as import as_command, as_curl
from inspector.core.present.columns import KIND_CODES, KIND_MASK, category_table
from inspector.core.present.describe import target_words
from inspector.core.protocol.judge import ProtocolFinding, ProtocolJudge
from inspector.core.protocol.pacer import JudgePacer
from inspector.core.session.session import ServerInfo
from inspector.core.session.target import Target
from inspector.core.tasks import Tasks
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import Batch
from inspector.ui.explorer.panel import ExplorerPanel
from inspector.ui.panels.composer import STATUS_COLOURS, Composer
from inspector.ui.panels.detail import DetailView, pretty
from inspector.ui.panels.json_highlighter import is_dark
from inspector.ui.panels.problems import ProblemsPanel
from inspector.ui.panels.server_requests import ServerRequestsPanel
from inspector.ui.panels.stderr import MAX_LINES as STDERR_PANE_LINES
from inspector.ui.panels.stderr import StderrPane
from inspector.ui.session.bridge import SessionBridge
from inspector.ui.session.live import CLOSED, FAILED, READY, LiveSession
from inspector.ui.session.wrap_row import WrapRow
from inspector.ui.timeline.filter import TimelineFilter
from inspector.ui.timeline.model import (
    COL_DELTA,
    COL_LATENCY,
    COL_SEQ,
    COL_SIZE,
    COL_SUMMARY,
    COL_TIME,
    COLUMN_SAMPLES,
    EVENT_ROLE,
    TimelineModel,
)

CATALOG_METHODS = {"tools/list": "tools", "resources/list": "resources", "prompts/list": "prompts"}
#: At close, how long the tab's sends under way may take to fail once the session is closed (at once, normally).
CLOSE_GRACE = 2.0
#: Loading a capture scans the file for at most this long at a time, then lets the window repaint.
LOAD_SLICE_SECONDS = 0.01
#: While loading, new rows are announced to the view (which then lays out and repaints) at most this often.
LOAD_ANNOUNCE_SECONDS = 0.3
#: stderr lines of a capture decoded for the pane per slice (the pane keeps the last MAX_LINES).
STDERR_STEP = 200
#: How far from the selected row an opened capture is searched for the HTTP exchange a message belongs to.
EXCHANGE_SEARCH_ROWS = 20_000
#: The method filter is never narrower than this many digits ("tools/call" fits).
METHOD_FILTER_CHARS = 12
#: The timeline's columns before Summary, in digits (the width of "0"): as wide as they like to be ...
COLUMN_CHARS = (6, 8, 9, 2, 11, 22, 5, 10, 8)
#: ... and as narrow as they get in a narrow table (a long method is then elided, its tooltip whole).
COLUMN_MIN_CHARS = (4, 5, 6, 2, 7, 8, 3, 6, 5)
#: Pixels around each column's text (the cell's margins), and the least of it in a narrow table.
COLUMN_PADDING = 12
COLUMN_MIN_PADDING = 6
#: The Summary column keeps at least this share of the table's width, and at least SUMMARY_MIN_CHARS digits.
SUMMARY_SHARE = 0.3
SUMMARY_MIN_CHARS = 24
#: The columns that show numbers: a narrow table never shrinks them (a cut number is a lie).
NUMBER_COLUMNS = frozenset({COL_SEQ, COL_TIME, COL_DELTA, COL_LATENCY, COL_SIZE})
#: ``#`` and Time are as wide as their largest value so far, and at least this wide (a fresh session's
#: columns do not jump at its tenth event).
SEQ_MIN_DIGITS = 4
TIME_MIN_SAMPLE = "000.000"


def column_widths(space: int, unit: int, wanted: list[int] | None = None,
                  least: list[int] | None = None) -> list[int]:
    """The widths of the columns before Summary in a table ``space`` pixels wide (``unit``: the width of a
    digit): their preferred widths (``wanted``, else :data:`COLUMN_CHARS` digits each) while Summary keeps its
    share beside them, else each shrunk towards its minimum (``least``, else :data:`COLUMN_MIN_CHARS` digits)
    in proportion to what it can give, never below it."""
    if wanted is None:
        wanted = [unit * chars + COLUMN_PADDING for chars in COLUMN_CHARS]
    if least is None:
        least = [unit * chars + COLUMN_MIN_PADDING for chars in COLUMN_MIN_CHARS]
    least = [min(low, high) for low, high in zip(least, wanted, strict=True)]
    room = space - max(unit * SUMMARY_MIN_CHARS, int(space * SUMMARY_SHARE))
    need = sum(wanted) - room
    if need <= 0:
        return wanted
    can_give = sum(wanted) - sum(least)
    if need >= can_give:
        return least
    return [w - -(-(w - m) * need // can_give) for w, m in zip(wanted, least, strict=True)]


class SessionTab(QWidget):
    title_changed = Signal(str)

    def __init__(self, title: str, parent: Any = None) -> None:
        super().__init__(parent)
        self.title = title
        #: the tab's background sends and cancellations; a failure is said in the status line
        self.tasks = Tasks(report=lambda sentence: self.say(sentence, failure=True))
        self.live: LiveSession | None = None
        self.bridge: SessionBridge | None = None
        self.capture_path: Path | None = None
        self.capture_header: dict[str, Any] | None = None  #: an opened capture's header
        self.read_only = False
        self.events: list[Event] = []
        self.model: TimelineModel | None = None
        self.index: CaptureIndex | None = None
        self.loading = False  #: an opened capture is still being scanned
        self.catalog: dict[str, list[dict[str, Any]]] = {}
        self._tap_stderr: list[Event] = []
        #: protocol findings, kept beside the events by seq (events are never changed once saved)
        self.judge = ProtocolJudge()
        self._build()

    # -- construction ----------------------------------------------------------------------------------

    def _build(self) -> None:
        self.filter_text = QLineEdit(self)
        self.filter_text.setPlaceholderText("Filter: text in messages (Ctrl+F)")
        self.filter_method = QLineEdit(self)
        self.filter_method.setPlaceholderText("method")
        # legible at any scale: never narrower than the placeholder (the filter bar wraps instead)
        unit = self.fontMetrics().horizontalAdvance("0")
        self.filter_text.setMinimumWidth(self.fontMetrics().horizontalAdvance(self.filter_text.placeholderText())
                                         + 2 * unit)
        self.filter_method.setMinimumWidth(unit * METHOD_FILTER_CHARS)
        self.filter_method.setMaximumWidth(unit * 26)
        self.show_c2s = QCheckBox("→ sent", self)
        self.show_s2c = QCheckBox("← received", self)
        self.show_stderr = QCheckBox("stderr", self)
        self.show_transport = QCheckBox("transport", self)
        self.problems_only = QCheckBox("problems only", self)
        self.follow = QCheckBox("follow", self)
        for box in (self.show_c2s, self.show_s2c, self.show_stderr, self.show_transport, self.follow):
            box.setChecked(True)
        self.filter_bar = WrapRow()
        self.filter_bar.add_leading(self.filter_text, 2)
        self.filter_bar.add_leading(self.filter_method, 1)
        for box in (self.show_c2s, self.show_s2c, self.show_stderr, self.show_transport, self.problems_only,
                    self.follow):
            self.filter_bar.add_trailing(box)
        # the Explorer's place: beside the timeline while both fit, folded away when they do not (live only)
        self.explorer_toggle = QToolButton(self)
        self.explorer_toggle.setText("Explorer")
        self.explorer_toggle.setCheckable(True)
        self.explorer_toggle.toggled.connect(self._explorer_toggled)
        self.explorer_toggle.hide()
        self.filter_bar.add_trailing(self.explorer_toggle)
        #: the user's own choice (shown or folded), which the tab's width no longer overrules; None: by width
        self.explorer_choice: bool | None = None

        self.proxy = TimelineFilter(self)
        self.table = QTableView(self)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        rows = self.table.verticalHeader()
        rows.hide()
        # fixed row heights: Qt then never measures rows, which matters with hundreds of thousands of them
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.table.setWordWrap(False)
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setAlternatingRowColors(True)
        self.columns_sized_by_user = False  #: a column was resized by hand: the widths are no longer fitted
        self._fitting = False
        self._fitted_extent = (0, 0)  #: the (seq digits, time characters) the columns were last fitted to
        self.table.horizontalHeader().sectionResized.connect(self._section_resized)
        self.table.viewport().installEventFilter(self)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._timeline_menu)

        self.detail = DetailView(self)
        self.detail.lookup_exchange = self._exchange_events
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
        self.problems.jump_requested.connect(self.select_seq)
        self.problems.muted_changed.connect(self._muted_changed)
        self.detail.extra_findings = lambda event: [f.as_finding() for f in self.judge.of(event.seq)
                                                    if f.rule not in self.problems.muted]
        self.pacer = JudgePacer(self.judge, self._judged)
        self._said_skipped = False
        self._pace_timer = QTimer(self)
        self._pace_timer.setSingleShot(True)
        self._pace_timer.timeout.connect(self._pace)
        self._judge_timer = QTimer(self)  # big messages' schemas, judged one per idle turn, off the hot path
        self._judge_timer.setInterval(0)
        self._judge_timer.timeout.connect(self._judge_deferred)
        self._judging: Iterator[None] | None = None

        lower = QSplitter(Qt.Orientation.Horizontal, self)
        lower.addWidget(self.detail)
        lower.addWidget(self.side)
        lower.setSizes([640, 420])
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(lower)
        self.splitter.setSizes([420, 300])
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
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.progress)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(self.filter_bar)
        layout.addWidget(self.beside, 1)
        layout.addLayout(bottom)

        self.filter_text.textChanged.connect(lambda text: self.set_filter(text=text))
        self.filter_method.textChanged.connect(lambda text: self.set_filter(method=text))
        self.show_c2s.toggled.connect(self._directions_changed)
        self.show_s2c.toggled.connect(self._directions_changed)
        self.show_stderr.toggled.connect(lambda on: self.set_filter(show_stderr=on))
        self.show_transport.toggled.connect(lambda on: self.set_filter(show_transport=on))
        self.problems_only.toggled.connect(lambda on: self.set_filter(problems_only=on))
        self.composer.send_requested.connect(self._send)
        self.composer.send_raw_requested.connect(self._send_raw)
        self.requests.pending_changed.connect(self._pending_requests)

        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)
        self._loader = QTimer(self)
        self._loader.setInterval(0)
        self._loader.timeout.connect(self._load_slice)
        self._loading_steps: Iterator[str] | None = None

    # -- sources ---------------------------------------------------------------------------------------

    def attach_live(self, live: LiveSession, history: History | None = None) -> None:
        live.keep_parse = self.judge.verdict  # each notification's schema checked while its parse is fresh
        session = live.make_session()
        if live.login is not None:  # an OAuth-protected server: its sign-in, step by step
            from inspector.ui.panels.auth import AuthPanel

            self.auth = AuthPanel(live.login, self)
            self.side.addTab(self.auth, "Auth")
            live.login.attention.connect(lambda: self.side.setCurrentWidget(self.auth))
        self.explorer.bind(Catalog(session, timeout=live.target.timeout), live.target, history)
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
        self.bridge = SessionBridge(session, self)
        self.bridge.events_arrived.connect(self._events_arrived)
        self.bridge.stderr_lines.connect(self.stderr.append_events)
        session.listeners.append(self._judge_batch)
        live.state_changed.connect(self._state_changed)
        live.server_known.connect(self._server_known)
        self.composer.in_flight = session.pending_requests
        self.composer.set_line_framed(not live.target.is_http)
        self.composer.set_enabled_for_session(True)
        self._ticker.start()
        live.start()

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
        self.tap_index = TapIndex(capture)  # bounded: older rows are read back from the tap's capture
        model = TimelineModel(index=self.tap_index, live=True)
        self.events = model.events
        self.detail.raw_pieces = functools.partial(_raw_pieces, self.tap_index)
        self._set_model(model)
        self.composer.set_enabled_for_session(False)
        self.side.setCurrentWidget(self.stderr)
        self._tap_timer = QTimer(self)
        self._tap_timer.setInterval(33)  # the bridge's rate: at most ~30 updates a second
        self._tap_timer.timeout.connect(self._tap_catch_up)
        self._tap_timer.start()
        self._tap_status("live")

    def add_tap_events(self, events: list[Event]) -> None:
        self.tap_index.extend(events)
        self._tap_stderr.extend(e for e in events if e.kind == Kind.STDERR)

    def _tap_catch_up(self) -> None:
        if self.model is not None and self.model.rowCount() < len(self.events):
            self._events_arrived()
            self.stderr.append_events(self._tap_stderr)
            self._tap_stderr = []
            self._tap_status("live")

    def tap_ended(self, end: dict[str, Any] | None, dropped: int = 0) -> None:
        self._tap_catch_up()
        self._tap_timer.stop()
        if end is None:
            self._tap_status("the tap went away without saying how the server ended")
        else:
            self._tap_status(f"ended: the server exited with {end.get('exit')}")
        if dropped:
            self.status.setText(self.status.text() + f" · {dropped:,} events were too fast for the window "
                                                      "(all are in the capture)")

    def _tap_status(self, state: str) -> None:
        hello = getattr(self, "tap_hello", {})
        target = hello.get("target") or {}
        what = target_words(target) or "?"
        self.status.setText(f"tap {hello.get('name', '?')} ({state}) · read-only: the client drives · {what} · "
                            f"{len(self.events):,} events · capture {hello.get('capture')}")

    def attach_index(self, index: CaptureIndex, path: Path) -> None:
        """An opened capture, indexed rather than read: the first rows show at once, the rest of the file is
        scanned in slices of LOAD_SLICE_SECONDS with a progress bar, and the window stays responsive."""
        self.read_only = True
        self.capture_path = path
        self.index = index
        self.detail.raw_pieces = lambda event: index.raw_pieces(event) if isinstance(event, PartialEvent) else None
        model = TimelineModel(index=index)
        self._set_model(model)
        self.events = model.events
        self.composer.set_enabled_for_session(False)
        self.side.setCurrentWidget(self.stderr)
        self.loading = True
        self.progress.show()
        self._capture_status("loading 0%")
        gc.freeze()  # as the live bridge does: a full collection need not walk the window's objects (a stall)
        self._loading_steps = self._load_steps()
        index.scan(LOAD_SLICE_SECONDS)  # the first rows, shown at once
        model.catch_up()
        self._load_slice()
        if self._loading_steps is not None:
            self._loader.start()

    def _load_slice(self) -> None:
        """One step of loading (each step takes about LOAD_SLICE_SECONDS)."""
        if self._loading_steps is None:
            return
        try:
            next(self._loading_steps)
        except StopIteration:
            self._loading_steps = None
            self._loader.stop()

    def _load_steps(self) -> Iterator[str]:
        """Loading an opened capture, as short steps; each yields its name (for benchmarks/scale.py)."""
        index, model = self.index, self.model
        assert index is not None and model is not None
        # One short piece of work per step, so the event loop (a repaint, input) runs between any two; after
        # new rows are announced, a step that does nothing lets the table repaint on its own.
        announced = time.perf_counter()
        while not index.done:
            index.scan(LOAD_SLICE_SECONDS)
            yield "scan"
            if time.perf_counter() - announced >= LOAD_ANNOUNCE_SECONDS:
                model.catch_up()
                self._refit_if_wider()
                yield "announce"
                yield "repaint"
                self.progress.setValue(int(index.progress * 1000))  # QProgressBar repaints at once
                self._capture_status(f"loading {index.progress:.0%}")
                announced = time.perf_counter()
                yield "progress"
        model.catch_up()
        self._refit_if_wider()
        self.loading = False
        self.progress.hide()
        self._capture_status()
        yield "announce"
        yield "repaint"
        # the stderr pane keeps the last lines only: decode just those
        only_stderr = bytes(value & KIND_MASK == KIND_CODES[Kind.STDERR] for value in range(256))
        stderr = model.columns.select(0, len(index), only_stderr)[-STDERR_PANE_LINES:]
        for start in range(0, len(stderr), STDERR_STEP):
            self.stderr.append_events([index.event(row) for row in stderr[start:start + STDERR_STEP]])
            yield "stderr"
        self._learn_catalog(self._catalog_candidates())
        yield "catalog"
        self._judging = self._judge_capture()  # judged in the background, after loading
        self._judge_timer.start()

    def _catalog_candidates(self) -> list[Event]:
        """The last few answers to tools/list, resources/list and prompts/list of an opened capture."""
        assert self.index is not None
        columns = self.index.columns
        events = []
        for method in CATALOG_METHODS:
            if method in columns.method_names:
                table = bytes(name == method for name in columns.method_names)
                rows = columns.select(0, len(columns), category_table(), table)
                events += [self.index.event(row) for row in rows[-5:]]
        return sorted(events, key=lambda e: e.seq)

    def _capture_status(self, state: str = "") -> None:
        assert self.index is not None
        index = self.index
        target = index.target
        what = target_words(target)
        warnings = "; ".join(index.warnings)
        head = f"{state}: " if state else "opened read-only: "
        # the reader's warnings once the whole file is read: they stay while the judge goes through it after
        self.status.setText(f"{head}{self.capture_path} · {len(index):,} events"
                            f"{' so far' if self.loading else ''} · "
                            f"recorded {index.header.get('created', '?')} from {target.get('transport', '?')} {what}"
                            + (f" · {warnings}" if warnings and not self.loading else ""))

    def _set_model(self, model: TimelineModel) -> None:
        self.model = model
        model.judged = self.judge.of
        model.muted = self.problems.muted
        self._show(filtered=False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(COL_SUMMARY, QHeaderView.ResizeMode.Stretch)
        self.fit_columns()

    def fit_columns(self) -> None:
        """Size the columns to the table's width (:func:`column_widths`) so that Summary stays on screen, until
        the user sizes a column themselves."""
        if self.columns_sized_by_user or self.model is None:
            return
        header = self.table.horizontalHeader()
        self._fitting = True
        try:
            # while the table has room every column fits its widest text; a narrow table shrinks the text
            # columns (their tooltip and the detail pane show all), never the number columns: a number cut to
            # "+0.35…" is a lie (Summary gives way instead, down to its minimum)
            wanted = self._wanted_widths()
            unit = self.fontMetrics().horizontalAdvance("0")
            least = [wanted[column] if column in NUMBER_COLUMNS else unit * chars + COLUMN_MIN_PADDING
                     for column, chars in enumerate(COLUMN_MIN_CHARS)]
            for column, width in enumerate(column_widths(self.table.viewport().width(), unit, wanted, least)):
                header.resizeSection(column, width)
        finally:
            self._fitting = False

    def _number_extent(self) -> tuple[int, int]:
        """How many characters the largest sequence number and session time shown so far take (``#`` and
        Time are sized to the data, not to the largest a capture could hold)."""
        assert self.model is not None
        rows = self.model.rowCount()
        if not rows:
            return SEQ_MIN_DIGITS, len(TIME_MIN_SAMPLE)
        last = self.model.event(rows - 1)
        return max(SEQ_MIN_DIGITS, len(str(last.seq))), max(len(TIME_MIN_SAMPLE), len(f"{last.t:.3f}"))

    def _refit_if_wider(self) -> None:
        if self._number_extent() != self._fitted_extent:  # a sequence number or time got a digit longer
            self.fit_columns()

    def _wanted_widths(self) -> list[int]:
        """Each column before Summary as wide as the widest text it shows (:data:`COLUMN_SAMPLES`; ``#`` and
        Time as wide as their largest value so far, :meth:`_number_extent`) or its title."""
        assert self.model is not None
        metrics, titles = self.table.fontMetrics(), self.table.horizontalHeader().fontMetrics()
        samples = list(COLUMN_SAMPLES)
        self._fitted_extent = seq_digits, time_chars = self._number_extent()
        samples[COL_SEQ] = "0" * seq_digits
        samples[COL_TIME] = "0" * (time_chars - 4) + ".000"
        return [max(metrics.horizontalAdvance(sample),
                    titles.horizontalAdvance(str(self.model.headerData(column, Qt.Orientation.Horizontal))))
                + COLUMN_PADDING for column, sample in enumerate(samples)]

    def _section_resized(self, column: int, _old: int, _new: int) -> None:
        if not self._fitting and column != COL_SUMMARY:  # Summary stretches by itself
            self.columns_sized_by_user = True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and watched is self.table.viewport():
            self.fit_columns()
        return False

    # -- the explorer's place --------------------------------------------------------------------------

    def timeline_min_width(self) -> int:
        """The least width the timeline shows every column in without scrolling sideways: the number columns
        whole, the text columns at their minimums, Summary at :data:`SUMMARY_MIN_CHARS` digits."""
        unit = self.fontMetrics().horizontalAdvance("0")
        wanted = self._wanted_widths() if self.model is not None else \
            [unit * chars + COLUMN_PADDING for chars in COLUMN_CHARS]
        least = sum(wanted[column] if column in NUMBER_COLUMNS else unit * chars + COLUMN_MIN_PADDING
                    for column, chars in enumerate(COLUMN_MIN_CHARS))
        scrollbar = self.table.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, self.table)
        return least + unit * SUMMARY_MIN_CHARS + scrollbar + 2 * self.table.frameWidth()

    def explorer_fits(self) -> bool:
        """Whether the Explorer fits beside the timeline at the tab's width, the timeline keeping every column
        (:meth:`timeline_min_width`)."""
        room = self.beside.width() if self.beside.width() else self.width()
        room -= self.beside.handleWidth()
        return room >= self.timeline_min_width() + self.explorer.minimumSizeHint().width()

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
            timeline = max(self.timeline_min_width(), self.beside.sizes()[0])
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

    def _events_arrived(self) -> None:
        assert self.model is not None
        first = self.model.rowCount()
        if self.index is None and self.live is None and self._judge_rows(first):
            self._pace_timer.start(0)  # judged off the ingest path (JudgePacer), at once when there is no backlog
        if self.model.catch_up() and self.follow.isChecked():
            self.table.scrollToBottom()
        self._refit_if_wider()
        self._learn_catalog(self.events[first:])
        self._update_counts()
        self.composer.refresh()  # an id the composer warned about may have been answered

    # -- protocol findings -----------------------------------------------------------------------------

    def _judge_rows(self, first: int) -> bool:
        """Queue the new rows for the judge: a live index's by row (fetched when judged, nothing held), a
        list's as events. True when the pacer should step now."""
        assert self.model is not None
        if self.model.index_of_file is not None:
            return self.pacer.push_rows(first, self.model.rowCount(), self.model.event)
        return self.pacer.push(self.events[first:])

    def _judge_batch(self, events: list[Event]) -> None:
        """A live session's batch, queued for the judge as it arrives (a session listener): its rows with the
        decoder's parse of each (:class:`~inspector.core.wire.framing.Batch`), so the judge does not parse them
        again (issue 15's ingest cost)."""
        assert self.live is not None and self.live.index is not None
        stop = len(self.live.index)
        parsed = events.values() if type(events) is Batch else None
        if self.pacer.push_rows(stop - len(events), stop, self.live.index.event, parsed):
            self._pace_timer.start(0)  # judged off the ingest path (JudgePacer), at once when there is no backlog

    def _pace(self) -> None:
        delay = self.pacer.step()
        if delay is not None:
            self._pace_timer.start(int(delay * 1000))
        if self.pacer.skipped and not self._said_skipped:
            self._said_skipped = True
            self.say(self.pacer.sentence() or "")

    def _judge_new(self, events: list[Event]) -> None:
        """Judge new events now (an opened capture's slices; a live session's go through the pacer)."""
        self._judged(events, self.judge.feed(events))

    def _judged(self, events: list[Event], judged: list[ProtocolFinding]) -> None:
        """Judged events: their findings (the judge's and those already on the events) go to the Problems
        panel, and their rows are repainted in their severity's colour."""
        found = [*_wire_findings(events), *judged]
        if found:
            self.problems.add(found)
        if judged and self.model is not None:
            self.model.judged_changed({f.seq for f in judged})
            if self.detail.current is not None and any(f.seq == self.detail.current.seq for f in judged):
                self.detail.show_event(self.detail.current)
        if self.judge.deferred and not self._judge_timer.isActive():
            self._judge_timer.start()

    def _judge_deferred(self) -> None:
        if self._judging is not None:
            try:
                next(self._judging)
            except StopIteration:
                self._judging = None
            return
        if offload.workers_enabled() and _loop_running():  # parsed and checked in the worker: no stall (issue 17)
            self._judge_timer.stop()
            self.tasks.spawn(self._judge_deferred_off_loop(), "judging a big message")
            return
        found = self.judge.judge_deferred(limit=1)
        self._judged_late(found)
        if not self.judge.deferred:
            self._judge_timer.stop()

    async def _judge_deferred_off_loop(self) -> None:
        self._judged_late(await self.judge.judge_deferred_off_loop())

    def _judged_late(self, found: list[ProtocolFinding]) -> None:
        if found:
            self.problems.add(found)
            if self.model is not None:
                self.model.judged_changed({f.seq for f in found})

    def _judge_capture(self) -> Iterator[None]:
        """An opened capture judged in the background, in slices of LOAD_SLICE_SECONDS, with progress."""
        index = self.index
        assert index is not None
        total = len(index)
        self.progress.show()
        row = 0
        while row < total:
            deadline = time.perf_counter() + LOAD_SLICE_SECONDS
            batch = []
            while row < total and time.perf_counter() < deadline:
                batch.append(index.event(row))
                row += 1
                if len(batch) >= 256:
                    self._judge_new(batch)
                    batch = []
            self._judge_new(batch)
            self.progress.setValue(int(row / max(total, 1) * 1000))
            self._capture_status(f"judging {row / max(total, 1):.0%}")
            yield
        self.progress.hide()
        self._capture_status()
        while self.judge.deferred:
            found = self.judge.judge_deferred(limit=1)
            self.problems.add(found)
            if self.model is not None:
                self.model.judged_changed({f.seq for f in found})
            yield

    def _muted_changed(self, muted: set[str]) -> None:
        if self.model is None:
            return
        seqs = list(self.judge.findings)
        self.model.judged_changed(seqs)
        if self.detail.current is not None:
            self.detail.show_event(self.detail.current)

    def _learn_catalog(self, events: list[Event]) -> None:
        changed = False
        for event in events:
            key = CATALOG_METHODS.get(event.data.get("request_method", ""))
            if key is None or event.kind != Kind.MESSAGE or event.rpc is None or event.rpc.kind != jsonrpc.RESPONSE:
                continue
            try:
                items = event.json().get("result", {}).get(key)
            except (ValueError, AttributeError):
                continue
            if isinstance(items, list):
                self.catalog[key] = [item for item in items if isinstance(item, dict)]
                changed = True
        if changed:
            self.composer.set_catalog(**self.catalog)

    def _tick(self) -> None:
        if self.model is not None:
            self.model.refresh_pending()

    def _state_changed(self, state: str, sentence: str) -> None:
        self._update_counts(state, sentence)
        if state in (CLOSED, FAILED):
            self._ticker.stop()
            if self.bridge is not None:
                self.bridge.flush_now()
            if self.model is not None:
                self.model.connection_ended()  # what is still pending will get no answer now
            self.composer.set_enabled_for_session(False)
            self.explorer.connection_ended()
            self.requests.cancel_all()  # nobody can answer them any more

    def _server_known(self, info: ServerInfo) -> None:
        self.explorer.server_ready()
        self.composer.set_revision(info.protocol_version or "2025-11-25")
        if info.name and not (self.live is not None and self.live.target.named_by_user):
            self.title = info.name
            self.title_changed.emit(info.name)

    def _update_counts(self, state: str | None = None, sentence: str | None = None) -> None:
        if self.live is None or self.live.session is None:
            return  # taps and captures say their own status
        state = state or self.live.state
        sentence = sentence if sentence is not None else self.live.sentence
        counts = self.live.session.counts
        info = self.live.server
        parts = [state]
        if sentence:
            parts[0] = f"{state}: {sentence}"
        if info is not None:
            name = " ".join(x for x in (info.name, info.version) if x)
            if name:
                parts.append(name)
            if info.protocol_version:
                parts.append(f"{info.protocol_version} ({info.era})")
            if info.capabilities:
                parts.append(", ".join(sorted(info.capabilities)))
        parts.append(f"{counts['c2s'] + counts['s2c']:,} messages ({counts['s2c']:,} in / {counts['c2s']:,} out)")
        if counts["framing_errors"]:
            parts.append(f"{counts['framing_errors']:,} framing errors")
        if counts["findings"]:
            parts.append(f"{counts['findings']:,} protocol findings")
        if counts["stderr"]:
            parts.append(f"{counts['stderr']:,} stderr lines")
        self.say(" · ".join(parts), failure=bool(sentence) and self.live.failure)

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

    # -- selection -------------------------------------------------------------------------------------

    def current_event(self) -> Event | None:
        index = self.table.currentIndex()
        return index.data(EVENT_ROLE) if index.isValid() else None

    def current_row(self) -> int | None:
        """The selected row of the model (not of the filter's view)."""
        index = self.table.currentIndex()
        if not index.isValid():
            return None
        if self.table.model() is self.proxy:
            index = self.proxy.mapToSource(index)
        return index.row() if index.isValid() else None

    def _row_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        event = current.data(EVENT_ROLE) if current.isValid() else None
        if event is None:
            self.detail.clear()
            return
        self.detail.show_event(event)
        if self.model is not None:
            self.model.set_highlight(self.pair_row())

    def pair_row(self) -> int | None:
        """The row paired with the selected one: the request a response answers, or the response a request
        got (from the timeline's columns: the same for a live session, a capture, a tap and a replay)."""
        row = self.current_row()
        return self.model.pair_row(row) if row is not None and self.model is not None else None

    def select_seq(self, seq: int) -> bool:
        assert self.model is not None
        row = self.model.row_of_seq(seq)
        return row is not None and self.select_row(row)

    def select_row(self, row: int) -> bool:
        """Select a row of the model (scrolled to; in the filtered view when it passes the filter)."""
        assert self.model is not None
        index = self.model.index(row, 0)
        if self.table.model() is self.proxy:
            index = self.proxy.mapFromSource(index)
        if not index.isValid():
            return False
        self.table.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        self.table.scrollTo(index)
        return True

    def jump_to_pair(self) -> None:
        pair = self.pair_row()
        if pair is not None:
            self.follow.setChecked(False)
            self.select_row(pair)

    def next_problem(self) -> None:
        """Select the next problem row (from the columns: no event is decoded to find it)."""
        if self.model is None:
            return
        start = self.table.currentIndex().row() + 1
        shown = self.table.model()
        if shown is self.model:
            row = self.model.columns.next_problem(start, self.model.rowCount())
        else:
            row = self.proxy.next_problem(start)
        if row is not None:
            self.follow.setChecked(False)
            self.table.setCurrentIndex(shown.index(row, 0))

    def cancel_selected(self) -> bool:
        """Cancel the selected request if it is still waiting: notifications/cancelled (or, on 2026-07-28
        HTTP, closing its stream), once however often it is asked. The request keeps its row, which says
        "cancelled"; the server's reaction (a late answer, paired) follows in the timeline."""
        event = self.current_event()
        if (self.live is None or self.live.session is None or event is None or event.rpc is None
                or event.dir != Direction.C2S or event.rpc.kind != jsonrpc.REQUEST or self.pair_row() is not None):
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
        event = self.current_event()
        if event is None or event.dir != Direction.C2S or event.kind not in (Kind.MESSAGE, Kind.FRAMING_ERROR) \
                or self.read_only:
            return False
        if event.kind == Kind.MESSAGE:
            self.composer.resend(pretty(event.raw))
        else:
            self.composer.resend((event.raw + event.eol).decode("utf-8", errors="replace"), raw=True)
        self.side.setCurrentWidget(self.composer)
        return True

    def copy_message(self) -> None:
        event = self.current_event()
        if event is not None:
            QGuiApplication.clipboard().setText(pretty(event.raw) if event.kind == Kind.MESSAGE else event.text())

    def _explorer_said(self, text: str, failure: bool) -> None:
        """The explorer's failures go to the status line, unless the session has ended: then the line keeps the
        session's own sentence (why it ended), which the explorer's failed listing only follows from."""
        if failure and (self.live is None or self.live.state not in (CLOSED, FAILED)):
            self.say(text, failure=True)

    def target(self) -> Target | None:
        """The server of this tab: the live session's target, or the one an opened capture names."""
        if self.live is not None:
            return self.live.target
        if self.capture_header is not None:
            return Target.from_capture_header(self.capture_header, self.title)
        return None

    def copy_as(self, kind: str) -> bool:
        """Copy the selected sent message as ``jsonrpc``, ``command`` (the mcp-inspector line that sends it
        again) or ``curl`` (HTTP sessions: with the headers the session sent). False, with a sentence in the
        status line, when the selection is not a message this can be done for."""
        event = self.current_event()
        if event is None or event.kind != Kind.MESSAGE or event.dir != Direction.C2S:
            self.say("select a message the inspector sent to copy it as a command")
            return False
        try:
            message = event.json()
        except ValueError:
            message = None
        target = self.target()
        if kind == "jsonrpc" and isinstance(message, (dict, list)):
            text = json.dumps(message, ensure_ascii=False, indent=2)
        elif kind == "command" and isinstance(message, dict) and target is not None:
            text = as_command(message, argv=target.argv, url=target.url, transport=target.transport)
        elif kind == "curl" and target is not None and target.is_http:
            exchange = event.data.get("exchange")
            http = next((e for e in self._exchange_events(exchange) if e.data.get("phase") != "end"), None) \
                if isinstance(exchange, int) else None
            recorded = http.data.get("request_headers") if http is not None else None
            headers = dict(recorded) if isinstance(recorded, dict) else {}
            if self.live is not None:  # this session's own secrets, in place of the capture's [redacted]
                real = {k.lower(): v for k, v in target.sent_headers().items()}
                headers = {k: real.get(k.lower(), v) if v == "[redacted]" else v for k, v in headers.items()}
            text = as_curl(event.raw, str(http.data.get("url")) if http is not None else target.url, headers)
        else:
            self.say("curl is for HTTP sessions; this one runs its server over stdio" if kind == "curl"
                     else "this message cannot be copied that way")
            return False
        QGuiApplication.clipboard().setText(text)
        self.say({"jsonrpc": "copied the message as JSON-RPC", "command": "copied the mcp-inspector command",
                  "curl": "copied the curl command"}[kind])
        return True

    def _timeline_menu(self, point: QPoint) -> None:
        menu = QMenu(self)
        for text, kind in (("Copy as JSON-RPC", "jsonrpc"), ("Copy as mcp-inspector command", "command"),
                           ("Copy as curl", "curl")):
            menu.addAction(text, functools.partial(self.copy_as, kind))
        menu.popup(self.table.viewport().mapToGlobal(point))

    def focus_filter(self) -> None:
        self.filter_text.setFocus()
        self.filter_text.selectAll()

    def _directions_changed(self) -> None:
        directions = set()
        if self.show_c2s.isChecked():
            directions.add(Direction.C2S)
        if self.show_s2c.isChecked():
            directions.add(Direction.S2C)
        self.set_filter(directions=directions)

    def set_filter(self, **changes: Any) -> None:
        """Change the filter; the view reads the model directly while nothing is filtered out (a flood then
        costs no filtering at all) and goes through the filter otherwise."""
        selected = self.current_event()
        self.proxy.configure(**changes)
        filtered = not self.proxy.is_default()
        if filtered and self.proxy.sourceModel() is not None:
            self.proxy.refilter()
        self._show(filtered=filtered)  # a new source filters once; back to unfiltered filters nothing
        if selected is not None and self.current_event() is None:
            self.select_seq(selected.seq)

    def _show(self, filtered: bool) -> None:
        if self.model is None:
            return
        wanted = self.proxy if filtered else self.model
        if self.table.model() is wanted:
            return
        selected = self.current_event()
        if filtered:
            self.proxy.setSourceModel(self.model)
        self.table.setModel(wanted)
        if not filtered:
            self.proxy.setSourceModel(None)  # an idle filter would still check every new row
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        if selected is not None:
            self.select_seq(selected.seq)

    def visible_events(self) -> list[Event]:
        shown = self.table.model()
        return [shown.index(row, 0).data(EVENT_ROLE) for row in range(shown.rowCount())]

    def _exchange_events(self, exchange: int) -> list[Event]:
        index = self.model.index_of_file if self.model is not None else None
        if self.model is None or index is None:
            return [e for e in self.events if e.kind == Kind.HTTP and e.data.get("exchange") == exchange][:4]
        # a capture (opened, or a live session's): only HTTP rows near the selection are decoded (an exchange's
        # events are close)
        current = self.current_event()
        row = self.model.row_of_seq(current.seq) if current is not None else 0
        row = row or 0
        http = self.model.columns.select(max(0, row - EXCHANGE_SEARCH_ROWS), row + EXCHANGE_SEARCH_ROWS,
                                         bytes(value & KIND_MASK == KIND_CODES[Kind.HTTP] for value in range(256)))
        found = (index.event(r) for r in http)
        return [e for e in found if e.data.get("exchange") == exchange][:4]

    # -- sending ---------------------------------------------------------------------------------------

    def _send(self, obj: dict[str, Any]) -> None:
        if self.live is not None and self.live.state == READY:
            self.tasks.spawn(self.live.send(obj), "sending the message")

    def _send_raw(self, data: bytes) -> None:
        if self.live is not None and self.live.state == READY:
            self.tasks.spawn(self.live.send_raw(data), "sending the text")

    async def close(self) -> None:  # type: ignore[override]  # not QWidget.close: ends the session first
        self._ticker.stop()
        self._loader.stop()
        self._loading_steps = None
        if self.live is not None:
            await self.live.stop()
            await self.explorer.close()
            await self.tasks.wait(CLOSE_GRACE)  # sends under way fail at once now: none is left half-sent
        index = self.model.index_of_file if self.model is not None else None  # an opened capture's, or a live one's
        if index is not None:
            index.close()
        if self.bridge is not None:
            self.bridge.flush_now()
            self.bridge.detach()
        session = self.live.session if self.live is not None else None
        if session is not None and self._judge_batch in session.listeners:
            session.listeners.remove(self._judge_batch)


def _loop_running() -> bool:
    """Whether the asyncio loop runs now (in the app always; a test that pumps Qt events alone has none, and
    then the work is done in place rather than left as a task nobody runs)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


__all__ = ["SessionTab"]


def _raw_pieces(index: CaptureIndex, event: Event) -> Iterator[bytes] | None:
    """All the raw bytes of a long line read back from a capture (None for an event held whole)."""
    return index.raw_pieces(event) if isinstance(event, PartialEvent) else None


def _wire_findings(events: list[Event]) -> list[ProtocolFinding]:
    """The findings the wire layer put on events (and framing errors), for the Problems panel."""
    out = []
    for event in events:
        if event.kind == Kind.FRAMING_ERROR:
            out.append(ProtocolFinding(event.seq, "framing", "error", str(event.reason or "")))
        for finding in event.findings:
            out.append(ProtocolFinding(event.seq, finding.code, finding.severity, finding.text))
    return out
