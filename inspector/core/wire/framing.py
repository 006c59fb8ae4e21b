"""Sans-io decoder for newline-delimited JSON-RPC (the stdio framing), which never loses a byte.

The stdio transport (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio) says:
one UTF-8 JSON-RPC message per line, no embedded newlines, nothing else on stdout. Servers break that in
many ways, and the point of an inspector is to show exactly how. :class:`LineDecoder` turns a byte stream
into events, each either a ``message`` or a ``framing_error`` with a reason a person understands and the
exact raw bytes.

We decode by hand instead of using ``asyncio.StreamReader.readline`` + ``json.loads`` because those lose
information we must show: ``json.loads(bytes)`` silently accepts a UTF-8 BOM, UTF-16 and lone surrogates,
and ``readline`` raises (and drops the buffer) on a line over its limit.

Contract: for input under ``max_line_bytes`` per line, concatenating ``event.raw + event.eol`` for every
event returned by :meth:`feed` and :meth:`close`, in order, reproduces the input exactly, however it was
chunked. A line over the limit becomes one framing error that keeps its byte count, head and tail.

A decoder made with ``defer_bytes`` does not decode lines longer than that: it hands them back as
:class:`Undecoded` for the owner to decode elsewhere (the window: in a worker process, with :func:`decode_big`,
so the event loop never parses 50 MB; see :data:`BIG_LINE_BYTES`); the owner keeps them in order.
"""

from __future__ import annotations

import json
import json.scanner
import re
import sys
from collections.abc import Callable
from typing import Any

from inspector.core.sizes import DEFAULT_MAX_MESSAGE, format_size
from inspector.core.wire import jsonrpc, skim
from inspector.core.wire.events import Direction, Event, Finding, Kind, RpcInfo
from inspector.core.wire.json_types import json_type

#: Lines longer than this are not buffered whole. 64 MiB: well above the 10 MiB some SDKs accept, so real
#: oversized results are still recorded byte-exactly, while a server writing endless bytes without a newline
#: cannot exhaust memory.
#: ``--max-message`` (and the window's setting) raises it.
DEFAULT_MAX_LINE_BYTES = DEFAULT_MAX_MESSAGE
#: How much of an oversized line is kept at each end, so the user still sees how it started and ended.
OVERSIZE_KEEP_BYTES = 64 * 1024
#: A pretty-printed object is gathered over at most this many lines before the lines are reported one by
#: one; bounds the delay before a run of broken lines is shown.
MAX_PRETTY_LINES = 10_000

#: Lines longer than this are not decoded on the event loop when the owner can decode them elsewhere
#: (``defer_bytes``, see the module's notes). 1 MB: a small message never pays for the trip.
BIG_LINE_BYTES = 1 << 20

#: ``data`` key of a framing error whose line mcp-inspector's own stop cut short while the server was still
#: writing it (:meth:`LineDecoder.close`); its value says how the stop went: the signal sent, or
#: :data:`READING_STOPPED`. The bytes are kept; the cut is not the server's violation.
CUT_BY_STOP = "cut_by_stop"
#: ``cut_by_stop`` when mcp-inspector stopped reading a pipe that the server's process group still held (and
#: wrote to) after the server had exited.
READING_STOPPED = "reading stopped"

BOM = b"\xef\xbb\xbf"
_JSON_STARTS = set('{["-0123456789tfn')
#: ... and the first characters of NaN and Infinity, which the decoder reads to name them: a line that starts
#: with none of these is plain text without parsing it
_TEXT_MAY_PARSE = frozenset(_JSON_STARTS | {"N", "I"})


#: What :meth:`Batch.values` holds for an event the decoder did not parse on its fast path.
NOT_PARSED: Any = object()


