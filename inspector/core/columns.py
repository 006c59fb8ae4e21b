"""Compact per-event columns: what the timeline filters and jumps on, a few bytes per event.

A capture of a million events cannot be a million :class:`~inspector.core.events.Event` objects in a window
that must stay responsive (and answer a filter in a fraction of a second). What the timeline needs for every
row, whether or not it is on screen, is small: the kind, the direction, whether it is a problem, and the
method. :class:`Columns` keeps exactly that, five bytes a row, in ``bytearray`` and ``array``
columns, and :meth:`Columns.select` answers a filter with C-level loops (``bytes.translate``,
``itertools.compress``) instead of a Python call per row.

Both timelines use it: a live session appends a row per event as they arrive, and a capture index
(:mod:`inspector.core.capture.index`) fills it while scanning the file. Everything else about an event is
read from the event itself, for the rows on screen only.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from itertools import compress

from .events import Direction, Event, Kind

#: Kind codes (the low 3 bits of a category byte); any other kind is OTHER_KIND.
KIND_CODES = {Kind.MESSAGE: 0, Kind.FRAMING_ERROR: 1, Kind.STDERR: 2, Kind.LIFECYCLE: 3, Kind.NOTE: 4,
              Kind.HTTP: 5, Kind.SSE: 6}
OTHER_KIND = 7
KIND_MASK = 0x07
#: Direction codes, shifted by DIR_SHIFT: none, c2s, s2c, anything else.
DIR_CODES = {None: 0, Direction.C2S: 1, Direction.S2C: 2}
OTHER_DIR = 3
DIR_SHIFT = 3
#: The event is a problem: a framing error, or a finding of severity "error".
PROBLEM = 0x20
#: The raw bytes were not valid UTF-8 (``raw_b64`` in the capture): a text search cannot see them in the file.
BINARY = 0x40
TRANSPORT_KINDS = frozenset({KIND_CODES[Kind.HTTP], KIND_CODES[Kind.SSE], KIND_CODES[Kind.LIFECYCLE],
                             KIND_CODES[Kind.NOTE]})


def is_problem(event: Event) -> bool:
    return event.kind == Kind.FRAMING_ERROR or any(f.severity == "error" for f in event.findings)


def method_of(event: Event) -> str:
    """The timeline's method column: the message's method, or for a response the method of its request."""
    rpc = event.rpc
    return (rpc.method or event.data.get("request_method") or "") if rpc else ""


def category(kind: str, direction: str | None, problem: bool, binary: bool = False) -> int:
    """One byte that says what the filter asks of an event (see the constants above)."""
    return (KIND_CODES.get(kind, OTHER_KIND) | (DIR_CODES.get(direction, OTHER_DIR) << DIR_SHIFT)
            | (PROBLEM if problem else 0) | (BINARY if binary else 0))


def category_of(event: Event) -> int:
    return category(event.kind, event.dir, is_problem(event))


def category_table(*, directions: Iterable[str] = (Direction.C2S, Direction.S2C), show_stderr: bool = True,
                   show_transport: bool = True, problems_only: bool = False) -> bytes:
    """For each of the 256 category bytes, 1 when the timeline filter lets such an event through.

    The rules of the window's filter: stderr lines and transport events (HTTP, SSE, lifecycle, notes) have
    their own switches; every other event is shown when its direction is (or when it has none).
    """
    wanted = {DIR_CODES[d] for d in directions if d in DIR_CODES}
    table = bytearray(256)
    for value in range(256):
        kind = value & KIND_MASK
        direction = (value >> DIR_SHIFT) & 0x03
        if kind == KIND_CODES[Kind.STDERR]:
            ok = show_stderr
        elif kind in TRANSPORT_KINDS:
            ok = show_transport
        else:
            ok = direction == 0 or direction in wanted
        if problems_only and not value & PROBLEM:
            ok = False
        table[value] = ok
    return bytes(table)


class Columns:
    """The per-row filter columns of a timeline. Rows are only ever appended."""

    __slots__ = ("categories", "methods", "method_names", "_method_ids")

    def __init__(self) -> None:
        self.categories = bytearray()  #: one category byte per row
        self.methods = array("I")  #: method id per row, an index into method_names (0 is "")
        self.method_names: list[str] = [""]
        self._method_ids: dict[str, int] = {"": 0}

    def __len__(self) -> int:
        return len(self.categories)

    def method_id(self, name: str) -> int:
        found = self._method_ids.get(name)
        if found is None:
            found = self._method_ids[name] = len(self.method_names)
            self.method_names.append(name)
        return found

    def add(self, category_byte: int, method: str) -> None:
        self.categories.append(category_byte)
        self.methods.append(self.method_id(method))

    def add_event(self, event: Event) -> None:
        self.add(category_of(event), method_of(event))

    def method(self, row: int) -> str:
        return self.method_names[self.methods[row]]

    def select(self, start: int, stop: int, categories_ok: bytes, method_ok: bytes | None = None) -> array[int]:
        """Rows in ``[start, stop)`` whose category byte is accepted by ``categories_ok`` (a 256-byte table
        of 0/1) and, when ``method_ok`` is given, whose method id ``i`` has ``method_ok[i] == 1``."""
        stop = min(stop, len(self.categories))
        if start >= stop:
            return array("q")
        mask = self.categories[start:stop].translate(categories_ok)
        if method_ok is not None:
            by_method = bytes(map(method_ok.__getitem__, self.methods[start:stop]))
            width = stop - start
            mask = (int.from_bytes(mask, "little") & int.from_bytes(by_method, "little")).to_bytes(width, "little")
        return array("q", compress(range(start, stop), mask))

    def method_table(self, needle: str) -> bytes:
        """For each method id, 1 when the method contains ``needle`` (case-insensitively)."""
        needle = needle.lower()
        return bytes(needle in name.lower() for name in self.method_names)

    def next_problem(self, start: int, stop: int | None = None) -> int | None:
        """The first row at or after ``start`` (before ``stop``) that is a problem."""
        stop = len(self.categories) if stop is None else min(stop, len(self.categories))
        if start >= stop:
            return None
        found = self.categories[start:stop].translate(_PROBLEM_TABLE).find(1)
        return None if found < 0 else start + found


_PROBLEM_TABLE = bytes(1 if value & PROBLEM else 0 for value in range(256))
