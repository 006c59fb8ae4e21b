"""A pane that scrolls up and down rather than make the window taller than the screen (issue 27: answering an
elicitation at 1280x720 made the window 774 px tall; at 2x the Explorer's pages did). Sideways it asks for the
width its content needs, as the content would without it: text is not hidden behind a second scroll bar while the
window has that width. Where it does not (the window never grows past the screen, issue 39), a scroll bar reaches
what would be cut off."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget


class VerticalScroller(QScrollArea):
    """``content`` given all the room there is, scrolled vertically when that is less than its minimum height (and
    sideways when the window gives it less than its minimum width)."""

    def __init__(self, content: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setWidget(content)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        content = self.widget()
        if content is not None:
            needed = content.minimumSizeHint().width() + self.verticalScrollBar().sizeHint().width()
            hint.setWidth(max(hint.width(), needed))
        return hint