class Batch(list[Event]):
    """The events one :meth:`LineDecoder.feed` returned, with what it parsed of each (a decoder made with
    ``share_parses``; else none are kept): a consumer on the same
    turn (the protocol judge) can read the parse instead of parsing the bytes again. The parse is never stored
    on an event (events keep only their bytes and summary); it lives as long as this list, which the
    transport hands through the session's pipeline to its listeners and then drops. A copy or slice of the
    list is a plain list, without parses.

    A decoder given ``keep`` stores ``keep(event, value)`` instead of the value: what its consumer wants of the
    parse later (the protocol judge: a shared verdict for a notification it checked at once, so that no parse
    tree outlives its line; :meth:`inspector.core.protocol.judge.ProtocolJudge.verdict`)."""

    __slots__ = ("parsed",)

    def __init__(self) -> None:
        super().__init__()
        self.parsed: dict[int, Any] = {}  # position in the list -> the value parsed from that event's bytes

    def values(self) -> list[Any]:
        """The parsed value of each event (or what ``keep`` made of it), in order (:data:`NOT_PARSED` where
        there is none); read-only."""
        parsed = self.parsed
        if len(parsed) == len(self):  # every event parsed (a flood): positions were added in order
            return list(parsed.values())
        return [parsed.get(i, NOT_PARSED) for i in range(len(self))]


