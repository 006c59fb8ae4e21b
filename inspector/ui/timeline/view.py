"""The timeline as a person uses it: the filter bar, the table, its columns sized to fit, selection and
navigation (the pair of a request or response, the next problem, a row by its seq).

:class:`TimelineView` owns those widgets and what they do; the tab places them (the filter bar across the top,
the table in its splitter) and listens to :attr:`TimelineView.selected`. It reads a
:class:`~inspector.ui.timeline.model.TimelineModel` directly while nothing is filtered out (a flood then costs
no filtering at all) and goes through :class:`~inspector.ui.timeline.filter.TimelineFilter` otherwise.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QCheckBox, QHeaderView, QLineEdit, QStyle, QTableView, QWidget

from inspector.core.capture.columns import KIND_CODES, KIND_MASK
from inspector.core.wire.events import Direction, Event, Kind
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
from inspector.ui.wrap_row import WrapRow

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


class TimelineView(QObject):
    """The filter bar and the table of one tab (widgets parented to ``host``, placed by it)."""

    selected = Signal(object)  #: the selected row's event (None when the selection went away)
    said = Signal(str)  #: a sentence for the status line (a jump that the filter keeps from its row)

    def __init__(self, host: QWidget) -> None:
        super().__init__(host)
        self.model: TimelineModel | None = None
        self._build_filter_bar(host)
        self._build_table(host)

    def _build_filter_bar(self, host: QWidget) -> None:
        self.filter_text = QLineEdit(host)
        self.filter_text.setPlaceholderText("Filter: text in messages (Ctrl+F)")
        self.filter_method = QLineEdit(host)
        self.filter_method.setPlaceholderText("method")
        # legible at any scale: never narrower than the placeholder (the filter bar wraps instead)
        metrics = host.fontMetrics()
        unit = metrics.horizontalAdvance("0")
        self.filter_text.setMinimumWidth(metrics.horizontalAdvance(self.filter_text.placeholderText()) + 2 * unit)
        self.filter_method.setMinimumWidth(unit * METHOD_FILTER_CHARS)
        self.filter_method.setMaximumWidth(unit * 26)
        self.show_c2s = QCheckBox("→ sent", host)
        self.show_s2c = QCheckBox("← received", host)
        self.show_stderr = QCheckBox("stderr", host)
        self.show_transport = QCheckBox("transport", host)
        self.problems_only = QCheckBox("problems only", host)
        self.follow = QCheckBox("follow", host)
        for box in (self.show_c2s, self.show_s2c, self.show_stderr, self.show_transport, self.follow):
            box.setChecked(True)
        self.filter_bar = WrapRow()
        self.filter_bar.add_leading(self.filter_text, 2)
        self.filter_bar.add_leading(self.filter_method, 1)
        for box in (self.show_c2s, self.show_s2c, self.show_stderr, self.show_transport, self.problems_only,
                    self.follow):
            self.filter_bar.add_trailing(box)
        self.filter_text.textChanged.connect(lambda text: self.set_filter(text=text))
        self.filter_method.textChanged.connect(lambda text: self.set_filter(method=text))
        self.show_c2s.toggled.connect(self._directions_changed)
        self.show_s2c.toggled.connect(self._directions_changed)
        self.show_stderr.toggled.connect(lambda on: self.set_filter(show_stderr=on))
        self.show_transport.toggled.connect(lambda on: self.set_filter(show_transport=on))
        self.problems_only.toggled.connect(lambda on: self.set_filter(problems_only=on))

    def _build_table(self, host: QWidget) -> None:
        self.proxy = TimelineFilter(self)
        self.table = QTableView(host)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        rows = self.table.verticalHeader()
        rows.hide()
        # fixed row heights: Qt then never measures rows, which matters with hundreds of thousands of them
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(host.fontMetrics().height() + 6)
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
        # a row the person clicks stays under the pointer: new rows no longer scroll the table (follow stops)
        self.table.pressed.connect(lambda _index: self.follow.setChecked(False))

    # -- the model -------------------------------------------------------------------------------------

    def set_model(self, model: TimelineModel) -> None:
        self.model = model
        self._show(filtered=False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(COL_SUMMARY, QHeaderView.ResizeMode.Stretch)
        self.fit_columns()

    def catch_up(self) -> int:
        """Show the rows that arrived since last time (followed to the bottom when ``follow`` is on); returns
        the first new row."""
        assert self.model is not None
        first = self.model.rowCount()
        if self.model.catch_up() and self.follow.isChecked():
            self.table.scrollToBottom()
        self.refit_if_wider()
        return first

    # -- columns ---------------------------------------------------------------------------------------

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
            unit = self.table.fontMetrics().horizontalAdvance("0")
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

    def refit_if_wider(self) -> None:
        if self.model is not None and self._number_extent() != self._fitted_extent:  # a number got a digit longer
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

    def min_width(self) -> int:
        """The least width the timeline shows every column in without scrolling sideways: the number columns
        whole, the text columns at their minimums, Summary at :data:`SUMMARY_MIN_CHARS` digits."""
        unit = self.table.fontMetrics().horizontalAdvance("0")
        wanted = self._wanted_widths() if self.model is not None else \
            [unit * chars + COLUMN_PADDING for chars in COLUMN_CHARS]
        least = sum(wanted[column] if column in NUMBER_COLUMNS else unit * chars + COLUMN_MIN_PADDING
                    for column, chars in enumerate(COLUMN_MIN_CHARS))
        scrollbar = self.table.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, self.table)
        return least + unit * SUMMARY_MIN_CHARS + scrollbar + 2 * self.table.frameWidth()

    # -- selection -------------------------------------------------------------------------------------

    def current_event(self) -> Event | None:
        index = self.table.currentIndex()
        event: Event | None = index.data(EVENT_ROLE) if index.isValid() else None
        return event

    def current_row(self) -> int | None:
        """The selected row of the model (not of the filter's view)."""
        index = self.table.currentIndex()
        if not index.isValid():
            return None
        if self.table.model() is self.proxy:
            index = self.proxy.mapToSource(index)
        return index.row() if index.isValid() else None

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        event = current.data(EVENT_ROLE) if current.isValid() else None
        if event is not None and self.model is not None:
            self.model.set_highlight(self.pair_row())
        self.selected.emit(event)

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
        """Ctrl+J: select the response of the selected request, or the request of the selected response; a
        partner the filter hides is said, not silently skipped."""
        current = self.current_event()
        pair = self.pair_row()
        if pair is None:
            if current is not None and current.rpc is not None and current.rpc.kind in ("request", "response",
                                                                                         "error"):
                self.said.emit("this message has no partner in the timeline (no answer yet, or it answers "
                               "nothing)")
            return
        self.follow.setChecked(False)
        if not self.select_row(pair):
            partner = "response" if current is not None and current.rpc is not None \
                and current.rpc.kind == "request" else "request"
            seq = self.model.event(pair).seq if self.model is not None else "?"
            self.said.emit(f"its {partner} (#{seq}) is hidden by the filter: clear the filter to jump to it")

    def next_problem(self) -> None:
        """Select the next problem row (from the columns: no event is decoded to find it); after the last one,
        the first again, said in the status line, as is a timeline with none."""
        if self.model is None:
            return
        start = self.table.currentIndex().row() + 1
        shown = self.table.model()
        model = self.model

        def find(first: int) -> int | None:
            return model.columns.next_problem(first, model.rowCount()) if shown is model else \
                self.proxy.next_problem(first)

        row = find(start)
        if row is None and start > 0:
            row = find(0)
            if row is not None:
                self.said.emit("no problem after this row: back to the first")
        if row is None:
            hidden = " the filter shows" if shown is not model else ""
            self.said.emit(f"no problem in the rows{hidden}: nothing to go to")
            return
        self.follow.setChecked(False)
        self.table.setCurrentIndex(shown.index(row, 0))

    def visible_events(self) -> list[Event]:
        shown = self.table.model()
        return [shown.index(row, 0).data(EVENT_ROLE) for row in range(shown.rowCount())]

    def exchange_events(self, exchange: int) -> list[Event]:
        """The HTTP events of exchange ``exchange`` (at most its request and answer phases)."""
        if self.model is None:
            return []
        index = self.model.index_of_file
        if index is None:
            return [e for e in self.model.events if e.kind == Kind.HTTP and e.data.get("exchange") == exchange][:4]
        # a capture (opened, or a live session's): only HTTP rows near the selection are decoded (an exchange's
        # events are close)
        current = self.current_event()
        row = self.model.row_of_seq(current.seq) if current is not None else 0
        row = row or 0
        http = self.model.columns.select(max(0, row - EXCHANGE_SEARCH_ROWS), row + EXCHANGE_SEARCH_ROWS,
                                         bytes(value & KIND_MASK == KIND_CODES[Kind.HTTP] for value in range(256)))
        found = (index.event(r) for r in http)
        return [e for e in found if e.data.get("exchange") == exchange][:4]

    # -- filtering -------------------------------------------------------------------------------------

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
        """Change the filter; the view reads the model directly while nothing is filtered out and goes through
        the filter otherwise. The selected event stays selected when it passes."""
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
