"""JSON syntax colours for QPlainTextEdit documents, from pygments' JSON lexer.

Colours follow the palette: a dark base gets light colours and a light base dark ones, so text stays
readable under the system's light and dark themes. Each line (block) is lexed on its own: JSON strings
cannot span lines, so no state has to be carried between blocks, except across a fold: a long line folded by
:mod:`inspector.core.present.pretty` (marked ↩) may end inside a string, and the block state says so; the next
block's text up to the closing quote is coloured as a string without lexing (a 50 MB string is thousands of
such blocks). Pygments counts characters (code points) and Qt counts UTF-16 units; lines with characters
outside the BMP (emoji) are mapped between the two.
"""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtGui import (
    QColor,
    QFont,
    QGuiApplication,
    QPalette,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
)

from inspector.core.present.pretty import FOLD_MARK

#: Lines longer than this are left uncoloured: lexing a 10 MB single-line message would freeze the window.
MAX_LINE_CHARS = 20_000
#: Block states: the block ends inside a string (folded there), and the same right after a backslash.
IN_STRING, IN_STRING_ESCAPED = 1, 2
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(")?')
_STRING_REST = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*"')

#: (light-background colour, dark-background colour) per token kind.
COLOURS: dict[str, tuple[str, str]] = {
    "key": ("#0b57a4", "#8cc8ff"),
    "string": ("#1a7f37", "#9ad79a"),
    "number": ("#a14f00", "#f2b36f"),
    "constant": ("#7a3ec8", "#d2a8ff"),
    "comment": ("#6e7781", "#8b949e"),
    "error": ("#cf222e", "#ff7b72"),
}


def is_dark(palette: QPalette) -> bool:
    """Whether text is shown on a dark background in this palette."""
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


_KIND_OF: dict[Any, str | None] = {}


def _kind(token: Any) -> str | None:
    kind = _KIND_OF.get(token, "?")
    if kind == "?":
        kind = _KIND_OF[token] = _token_kind(token)
    return kind


def _token_kind(token: Any) -> str | None:
    # pygments is imported by the first highlighter, not with the window (benchmarks/startup.py)
    from pygments.token import Comment, Error, Keyword, Name, Number, String

    if token in Name.Tag:
        return "key"
    if token in String:
        return "string"
    if token in Number:
        return "number"
    if token in Keyword:
        return "constant"
    if token in Comment:
        return "comment"
    if token in Error:
        return "error"
    return None  # punctuation and whitespace keep the editor's own colour


class JsonHighlighter(QSyntaxHighlighter):
    """Colours JSON in ``document``; call :meth:`set_palette` when the widget's palette changes."""

    def __init__(self, document: QTextDocument | None = None, palette: QPalette | None = None) -> None:
        super().__init__(document)  # type: ignore[arg-type]  # PySide6 takes None; its stub does not say so
        from pygments.lexers.data import JsonLexer

        self._lexer = JsonLexer()
        self._formats: dict[str, QTextCharFormat] = {}
        self._make_formats(palette or QGuiApplication.palette())

    @property
    def dark(self) -> bool:
        return self._dark

    def set_palette(self, palette: QPalette) -> None:
        """Pick colours for ``palette``'s background and recolour the document if they changed."""
        if is_dark(palette) != self._dark:
            self._make_formats(palette)
            self.rehighlight()

    def _make_formats(self, palette: QPalette) -> None:
        self._dark = is_dark(palette)
        self._formats = {}
        for kind, (light, dark) in COLOURS.items():
            fmt = QTextCharFormat()
            fmt.setForeground(QColor(dark if self._dark else light))
            if kind == "comment":
                fmt.setFontItalic(True)
            if kind == "error":
                fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
                fmt.setUnderlineColor(QColor(dark if self._dark else light))
            if kind == "key":
                fmt.setFontWeight(QFont.Weight.DemiBold)
            self._formats[kind] = fmt

    def format_for(self, kind: str) -> QTextCharFormat:
        """The format used for a token kind (``key``, ``string``, ``number``, ``constant``, ``comment``, ``error``)."""
        return self._formats[kind]

    def highlightBlock(self, text: str) -> None:
        spans, state = self.spans(text, self.previousBlockState())
        self.setCurrentBlockState(state)
        for start, length, kind in spans:
            self.setFormat(start, length, self._formats[kind])

    def spans(self, text: str, previous: int) -> tuple[list[tuple[int, int, str]], int]:
        """The coloured runs of one line, ``(start, length, kind)`` in UTF-16 units as Qt counts, given the
        state the line before ended in (:data:`IN_STRING`, :data:`IN_STRING_ESCAPED` or anything else); and
        the state this line ends in."""
        out: list[tuple[int, int, str]] = []
        if not text:
            return out, 0
        folded = text.endswith(FOLD_MARK)
        body = text[:-1] if folded else text
        wide = max(text) > "\uffff"
        offsets = _utf16_offsets(text) if wide else None

        def colour(start: int, end: int, kind: str) -> None:
            if offsets is not None:
                start, end = offsets[start], offsets[end]
            if end > start:
                out.append((start, end - start, kind))

        start = 0
        if previous in (IN_STRING, IN_STRING_ESCAPED):  # the rest of a string folded at the previous line's end
            end = _string_end(body, 1 if previous == IN_STRING_ESCAPED and body else 0)
            if end is None:
                colour(0, len(body), "string")
                state = (IN_STRING_ESCAPED if _ends_escaped(body) else IN_STRING) if folded else 0
                return out, state
            colour(0, end, "string")
            start = end
        rest = body[start:]
        if len(rest) > MAX_LINE_CHARS:
            return out, 0
        open_at = _open_string(rest) if folded else None
        lexed = rest if open_at is None else rest[:open_at]
        for index, token, value in self._lexer.get_tokens_unprocessed(lexed):
            kind = _kind(token)
            if kind is None or not value:
                continue
            colour(start + index, start + index + len(value), kind)
        if open_at is not None:
            colour(start + open_at, len(body), "string")
            return out, IN_STRING_ESCAPED if _ends_escaped(body) else IN_STRING
        return out, 0


def _string_end(text: str, start: int) -> int | None:
    """Just after the quote that closes a string running from ``start``; None when it runs to the end."""
    quote = text.find('"', start)
    if text.find("\\", start, quote if quote >= 0 else len(text)) < 0:  # no escapes: the first quote closes it
        return quote + 1 if quote >= 0 else None
    found = _STRING_REST.match(text, start)
    return found.end() if found is not None else None


def _open_string(text: str) -> int | None:
    """Where the string left open at the end of ``text`` starts, if one is."""
    opened = None
    for match in _STRING.finditer(text):
        opened = match.start() if match.group(1) is None else None
    return opened


def _ends_escaped(text: str) -> bool:
    return (len(text) - len(text.rstrip("\\"))) % 2 == 1


def _utf16_offsets(text: str) -> list[int]:
    """UTF-16 offset of each code point index (and of the end)."""
    offsets = [0] * (len(text) + 1)
    position = 0
    for i, ch in enumerate(text):
        offsets[i] = position
        position += 2 if ord(ch) > 0xFFFF else 1
    offsets[len(text)] = position
    return offsets


__all__ = ["JsonHighlighter", "is_dark", "COLOURS"]