class LineDecoder:
    """Incremental decoder: :meth:`feed` bytes as they arrive, :meth:`close` at end of stream.

    Each returned :class:`Event` has ``kind``, ``dir``, ``raw``, ``eol`` and, for messages, ``rpc`` and
    structural findings; ``seq`` and times are the session's to assign.
    """

    def __init__(self, direction: str = Direction.S2C, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
                 defer_bytes: int | None = None, share_parses: bool = False,
                 keep: Callable[[Event, Any], Any] | None = None) -> None:
        if max_line_bytes < 1:
            raise ValueError("max_line_bytes must be positive")
        self.direction = direction
        #: keep each batch's parse on it (:class:`Batch`) for a consumer that reads it (the protocol judge);
        #: off, each parse is freed as soon as the message is classified, which a recording without a judge
        #: wants: parses held for a whole batch cost the garbage collector's young generation
        self.share_parses = share_parses
        #: with ``share_parses``: called with each event and its parse while the parse is fresh; the batch keeps
        #: what it returns instead of the parse (see :class:`Batch`)
        self.keep = keep
        self.max_line_bytes = max_line_bytes
        #: complete lines longer than this come back as :class:`Undecoded` (None: every line is decoded)
        self.defer_bytes = defer_bytes
        self._chunks: list[bytes] = []  # the current partial line, in pieces (joining on every feed is O(n^2))
        self._pending_size = 0
        self._oversize: _Oversize | None = None
        self._pretty: list[tuple[bytes, bytes]] = []  # lines of a possibly pretty-printed object
        self._pretty_depth = 0  # open brackets in the gathered lines
        self._pretty_bytes = 0
        self.closed = False

    @property
    def at_line_start(self) -> bool:
        """Nothing is pending: no part of a line, no oversized line, no lines of a pretty-printed object being
        gathered. What is fed next starts a line of its own."""
        return not self._chunks and self._oversize is None and not self._pretty and not self.closed

    # -- input -------------------------------------------------------------------------------------------

    def feed(self, data: bytes) -> list[Event]:
        """Decode a chunk; returns the events for every line it completed."""
        if self.closed:
            raise RuntimeError("feed() after close()")
        out = Batch()
        start = 0
        # The hot path, inlined (a flood's every line): a whole line of at most ``fast_limit`` bytes, LF-ended,
        # that starts with "{" and parses exactly, with nothing half-gathered around it, is decoded here as
        # _decode_parsed's fast path decodes it; anything else takes the general path below. Three calls fewer
        # per message (issue 25: a third of record's overhead over a bare readline + json.loads loop was calls).
        fast_limit = min(self.max_line_bytes, BIG_LINE_BYTES, self.defer_bytes or BIG_LINE_BYTES)
        direction = self.direction
        share = self.share_parses
        message = Kind.MESSAGE
        while True:
            nl = data.find(b"\n", start)
            if nl < 0:
                self._append_partial(data[start:] if start else data, out)
                return out
            piece = data[start:nl]
            start = nl + 1
            if not self._chunks and self._oversize is None and not self._pretty and piece[:1] == b"{" \
                    and len(piece) <= fast_limit and not share:
                try:
                    text = piece.decode("utf-8")
                    value, end = _scan_once(text, 0)
                except (UnicodeDecodeError, StopIteration, ValueError, RecursionError):
                    end = -1  # the general path says exactly what is wrong
                if end > 0 and end == len(text):  # (a CRLF line never ends where its value does)
                    rpc, found = jsonrpc.classify(value)
                    out.append(Event(message, piece, direction, b"\n", None, rpc, found or ()))
                    continue
            if self._oversize is not None:
                self._oversize.add(piece)
                self._finish_oversize(b"\n", out)
                continue
            if self._chunks:
                self._chunks.append(piece)
                piece = b"".join(self._chunks)
                self._chunks.clear()
                self._pending_size = 0
            if len(piece) > self.max_line_bytes:
                self._oversize = _Oversize(self.max_line_bytes)
                self._oversize.add(piece)
                self._finish_oversize(b"\n", out)
                continue
            if piece.endswith(b"\r"):
                self._line(piece[:-1], b"\r\n", out)
            else:
                self._line(piece, b"\n", out)

    def close(self, cut_by_stop: str | None = None) -> list[Event]:
        """End of stream: report an unterminated last line and any half-gathered pretty-printed object.

        ``cut_by_stop``: the stream ended because mcp-inspector stopped the server while it was still writing,
        and how (the signal it sent, ``SIGTERM``, or :data:`READING_STOPPED`). An unterminated last line is
        then the stop's doing, not the server's: it stays a framing error with its exact bytes, marked
        ``data.cut_by_stop`` and said so, and :func:`server_broke_framing` does not count it."""
        out: list[Event] = []
        if self.closed:
            return out
        self.closed = True
        if self._oversize is not None:
            self._finish_oversize(b"", out)
            return out
        out.extend(self._flush_pretty())
        if self._chunks:
            rest = b"".join(self._chunks)
            self._chunks.clear()
            self._pending_size = 0
            event = _decode(rest, b"", self.direction)
            event.drop("incomplete_json")
            unterminated = (
                f"the stream ended in the middle of a line: the last {len(rest)} bytes have no newline, "
                "so a client waiting for the end of the line would never see them"
            )
            if cut_by_stop is not None:
                how = "stopped reading" if cut_by_stop == READING_STOPPED else f"ended it with {cut_by_stop}"
                event.kind = Kind.FRAMING_ERROR
                event.reason = (f"mcp-inspector's own stop cut this line short: the server was still writing when "
                                f"mcp-inspector {how}, so its last {len(rest)} bytes have no newline; they are "
                                "kept as they came, and the cut is not the server's violation")
                event.put(**{CUT_BY_STOP: cut_by_stop})
            elif event.kind == Kind.MESSAGE:
                event.kind = Kind.FRAMING_ERROR
                event.reason = unterminated + " (they are a complete JSON message otherwise)"
            else:
                event.reason = unterminated + "; also " + (event.reason or "")
            out.append(event)
        return out

    # -- internals -------------------------------------------------------------------------------------

    def _finish_oversize(self, eol: bytes, out: list[Event]) -> None:
        assert self._oversize is not None
        out.extend(self._flush_pretty())  # keep stream order: gathered lines came first
        out.append(self._oversize.finish(eol, self.direction))
        self._oversize = None

    def _append_partial(self, data: bytes, out: list[Event]) -> None:
        if not data:
            return
        if self._oversize is not None:
            self._oversize.add(data)
            return
        self._chunks.append(data)
        self._pending_size += len(data)
        if self._pending_size > self.max_line_bytes:
            self._oversize = _Oversize(self.max_line_bytes)
            for chunk in self._chunks:
                self._oversize.add(chunk)
            self._chunks.clear()
            self._pending_size = 0

    def _line(self, line: bytes, eol: bytes, out: list[Event]) -> None:
        if self._pretty:
            self._continue_pretty(line, eol, out)
            return
        if self.defer_bytes is not None and len(line) > self.defer_bytes and line.lstrip()[:1] in (b"{", b"["):
            out.append(Undecoded(line, eol, self.direction))
            return
        event, value = _decode_parsed(line, eol, self.direction)
        if value is not NOT_PARSED and self.share_parses and type(out) is Batch:
            keep = self.keep
            out.parsed[len(out)] = value if keep is None else keep(event, value)
            out.append(event)
            return
        if event.kind == Kind.FRAMING_ERROR and event.data.get("incomplete_json"):
            depth = _bracket_depth(line)
            if depth is not None and depth > 0:
                self._pretty.append((line, eol))
                self._pretty_depth = depth
                self._pretty_bytes = len(line)
                return
            event.drop("incomplete_json")
        out.append(event)

    def _continue_pretty(self, line: bytes, eol: bytes, out: list[Event]) -> None:
        """Gather the lines of a possibly pretty-printed value. Each line is scanned once for brackets (so a
        long block costs linear time); the block is parsed once, when its brackets balance."""
        delta = _bracket_depth(line)
        if delta is None or len(self._pretty) >= MAX_PRETTY_LINES \
                or self._pretty_bytes + len(line) > self.max_line_bytes:
            out.extend(self._flush_pretty())
            self._line(line, eol, out)
            return
        self._pretty.append((line, eol))
        self._pretty_bytes += len(line) + len(eol)
        self._pretty_depth += delta
        if self._pretty_depth > 0:
            return
        joined = b"".join(part + end for part, end in self._pretty[:-1]) + line
        try:
            value = _DECODER.decode(joined.decode("utf-8"))
        except (ValueError, RecursionError):
            out.extend(self._flush_pretty())  # balanced but not JSON: each line as it is
            return
        lines = len(self._pretty)
        self._pretty = []
        event = Event(Kind.FRAMING_ERROR, raw=joined, dir=self.direction, eol=eol)
        event.reason = (
            f"one JSON {'object' if isinstance(value, dict) else 'value'} pretty-printed over {lines} lines: "
            "stdio needs each message on a single line, so a client sees these lines as broken JSON"
        )
        if isinstance(value, (dict, list)):
            event.rpc, _ = jsonrpc.classify(value)
        out.append(event)

    def _flush_pretty(self) -> list[Event]:
        """Give up on a gathered block: report its lines one by one."""
        if not self._pretty:
            return []
        lines = self._pretty
        self._pretty = []
        out: list[Event] = []
        for line, eol in lines:
            event = _decode(line, eol, self.direction)
            event.drop("incomplete_json")
            out.append(event)
        return out


