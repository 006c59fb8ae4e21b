"""Filtering the timeline: by direction, kind, method and free text, with stderr interleaved or hidden."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel

from ..core.events import Event, Kind
from .timeline_model import TimelineModel, is_problem

#: Free-text search looks at this much of each event's raw bytes (a 50 MB message is not scanned whole).
TEXT_SEARCH_BYTES = 64 * 1024


class TimelineFilter(QSortFilterProxyModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.directions: set[str] = {"c2s", "s2c"}
        self.show_stderr = True
        self.show_transport = True  # http, sse, lifecycle, notes
        self.problems_only = False
        self.method = ""
        self.text = ""

    def is_default(self) -> bool:
        """Whether the filter lets every row through."""
        return (self.directions >= {"c2s", "s2c"} and self.show_stderr and self.show_transport
                and not self.problems_only and not self.method and not self.text)

    def set(self, **changes: Any) -> None:
        self.beginFilterChange()
        for name, value in changes.items():
            setattr(self, name, value)
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        model = self.sourceModel()
        assert isinstance(model, TimelineModel)
        event: Event = model.events[source_row]
        kind = event.kind
        if kind == Kind.STDERR:
            if not self.show_stderr:
                return False
        elif kind in (Kind.HTTP, Kind.SSE, Kind.LIFECYCLE, Kind.NOTE):
            if not self.show_transport:
                return False
        elif event.dir is not None and event.dir not in self.directions:
            return False
        if self.problems_only and not is_problem(event):
            return False
        if self.method:
            method = (event.rpc.method or event.data.get("request_method") or "") if event.rpc else ""
            if self.method.lower() not in method.lower():
                return False
        if self.text:
            haystack = event.raw[:TEXT_SEARCH_BYTES].decode("utf-8", errors="replace")
            extra = " ".join(str(v) for v in (event.reason, event.data.get("text")) if v)
            if self.text.lower() not in (haystack + " " + extra).lower():
                return False
        return True
