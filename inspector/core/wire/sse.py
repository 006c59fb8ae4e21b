"""Sans-io Server-Sent Events decoder that keeps what a debugger needs to show.

Parsing follows the HTML standard's event-stream rules (https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream):
lines end in CRLF, LF or CR; ``field: value`` with one optional space removed; ``data`` lines joined with
``\\n``; a blank line dispatches; ``id`` containing NUL is ignored; ``retry`` only if all digits.

We decode ourselves instead of iterating ``httpx_sse.EventSource`` because that drops what we must show:
comment lines (keep-alives, which we count), the raw bytes of each event, the line-ending style (Python
servers use CRLF, Node LF), and events without data (the 2025-11-25 priming event is an ``id`` with empty
data). Events are still handed out as :class:`httpx_sse.ServerSentEvent`, the library's own model.
"""

from __future__ import annotations

from dataclasses import dataclass

from httpx_sse import ServerSentEvent


@dataclass
class RawSSE:
    """One dispatched event, with the exact bytes of its block and what preceded it."""

    sse: ServerSentEvent
    raw: bytes  #: the bytes of the event's lines, terminators included, without the blank dispatch line
    has_data: bool  #: whether any ``data`` field was present (a priming event has an id and no data)
    comments: int  #: keep-alive comment lines seen since the previous event
    crlf: bool  #: whether the event's lines ended in CRLF
    #: an event over the decoder's ``max_event_bytes``: its size in bytes (``raw`` is then only its first
    #: :data:`OVER_KEEP_BYTES`, ``data_head`` the start of its data, and ``sse.data`` is empty); 0 otherwise
    oversize: int = 0
    data_head: bytes = b""

    def fields(self) -> dict[str, object]:
        """The event's SSE fields as recorded in captures (``data.sse`` or an ``sse`` event's data)."""
        fields: dict[str, object] = {"event": self.sse.event}
        if self.sse.id:
            fields["id"] = self.sse.id
        if self.sse.retry is not None:
            fields["retry"] = self.sse.retry
        if self.comments:
            fields["comments_before"] = self.comments
        return fields


#: How much of an event over the limit is kept (its first bytes, and the first bytes of its data).
OVER_KEEP_BYTES = 64 * 1024