class _Oversize:
    """Accumulates a line too long to keep: its size, its head and its tail."""

    __slots__ = ("head", "limit", "tail", "total")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.head = bytearray()
        self.tail = b""
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        if len(self.head) < OVERSIZE_KEEP_BYTES:
            self.head += data[: OVERSIZE_KEEP_BYTES - len(self.head)]
        self.tail = (self.tail + data[-OVERSIZE_KEEP_BYTES:])[-OVERSIZE_KEEP_BYTES:]

    def finish(self, eol: bytes, direction: str) -> Event:
        event = Event(Kind.FRAMING_ERROR, raw=bytes(self.head), dir=direction, eol=eol)
        event.reason = (
            f"a line of {self.total:,} bytes is over the size limit ({format_size(self.limit)} per message); "
            f"only its first and last {OVERSIZE_KEEP_BYTES // 1024} KiB are kept"
        )
        event.put(oversize={"total_bytes": self.total, "tail": bytes(self.tail)})
        return event


class NonStandardConstant(ValueError):
    """NaN, Infinity or -Infinity: Python writes and reads them, JSON (and JavaScript's JSON.parse) does not."""


def _reject_constant(name: str) -> None:
    raise NonStandardConstant(name)


#: Strict JSON: NaN and Infinity are refused, as every non-Python MCP client refuses them.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
# the C scanner json.loads uses, minus 3 calls; typeshed wants a make_scanner as its context, it takes any decoder
_scan_once = json.scanner.make_scanner(_DECODER)  # type: ignore[arg-type]  # typeshed's context type
_CRLF = Finding("crlf", "line ends with CR LF; it parses, but stdio lines should end with LF only", "warning")


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')


