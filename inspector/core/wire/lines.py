"""Byte-exact splitting of a free-form text stream (a server's stderr) into lines, with a length cap.

Unlike :mod:`inspector.core.wire.framing` nothing is parsed: a line is just bytes. A line longer than
``max_line_bytes`` is cut into pieces (each with an empty terminator), so a server that floods stderr without
newlines neither exhausts memory nor stalls the display, and ``raw + eol`` of all pieces is still the input.
"""

from __future__ import annotations

#: stderr lines longer than this are delivered in pieces of this size.
DEFAULT_MAX_TEXT_LINE = 64 * 1024


class TextLineSplitter:
    def __init__(self, max_line_bytes: int = DEFAULT_MAX_TEXT_LINE) -> None:
        if max_line_bytes < 1:
            raise ValueError("max_line_bytes must be positive")
        self.max_line_bytes = max_line_bytes
        self._partial = bytearray()

    def feed(self, data: bytes) -> list[tuple[bytes, bytes]]:
        """Return the ``(line, terminator)`` pairs completed by ``data``."""
        out: list[tuple[bytes, bytes]] = []
        start = 0
        while True:
            nl = data.find(b"\n", start)
            if nl < 0:
                self._partial += data[start:]
                while len(self._partial) > self.max_line_bytes:  # exactly the limit may still get its newline
                    out.append((bytes(self._partial[: self.max_line_bytes]), b""))
                    del self._partial[: self.max_line_bytes]
                return out
            self._partial += data[start:nl]
            start = nl + 1
            line = bytes(self._partial)
            self._partial.clear()
            while len(line) > self.max_line_bytes:
                out.append((line[: self.max_line_bytes], b""))
                line = line[self.max_line_bytes :]
            if line.endswith(b"\r"):
                out.append((line[:-1], b"\r\n"))
            else:
                out.append((line, b"\n"))

    def close(self) -> list[tuple[bytes, bytes]]:
        if not self._partial:
            return []
        rest = bytes(self._partial)
        self._partial.clear()
        return [(rest, b"")]
