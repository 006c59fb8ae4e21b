"""Compact per-event columns: what the timeline filters and jumps on, a few bytes per event.

A capture of a million events cannot be a million :class:`~inspector.core.wire.events.Event` objects in a window
that must stay responsive (and answer a filter in a fraction of a second). What the timeline needs for every
row, whether or not it is on screen, is small: the kind, the direction, whether it is a problem, the method,
and which row it is paired with. :class:`Columns` keeps exactly that, about nine bytes a row, in
``bytearray`` and ``array`` columns, and :meth:`Columns.select` answers a filter with C-level loops
(``bytes.translate``, ``itertools.compress``) instead of a Python call per row.

Pairing is derived here, never written onto events: a saved event does not change. A response carries the
seq of the request it answers (``data.reply_to``, set by the correlator before the response is saved); when
its row is added, :meth:`Columns.pair` links both rows. So a live session, an opened capture, a tap capture
and a replay pair the same way, from what the file holds.

Both timelines use it: a live session appends a row per event as they arrive, and a capture index
(:mod:`inspector.core.capture.index`) fills it while scanning the file. Everything else about an event is
read from the event itself, for the rows on screen only.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterable
from itertools import compress

from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.problems import event_severity

#: Kind codes (the low 3 bits of a category byte); any other kind is OTHER_KIND.
KIND_CODES = {Kind.MESSAGE: 0, Kind.FRAMING_ERROR: 1, Kind.STDERR: 2, Kind.LIFECYCLE: 3, Kind.NOTE: 4,
              Kind.HTTP: 5, Kind.SSE: 6}
OTHER_KIND = 7
KIND_MASK = 0x07
#: Direction codes, shifted by DIR_SHIFT: none, c2s, s2c, anything else.
DIR_CODES = {None: 0, Direction.C2S: 1, Direction.S2C: 2}
OTHER_DIR = 3
DIR_SHIFT = 3
#: The event breaks a MUST by what it carries: a framing error of the server's, or a finding of severity error
#: (:func:`inspector.core.wire.problems.event_severity`): the red band.
PROBLEM = 0x20
#: The raw bytes were not valid UTF-8 (``raw_b64`` in the capture): a text search cannot see them in the file.
BINARY = 0x40
#: The event is a problem of any severity: it breaks a SHOULD by what it carries, or the protocol judge found it
#: breaks a rule not muted (set and cleared by the window, from its
#: :class:`~inspector.core.wire.problems.ProblemBook`).
FLAGGED = 0x80
#: Either way, a problem: what "problems only" and F8 look for.
PROBLEM_BITS = PROBLEM | FLAGGED
TRANSPORT_KINDS = frozenset({KIND_CODES[Kind.HTTP], KIND_CODES[Kind.SSE], KIND_CODES[Kind.LIFECYCLE],
                             KIND_CODES[Kind.NOTE]})


def is_problem(event: Event) -> bool:
    """A broken MUST by what the event carries (the PROBLEM bit)."""
    return event_severity(event) == "error"


def method_of(event: Event) -> str:
    """The timeline's method column: the message's method, or for a response the method of its request."""
    rpc = event.rpc
    return (rpc.method or event.data.get("request_method") or "") if rpc else ""


def category(kind: str, direction: str | None, problem: bool, binary: bool = False) -> int:
    """One byte that says what the filter asks of an event (see the constants above)."""
    return (KIND_CODES.get(kind, OTHER_KIND) | (DIR_CODES.get(direction, OTHER_DIR) << DIR_SHIFT)
            | (PROBLEM if problem else 0) | (BINARY if binary else 0))


def reply_to_of(event: Event) -> int | None:
    """The seq of the request this event answers, if the correlator paired it."""
    reply_to = event.data.get("reply_to")
    return reply_to if type(reply_to) is int else None


def category_of(event: Event) -> int:
    severity = event_severity(event)
    return category(event.kind, event.dir, severity == "error") | (FLAGGED if severity == "warning" else 0)


def category_table(*, directions: Iterable[str] = (Direction.C2S, Direction.S2C), show_stderr: bool = True,
                   show_transport: bool = True, problems_only: bool = False) -> bytes:
    """For each of the 256 category bytes, 1 when the timeline filter lets such an event through.

    The rules of the window's filter: stderr lines and transport events (HTTP, SSE, lifecycle, notes) have
    their own switches; the app lane is always shown; every other event is shown when its direction is (or
    when it has none).
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
        elif kind == OTHER_KIND:  # the MCP Apps lane (a2h, h2a) and kinds of newer versions: no wire direction
            ok = True
        else:
            ok = direction == 0 or direction in wanted
        if problems_only and not value & PROBLEM_BITS:
            ok = False
        table[value] = ok
    return bytes(table)


