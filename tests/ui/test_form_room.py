"""FormRoom (inspector/ui/session/room.py): while the server waits for the user, the answer form's panes take most
of the tab's height and the side panel the detail pane's width; after the last answer the user's sizes come back."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QWidget

from inspector.ui.session.room import FORM_SHARE, FormRoom


def splitters(qtbot) -> tuple[QSplitter, QSplitter]:
    column = QSplitter(Qt.Orientation.Vertical)
    lower = QSplitter(Qt.Orientation.Horizontal)
    lower.addWidget(QWidget())
    lower.addWidget(QWidget())
    column.addWidget(QWidget())
    column.addWidget(lower)
    qtbot.addWidget(column)
    column.resize(1000, 800)
    column.show()
    column.setSizes([500, 300])
    lower.setSizes([600, 400])
    return column, lower


def test_a_waiting_request_gives_the_form_the_room_and_the_last_answer_gives_the_users_sizes_back(qtbot):
    column, lower = splitters(qtbot)
    before = column.sizes(), lower.sizes()
    room = FormRoom(column, lower)
    room.follow(1)
    assert room.taken
    assert lower.sizes()[0] == 0, "the detail pane folded: the side panel has the width"
    assert abs(column.sizes()[1] - FORM_SHARE * sum(before[0])) <= 2, column.sizes()
    room.follow(2)  # a second request changes nothing more
    room.follow(0)
    assert (column.sizes(), lower.sizes()) == before and not room.taken


def test_nothing_moves_while_nothing_waits(qtbot):
    column, lower = splitters(qtbot)
    before = column.sizes(), lower.sizes()
    FormRoom(column, lower).follow(0)
    assert (column.sizes(), lower.sizes()) == before
