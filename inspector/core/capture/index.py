"""An index of a capture file: compact columns per event, events decoded from the file only when asked for.

:func:`~inspector.core.capture.reader.read_capture` turns every line into an :class:`Event`; for a capture of
a million events that is tens of seconds and gigabytes. :class:`CaptureIndex` instead scans the file once,
in slices the caller paces (:meth:`CaptureIndex.scan` stops after a time budget, so a window stays
responsive), and keeps per event only the file offset of its line and the timeline's
:class:`~inspector.core.capture.columns.Columns` (kind, direction, problem, method, paired row): 18 bytes an
event.
:meth:`CaptureIndex.event` reads one line back and decodes it exactly as the reader does; a line over
:data:`BIG_LINE_BYTES` becomes a :class:`PartialEvent` (its start, and its raw bytes a piece at a time).

Scanning is fast because lines written by :class:`~inspector.core.capture.writer.CaptureWriter` have a fixed
shape: ``{"seq":N,"t":T,"wall":W,"kind":"message","dir":"s2c","raw":"..."`` and maybe ``"data"`` after the
raw text. For ``message`` and ``stderr`` lines of that shape the columns are read with one regular
expression (:data:`_HEAD`) and a ``bytes.find`` or two, without decoding the JSON. Why that is exact: inside
a JSON string every ``"`` is escaped, so in the capture line a quote of the message itself is ``\\"`` and a
quote inside one of the message's own strings is ``\\\\\\"``. So ``\\"method\\":\\"`` after ``{`` and members
with plain values is the top-level "method" of the message, and a message without ``\\"method\\"`` anywhere
has none (its method column is then ``data.request_method``, which only the writer's own unescaped quotes
can spell). The one case read differently: a message that repeats its top-level "method" key (JSON keeps
the last, the scan the first). Every other line (other kinds, findings, a CR, escapes in the method, unusual
spacing or key order, an old format version) takes the reader's own path, ``json.loads`` and
:func:`~inspector.core.capture.format.event_from_obj`, so the index agrees with :func:`read_capture`: the
same events, the same warnings (tests/core/test_capture_index.py checks this on generated captures).
"""

from __future__ import annotations

import bisect
import json
import os
import re
import time
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any, overload

from inspector.core.capture.columns import (
    BINARY,
    Columns,
    category,
    category_of,
    method_of,
    reply_to_of,
)
from inspector.core.capture.format import FORMAT_VERSION, CaptureError, event_from_obj
from inspector.core.capture.reader import (
    MAX_LISTED_PROBLEMS,
    UPGRADES,
    _check_header,
)
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Event, Kind, RpcInfo

#: The file is read this much at a time.
CHUNK_BYTES = 128 << 10
#: Decoded events kept for the rows on screen (a repaint asks each visible row several times).
EVENT_CACHE = 2048
#: Lines longer than this are not decoded whole by event(): it gives a PartialEvent (decoding a 50 MB line
#: takes the better part of a second, and JSON decoding holds the interpreter throughout).
BIG_LINE_BYTES = 1 << 20
#: How much of a long line's raw text a PartialEvent holds (the preview needs 64 KB), and how much of its end
#: is read for the fields after the raw text.
PARTIAL_HEAD_BYTES = 256 << 10
PARTIAL_TAIL_BYTES = 256 << 10
#: raw_pieces() decodes this much of the line at a time.
PIECE_BYTES = 1 << 20

#: The start of a line as the writer writes it, up to the message's method when the message starts with
#: ``{``, members with plain values (no brackets, no escapes), then ``"method":"...`` (see the module's notes).
_CLOSE_BRACE = ord("}")
_HEAD = re.compile(
    rb'\{"seq":(\d+),"t":-?\d[\d.eE+-]*,"wall":-?\d[\d.eE+-]*,"kind":"(message|stderr)"(?:,"dir":"(c2s|s2c)")?,'
    rb'"raw":"(?:(\[)|\{(?:\\"\w+\\":(?:\\"[^"\\{}\[\]]*\\"|-?\d+|true|false|null),)*'
    rb'\\"method\\":\\"([^"\\]*)\\"(?=[,}]))?')
