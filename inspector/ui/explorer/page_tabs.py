"""The Explorer's tabs: each page scrolls inside its tab when the screen gives it less height than its widgets
need, instead of pushing that need onto the window (a QTabWidget asks for the largest minimum of all its pages,
hidden ones included: the Resources page's 359 px made the window taller than a 2x screen, issue 27)."""

from __future__ import annotations

from PySide6.QtWidgets import QScrollArea, QTabWidget, QWidget

from inspector.ui.scrolling import VerticalScroller


class PageTabs(QTabWidget):
    """A QTabWidget whose pages are added with :meth:`add_page`; ``setCurrentWidget``, ``currentWidget`` and
    ``indexOf`` take and give the pages themselves, not the scroll areas around them."""

    def add_page(self, page: QWidget, title: str) -> int:
        """Add ``page`` under ``title``, in a scroll area that gives it all the room there is; its tab index."""
        return self.addTab(VerticalScroller(page, self), title)

    def _scroller_of(self, page: QWidget) -> QWidget:
        for index in range(self.count()):
            scroller = super().widget(index)
            if isinstance(scroller, QScrollArea) and scroller.widget() is page:
                return scroller
        return page

    def setCurrentWidget(self, widget: QWidget) -> None:
        super().setCurrentWidget(self._scroller_of(widget))

    def indexOf(self, widget: QWidget) -> int:
        return super().indexOf(self._scroller_of(widget))

    def currentWidget(self) -> QWidget:
        return inner_page(super().currentWidget())

    def widget(self, index: int) -> QWidget:
        return inner_page(super().widget(index))


def inner_page(widget: QWidget | None) -> QWidget:
    """The page in the scroll area ``widget`` (``widget`` itself when it is not one)."""
    inner = widget.widget() if isinstance(widget, QScrollArea) else widget
    assert inner is not None, "a page of the Explorer's tabs"
    return inner