def _bracket_depth(line: bytes) -> int | None:
    """Opening minus closing brackets outside strings; None when the line cannot be part of pretty-printed
    JSON (invalid UTF-8, or a string left open: a newline inside a JSON string is not allowed)."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return None
    bare = _STRING.sub(b"", line)
    if b'"' in bare:
        return None
    return bare.count(b"{") + bare.count(b"[") - bare.count(b"}") - bare.count(b"]")


class Undecoded(Event):
    """A complete line a decoder with ``defer_bytes`` left undecoded: give it to :func:`decode_big` (anywhere,
    a worker process included) and :func:`resolve` it with the answer before emitting it. Never emitted."""

    __slots__ = ()

    def __init__(self, raw: bytes, eol: bytes, direction: str) -> None:
        super().__init__("undecoded", raw=raw, dir=direction, eol=eol)


#: What :func:`decode_big` says of a line: (kind, reason, rpc, findings, data); picklable, without the bytes.
Decoded = tuple[str, str | None, RpcInfo | None, list[Finding] | tuple[Finding, ...], dict[str, Any]]


def decode_big(line: bytes, eol: bytes, direction: str) -> Decoded:
    """Decode one line the way the decoder does, and say what it is without its bytes (so that a worker
    process can do it and send back only the verdict)."""
    event = _decode(line, eol, direction)
    data = dict(event.data)
    data.pop("incomplete_json", None)  # a deferred line is never gathered with the next ones
    return event.kind, event.reason, event.rpc, event.findings, data


def resolve(undecoded: Undecoded, decoded: Decoded) -> Event:
    """The event of an :class:`Undecoded` line, from :func:`decode_big`'s verdict on it."""
    kind, reason, rpc, findings, data = decoded
    event = Event(kind, raw=undecoded.raw, dir=undecoded.dir, eol=undecoded.eol, reason=reason, rpc=rpc,
                  findings=findings)
    if data:
        event.put(**data)
    return event


def _decode(line: bytes, eol: bytes, direction: str) -> Event:
    """Turn one complete line (without terminator) into a message or a framing error."""
    return _decode_parsed(line, eol, direction)[0]


def _decode_parsed(line: bytes, eol: bytes, direction: str) -> tuple[Event, Any]:
    """:func:`_decode`, and the value parsed from the line on the fast path (else :data:`NOT_PARSED`)."""
    # Fast path for the common case, a well-formed object: one decode, one scan, no diagnostics.
    if line[:1] == b"{" and eol == b"\n":
        if len(line) > BIG_LINE_BYTES:  # a big one is skimmed, not built (memory: its bytes, not 3-9x them)
            members = skim.skim_object(line)
            if members is not None:
                rpc, found = jsonrpc.classify(members)  # its top-level members only: no parse to share
                return Event(Kind.MESSAGE, line, direction, eol, None, rpc, found or ()), \
                    NOT_PARSED
        try:
            text = line.decode("utf-8")
            value, end = _scan_once(text, 0)
        except (UnicodeDecodeError, StopIteration, ValueError, RecursionError):
            pass  # the slow path below says exactly what is wrong (NonStandardConstant is a ValueError)
        else:
            if end == len(text):
                rpc, found = jsonrpc.classify(value)
                return Event(Kind.MESSAGE, line, direction, eol, None, rpc, found or ()), value
    return _decode_slowly(line, eol, direction), NOT_PARSED


def _decode_slowly(line: bytes, eol: bytes, direction: str) -> Event:
    event = Event(Kind.MESSAGE, raw=line, dir=direction, eol=eol)
    if eol == b"\r\n":
        event.findings = [_CRLF]
    if line.startswith(BOM):
        return _error(event, "the line starts with a UTF-8 byte order mark (EF BB BF), which is not allowed "
                             "before a JSON-RPC message; strict JSON parsers reject it")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = line[exc.start : exc.end].hex(" ").upper()
        return _error(event, f"not valid UTF-8: byte {bad} at offset {exc.start} cannot be decoded "
                             "(MCP messages must be UTF-8)")
    if not text.strip():
        return _error(event, "a blank line: stdout should carry only JSON-RPC messages" if text == "" else
                             "a line of only whitespace: stdout should carry only JSON-RPC messages")
    if text.lstrip()[:1] not in _TEXT_MAY_PARSE:  # what _not_json says of it, without the parse that fails first
        return _error(event, _PLAIN_TEXT)  # (a flood of log lines: a third of the time each line cost)
    try:
        value = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        return _not_json(event, text, exc)
    except NonStandardConstant as exc:
        return _error(event, f"{exc} is not valid JSON (Python's json writes it; JavaScript clients reject it)")
    except RecursionError:
        return _error(event, TOO_DEEP)
    except ValueError:  # the only other one: an integer over Python's digit limit (sys.get_int_max_str_digits)
        return _error(event, "a JSON number too long to read (an integer of more than "
                             f"{sys.get_int_max_str_digits():,} digits)")
    if not isinstance(value, (dict, list)):
        return _error(event, f"valid JSON, but a {json_type(value)} rather than a JSON-RPC object "
                             "or batch array")
    event.rpc, found = jsonrpc.classify(value)
    if found:
        event.add_findings(found)
    return event


