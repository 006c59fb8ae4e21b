"""The timeline: a lazy Qt table model over a session's event list, or over a capture index.

Rows are never copied: the model reads ``events[row]`` and computes display text on demand (only visible
rows are asked for). A live session's list grows as events arrive; :meth:`TimelineModel.catch_up` (called
by the bridge at most ~30 times a second) announces the new rows in one batch. Summaries of visible rows
are cached, bounded, because a repaint asks for every cell again.

An opened capture is a :class:`~inspector.core.capture.index.CaptureIndex`: ``events[row]`` then decodes
that one line of the file, and the index grows as it scans, announced by the same :meth:`catch_up`. Either
way the model has :attr:`TimelineModel.columns` (kind, direction, problem, method per row) for the filter.
A live session in the window is a :class:`~inspector.core.capture.live.LiveIndex` (the capture it is writing,
with its recent events in memory): read like an opened capture, and its pending requests followed like a
live list's.

A request without an answer says where it stands ("pending N s", "waiting for your answer to ...", "cancelled",
"no answer (timed out)", ...): :class:`~inspector.core.present.request_states.RequestStates` works that out from
the events, without Qt; the model only turns it into the Latency cell's text.
"""

from __future__ import annotations

import functools
import html
import time
from collections import OrderedDict
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

from inspector.core.capture.columns import PROBLEM, Columns
from inspector.core.capture.index import CaptureIndex, IndexedEvents
from inspector.core.present.describe import (
    ARROWS,
    compact_seconds,
    describe_http,
    label,
    summary,
)
from inspector.core.present.request_states import RequestStates, is_sent_request
from inspector.core.protocol.judge import ProtocolFinding
from inspector.core.wire.correlation import TOOL_ERROR
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.ids import id_text
from inspector.core.wire.intercepted import UNDELIVERED, describe, mark_of, short
from inspector.core.wire.problems import ProblemBook

COLUMNS = ("#", "Time", "Δ", "", "Kind", "Method", "Id", "Latency", "Size", "Summary")
(COL_SEQ, COL_TIME, COL_DELTA, COL_DIR, COL_KIND, COL_METHOD, COL_ID, COL_LATENCY, COL_SIZE,
 COL_SUMMARY) = range(len(COLUMNS))
EVENT_ROLE = Qt.ItemDataRole.UserRole + 1
#: The widest text each column shows (before Summary, which takes the rest), to size the columns so that
#: numbers are never cut: a seq of a 10-million-event capture, 28 hours of session time, compact durations,
#: "pending 1.2 min", a size under 1024 KB. Text columns (Method, Id) may be cut (their tooltip and the detail
#: pane show all).
COLUMN_SAMPLES = ("0000000", "00000.000", "+00.0 min", "→", "notification", "notifications/progress", "00000",
                  "pending 00.0 min", "0000.0 KB")
#: The Latency cell of a request an intercept rule changed (its original) or dropped: it never reached the server.
NEVER_DELIVERED = "never delivered"
#: How many rows' summaries we keep computed.
SUMMARY_CACHE_ROWS = 4000

Index = QModelIndex | QPersistentModelIndex


_DISPLAY = Qt.ItemDataRole.DisplayRole
_FOREGROUND = Qt.ItemDataRole.ForegroundRole
_BACKGROUND = Qt.ItemDataRole.BackgroundRole
_ALIGN = Qt.ItemDataRole.TextAlignmentRole
_FONT = Qt.ItemDataRole.FontRole
_ROLES = frozenset({_DISPLAY, _FOREGROUND, _BACKGROUND, _ALIGN, _FONT, Qt.ItemDataRole.ToolTipRole, EVENT_ROLE})
_NUMERIC = frozenset({COL_SEQ, COL_TIME, COL_DELTA, COL_LATENCY, COL_SIZE})
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_BOLD = QFont()
_BOLD.setBold(True)
_PROBLEM_FOREGROUND = QBrush(QColor(220, 50, 47))
_PROBLEM_BACKGROUND = QBrush(QColor(220, 50, 47, 45))
#: The band that draws a span (a task's requests, a multi-round call's rounds) on its rows' first columns: two
#: tints, alternating from one span to the next so that neighbouring spans stay apart.
_SPAN_BANDS = (QBrush(QColor(70, 130, 220, 60)), QBrush(QColor(150, 90, 210, 60)))
_SPAN_COLUMNS = frozenset({COL_SEQ, COL_TIME, COL_DELTA, COL_DIR})
#: red text without the problem band: something failed (a tool, starting the server) but nobody broke the
#: protocol; the band (and "problems only") is for protocol problems
_FAILURE_FOREGROUND = _PROBLEM_FOREGROUND