_NEVER = re.compile(rb"(?!)")
#: Lines with findings (the problem flag needs their severities), a CR, or a span (the columns keep spans) are
#: decoded. Outside the raw text a key's quotes are plain, inside it they are escaped: the needles cannot match it.
_CRLF = b"\r\n"
_ODD = (b',"findings":[', _CRLF, b'"span":"')
_KEY_METHOD = b'\\"method\\"'  # the key "method" as it looks inside the JSON-encoded raw text
_REQUEST_METHOD = b'"request_method":"'
#: ``data.reply_to`` of a response: with its quotes unescaped it cannot be inside the raw text
_REPLY_TO = b'"reply_to":'
_FINDINGS = b',"findings":['
_MESSAGE = b"message"
_FAST_CATEGORIES = {(kind, direction): category(name, direction.decode() if direction else None, False)
                    for kind, name in ((b"message", Kind.MESSAGE), (b"stderr", Kind.STDERR))
                    for direction in (None, b"c2s", b"s2c")}


_PARTIAL_HEAD = re.compile(rb'\{"seq":(\d+),"t":(-?\d[\d.eE+-]*),"wall":(-?\d[\d.eE+-]*),"kind":"(\w+)"'
                           rb'(?:,"dir":"(\w+)")?,"raw(_b64)?":"')
#: Fields that can follow the raw text; with the quote after the comma unescaped they cannot be inside it.
_AFTER_RAW = (b',"eol":"', b',"reason":"', b',"findings":[', b',"data":{')
_BINARY_TABLE = bytes(1 if value & BINARY else 0 for value in range(256))


def _odd_lines(buf: bytes, pos: int, end: int) -> list[int]:
    """Starts of the lines in ``buf[pos:end]`` that hold a findings array or a CR, last first."""
    starts = set()
    for needle in _ODD:
        if needle == _CRLF:  # the CR alone first: a search for one byte (memchr) is ten times one for two here
            at = buf.find(b"\r", pos, end)
            at = buf.find(needle, at, end) if at >= 0 else -1
        else:
            at = buf.find(needle, pos, end)
        while at >= 0:
            start = max(buf.rfind(b"\n", pos, at) + 1, pos)
            starts.add(start)
            line_end = buf.find(b"\n", at, end)
            at = buf.find(needle, line_end, end) if line_end >= 0 else -1
    return sorted(starts, reverse=True)