class Columns:
    """The per-row filter columns of a timeline. Rows are only ever appended."""

    __slots__ = ("categories", "methods", "small_methods", "method_names", "_method_ids", "partners",
                 "_run_rows", "_run_seqs", "next_seq", "_ordered", "span_of_row", "span_labels", "_span_numbers",
                 "span_marked")

    def __init__(self) -> None:
        self.categories = bytearray()  #: one category byte per row
        self.methods = array("I")  #: method id per row, an index into method_names (0 is "")
        #: the method id as one byte (255 for ids from 255 on): while a timeline has fewer than 255 methods,
        #: the method filter is one bytes.translate
        self.small_methods = bytearray()
        self.method_names: list[str] = [""]
        self._method_ids: dict[str, int] = {"": 0}
        #: per row, how far away its paired row is (the response of a request, the request of a response;
        #: negative: earlier), 0 when it has none (yet). Only as long as the last paired row needs: a capture
        #: index appends rows without touching it.
        self.partners = array("i")
        # seq -> row: runs of consecutive seqs (usually one run: seq = row + 1), each as its first row and seq
        self._run_rows = array("q")
        self._run_seqs = array("q")
        self.next_seq: int | None = None  #: the seq the next row has if the run goes on
        self._ordered = True  # seqs only grew (a binary search over the runs is exact)
        #: spans (inspector/core/session/spans.py): row -> span number, and each span's label by number. Only the
        #: rows of a span are here (a task's or a multi-round call's: a few rows of most sessions)
        self.span_of_row: dict[int, int] = {}
        self.span_labels: list[str] = []
        self._span_numbers: dict[str, int] = {}
        #: rows marked as part of a span after they were added (a view repaints them, then empties the list)
        self.span_marked: list[int] = []

    def __len__(self) -> int:
        return len(self.categories)

    def method_id(self, name: str) -> int:
        found = self._method_ids.get(name)
        if found is None:
            found = self._method_ids[name] = len(self.method_names)
            self.method_names.append(name)
        return found

    def add(self, category_byte: int, method: str, seq: int | None = None, reply_to: int | None = None) -> int | None:
        """Append a row; returns the row of the request it answers when ``reply_to`` pairs it with one."""
        method_id = self.method_id(method)
        row = len(self.categories)
        self.categories.append(category_byte)
        self.methods.append(method_id)
        self.small_methods.append(method_id if method_id < 255 else 255)
        if seq is not None:
            self.note_seq(row, seq)
        return self.pair(row, reply_to) if reply_to is not None else None

    def add_event(self, event: Event) -> int | None:
        found = self.add(category_of(event), method_of(event), event.seq, reply_to_of(event))
        if "span" in event.data:
            self.learn_span(len(self.categories) - 1, event)
        return found

    def learn_span(self, row: int, event: Event) -> list[int]:
        """Row ``row`` holds ``event``, which has a ``data.span``: it belongs to that span, and so do the rows
        its ``members`` name (the note that opens a span names the events saved before it was known). Returns
        the rows marked before ``row`` (for a view to repaint)."""
        span = event.data.get("span")
        if not isinstance(span, str):
            return []
        number = self._span_numbers.get(span)
        if number is None:
            number = self._span_numbers[span] = len(self.span_labels)
            self.span_labels.append(span)
        label = event.data.get("span_label")
        if isinstance(label, str) and label:
            self.span_labels[number] = label
        self.span_of_row[row] = number
        earlier = []
        members = event.data.get("members")
        for seq in members if isinstance(members, list) else ():
            member = self.row_of_seq(seq) if type(seq) is int else None
            if member is not None and member != row:
                self.span_of_row[member] = number
                earlier.append(member)
        self.span_marked.extend(earlier)
        return earlier

    def span(self, row: int) -> tuple[int, str] | None:
        """The span row ``row`` belongs to: its number and label; None for a row of no span."""
        number = self.span_of_row.get(row)
        return None if number is None else (number, self.span_labels[number])

    def span_rows(self, number: int) -> list[int]:
        """Every row of span ``number``, in order."""
        return sorted(row for row, n in self.span_of_row.items() if n == number)

    def note_seq(self, row: int, seq: int) -> None:
        """Row ``row`` is the event numbered ``seq`` (called for every row, in order; cheap when seqs are
        consecutive)."""
        if seq != self.next_seq:
            if self.next_seq is not None and seq < self.next_seq:
                self._ordered = False
            self._run_rows.append(row)
            self._run_seqs.append(seq)
        self.next_seq = seq + 1

    def row_of_seq(self, seq: int) -> int | None:
        """The row of the event numbered ``seq``, if a row has that number."""
        runs = self._run_seqs
        if not runs:
            return None
        if self._ordered:
            candidates: Iterable[int] = (bisect.bisect_right(runs, seq) - 1,)
        else:
            candidates = range(len(runs))
        for run in candidates:
            if run < 0 or seq < runs[run]:
                continue
            row = self._run_rows[run] + seq - runs[run]
            end = self._run_rows[run + 1] if run + 1 < len(runs) else len(self.categories)
            if row < end:
                return row
        return None

    def seq_of_row(self, row: int) -> int | None:
        """The seq of the event at ``row`` (from the seq runs), if rows were given their seqs."""
        run = bisect.bisect_right(self._run_rows, row) - 1
        if run < 0 or not 0 <= row < len(self.categories):
            return None
        return self._run_seqs[run] + row - self._run_rows[run]

    def pair(self, row: int, reply_to: int) -> int | None:
        """Link ``row`` (a response) with the row of request ``reply_to``; returns that row, or None when no
        earlier row has that seq."""
        request = self.row_of_seq(reply_to)
        if request is None or request >= row:
            return None
        partners = self.partners
        if len(partners) <= row:
            partners.frombytes(bytes(partners.itemsize * (row + 1 - len(partners))))
        partners[row] = request - row
        partners[request] = row - request
        return request

    def partner(self, row: int) -> int | None:
        """The row paired with ``row``: a request's response, or a response's request."""
        if not 0 <= row < len(self.partners):
            return None
        offset = self.partners[row]
        return row + offset if offset else None

    def method(self, row: int) -> str:
        return self.method_names[self.methods[row]]

    def select(self, start: int, stop: int, categories_ok: bytes, method_ok: bytes | None = None) -> array[int]:
        """Rows in ``[start, stop)`` whose category byte is accepted by ``categories_ok`` (a 256-byte table
        of 0/1) and, when ``method_ok`` is given, whose method id ``i`` has ``method_ok[i] == 1``."""
        stop = min(stop, len(self.categories))
        mask = self.mask(start, stop, categories_ok, method_ok)
        return array("q", compress(range(start, stop), mask))

    def mask(self, start: int, stop: int, categories_ok: bytes, method_ok: bytes | None = None) -> bytes:
        """:meth:`select` as a mask: one byte per row of ``[start, stop)``, 1 for a row that passes."""
        stop = min(stop, len(self.categories))
        if start >= stop:
            return b""
        mask: bytes | bytearray = self.categories[start:stop].translate(categories_ok)
        if method_ok is not None:
            if len(method_ok) < 255:
                by_method: bytes | bytearray = self.small_methods[start:stop].translate(method_ok.ljust(256, b"\0"))
            else:
                by_method = bytes(map(method_ok.__getitem__, self.methods[start:stop]))
            width = stop - start
            mask = (int.from_bytes(mask, "little") & int.from_bytes(by_method, "little")).to_bytes(width, "little")
        return bytes(mask)

    def method_table(self, needle: str) -> bytes:
        """For each method id, 1 when the method contains ``needle`` (case-insensitively)."""
        needle = needle.lower()
        return bytes(needle in name.lower() for name in self.method_names)

    def set_flagged(self, row: int, problem: bool) -> bool:
        """Mark row ``row`` as a problem (the judge found one, or its event warns) or no longer (its rule was
        muted); True when the mark changed. The columns are derived from the events, never saved: marking
        changes no event."""
        old = self.categories[row]
        new = old | FLAGGED if problem else old & ~FLAGGED
        self.categories[row] = new
        return new != old

    def is_problem(self, row: int) -> bool:
        return bool(self.categories[row] & PROBLEM_BITS)

    def next_problem(self, start: int, stop: int | None = None) -> int | None:
        """The first row at or after ``start`` (before ``stop``) that is a problem."""
        stop = len(self.categories) if stop is None else min(stop, len(self.categories))
        if start >= stop:
            return None
        found = self.categories[start:stop].translate(PROBLEM_TABLE).find(1)
        return None if found < 0 else start + found