@functools.lru_cache(maxsize=64)
def _brush(red: int, green: int, blue: int) -> QBrush:
    return QBrush(QColor(red, green, blue))


class TimelineModel(QAbstractTableModel):
    def __init__(self, events: list[Event] | None = None, *, live: bool = True, t0: float | None = None,
                 parent: Any = None, index: CaptureIndex | None = None) -> None:
        """``t0``: the session's monotonic start, to show how long pending requests have waited.
        ``index``: an opened capture (read-only; rows appear as the index scans, on :meth:`catch_up`), or the
        live index of a session being recorded (``index.live``: its rows appear as they arrive)."""
        super().__init__(parent)
        self.index_of_file = index
        self.events: Any = IndexedEvents(index) if index is not None else events if events is not None else []
        self.columns = index.columns if index is not None else Columns()
        self.live = live and (index is None or index.live)
        self.t0 = t0 if t0 is not None else time.monotonic()
        self._count = 0 if live or index is not None else len(self.events)
        self._summaries: OrderedDict[int, str] = OrderedDict()
        self.states = RequestStates()  #: where the unanswered requests stand (see the module's docstring)
        self.highlight_row: int | None = None  # the request (or response) paired with the selected row
        self._dark = False
        self._palette_checked = -1e9
        #: the session's problems kept beside the events (the judge's and the wire's), by seq, muted rules left
        #: out: they colour the rows by severity (set by the tab)
        self.problems: ProblemBook[ProtocolFinding] | None = None
        self._index_rows(0, self._count)

    # -- growth ----------------------------------------------------------------------------------------

    def catch_up(self) -> int:
        """Announce rows appended to ``events`` since the last call; returns how many."""
        total = len(self.events)
        if total <= self._count:
            return 0
        first = self._count
        self.beginInsertRows(QModelIndex(), first, total - 1)
        self._count = total
        answered = self._index_rows(first, total)
        self.endInsertRows()
        for row in answered:  # requests answered by the new rows: their latency cell changes
            cell = self.index(row, COL_LATENCY)
            self.dataChanged.emit(cell, cell)
        self._repaint_span_members()
        if self.index_of_file is not None and self.index_of_file.done:
            # a request near the end may have been paired by the last rows, and "no answer" is now final
            self.dataChanged.emit(self.index(0, COL_LATENCY), self.index(total - 1, COL_LATENCY))
        return total - first

    def _repaint_span_members(self) -> None:
        """Rows a span's opening note named (saved before the span was known): their cells change."""
        marked = self.columns.span_marked
        if marked:
            for row in marked:
                if row < self._count:
                    self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))
            marked.clear()

    def _index_rows(self, first: int, last: int) -> list[int]:
        """Columns for the new rows of a live session (an index has its own); returns the rows of the earlier
        requests whose latency cell they change (answered, cancelled, lost...)."""
        if self.index_of_file is not None and not self.live:
            return []
        # a live index filled its columns (and paired the rows) as the events arrived
        add_columns = self.columns.add_event if self.index_of_file is None else None
        partner = self.columns.partner
        observe = self.states.observe
        changed: list[int] = []
        for row in range(first, last):
            event = self.events[row]
            if add_columns is not None:
                request = add_columns(event)
            else:
                request = partner(row)
                if request is not None and request > row:
                    request = None
            changed.extend(observe(row, event, request, partner(row) is not None))
        return changed

    def connection_ended(self) -> None:
        """The connection is over (the session closed or failed): every request still pending says "no answer
        (connection closed)"."""
        for row in self.states.connection_ended():
            cell = self.index(row, COL_LATENCY)
            self.dataChanged.emit(cell, cell)

    def refresh_pending(self) -> None:
        """Repaint the elapsed time of pending requests (called once a second by the view); a request that was
        cancelled, lost or is waiting for the user does not count."""
        states = self.states
        for row in list(states.pending):
            if self.columns.partner(row) is not None:
                states.answered(row)
            elif states.unanswered(row) is not None:
                continue
            cell = self.index(row, COL_LATENCY)
            self.dataChanged.emit(cell, cell)

    def pair_row(self, row: int) -> int | None:
        """The row paired with ``row``: the response of a request, the request of a response (derived from the
        response's ``reply_to``, the same way for a live session and an opened capture)."""
        partner = self.columns.partner(row)
        return partner if partner is not None and partner < self._count else None

    def is_answered(self, row: int) -> bool:
        return self.pair_row(row) is not None
    def set_highlight(self, row: int | None) -> None:
        """Mark the row paired with the selection (its request, or its response)."""
        old, self.highlight_row = self.highlight_row, row
        for changed in (old, row):
            if changed is not None:
                self.dataChanged.emit(self.index(changed, 0), self.index(changed, len(COLUMNS) - 1))

    def row_of_seq(self, seq: int) -> int | None:
        row = self.columns.row_of_seq(seq)
        return row if row is not None and row < self._count else None

    def event(self, row: int) -> Event:  # type: ignore[override]  # a row's event, not QObject.event
        return self.events[row]

    # -- Qt model API ----------------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else self._count

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        return self.cell(index.row(), index.column(), role)

    def cell(self, row: int, column: int, role: int) -> Any:
        """``data()`` without a QModelIndex (the filter asks this way)."""
        # A repaint asks every visible cell for ~8 roles: answer the ones we ignore before anything else.
        if role not in _ROLES:
            return None
        if row >= self._count or row < 0:
            return None
        if role == _DISPLAY:
            return self._text(row, column, self.events[row])
        if role == _ALIGN:
            return _RIGHT if column in _NUMERIC else None
        if role == _FONT:
            return _BOLD if column == COL_DIR else None
        event = self.events[row]
        if role == EVENT_ROLE:
            return event
        if role == _FOREGROUND:
            judged = self._judged_severity(event.seq)
            if judged == "warning" and not self.columns.categories[row] & PROBLEM:
                return _brush(*((230, 170, 60) if self._dark_palette() else (154, 103, 0)))
            return self._foreground(event, column, bool(self.columns.categories[row] & PROBLEM) or judged == "error")
        if role == _BACKGROUND:
            if row == self.highlight_row:
                colour = QColor(QApplication.palette().color(QPalette.ColorRole.Highlight))
                colour.setAlpha(70)
                return QBrush(colour)
            problem = self.columns.categories[row] & PROBLEM or self._judged_severity(event.seq) == "error"
            if problem:
                return _PROBLEM_BACKGROUND
            span = self.columns.span_of_row.get(row)
            return _SPAN_BANDS[span % len(_SPAN_BANDS)] if span is not None and column in _SPAN_COLUMNS else None
        return self._tooltip(event, row)

    def _judged_severity(self, seq: int) -> str | None:
        """The worst severity of the problems kept beside event ``seq`` (muted rules left out)."""
        if self.problems is None:
            return None
        worst = None
        for finding in self.problems.of(seq):
            if finding.severity == "error":
                return "error"
            if finding.severity == "warning":
                worst = "warning"
        return worst

    def judged_changed(self, seqs: Any) -> None:
        """Findings about these events arrived (or a rule was muted): repaint their rows."""
        for seq in seqs:
            row = self.row_of_seq(seq)
            if row is not None and row < self._count:
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def _text(self, row: int, column: int, event: Event) -> str:
        if column == COL_SEQ:
            return str(event.seq)
        if column == COL_TIME:
            return f"{event.t:.3f}"
        if column == COL_DELTA:
            previous = self.events[row - 1].t if row else event.t
            delta = event.t - previous
            return "+0" if delta == 0 else ("+" if delta > 0 else "") + compact_seconds(delta)
        if column == COL_DIR:
            return ARROWS.get(event.dir, " ")
        if column == COL_KIND:
            return label(event)
        if column == COL_METHOD:
            rpc = event.rpc
            return (rpc.method or event.data.get("request_method") or "") if rpc else ""
        if column == COL_ID:
            rpc = event.rpc
            return id_text(rpc.id) if rpc is not None and rpc.has_id else ""
        if column == COL_LATENCY:
            return self._latency(row, event)
        if column == COL_SIZE:
            return _size(event.size) if event.raw else ""
        if column == COL_SUMMARY:
            span = self.columns.span(row)
            text = self._summary(row, event)
            return f"⟦{span[1].split(' (', 1)[0]}⟧ {text}" if span is not None else text
        return ""

    def _latency(self, row: int, event: Event) -> str:
        """A response's latency; a request's too, from its response; how long a pending request waits, or
        where it stands (see the module's docstring)."""
        latency = event.data.get("latency")
        late = ""
        found = mark_of(event.data) if event.data else None
        if found is not None and found.get("role") in UNDELIVERED:  # an intercept rule kept it from its peer: no
            return NEVER_DELIVERED  # answer can come to it, it is not pending
        if not isinstance(latency, (int, float)) and is_sent_request(event):
            partner = self.pair_row(row)
            if partner is not None:
                latency = self.events[partner].data.get("latency")
                late = self.states.late(row, partner) if self.states.any_stopped else ""
            elif row in self.states.pending:
                state = self.states.unanswered(row)
                if state is not None:
                    return state
                waited = time.monotonic() - self.t0 - event.t
                if event.rpc is not None and event.rpc.method == "subscriptions/listen":  # a stream: open, not late
                    return f"listening {compact_seconds(waited, whole=True)}" if self.live else "open at the end"
                return f"pending {compact_seconds(waited, whole=True)}" if self.live else "no answer"
            elif self.index_of_file is not None and self.index_of_file.done:
                return "no answer"
        elif self.states.any_stopped and isinstance(latency, (int, float)):  # was its request given up?
            late = self.states.late(self.pair_row(row), row)
        if isinstance(latency, (int, float)) and not isinstance(latency, bool):
            return f"{compact_seconds(latency)}{late}"
        return ""

    def _summary(self, row: int, event: Event) -> str:
        cached = self._summaries.get(row)
        if cached is not None:
            self._summaries.move_to_end(row)
            return cached
        text = summary(event)
        if event.kind == Kind.FRAMING_ERROR:
            text = f"{event.reason}"
        elif event.findings and event.kind != Kind.HTTP:
            text = f"{event.findings[0].text} · {text}"
        found = mark_of(event.data) if event.data else None
        if found is not None:  # an intercept rule or a breakpoint acted on it: one word first, the whole in the tooltip
            text = f"[{short(found)}] {text}"
        self._summaries[row] = text
        if len(self._summaries) > SUMMARY_CACHE_ROWS:
            self._summaries.popitem(last=False)
        return text

    def _foreground(self, event: Event, column: int, problem: bool) -> QBrush | None:
        """Red for problems and failures (a failure note, a tool error), amber for other warnings; transport
        events are blue, stderr grey, and the inspector's own notes plain (a note is not a failure)."""
        if problem:
            return _PROBLEM_FOREGROUND
        dark = self._dark_palette()
        if event.kind == Kind.NOTE:
            return _FAILURE_FOREGROUND if event.data.get("failure") is True else None
        if event.findings:
            if any(f.code == TOOL_ERROR for f in event.findings):
                return _FAILURE_FOREGROUND
            return _brush(*((230, 170, 60) if dark else (154, 103, 0)))  # a warning (CR LF, a 200 for a 202)
        if event.kind == Kind.STDERR:
            return _brush(*((150, 150, 150) if dark else (110, 110, 110)))
        if event.kind in (Kind.LIFECYCLE, Kind.HTTP, Kind.SSE):
            return _brush(*((120, 160, 220) if dark else (40, 90, 160)))
        if column == COL_DIR and event.dir == Direction.C2S:
            return _brush(*((80, 200, 120) if dark else (20, 130, 60)))
        if column == COL_DIR and event.dir == Direction.S2C:
            return _brush(*((230, 170, 60) if dark else (170, 100, 0)))
        return None

    def _dark_palette(self) -> bool:
        """Whether the palette is dark; asked once per repaint batch, not per cell."""
        now = time.monotonic()
        if now - self._palette_checked > 1.0:
            self._palette_checked = now
            self._dark = QApplication.palette().color(QPalette.ColorRole.Base).lightness() < 128
        return self._dark

    def _tooltip(self, event: Event, row: int = -1) -> str | None:
        lines = []
        span = self.columns.span(row) if row >= 0 else None
        if span is not None:
            lines.append(f"part of {span[1]}: {len(self.columns.span_rows(span[0]))} rows of this timeline belong "
                         "to it")
        if event.reason:
            lines.append(event.reason)
        found = mark_of(event.data) if event.data else None
        if found is not None:
            lines.append(describe(found))
        lines.extend(f"{'!' if f.severity == 'error' else '~'} {f.text}" for f in event.findings)
        if self.problems is not None:
            lines.extend(f"{'!' if f.severity == 'error' else '~'} {f.text}" for f in self.problems.of(event.seq)
                         if not any(f.text == own.text for own in event.findings))
        if event.kind == Kind.HTTP:
            lines.append(describe_http(event.data))
        if not lines:
            return None
        return plain_tooltip("\n".join(lines))


def plain_tooltip(text: str) -> str:
    """Tooltips are sniffed for rich text (Qt::mightBeRichText); server text like ``<b>x</b>`` must show as
    typed, so we make the tooltip rich text ourselves, with every character escaped."""
    return "<p style='white-space:pre-wrap'>" + html.escape(text) + "</p>"


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / 1024 / 1024:.1f} MB"


__all__ = ["COLUMNS", "EVENT_ROLE", "TimelineModel"]