class CaptureIndex:
    """Columns of a capture file, filled by :meth:`scan`; :meth:`event` decodes one event on demand.

    Raises :class:`CaptureError` (a sentence) when the file cannot be opened or is not a capture. Warnings
    about skipped or cut-off lines are in :attr:`warnings`, worded as the reader words them.
    """

    live = False  #: the file is still being written (:class:`~inspector.core.capture.live.LiveIndex`)

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        try:
            self._file = open(self.path, "rb")  # closed by close()
        except FileNotFoundError:
            raise CaptureError(f"{self.path}: no such file") from None
        except IsADirectoryError:
            raise CaptureError(f"{self.path} is a directory, not a capture file") from None
        except OSError as exc:
            raise CaptureError(f"{self.path} cannot be opened: {exc.strerror}") from None
        first = self._file.readline()
        try:
            version = _check_header(self.path, first)
        except CaptureError:
            self._file.close()
            raise
        self.header: dict[str, Any] = json.loads(first)
        self._upgrade = [UPGRADES[v] for v in range(version, FORMAT_VERSION)]
        self.size = os.fstat(self._file.fileno()).st_size  #: the file's size when it was opened
        self.columns = Columns()
        self.offsets = array("q")  #: where each event's line starts in the file
        self.warnings: list[str] = []
        self.done = False  #: the whole file has been scanned
        self.scanned = len(first)  #: bytes of the file scanned so far
        self._line_no = 1
        self._problems = 0
        self._pending: list[bytes] = []  # the start of a line longer than a chunk
        self._cache: OrderedDict[int, Event] = OrderedDict()
        self._byte_ids: dict[bytes, int] = {b"": 0}  # method bytes as found in the file -> column id
        self._reader = open(self.path, "rb")  # a second handle, for event(): scan() keeps its place

    @property
    def target(self) -> dict[str, Any]:
        target = self.header.get("target")
        return target if isinstance(target, dict) else {}

    def __len__(self) -> int:
        return len(self.offsets)

    def close(self) -> None:
        self._file.close()
        self._reader.close()

    # -- scanning --------------------------------------------------------------------------------------

    def scan(self, budget: float = 0.03) -> int:
        """Scan more of the file for about ``budget`` seconds (at least one chunk); returns how many events
        were added. Call until :attr:`done`."""
        if self.done:
            return 0
        before = len(self.offsets)
        deadline = time.perf_counter() + budget
        while not self.done:
            self._scan_chunk()
            if time.perf_counter() >= deadline:
                break
        return len(self.offsets) - before

    def scan_all(self) -> None:
        while not self.done:
            self._scan_chunk()

    @property
    def progress(self) -> float:
        """How much of the file has been scanned, 0.0 to 1.0."""
        return 1.0 if self.done or not self.size else min(1.0, self.scanned / self.size)

    def _scan_chunk(self) -> None:
        chunk = self._file.read(CHUNK_BYTES)
        if not chunk:
            rest = b"".join(self._pending)
            self._pending = []
            if rest:
                self._line_no += 1
                self._slow_line(rest, self.scanned)
                self.scanned += len(rest)
            self._finish()
            return
        last = chunk.rfind(b"\n")
        if last < 0:
            self._pending.append(chunk)  # part of a very long line
            return
        if self._pending:
            head = b"".join(self._pending)
            self._pending = []
            first = chunk.index(b"\n") + 1
            self._lines(head + chunk[:first], self.scanned, 0)
            self.scanned += len(head) + first
            body_start = first
        else:
            body_start = 0
        if last + 1 > body_start:
            self._lines(chunk, self.scanned - body_start, body_start, last + 1)
            self.scanned += last + 1 - body_start
        if last + 1 < len(chunk):
            self._pending.append(chunk[last + 1:])

    def _lines(self, buf: bytes, base: int, pos: int, end: int | None = None) -> None:
        """Index the complete lines of ``buf[pos:end]``; ``base`` is the file offset of ``buf[0]``.

        The loop is the hot path of opening a big capture: a handful of C calls per line. Lines with
        findings or a CR are found with one search of the whole buffer, not one per line.
        """
        end = len(buf) if end is None else end
        cols = self.columns
        add_category, add_method, add_offset = cols.categories.append, cols.methods.append, self.offsets.append
        add_small, note_seq, pair = cols.small_methods.append, cols.note_seq, cols.pair
        offsets = self.offsets
        next_seq = cols.next_seq  # the scan loop counts on while seqs run on (note_seq for a break)
        method_ids = self._byte_ids
        match = _HEAD.match if not self._upgrade else _NEVER.match
        find = buf.find
        odd = _odd_lines(buf, pos, end)  # starts of lines that must be decoded, ascending
        next_odd = odd.pop() if odd else end
        line_no = self._line_no
        while pos < end:
            nl = find(b"\n", pos, end)
            line_no += 1
            # the fast path reads the writer's own line shape without decoding it; a line that does not even end
            # as an object does (cut short, or garbled) goes the reader's way, to be skipped with its reason
            m = match(buf, pos, nl) if pos < next_odd and buf[nl - 1] == _CLOSE_BRACE else None
            if m is not None:
                seq_text, kind, direction, batch, method = m.groups()
                reply_to = None
                if method is None:
                    if kind != _MESSAGE:
                        method = b""
                    elif batch or find(_KEY_METHOD, m.end(), nl) < 0:
                        method = _request_method(buf, m.end(), nl)
                        at = find(_REPLY_TO, m.end(), nl)
                        if at >= 0:
                            reply_to = _int_at(buf, at + len(_REPLY_TO), nl)
                method_id = method_ids.get(method) if method is not None else None
                if method_id is None and method is not None:
                    method_id = self._method_id(method)
                if method_id is not None:
                    add_category(_FAST_CATEGORIES[kind, direction])
                    add_method(method_id)
                    add_small(method_id if method_id < 255 else 255)
                    add_offset(base + pos)
                    seq = int(seq_text)
                    if seq != next_seq:
                        note_seq(len(offsets) - 1, seq)
                    next_seq = seq + 1
                    if reply_to is not None:
                        pair(len(offsets) - 1, reply_to)
                    pos = nl + 1
                    continue
            self._line_no = line_no
            if next_seq is not None:
                cols.next_seq = next_seq
            self._slow_line(buf[pos:nl + 1], base + pos)
            next_seq = cols.next_seq
            if pos >= next_odd:
                next_odd = odd.pop() if odd else end
            pos = nl + 1
        self._line_no = line_no
        if next_seq is not None:
            cols.next_seq = next_seq

    def _method_id(self, method: bytes) -> int | None:
        """The column id of a method read from the file's bytes (None: not UTF-8, decode the line)."""
        try:
            name = method.decode("utf-8")
        except UnicodeDecodeError:
            return None
        found = self._byte_ids[method] = self.columns.method_id(name)
        return found

    def _slow_line(self, line: bytes, offset: int) -> None:
        """The reader's own path for one line (``line`` includes its newline, if it has one)."""
        if not line.strip():
            return
        try:
            obj = json.loads(line)
            if not isinstance(obj, dict):
                raise CaptureError("the line is not a JSON object")
            for step in self._upgrade:
                obj = step(obj)
            event = event_from_obj(obj)
        except (ValueError, CaptureError, RecursionError) as exc:
            if not line.endswith(b"\n"):
                self.warnings.append(
                    f"the last line (line {self._line_no}) was cut off, as happens when a recording is "
                    "interrupted; everything before it was loaded")
                return
            self._problems += 1
            if self._problems <= MAX_LISTED_PROBLEMS:
                reason = str(exc) if isinstance(exc, CaptureError) else "not valid JSON"
                self.warnings.append(f"line {self._line_no} was skipped: {reason}")
            return
        self.columns.add(category_of(event) | (BINARY if "raw_b64" in obj else 0), method_of(event), event.seq,
                         reply_to_of(event))
        if "span" in event.data:
            self.columns.learn_span(len(self.columns) - 1, event)
        self.offsets.append(offset)

    def _finish(self) -> None:
        self.done = True
        if self._problems > MAX_LISTED_PROBLEMS:
            self.warnings.append(f"{self._problems - MAX_LISTED_PROBLEMS} more malformed lines were skipped")

    # -- events ----------------------------------------------------------------------------------------

    def line(self, row: int) -> bytes:
        """The capture line of the event at ``row`` (with its newline, when it has one)."""
        self._reader.seek(self.offsets[row])
        return self._reader.readline()

    def line_size(self, row: int) -> int:
        """The length of the event's line, at most (skipped lines after it are counted in)."""
        end = self.offsets[row + 1] if row + 1 < len(self.offsets) else self.scanned
        return end - self.offsets[row]

    def raw_text(self, row: int, loads: Callable[[bytes], Any] = json.loads) -> str | None:
        """The raw text of the event at ``row`` as its line holds it (the JSON string, decoded), without building the
        event: what reading many messages costs least with (the event's classification is a third parse). None when
        that would not be the event's raw bytes as :meth:`event` gives them: a line over :data:`BIG_LINE_BYTES`, raw
        bytes held as base64, a capture of an older format version, a line that does not parse any more; then read
        ``event(row).raw``. ``loads`` parses the line (a faster parser that reads JSON exactly as ``json.loads``)."""
        if self._upgrade or self.line_size(row) > BIG_LINE_BYTES:
            return None
        try:
            obj = loads(self.line(row))
        except (ValueError, RecursionError):
            return None
        raw = obj.get("raw") if isinstance(obj, dict) and "raw_b64" not in obj else None
        return raw if isinstance(raw, str) else None

    def event(self, row: int) -> Event:
        """The event at ``row``, decoded from the file exactly as :func:`read_capture` decodes it; for a line
        over BIG_LINE_BYTES, a :class:`PartialEvent` that holds the start of its raw text."""
        cached = self._cache.get(row)
        if cached is not None:
            self._cache.move_to_end(row)
            return cached
        if self.line_size(row) > BIG_LINE_BYTES:
            partial = self._partial_event(row)
            if partial is not None:
                self._cache[row] = partial
                return partial
        try:
            obj = json.loads(self.line(row))
            for step in self._upgrade:
                obj = step(obj)
            event = event_from_obj(obj)
        except (ValueError, CaptureError, RecursionError, AttributeError) as exc:
            # only a file changed or damaged since it was scanned gets here (the scan decodes odd lines)
            event = Event(Kind.NOTE, data={"text": f"this line of the capture cannot be read any more ({exc})"})
        self._cache[row] = event
        if len(self._cache) > EVENT_CACHE:
            self._cache.popitem(last=False)
        return event

    def _partial_event(self, row: int) -> PartialEvent | None:
        """The event of a long line from its first and last bytes; None when the line is not shaped for it
        (then it is decoded whole)."""
        offset, size = self.offsets[row], self.line_size(row)
        self._reader.seek(offset)
        head = self._reader.read(PARTIAL_HEAD_BYTES)
        tail_start = max(0, size - PARTIAL_TAIL_BYTES)
        self._reader.seek(offset + tail_start)
        tail = self._reader.read(size - tail_start).rstrip(b"\r\n")
        m = _PARTIAL_HEAD.match(head)
        if m is None:
            return None
        starts = [at for at in (tail.find(key) for key in _AFTER_RAW) if at >= 0]
        if starts:
            try:
                extra = json.loads(b"{" + tail[min(starts) + 1:])
            except ValueError:
                return None
            literal_end = tail_start + min(starts) - 1  # the raw text's closing quote
        elif tail.endswith(b'"}'):
            extra, literal_end = {}, tail_start + len(tail) - 2
        else:
            return None
        literal_start = m.end()
        if literal_end <= literal_start or not isinstance(extra, dict):
            return None
        binary = m.group(6) is not None
        kind = m.group(4).decode()
        obj: dict[str, Any] = {"seq": int(m.group(1)), "t": float(m.group(2)), "wall": float(m.group(3)),
                               "kind": kind, "raw": "", **extra}
        if m.group(5):
            obj["dir"] = m.group(5).decode()
        try:
            for step in self._upgrade:
                obj = step(obj)
            event = event_from_obj(obj)
            first, _ = _decode_piece(head[literal_start:literal_end], binary, final=False)
        except (ValueError, CaptureError):
            return None
        partial = PartialEvent(event.kind, raw=first, dir=event.dir, eol=event.eol, reason=event.reason,
                               findings=event.findings, data=event.data, seq=event.seq, t=event.t, wall=event.wall)
        literal = literal_end - literal_start
        partial.raw_size = literal * 3 // 4 if binary else literal  # the length of the JSON text: about the size
        partial.literal = (offset + literal_start, offset + literal_end)
        partial.binary = binary
        if kind == Kind.MESSAGE or (kind == Kind.FRAMING_ERROR and first.lstrip()[:1] in (b"{", b"[")):
            partial.rpc = head_rpc(first)
        return partial

    def raw_pieces(self, event: PartialEvent, piece: int = PIECE_BYTES) -> Iterator[bytes]:
        """All the raw bytes of a partial event, a piece at a time (each decodes about ``piece`` bytes of the
        file): what "Show all" reads, in slices, instead of decoding the whole line at once."""
        start, end = event.literal
        position = start
        rest = b""
        while position < end:
            self._reader.seek(position)
            chunk = self._reader.read(min(piece, end - position))
            position += len(chunk)
            decoded, rest = _decode_piece(rest + chunk, event.binary, final=position >= end)
            yield decoded

    def row_of_seq(self, seq: int, limit: int | None = None) -> int | None:
        """The row of the event numbered ``seq`` among the first ``limit`` rows (from the columns' seq runs:
        nothing is decoded)."""
        row = self.columns.row_of_seq(seq)
        count = len(self) if limit is None else min(limit, len(self))
        return row if row is not None and row < count else None

    def rows_containing(self, needle: bytes, first: int, last: int,
                        max_bytes: int = CHUNK_BYTES) -> tuple[list[int], int]:
        """Rows in ``[first, stop)`` whose capture line contains ``needle`` (lower-case ASCII; the line is
        compared ASCII-lowercased), and every row whose raw bytes the file holds as base64. ``stop`` is
        returned: each call reads about ``max_bytes`` of the file, so a caller can search in slices.

        A candidate list, to check on the decoded events: the needle may be in another field of the line.
        """
        last = min(last, len(self))
        if first >= last:
            return [], last
        offsets = self.offsets
        start = offsets[first]
        stop = max(first + 1, bisect.bisect_right(offsets, start + max_bytes, first, last))
        end = offsets[stop] if stop < len(offsets) else self.scanned
        self._reader.seek(start)
        text = self._reader.read(end - start).lower()
        rows: list[int] = []
        at = text.find(needle)
        while at >= 0:
            row = bisect.bisect_right(offsets, start + at, first, stop) - 1
            rows.append(row)
            at = text.find(needle, offsets[row + 1] - start) if row + 1 < stop else -1
        binary = self.columns.select(first, stop, _BINARY_TABLE)
        if binary:
            rows = sorted(set(rows).union(binary))
        return rows, stop

    def is_problem(self, row: int) -> bool:
        return self.columns.is_problem(row)


