"""Room for an answer form: while the server waits for the user, the tab's lower panes take most of the height and
the side panel (where the answer form is) the width of the detail pane; once nothing waits, the user's own sizes
come back (issue 27: at the default size the form showed one and a half fields until a splitter was dragged)."""

from __future__ import annotations

from PySide6.QtWidgets import QSplitter

#: the share of the timeline's column the answer form's panes take while the server waits
FORM_SHARE = 0.7


class FormRoom:
    """Gives ``lower`` (detail pane | side panel) most of ``column`` (timeline over ``lower``) and the side panel all
    of ``lower`` while a request waits; gives the sizes back as they were when the last answer is sent."""

    def __init__(self, column: QSplitter, lower: QSplitter) -> None:
        self._column = column
        self._lower = lower
        self._saved: tuple[list[int], list[int]] | None = None

    @property
    def taken(self) -> bool:
        """Whether the form has the room now (the user's sizes are kept to be given back)."""
        return self._saved is not None

    def follow(self, waiting: int) -> None:
        """``waiting`` server requests wait for the user: take the room on the first, give it back after the last."""
        if waiting and self._saved is None:
            self._take()
        elif not waiting and self._saved is not None:
            column, lower = self._saved
            self._saved = None
            self._column.setSizes(column)
            self._lower.setSizes(lower)

    def _take(self) -> None:
        column, lower = self._column.sizes(), self._lower.sizes()
        self._saved = (column, lower)
        height, width = sum(column), sum(lower)
        if height > 0:
            self._column.setSizes([round(height * (1 - FORM_SHARE)), round(height * FORM_SHARE)])
        if width > 0:
            self._lower.setSizes([0, width])
