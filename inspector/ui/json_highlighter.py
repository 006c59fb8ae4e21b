"""JSON syntax colours for QPlainTextEdit documents, from pygments' JSON lexer.

Colours follow the palette: a dark base gets light colours and a light base dark ones, so text stays
readable under the system's light and dark themes. Each line (block) is lexed on its own: JSON strings
cannot span lines, so no state has to be carried between blocks. Pygments counts characters (code points)
and Qt counts UTF-16 units; lines with characters outside the BMP (emoji) are mapped between the two.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette, QSyntaxHighlighter, QTextCharFormat, QTextDocument

#: Lines longer than this are left uncoloured: lexing a 10 MB single-line message would freeze the window.
MAX_LINE_CHARS = 20_000

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
        super().__init__(document)
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

    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt's name)
        if not text or len(text) > MAX_LINE_CHARS:
            return
        wide = any(ord(ch) > 0xFFFF for ch in text)
        offsets = _utf16_offsets(text) if wide else None
        for index, token, value in self._lexer.get_tokens_unprocessed(text):
            kind = _kind(token)
            if kind is None or not value:
                continue
            start, end = index, index + len(value)
            if offsets is not None:
                start, end = offsets[start], offsets[end]
            self.setFormat(start, end - start, self._formats[kind])


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