class PartialEvent(Event):
    """An event of a capture line too long to decode at once: ``raw`` is the start of its raw bytes,
    ``size`` about the size of all of them (the length of their JSON text), and
    :meth:`CaptureIndex.raw_pieces` reads them all, a piece at a time. Its ``rpc`` is read from the start of
    the message (:func:`head_rpc`)."""

    __slots__ = ("raw_size", "literal", "binary")
    raw_size: int
    literal: tuple[int, int]  #: where its JSON string literal is in the file
    binary: bool

    @property
    def size(self) -> int:
        return self.raw_size


class IndexedEvents:
    """A read-only sequence view of an index: ``events[row]`` decodes that row (cached)."""

    __slots__ = ("index",)

    def __init__(self, index: CaptureIndex) -> None:
        self.index = index

    def __len__(self) -> int:
        return len(self.index)

    @overload
    def __getitem__(self, row: int) -> Event: ...

    @overload
    def __getitem__(self, row: slice) -> list[Event]: ...

    def __getitem__(self, row: int | slice) -> Event | list[Event]:
        if isinstance(row, slice):
            return [self.index.event(r) for r in range(*row.indices(len(self.index)))]
        if row < 0:
            row += len(self.index)
        return self.index.event(row)

    def __iter__(self) -> Any:
        return (self.index.event(row) for row in range(len(self.index)))