def _not_json(event: Event, text: str, exc: json.JSONDecodeError) -> Event:
    stripped = text.lstrip()
    if exc.msg == "Extra data":
        rest = text[exc.pos :].lstrip()
        try:
            json.JSONDecoder().raw_decode(rest)
            second_is_json = True
        except (ValueError, RecursionError):
            second_is_json = False
        if second_is_json:
            event = _error(event, f"two JSON values on one line (the second starts at column {exc.colno}): "
                                  "each message needs its own line")
            return event
        return _error(event, f"starts with valid JSON but has extra text from column {exc.colno}")
    if stripped[:1] in ("{", "[") and exc.pos >= len(text.rstrip()):
        event.put(incomplete_json=True)
        return _error(event, f"incomplete JSON: the line ends before the value does ({exc.msg}); "
                             "a message split over several lines?")
    if stripped[:1] not in _JSON_STARTS:
        return _error(event, _PLAIN_TEXT)
    return _error(event, f"not JSON: {exc.msg} at column {exc.colno}")


#: The reason of a line that is JSON nested deeper than the parser goes: a message no one can read (the session
#: fails the request it answers at once, rather than waiting for its timeout)
TOO_DEEP = "JSON nested too deeply to parse"
_PLAIN_TEXT = ("plain text, not JSON (a banner, a print() or a log line?): stdout is reserved for JSON-RPC messages, "
               "log to stderr instead")


def _error(event: Event, reason: str) -> Event:
    event.kind = Kind.FRAMING_ERROR
    event.reason = reason
    event.rpc = None
    return event


def decode_document(body: bytes, direction: str = Direction.S2C) -> Event:
    """Decode one HTTP body or SSE ``data`` field: one JSON value, whitespace and newlines allowed.

    Unlike a stdio line, a pretty-printed body is legal; the framing problems left are encoding, BOM,
    not-JSON and not-an-object. The event has no terminator (``eol`` is empty).
    """
    stripped = body.strip(b" \t\r\n")
    if stripped and b"\n" not in stripped and b"\r" not in stripped:
        event = _decode(stripped, b"", direction)
        if event.kind == Kind.MESSAGE:
            event.raw = body
            return event
    event = Event(Kind.MESSAGE, raw=body, dir=direction, eol=b"")
    if body.startswith(BOM):
        return _error(event, "the body starts with a UTF-8 byte order mark (EF BB BF); strict JSON parsers reject it")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = body[exc.start : exc.end].hex(" ").upper()
        return _error(event, f"not valid UTF-8: byte {bad} at offset {exc.start} cannot be decoded")
    if not text.strip():
        return _error(event, "an empty body where a JSON-RPC message was expected")
    if text.lstrip()[:1] not in _JSON_STARTS:
        return _error(event, "text that is not JSON (an HTML error page? a proxy's message?)")
    try:
        value = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        return _error(event, f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    except NonStandardConstant as exc:
        return _error(event, f"{exc} is not valid JSON (Python's json writes it; JavaScript clients reject it)")
    except RecursionError:
        return _error(event, TOO_DEEP)
    if not isinstance(value, (dict, list)):
        return _error(event, f"valid JSON, but a {json_type(value)} rather than a JSON-RPC object or batch")
    event.rpc, found = jsonrpc.classify(value)
    if found:
        event.add_findings(found)
    return event


def decode_line(line: bytes, direction: str = Direction.C2S, eol: bytes = b"\n") -> Event:
    """Decode one complete line, for example a message the inspector is about to send."""
    return _decode(line, eol, direction)


def server_broke_framing(event: Event) -> bool:
    """Whether ``event`` is a framing error the server is to blame for: every framing error but a line that
    mcp-inspector's own stop cut short (:data:`CUT_BY_STOP`). The one rule for counting, flagging and judging
    framing errors."""
    return event.kind == Kind.FRAMING_ERROR and CUT_BY_STOP not in event.data


def cut_by_stop(event: Event) -> bool:
    """Whether ``event`` holds the bytes of a line mcp-inspector's own stop cut short (see :data:`CUT_BY_STOP`)."""
    return event.kind == Kind.FRAMING_ERROR and CUT_BY_STOP in event.data
