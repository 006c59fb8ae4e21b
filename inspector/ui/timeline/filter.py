"""Filtering the timeline: by direction, kind, method and free text, with stderr interleaved or hidden.

The filter is a table of source rows, not a QSortFilterProxyModel: that one asks a Python
``filterAcceptsRow`` once per row, about a second per million rows. Here direction, kind, problems and
method are answered from the source's :class:`~inspector.core.capture.columns.Columns` with C-level loops (a
method filter over a million rows takes a fraction of a second), and only free text looks at the events
themselves. Text search over an opened capture first looks for the text in the file (one pass over the
bytes) and decodes only the lines that have it; it runs in slices, so the rows appear as they are found
and the window never freezes. New rows of a growing source (a live session, a capture still loading) are
filtered as they are announced.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)

from inspector.core.capture.columns import PROBLEM_TABLE, RowSet, category_table
from inspector.core.wire.events import Event
from inspector.ui.timeline.model import TimelineModel

#: Free-text search looks at this much of each event's raw bytes (a 50 MB message is not scanned whole).
TEXT_SEARCH_BYTES = 64 * 1024
#: A text search runs for at most this long at a time before letting the window repaint.
TEXT_SLICE_SECONDS = 0.03
#: Rows checked per step of a text search over events in memory.
TEXT_STEP_ROWS = 2000

Index = QModelIndex | QPersistentModelIndex


def text_matches(event: Event, needle: str) -> bool:
    """Whether ``needle`` (lower case) is in the event's text: its raw bytes, reason or note."""
    haystack = event.raw[:TEXT_SEARCH_BYTES].decode("utf-8", errors="replace")
    extra = " ".join(str(v) for v in (event.reason, event.data.get("text")) if v)
    return needle in (haystack + " " + extra).lower()


def _file_searchable(needle: str) -> bool:
    """Whether every event containing ``needle`` has it, byte for byte, in its capture line (ASCII-lowercased).
    True for printable ASCII without the characters JSON escapes (``"`` and ``\\``)."""
    return bool(needle) and all(32 <= ord(ch) < 127 for ch in needle) and '"' not in needle and "\\" not in needle