def _request_method(buf: bytes, r0: int, nl: int) -> bytes | None:
    """``data.request_method`` of the line, or b"" when it has none. An unescaped ``"request_method":"`` can
    only be the key itself: inside the raw text its quotes would be escaped."""
    at = buf.find(_REQUEST_METHOD, r0, nl)
    if at < 0:
        return b""
    value = at + len(_REQUEST_METHOD)
    close = buf.find(b'"', value, nl)
    if close < 0 or buf.find(b"\\", value, close) >= 0:
        return None
    return buf[value:close]


def _int_at(buf: bytes, start: int, end: int) -> int | None:
    """The JSON integer at ``buf[start:]`` (before ``end``), or None when there is none."""
    stop = start
    while stop < end and 48 <= buf[stop] <= 57:
        stop += 1
    return int(buf[start:stop]) if stop > start else None


def _decode_piece(text: bytes, binary: bool, final: bool) -> tuple[bytes, bytes]:
    """Decode as much of ``text`` (a piece of the raw text as the capture holds it: JSON string content, or
    base64) as decodes on its own; returns the bytes and the undecoded rest, to go before the next piece. A
    piece may end inside an escape, a UTF-8 character, a surrogate pair or a base64 quartet."""
    if binary:
        import base64

        cut = len(text) if final else len(text) - len(text) % 4
        return base64.b64decode(text[:cut]), text[cut:]
    for back in range(13):
        cut = len(text) - back
        if cut < 0:
            break
        try:
            value = json.loads(b'"' + text[:cut] + b'"')
        except ValueError:
            continue
        if not final and value and 0xD800 <= ord(value[-1]) <= 0xDBFF:
            continue  # half of a surrogate pair: the other half is in the next piece
        return value.encode("utf-8", errors="surrogatepass"), text[cut:]
    raise ValueError("the raw text of this line cannot be decoded")


