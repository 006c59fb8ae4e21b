"""The layout the replay result and the Compare view share: a summary line with an "open the timeline" button
above, a list of what differs on the left, the two sides and the list of differences on the right."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QSplitter, QVBoxLayout, QWidget


def lay_out_comparison(owner: QWidget, listing: QWidget, sides: QWidget, differences: QWidget, summary: QWidget,
                       open_button: QWidget, listing_width: int) -> None:
    """Give ``owner`` that layout; ``listing_width`` is the list's share of the splitter (against 900)."""
    right = QWidget(owner)
    right_layout = QVBoxLayout(right)
    right_layout.setContentsMargins(0, 0, 0, 0)
    right_layout.addWidget(sides, 1)
    right_layout.addWidget(differences)
    body = QSplitter(Qt.Orientation.Horizontal, owner)
    body.addWidget(listing)
    body.addWidget(right)
    body.setSizes([listing_width, 900])
    top = QHBoxLayout()
    top.addWidget(summary, 1)
    top.addWidget(open_button)
    layout = QVBoxLayout(owner)
    layout.addLayout(top)
    layout.addWidget(body, 1)
