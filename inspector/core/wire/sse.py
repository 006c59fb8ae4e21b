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


class SSEDecoder:
    """``feed(bytes) -> list[RawSSE]``; ``close()`` at end of stream (an incomplete last event is dropped,
    as the standard says, but counted in ``incomplete_bytes``)."""

    def __init__(self) -> None:
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
                if self._last_line_in_block and self._block:
                    self._block[-1] += b"\n"
                    self._crlf = True
        buf = self._buffer + data
        if not self._bom_checked:
            if len(buf) < 3 and b"\xef\xbb\xbf".startswith(buf):
                self._buffer = buf
                return []  # maybe the start of a BOM: wait for more
            self._bom_checked = True
            if buf.startswith(b"\xef\xbb\xbf"):
                buf = buf[3:]
        out: list[RawSSE] = []
        pos = 0
        while True:
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
        return out

    def close(self) -> list[RawSSE]:
        """End of stream. An event without its blank line is not dispatched (the standard says so); its
        size is kept in ``incomplete_bytes``."""
        rest = self._buffer
        self._buffer = b""
        self.incomplete_bytes = len(rest) + sum(len(part) for part in self._block)
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
        self._event = ""
        self._data = []
        self._has_data = False
        self._id = None
        self._retry = None
        self._comments = 0
        return event