def head_rpc(head: bytes) -> RpcInfo:
    """The JSON-RPC summary of a message from its first bytes only: its top-level "jsonrpc", "id",
    "method", "result" and "error" members as far as the bytes go (a 50 MB result is not parsed for it)."""
    text = head.decode("utf-8", errors="replace").lstrip()
    if text.startswith("["):
        return RpcInfo(jsonrpc.BATCH, None, None, False)
    members: dict[str, Any] = {}
    depth = 0
    key: str | None = None
    position = 0
    decoder = json.JSONDecoder()
    while position < len(text):
        char = text[position]
        if char in "{[":
            depth += 1
            position += 1
            if depth == 2 and key is not None:
                members[key] = ...  # a container: present, value not needed
                key = None
            continue
        if char in "}]":
            depth -= 1
            position += 1
            continue
        if char == '"' or (depth == 1 and key is not None and char not in " \t\r\n,:"):
            try:
                value, end = decoder.raw_decode(text, position)
            except ValueError:
                break  # the head ends inside this value
            if depth == 1:
                if key is None and char == '"' and text[end:].lstrip().startswith(":"):
                    key = value
                elif key is not None:
                    members[key] = value
                    key = None
            position = end
            continue
        position += 1
    method = members.get("method")
    has_id = "id" in members
    msg_id = members.get("id") if members.get("id") is not ... else None
    if isinstance(method, str):
        return RpcInfo(jsonrpc.REQUEST if has_id else jsonrpc.NOTIFICATION, method, msg_id, has_id)
    if "error" in members:
        return RpcInfo(jsonrpc.ERROR, None, msg_id, has_id)
    if "result" in members:
        return RpcInfo(jsonrpc.RESPONSE, None, msg_id, has_id)
    return RpcInfo(jsonrpc.INVALID, None, msg_id, has_id)
