"""Pretty-printing JSON a piece at a time: for messages too big to parse and indent in one go.

:class:`PrettyPrinter` re-indents JSON text as it is fed, in the layout of ``json.dumps(indent=2)``, without
parsing it: it follows strings, brackets, commas and colons, and copies every other token as written. So it
works on a prefix of a message (the preview of a 50 MB result), on a message fed in slices (showing all of
it without freezing the window), and on broken JSON (it indents what it can). Lines longer than
:data:`FOLD_CHARS` are folded, each fold marked with :data:`FOLD_MARK` at the end of the line: an editor
lays out a line of millions of characters very slowly, and one of a few thousand at once.
"""

from __future__ import annotations

import codecs
import re

#: Longer lines are folded: the rest goes on the next line, after FOLD_MARK and a newline.
FOLD_CHARS = 4096
FOLD_MARK = "\u21a9"  # ↩

_IN_STRING = re.compile(r'[^"\\]+')
_OUTSIDE = re.compile(r'\s+|[{}\[\],:"\\]|[^\s{}\[\],:"\\]+')


class PrettyPrinter:
    """Feed bytes (UTF-8; undecodable bytes become U+FFFD), get indented text back."""

    def __init__(self, indent: int = 2, fold: int = FOLD_CHARS) -> None:
        self.indent = indent
        self.fold = fold
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._depth = 0
        self._in_string = False
        self._escape = False  # the last character was a backslash inside a string
        self._opened = False  # a bracket was just opened: a newline is due unless it closes at once
        self._column = 0  # characters on the current output line
        self._out: list[str] = []

    def feed(self, data: bytes) -> str:
        self._text(self._decoder.decode(data))
        return self._take()

    def close(self) -> str:
        self._text(self._decoder.decode(b"", final=True))
        return self._take()

    # -- internals -------------------------------------------------------------------------------------

    def _take(self) -> str:
        text = "".join(self._out)
        self._out.clear()
        return text

    def _emit(self, text: str) -> None:
        fold = self.fold
        start = 0  # cut by position: copying the rest after each fold is quadratic in a 50 MB string
        while self._column + len(text) - start > fold:
            room = fold - self._column
            self._out.append(text[start:start + room])
            self._out.append(FOLD_MARK + "\n")
            start += room
            self._column = 0
        self._out.append(text[start:] if start else text)
        self._column += len(text) - start

    def _newline(self) -> None:
        pad = " " * (self.indent * self._depth)
        self._out.append("\n")
        self._column = 0
        self._emit(pad)

    def _text(self, text: str) -> None:
        position, end = 0, len(text)
        while position < end:
            if self._in_string:
                if self._escape:
                    self._emit(text[position])
                    self._escape = False
                    position += 1
                    continue
                run = _IN_STRING.match(text, position)
                if run is not None:
                    self._emit(run.group())
                    position = run.end()
                    continue
                char = text[position]
                self._emit(char)
                position += 1
                if char == "\\":
                    self._escape = True
                else:  # the closing quote
                    self._in_string = False
                continue
            token = _OUTSIDE.match(text, position)
            assert token is not None  # the pattern matches any character
            position = token.end()
            value = token.group()
            first = value[0]
            if first.isspace():
                continue
            if first in "}]":
                self._depth = max(0, self._depth - 1)
                if self._opened:
                    self._opened = False
                else:
                    self._newline()
                self._emit(value)
                continue
            if self._opened:
                self._opened = False
                self._newline()
            if first in "{[":
                self._emit(value)
                self._depth += 1
                self._opened = True
            elif first == ",":
                self._emit(",")
                self._newline()
            elif first == ":":
                self._emit(": ")
            elif first == '"':
                self._emit('"')
                self._in_string = True
            else:
                self._emit(value)


def pretty_text(data: bytes, fold: int = FOLD_CHARS) -> str:
    """All of ``data`` re-indented (see :class:`PrettyPrinter`)."""
    printer = PrettyPrinter(fold=fold)
    return printer.feed(data) + printer.close()


def fold_text(text: str, fold: int = FOLD_CHARS) -> str:
    """``text`` with lines longer than ``fold`` folded, marked as :class:`PrettyPrinter` marks them."""
    lines = []
    for line in text.split("\n"):
        cut = 0  # by position, never copying the rest of a long line again and again
        while len(line) - cut > fold:
            lines.append(line[cut:cut + fold] + FOLD_MARK)
            cut += fold
        lines.append(line[cut:] if cut else line)
    return "\n".join(lines)


def unfold(text: str) -> str:
    """Undo the folding of :class:`PrettyPrinter` and :func:`fold_text`."""
    return text.replace(FOLD_MARK + "\n", "")