#: 1 for the category bytes of problems, whichever way they are problems (for bytes.translate)
PROBLEM_TABLE = bytes(1 if value & PROBLEM_BITS else 0 for value in range(256))


class RowSet:
    """An ascending set of rows kept as a mask (one byte per row, 1 = in the set) with counts per block.

    The timeline filter's result. Building it costs C-level work only (a million-row mask is a few
    ``bytes.translate``); the k-th row and the rank of a row, which a view asks for the rows on screen only,
    are a binary search over the block counts and a search inside one block of :data:`BLOCK` rows.
    """

    BLOCK = 4096

    __slots__ = ("mask", "_prefix", "_positions")

    def __init__(self, mask: bytes = b"") -> None:
        self.mask = bytearray()
        self._prefix = array("q", [0])  # _prefix[b] = members in blocks before b; one more entry than blocks
        self._positions: dict[int, list[int]] = {}  # member rows of recently used blocks
        self.extend(mask)

    def __len__(self) -> int:
        return self._prefix[-1]

    @property
    def covered(self) -> int:
        """Rows the mask says something about (members or not)."""
        return len(self.mask)

    def extend(self, mask: bytes) -> None:
        """Append the verdicts of the next ``len(mask)`` rows."""
        if not mask:
            return
        block = self.BLOCK
        first_block = len(self.mask) // block
        self.mask += mask
        del self._prefix[first_block + 1:]
        self._positions.pop(first_block, None)
        for start in range(first_block * block, len(self.mask), block):
            self._prefix.append(self._prefix[-1] + self.mask.count(1, start, start + block))

    def row(self, k: int) -> int:
        """The k-th member (0-based)."""
        block = bisect.bisect_right(self._prefix, k) - 1
        positions = self._positions.get(block)
        if positions is None:
            if len(self._positions) > 64:
                self._positions.clear()
            start = block * self.BLOCK
            chunk = self.mask[start:start + self.BLOCK]
            positions = self._positions[block] = [start + i for i, v in enumerate(chunk) if v]
        return positions[k - self._prefix[block]]

    def rank(self, row: int) -> int | None:
        """The position of ``row`` among the members, or None when it is not one."""
        if not 0 <= row < len(self.mask) or not self.mask[row]:
            return None
        block = row // self.BLOCK
        return self._prefix[block] + self.mask.count(1, block * self.BLOCK, row)

    def rank_range(self, first: int, last: int) -> tuple[int, int]:
        """Positions of the members in rows ``[first, last]``: ``(start, stop)``, empty when start == stop."""
        def members_before(row: int) -> int:
            row = max(0, min(row, len(self.mask)))
            block = row // self.BLOCK
            return self._prefix[min(block, len(self._prefix) - 1)] + self.mask.count(1, block * self.BLOCK, row)
        return members_before(first), members_before(last + 1)
