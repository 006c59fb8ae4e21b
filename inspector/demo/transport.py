"""stdio framing: one compact JSON object per line, UTF-8, flushed per message.

https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio
https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio

The writer is shared by the reader thread and by background tool threads, so
every write happens under one lock: two messages must never interleave bytes
on the wire. It also exposes :meth:`StdoutWriter.write_raw` because several
demo tools exist precisely to put *wrong* bytes on stdout.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from typing import Any, BinaryIO

log = logging.getLogger(__name__)


def encode_message(message: dict[str, Any]) -> bytes:
    """Serialise one message as a single UTF-8 line ending in ``\\n``.

    ``ensure_ascii=False`` keeps non-ASCII text readable in the inspector.
    JSON escapes control characters, so the result never contains a raw
    newline. A lone surrogate (possible when a client sent ``"\\ud800"``)
    cannot be encoded as UTF-8; for that message only we fall back to ASCII
    escapes, which is still valid JSON.
    """
    text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = json.dumps(message, separators=(",", ":"), ensure_ascii=True).encode("ascii")
    return data + b"\n"


class StdoutWriter:
    """Thread-safe writer of messages and raw bytes to a binary stream."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._broken = False

    def send(self, message: dict[str, Any]) -> None:
        """Write one JSON-RPC message as one line and flush it."""
        self.write_raw(encode_message(message))

    def write_raw(self, data: bytes) -> None:
        """Write bytes verbatim (used by the banner and misbehaving tools)."""
        with self._lock:
            if self._broken:
                return
            try:
                self._stream.write(data)
                self._stream.flush()
            except (BrokenPipeError, ValueError, OSError) as exc:
                # The client stopped reading. Nothing we write can reach it any
                # more; keep serving stdin until EOF so the exit stays clean.
                self._broken = True
                log.warning("stdout is closed (%s); dropping further output", exc)
                self._silence_stdout()

    def close(self) -> None:
        """Drop every later write; returns once no write is in progress."""
        with self._lock:
            self._broken = True

    def hold(self) -> threading.Lock:
        """The write lock, for callers that must not race a half-written line.

        The ``exit`` tool takes it before ending the process so that a message
        being written by another thread is never cut in half.
        """
        return self._lock

    def _silence_stdout(self) -> None:
        # Python flushes sys.stdout again at interpreter shutdown, and a broken
        # pipe would then print a traceback-like warning to stderr. Pointing
        # the descriptor at /dev/null is the recipe from the `signal` docs.
        try:
            fd = self._stream.fileno()
        except (AttributeError, OSError, ValueError):
            return
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, fd)
            os.close(devnull)
        except OSError:
            pass


class LineError(Exception):
    """A stdin line that is not a JSON value; becomes a -32700 response."""

    def __init__(self, message: str, detail: str) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail


def decode_line(raw: bytes) -> Any | None:
    """Parse one stdin line; return ``None`` for a blank line.

    Blank lines carry no message, so they are skipped rather than answered
    (many clients emit a trailing newline). Anything else must be UTF-8 JSON:
    invalid UTF-8 or invalid JSON raises :class:`LineError`. A UTF-8 BOM is
    rejected by ``json.loads`` itself, which is what we want: the spec says
    messages are plain UTF-8 JSON.
    """
    if not raw.strip():
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LineError("Parse error", f"line is not valid UTF-8: {exc}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise LineError("Parse error", f"line is not valid JSON: {exc}") from exc
