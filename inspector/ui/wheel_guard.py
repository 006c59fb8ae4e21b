"""Drop-downs and spin boxes that a mouse wheel changes only once they have the keyboard focus.

Scrolling a form with the wheel must scroll the form: Qt's own drop-downs and spin boxes take every wheel
event that passes over them and change their value, so a person scrolling down a long form edits whatever
field slides under the pointer. :func:`guard_wheel` makes such a widget take the wheel only while it has the
focus (clicked or tabbed into); otherwise the wheel goes to the scroll area around it, as for any other widget.
"""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QWidget

W = TypeVar("W", bound=QWidget)


class _WheelGuard(QObject):
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.Wheel or not isinstance(watched, QWidget) or watched.hasFocus():
            return False
        area = _scroll_area_around(watched)
        if area is not None:  # the page scrolls, as over any other widget
            QCoreApplication.sendEvent(area.verticalScrollBar(), event)
        return True


def _scroll_area_around(widget: QWidget) -> QAbstractScrollArea | None:
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea):
            return parent
        parent = parent.parentWidget()
    return None


def guard_wheel(widget: W) -> W:
    """``widget`` (a drop-down, a spin box) changed by the wheel only while focused; returns it."""
    widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # the wheel does not give it the focus either
    guard = _WheelGuard(widget)
    widget.installEventFilter(guard)
    return widget
