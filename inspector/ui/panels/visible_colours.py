"""JSON colours for a big document, only on the lines on screen (issue 17).

A QSyntaxHighlighter colours every line of a document as it is inserted, and again when it is attached to a
filled one: for 50 MB of text that is many seconds of lexing on the event loop. :class:`VisibleColours` colours
a line only when it is about to be shown (after a scroll, a resize or new text), with the same lexer
(:meth:`JsonHighlighter.spans`), and remembers which lines it did. A line continuing a string folded at the end
of the line before needs that line's state; the formatter said which lines do
(:attr:`inspector.core.present.json_tree.Formatted.states`), so any line can be coloured on its own.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QTextLayout
from PySide6.QtWidgets import QPlainTextEdit

from inspector.ui.json_highlighter import JsonHighlighter

#: Lines below the last one on screen coloured in advance, so a small scroll shows colours at once.
AHEAD_LINES = 20


class VisibleColours(QObject):
    """Colours the lines of ``editor`` that are on screen, once each, until :meth:`stop`."""

    def __init__(self, editor: QPlainTextEdit, highlighter: JsonHighlighter) -> None:
        super().__init__(editor)
        self.editor = editor
        self.highlighter = highlighter
        self.states: dict[int, int] = {}
        self.coloured: set[int] = set()
        self.active = False
        #: text is still being appended: the last line may not be whole yet, so it waits
        self.open_end = False
        self._soon = QTimer(self)
        self._soon.setSingleShot(True)
        self._soon.setInterval(0)
        self._soon.timeout.connect(self.colour_visible)
        editor.updateRequest.connect(self._changed)
        editor.verticalScrollBar().valueChanged.connect(self._changed)

    def start(self, states: dict[int, int]) -> None:
        """Colour the editor's document from now on; ``states`` as in ``Formatted.states``."""
        self.states = states
        self.coloured = set()
        self.active = True
        self._soon.start()

    def stop(self) -> None:
        self.active = False
        self.states = {}
        self.coloured = set()
        self._soon.stop()

    def _changed(self, *_: object) -> None:
        if self.active and not self._soon.isActive():
            self._soon.start()  # not from inside the editor's own update: colouring re-lays out the lines

    def colour_visible(self) -> int:
        """Colour the lines on screen not coloured yet; how many were."""
        if not self.active:
            return 0
        editor = self.editor
        document = editor.document()
        block = editor.firstVisibleBlock()
        bottom = editor.viewport().height()
        top = editor.blockBoundingGeometry(block).translated(editor.contentOffset()).top()
        done = 0
        extra = AHEAD_LINES
        while block.isValid() and extra > 0:
            if top > bottom:
                extra -= 1
            number = block.blockNumber()
            if number not in self.coloured and not (self.open_end and not block.next().isValid()):
                self.coloured.add(number)
                text = block.text()
                spans, _ = self.highlighter.spans(text, self.states.get(number, 0))
                if spans:
                    ranges = []
                    for start, length, kind in spans:
                        run = QTextLayout.FormatRange()
                        run.start, run.length, run.format = start, length, self.highlighter.format_for(kind)
                        ranges.append(run)
                    block.layout().setFormats(ranges)
                    document.markContentsDirty(block.position(), block.length())
                    done += 1
            top += editor.blockBoundingRect(block).height()
            block = block.next()
        return done