class TimelineFilter(QAbstractTableModel):
    #: a text search finished (it may take several slices over a big capture)
    search_finished = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.directions: set[str] = {"c2s", "s2c"}
        self.show_stderr = True
        self.show_transport = True  # http, sse, lifecycle, notes
        self.problems_only = False
        self.method = ""
        self.text = ""
        self._source: TimelineModel | None = None
        self._rows = RowSet()
        self._search: Iterator[None] | None = None  # a text search still running
        self._searched = 0  # source rows the running search has covered
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._continue_search)

    # -- settings ---------------------------------------------------------------------------------------

    def is_default(self) -> bool:
        """Whether the filter lets every row through."""
        return (self.directions >= {"c2s", "s2c"} and self.show_stderr and self.show_transport
                and not self.problems_only and not self.method and not self.text)

    def set(self, **changes: Any) -> None:
        self.configure(**changes)
        self._refilter()

    def configure(self, **changes: Any) -> None:
        """Change the settings without filtering again (call :meth:`refilter`, or set a source, next)."""
        for name, value in changes.items():
            setattr(self, name, value)

    def refilter(self) -> None:
        self._refilter()

    @property
    def searching(self) -> bool:
        """A text search is still going through the rows."""
        return self._search is not None

    def sourceModel(self) -> TimelineModel | None:
        return self._source

    def setSourceModel(self, model: TimelineModel | None) -> None:
        if self._source is not None:
            self._source.rowsInserted.disconnect(self._source_rows_inserted)
            self._source.dataChanged.disconnect(self._source_data_changed)
            self._source.modelReset.disconnect(self._refilter)
        self._source = model
        if model is not None:
            model.rowsInserted.connect(self._source_rows_inserted)
            model.dataChanged.connect(self._source_data_changed)
            model.modelReset.connect(self._refilter)
        self._refilter()

    # -- computing rows ---------------------------------------------------------------------------------

    def _matching(self, start: int, stop: int) -> bytes:
        """The mask of the source rows in ``[start, stop)`` that pass everything but the text."""
        assert self._source is not None
        columns = self._source.columns
        stop = min(stop, len(columns))
        if self.is_default():
            return b"\1" * max(0, stop - start)
        table = category_table(directions=self.directions, show_stderr=self.show_stderr,
                               show_transport=self.show_transport, problems_only=self.problems_only)
        return columns.mask(start, stop, table, columns.method_table(self.method) if self.method else None)

    def _refilter(self) -> None:
        self._stop_search()
        self.beginResetModel()
        self._rows = RowSet()
        if self._source is not None:
            if self.text:
                self._search = self._text_search(0)
            else:
                self._rows = RowSet(self._matching(0, self._source.rowCount()))
        self.endResetModel()
        if self._search is not None:
            self._continue_search()

    def _source_rows_inserted(self, parent: Index, first: int, last: int) -> None:
        if self._search is not None:
            return  # the running search goes on to the new rows
        if self.text:
            self._search = self._text_search(first)
            self._continue_search()
            return
        self._append(self._matching(first, last + 1))

    def _append(self, mask: bytes) -> None:
        """Append the verdicts on the next source rows; announce the rows that passed."""
        before = len(self._rows)
        added = mask.count(1)
        if added:
            self.beginInsertRows(QModelIndex(), before, before + added - 1)
        self._rows.extend(mask)
        if added:
            self.endInsertRows()

    def _source_data_changed(self, top: QModelIndex, bottom: QModelIndex, roles: Any = ()) -> None:
        first, stop = self._rows.rank_range(top.row(), bottom.row())
        if first < stop:
            self.dataChanged.emit(self.index(first, top.column()), self.index(stop - 1, bottom.column()))

    # -- text search ------------------------------------------------------------------------------------

    def _text_search(self, start: int) -> Iterator[None]:
        """Check rows from ``start`` on, appending matches; yields between steps."""
        assert self._source is not None
        needle = self.text.lower()
        source = self._source
        index = source.index_of_file
        position = start
        while position < source.rowCount():
            stop = source.rowCount()
            hits: list[int] | range
            if index is not None and _file_searchable(needle):
                hits, stop = index.rows_containing(needle.encode("ascii"), position, stop)
            else:
                stop = min(stop, position + TEXT_STEP_ROWS)
                hits = range(position, stop)
            wanted = self._matching(position, stop)
            events = source.events
            verdicts = bytearray(stop - position)
            for row in hits:
                if wanted[row - position] and text_matches(events[row], needle):
                    verdicts[row - position] = 1
            self._append(bytes(verdicts))
            position = stop
            self._searched = position
            yield

    def _continue_search(self) -> None:
        if self._search is None:
            return
        deadline = time.perf_counter() + TEXT_SLICE_SECONDS
        try:
            next(self._search)
            while time.perf_counter() < deadline:
                next(self._search)
        except StopIteration:
            self._search = None
            self._timer.stop()
            self.search_finished.emit()
            return
        if not self._timer.isActive():
            self._timer.start()

    def _stop_search(self) -> None:
        self._search = None
        self._timer.stop()

    # -- mapping ----------------------------------------------------------------------------------------

    def source_row(self, row: int) -> int:
        return self._rows.row(row)

    def next_problem(self, row: int) -> int | None:
        """The first shown row from ``row`` on that is a problem (masks, not a loop over the rows)."""
        if self._source is None or row >= len(self._rows):
            return None
        start = self._rows.row(max(0, row))
        mask = self._rows.mask[start:]
        problems = self._source.columns.categories[start:start + len(mask)].translate(PROBLEM_TABLE)
        both = (int.from_bytes(mask, "little") & int.from_bytes(problems, "little")).to_bytes(len(mask), "little")
        found = both.find(1)
        return None if found < 0 else self._rows.rank(start + found)

    def mapToSource(self, index: Index) -> QModelIndex:
        if not index.isValid() or self._source is None or index.row() >= len(self._rows):
            return QModelIndex()
        return self._source.index(self._rows.row(index.row()), index.column())

    def mapFromSource(self, index: Index) -> QModelIndex:
        if not index.isValid():
            return QModelIndex()
        row = self._rows.rank(index.row())
        return self.index(row, index.column()) if row is not None else QModelIndex()

    # -- Qt model API -----------------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() or self._source is None else self._source.columnCount()

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        return self._source.headerData(section, orientation, role) if self._source is not None else None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = index.row()
        if self._source is None or not 0 <= row < len(self._rows):
            return None
        return self._source.cell(self._rows.row(row), index.column(), role)


__all__ = ["TEXT_SEARCH_BYTES", "TimelineFilter", "text_matches"]
