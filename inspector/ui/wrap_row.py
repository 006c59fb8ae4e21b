"""A row of widgets that wraps onto a second line instead of squeezing: the tab's filter bar.

With a QHBoxLayout, a narrow window (a small screen, or 1.5x and 2x scaling) squeezes the text boxes until
their placeholder reads "Fil…", because the check boxes beside them cannot shrink. :class:`WrapRow` keeps the
leading widgets (the text boxes) at least at their minimum widths: when the trailing ones (the check boxes)
do not fit beside them, they move to a second line of their own.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget, QWidgetItem

#: Between widgets and between the two lines, when the style does not say.
DEFAULT_SPACING = 6


class WrapRow(QLayout):
    """Leading widgets share the first line by their stretch factors, never below their minimum widths (and
    never above their maximum widths); the trailing widgets, at their preferred widths, follow on the same
    line when there is room, else on a second line."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._leading: list[tuple[QLayoutItem, int]] = []
        self._trailing: list[QLayoutItem] = []
        self.setContentsMargins(0, 0, 0, 0)

    # -- filling ---------------------------------------------------------------------------------------

    def add_leading(self, widget: QWidget, stretch: int = 1) -> None:
        self.addChildWidget(widget)
        self._leading.append((QWidgetItem(widget), stretch))
        self.invalidate()

    def add_trailing(self, widget: QWidget) -> None:
        self.addChildWidget(widget)
        self._trailing.append(QWidgetItem(widget))
        self.invalidate()

    def wrapped(self) -> bool:
        """Whether the trailing widgets are on a line of their own now."""
        return not self._fits_one_line(self.geometry().width() - self._margins_width())

    # -- QLayout ---------------------------------------------------------------------------------------

    def addItem(self, item: QLayoutItem) -> None:  # a widget added the plain way trails
        self._trailing.append(item)

    def count(self) -> int:
        return len(self._leading) + len(self._trailing)

    def itemAt(self, index: int) -> QLayoutItem | None:
        items = self._items()
        return items[index] if 0 <= index < len(items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        if 0 <= index < len(self._leading):
            return self._leading.pop(index)[0]
        index -= len(self._leading)
        return self._trailing.pop(index) if 0 <= index < len(self._trailing) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation.Horizontal

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        inner = width - self._margins_width()
        height = self._line_height(self._leading_items())
        if self._fits_one_line(inner):
            height = max(height, self._line_height(self._trailing))
        else:
            height += self._spacing() + self._line_height(self._trailing)
        margins = self.contentsMargins()
        return height + margins.top() + margins.bottom()

    def minimumSize(self) -> QSize:
        """As narrow as either line allows (wrapped), as tall as one line: heightForWidth adds the second."""
        margins = self.contentsMargins()
        width = max(self._leading_min(), self._trailing_width())
        return QSize(width + self._margins_width(),
                     self._line_height(self._items()) + margins.top() + margins.bottom())

    def sizeHint(self) -> QSize:
        margins = self.contentsMargins()
        leading = sum(item.sizeHint().width() for item in self._leading_items()) + \
            self._spacing() * max(0, len(self._leading) - 1)
        return QSize(leading + self._spacing() + self._trailing_width() + self._margins_width(),
                     self._line_height(self._items()) + margins.top() + margins.bottom())

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        margins = self.contentsMargins()
        inner = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        spacing = self._spacing()
        one_line = self._fits_one_line(inner.width())
        trailing = self._trailing_width()
        leading_space = inner.width() - (spacing + trailing if one_line else 0)
        first = self._line_height(self._items() if one_line else self._leading_items())
        x = inner.x()
        for (item, _), width in zip(self._leading, self._share(leading_space), strict=True):
            self._place(item, x, inner.y(), width, first)
            x += width + spacing
        if one_line:
            y, height = inner.y(), first
        else:
            x, y, height = inner.x(), inner.y() + first + spacing, self._line_height(self._trailing)
        for item in self._trailing:
            width = item.sizeHint().width()
            self._place(item, x, y, width, height)
            x += width + spacing

    # -- internals -------------------------------------------------------------------------------------

    def _items(self) -> list[QLayoutItem]:
        return self._leading_items() + self._trailing

    def _leading_items(self) -> list[QLayoutItem]:
        return [item for item, _ in self._leading]

    def _spacing(self) -> int:
        spacing = self.spacing()
        return spacing if spacing >= 0 else DEFAULT_SPACING

    def _margins_width(self) -> int:
        margins = self.contentsMargins()
        return margins.left() + margins.right()

    def _leading_min(self) -> int:
        return sum(item.minimumSize().width() for item in self._leading_items()) + \
            self._spacing() * max(0, len(self._leading) - 1)

    def _trailing_width(self) -> int:
        return sum(item.sizeHint().width() for item in self._trailing) + \
            self._spacing() * max(0, len(self._trailing) - 1)

    def _fits_one_line(self, width: int) -> bool:
        return self._leading_min() + self._spacing() + self._trailing_width() <= width

    @staticmethod
    def _line_height(items: list[QLayoutItem]) -> int:
        return max((item.sizeHint().height() for item in items), default=0)

    def _share(self, space: int) -> list[int]:
        """The leading widgets' widths in ``space``: each its minimum, the rest by stretch up to each maximum."""
        widths = [item.minimumSize().width() for item in self._leading_items()]
        rest = space - sum(widths) - self._spacing() * max(0, len(widths) - 1)
        open_ = [i for i, (item, stretch) in enumerate(self._leading) if stretch > 0]
        while rest > 0 and open_:
            total = sum(self._leading[i][1] for i in open_)
            given = 0
            for i in list(open_):
                item, stretch = self._leading[i]
                room = item.maximumSize().width() - widths[i]
                add = min(room, rest * stretch // total)
                widths[i] += add
                given += add
                if add >= room:
                    open_.remove(i)
            if given == 0:  # less than one pixel per stretch unit is left: to the first that takes it
                first = open_[0]
                widths[first] += min(rest, self._leading[first][0].maximumSize().width() - widths[first])
                break
            rest -= given
        return widths

    @staticmethod
    def _place(item: QLayoutItem, x: int, y: int, width: int, height: int) -> None:
        hint = item.sizeHint().height()
        item.setGeometry(QRect(x, y + max(0, (height - hint) // 2), width, min(hint, height) if hint else height))