class SSEDecoder:
    """``feed(bytes) -> list[RawSSE]``; ``close()`` at end of stream (an incomplete last event is dropped,
    as the standard says, but counted in ``incomplete_bytes``).

    With ``max_event_bytes``, an event whose lines grow past it is not kept: its bytes are counted and dropped
    up to the blank line that ends it, and it is dispatched as a RawSSE with ``oversize`` set (its first bytes
    kept). Without it, every byte is kept, as the contract above says. An unterminated line is gathered in
    pieces, so a long line costs its length once, not once per chunk."""

    def __init__(self, max_event_bytes: int | None = None) -> None:
        self.max_event_bytes = max_event_bytes
        self._parts: list[bytes] = []  # an unterminated line's pieces after _buffer
        self._parts_size = 0
        self._block_size = 0  # bytes of the lines of the event being gathered
        self._over: bytearray | None = None  # an event over the limit: its first bytes
        self._over_data = b""
        self._over_total = 0
        self._over_line = False  # the over-long event's current line has bytes
        self._over_comment = False  # what went over is a comment line outside any event: no event to dispatch
        self._buffer = b""
        self._block: list[bytes] = []
        self._event = ""
        self._data: list[str] = []
        self._has_data = False
        self._id: str | None = None
        self._retry: int | None = None
        self._comments = 0
        self._crlf = False
        self.last_event_id = ""  #: the stream's last event id, for Last-Event-ID on reconnection
        self.total_comments = 0
        self.incomplete_bytes = 0
        self._bom_checked = False
        self._skip_lf = False
        self._last_line_in_block = False

    def feed(self, data: bytes) -> list[RawSSE]:
        if not data:
            return []
        if self._skip_lf:  # the previous chunk ended in CR: an LF now completes that CRLF
            self._skip_lf = False
            if data[:1] == b"\n":
                data = data[1:]
                if self._over is not None:
                    self._over_total += 1
                elif self._last_line_in_block and self._block:
                    self._block[-1] += b"\n"
                    self._block_size += 1
                    self._crlf = True
        out: list[RawSSE] = []
        if self._over is not None:
            rest = self._skip_over(data, out)
            if rest is None:
                return out
            data = rest
        if self._bom_checked and data and b"\n" not in data and b"\r" not in data:
            self._parts.append(data)  # the middle of a line: gathered, not copied again
            self._parts_size += len(data)
            self._check_size(out)
            return out
        if self._parts:
            data = b"".join(self._parts) + data
            self._parts = []
            self._parts_size = 0
        buf = self._buffer + data
        if not self._bom_checked:
            if len(buf) < 3 and b"\xef\xbb\xbf".startswith(buf):
                self._buffer = buf
                return []  # maybe the start of a BOM: wait for more
            self._bom_checked = True
            if buf.startswith(b"\xef\xbb\xbf"):
                buf = buf[3:]
        pos = 0
        while True:
            if self._over is not None:
                rest = self._skip_over(buf[pos:], out)
                if rest is None:
                    self._buffer = b""
                    return out
                buf, pos = rest, 0
                continue
            lf = buf.find(b"\n", pos)
            cr = buf.find(b"\r", pos, lf if lf >= 0 else len(buf))
            if cr >= 0:
                if cr + 1 == len(buf):
                    # a CR at the very end ends the line now; an LF arriving next is its other half
                    self._line(buf[pos:cr], b"\r", out)
                    self._skip_lf = True
                    pos = cr + 1
                elif buf[cr + 1] == 0x0A:
                    self._line(buf[pos:cr], b"\r\n", out)
                    pos = cr + 2
                else:
                    self._line(buf[pos:cr], b"\r", out)
                    pos = cr + 1
            elif lf >= 0:
                self._line(buf[pos:lf], b"\n", out)
                pos = lf + 1
            else:
                break
        self._buffer = buf[pos:]
        self._check_size(out)
        return out

    # -- events over the limit --------------------------------------------------------------------------

    def _check_size(self, out: list[RawSSE]) -> None:
        """Past ``max_event_bytes`` (the gathered lines and the line under way): keep the head, drop the rest."""
        limit = self.max_event_bytes
        if limit is None or self._over is not None:
            return
        pending = len(self._buffer) + self._parts_size
        if self._block_size + pending <= limit:
            return
        line = b"".join([self._buffer, *self._parts])
        self._parts = []
        self._parts_size = 0
        self._buffer = b""
        head = b"".join(self._block) + line
        data = "\n".join(self._data).encode("utf-8", errors="replace")
        if line.startswith(b"data:"):
            value = line[5:]
            value = value[1:] if value.startswith(b" ") else value
            data = (data + b"\n" + value) if self._has_data else value
            self._has_data = True
        self._over_comment = not self._block and line.startswith(b":")
        self._over = bytearray(head[:OVER_KEEP_BYTES])
        self._over_data = data[:OVER_KEEP_BYTES]
        self._over_total = len(head)
        self._over_line = bool(line)
        self._block = []
        self._block_size = 0

    def _skip_over(self, data: bytes, out: list[RawSSE]) -> bytes | None:
        """Count and drop the bytes of the event over the limit up to its blank line; then dispatch it and
        return what follows (None: the event goes on past ``data``)."""
        pos = 0
        while True:
            cr = data.find(b"\r", pos)
            lf = data.find(b"\n", pos)
            ends = [i for i in (cr, lf) if i >= 0]
            if not ends:
                if pos < len(data):
                    self._over_total += len(data) - pos
                    self._over_line = True
                return None
            at = min(ends)
            if at > pos:
                self._over_line = True
                self._over_total += at - pos
            width = 2 if data[at:at + 2] == b"\r\n" else 1
            if data[at:at + 1] == b"\r" and at + 1 == len(data):
                self._skip_lf = True  # an LF may follow in the next chunk: part of this line's end
            if self._over_comment:  # a long comment outside an event: counted as one, and reading goes on
                self._comments += 1
                self.total_comments += 1
                self._over = None
                self._over_data = b""
                self._over_total = 0
                self._over_line = False
                self._over_comment = False
                return data[at + width:]
            if not self._over_line:  # a blank line: the event ends here
                out.append(self._dispatch_over())
                return data[at + width:]
            self._over_total += width
            self._over_line = False
            pos = at + width

    def _dispatch_over(self) -> RawSSE:
        assert self._over is not None
        sse = ServerSentEvent(event=self._event or "message", data="", id=self._id or "", retry=self._retry)
        event = RawSSE(sse, bytes(self._over), self._has_data, self._comments, self._crlf,
                       oversize=self._over_total, data_head=self._over_data)
        if self._id is not None:
            self.last_event_id = self._id
        self._over = None
        self._over_data = b""
        self._over_total = 0
        self._over_line = False
        self._event = ""
        self._data = []
        self._has_data = False
        self._id = None
        self._retry = None
        self._comments = 0
        return event

    def close(self) -> list[RawSSE]:
        """End of stream. An event without its blank line is not dispatched (the standard says so); its
        size is kept in ``incomplete_bytes``."""
        rest = self._buffer
        self._buffer = b""
        self.incomplete_bytes = len(rest) + self._parts_size + sum(len(part) for part in self._block) \
            + self._over_total
        self._parts = []
        self._parts_size = 0
        return []

    def _line(self, line: bytes, ending: bytes, out: list[RawSSE]) -> None:
        self._last_line_in_block = False
        if not line:
            if self._block:
                out.append(self._dispatch())
            return
        if line.startswith(b":"):
            self._comments += 1
            self.total_comments += 1
            return
        self._block.append(line + ending)
        self._block_size += len(line) + len(ending)
        self._last_line_in_block = True
        self._crlf = ending == b"\r\n"
        text = line.decode("utf-8", errors="replace")
        name, sep, value = text.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._has_data = True
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._id = value
        elif name == "retry":
            if value.isascii() and value.isdigit():
                self._retry = int(value)

    def _dispatch(self) -> RawSSE:
        if self._id is not None:
            self.last_event_id = self._id
        sse = ServerSentEvent(event=self._event or "message", data="\n".join(self._data),
                              id=self._id if self._id is not None else "", retry=self._retry)
        event = RawSSE(sse, b"".join(self._block), self._has_data, self._comments, self._crlf)
        self._block = []
        self._block_size = 0
        self._event = ""
        self._data = []
        self._has_data = False
        self._id = None
        self._retry = None
        self._comments = 0
        return event
