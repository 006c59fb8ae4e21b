"""The exchanges of a capture, found without loading it: what ``serve`` answers from.

A :class:`~inspector.core.capture.index.CaptureIndex` scans the file once and keeps a few bytes an event (kind,
direction, method, paired row); a message is decoded from the file only when it is served or compared. From
those columns :class:`ServeIndex` keeps the client's requests that have an answer (a request's answer is the
row the capture's ``reply_to`` pairs with it, docs/capture-format.md), apart from the handshake's, which
:mod:`inspector.core.serve.handshake` answers; the client's notifications, by method; and which of the
server's notifications belong to which client message.

The server's notifications belong to the client message before them (the request that caused a tool's
progress and log lines, the ``notifications/initialized`` a server answers with a list_changed): served, that
message brings them along, those recorded before its answer ahead of the answer, the others after it. The
server's own requests (sampling, elicitation, roots) are listed in :attr:`ServeIndex.server_request_rows`
(:mod:`inspector.core.serve.conduct` sends them).

Scanning a capture of a million events takes seconds; a capture of :data:`CACHED_FROM_BYTES` or more keeps its
scanned index in the user's cache folder (:func:`index_cache_path`, :mod:`inspector.core.capture.saved_index`), and
a later start of serve on the same capture, unchanged, reads that instead of scanning (a capture changed since,
or a damaged or foreign cache file, is scanned again and the cache rewritten).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspector.core.capture.columns import DIR_CODES, DIR_SHIFT, KIND_CODES, KIND_MASK
from inspector.core.capture.index import CaptureIndex, PartialEvent
from inspector.core.capture.saved_index import capture_key, load_index, save_index
from inspector.core.paths import cache_dir
from inspector.core.present.json_tree import parse
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind

#: Requests answered by the handshake's rules, not looked up among the others.
HANDSHAKE_METHODS = ("initialize", "server/discover")
#: Requests whose result the spec makes empty and that clients send on their own, whatever the recorded client did
#: (a ping; the official inspector sets the log level of every server that declares logging): answered as a
#: recorded one with the same params was, else with the empty result; never part of the recorded order.
HOUSEKEEPING = frozenset({"ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"})
NOTIFICATION_PREFIX = "notifications/"
#: The server's notifications that belong to the request under way (they come on its own answer's stream).
REQUEST_SCOPED = frozenset({"notifications/progress", "notifications/message"})
#: Captures at least this big keep their scanned index in the cache folder (a smaller one scans in well under a
#: tenth of a second: a cache file would only cost a write).
CACHED_FROM_BYTES = 4 << 20
#: How often a scan that may be stopped looks whether it is (seconds).
STOP_EVERY = 0.05
#: The cache folder keeps the indexes of at most this many captures (the least recently used go first).
CACHED_CAPTURES = 32


def _message_table(direction: str) -> bytes:
    """For each category byte of the capture's columns, 1 for a message in ``direction``."""
    wanted = DIR_CODES[direction]
    return bytes(1 if value & KIND_MASK == KIND_CODES[Kind.MESSAGE] and (value >> DIR_SHIFT) & 0x03 == wanted
                 else 0 for value in range(256))


_C2S = _message_table(Direction.C2S)
_S2C = _message_table(Direction.S2C)


class IndexStopped(Exception):
    """The scan of the capture was stopped before it ended (:class:`ServeIndex`'s ``stop``)."""


class ServeIndex:
    """The recorded requests of a capture and their answers (a :class:`~inspector.core.serve.matcher.RequestBook`).

    Raises :class:`~inspector.core.capture.format.CaptureError` (a sentence) when the file is not a readable
    capture; :attr:`warnings` holds what the reader skipped.
    """

    def __init__(self, path: str | os.PathLike[str], cache: Path | None = None,
                 stop: threading.Event | None = None) -> None:
        """``stop``: when set while the capture is scanned, the scan ends and :class:`IndexStopped` is raised."""
        #: where the scanned index of this capture is kept (``cache``, default :func:`index_cache_path`; None: the
        #: capture is too small to keep one)
        self.cache_path = cache if cache is not None else index_cache_path(path)
        #: the index was read from :attr:`cache_path`, not scanned
        self.from_cache = False
        self.capture = self._indexed(path, stop)
        self._build()

    @classmethod
    def start_of(cls, path: str | os.PathLike[str], most: int) -> ServeIndex:
        """An index of the start of the capture only: a chunk at a time until :meth:`handshake_settled` (or the
        whole file, or ``most`` bytes, scanned). What it says of the handshake is what the whole capture's index
        says when :meth:`handshake_settled`; the rest is only the start's. Never cached."""
        self = cls.__new__(cls)
        self.cache_path = None
        self.from_cache = False
        self.capture = CaptureIndex(path)
        check_at = 0  # looked at each time the part scanned has doubled: the builds cost as much as one
        while True:
            self.capture.scan(0.0)  # one chunk
            ended = self.capture.done or self.capture.scanned >= most
            if ended or self.capture.scanned >= check_at:
                self._build()
                if ended or self.handshake_settled():
                    return self
                check_at = 2 * self.capture.scanned

    def handshake_settled(self) -> bool:
        """The recorded ``initialize`` this index answers with, and the server's messages that follow it, are those
        the index of the whole capture gives: an initialize with a result is answered, no earlier initialize waits
        for its answer, and the client's next message is in the index (what follows the handshake ends there)."""
        rows = self.handshake_rows("initialize")
        if rows is None or "result" not in self.message(rows[1]):
            return False
        if any(row < rows[0] for row in self._unanswered_handshake):
            return False
        return self.capture.done or self._c2s.find(1, rows[0] + 1) >= 0

    def _build(self) -> None:
        self.warnings = self.capture.warnings
        columns = self.capture.columns
        count = len(columns)
        self._c2s = columns.mask(0, count, _C2S)
        self._s2c = columns.mask(0, count, _S2C)
        self.requests = array("q")  #: capture rows of the answered requests, in order (a position indexes them)
        self.answers = array("q")  #: the row of each one's answer
        self._by_method: dict[str, array[int]] = {}
        #: the handshake's answered requests: method -> (request row, answer row), in order
        self.handshake: dict[str, list[tuple[int, int]]] = {}
        #: the answered requests of :data:`HOUSEKEEPING`: method -> (request row, answer row), in order
        self.housekeeping: dict[str, list[tuple[int, int]]] = {}
        self._notifications: dict[str, array[int]] = {}  # the client's notifications' rows, by method
        self.server_requests = 0  #: requests of the server's in the capture
        self.server_request_rows = array("q")  #: their rows, ascending
        #: the server's notifications that belong to no request (list_changed, resource updates; progress and log
        #: lines aside): what an HTTP twin offers a GET stream for
        self.unprompted_notifications = 0
        self._unanswered_handshake: list[int] = []  # rows of the handshake's requests without an answer (yet)
        row = self._c2s.find(1)
        while row >= 0:
            partner = columns.partner(row)
            method = columns.method(row)
            if partner is not None and partner > row:
                if method in HANDSHAKE_METHODS:
                    self.handshake.setdefault(method, []).append((row, partner))
                elif method in HOUSEKEEPING:
                    self.housekeeping.setdefault(method, []).append((row, partner))
                else:
                    self._by_method.setdefault(method, array("q")).append(len(self.requests))
                    self.requests.append(row)
                    self.answers.append(partner)
            elif partner is None and method.startswith(NOTIFICATION_PREFIX):
                self._notifications.setdefault(method, array("q")).append(row)
            elif partner is None and method in HANDSHAKE_METHODS:
                self._unanswered_handshake.append(row)
            row = self._c2s.find(1, row + 1)
        # only the server's messages whose method is no notification's (a response's is its request's) are looked at
        asked = columns.mask(0, count, _S2C, bytes(not name.startswith(NOTIFICATION_PREFIX)
                                                   for name in columns.method_names))
        row = asked.find(1)
        while row >= 0:
            partner = columns.partner(row)
            if (partner is None or partner > row) and not columns.method(row).startswith(NOTIFICATION_PREFIX):
                self.server_requests += 1
                self.server_request_rows.append(row)
            row = asked.find(1, row + 1)
        # the notifications that belong to no request: a mask of their methods, counted
        self.unprompted_notifications = columns.mask(0, count, _S2C, bytes(
            name.startswith(NOTIFICATION_PREFIX) and name not in REQUEST_SCOPED
            for name in columns.method_names)).count(1)

    def _indexed(self, path: str | os.PathLike[str], stop: threading.Event | None) -> CaptureIndex:
        """The capture's index: from the cache when it holds this capture as it is, else scanned (and cached)."""
        saved = self.cache_path
        if saved is not None:
            loaded = load_index(path, saved)
            if loaded is not None:
                self.from_cache = True
                _touch(saved)
                return loaded
        key = capture_key(path) if saved is not None else None  # before the scan: a capture that grows is not kept
        capture = CaptureIndex(path)
        if stop is None:
            capture.scan_all()
        else:
            while not capture.done:
                if stop.is_set():
                    capture.close()
                    raise IndexStopped
                capture.scan(STOP_EVERY)
        if saved is not None and key is not None and save_index(capture, key, saved):
            _forget_old(saved.parent)
        return capture

    def close(self) -> None:
        self.capture.close()

    # -- the RequestBook ------------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.requests)

    def method(self, position: int) -> str:
        return self.capture.columns.method(self.requests[position])

    def params(self, position: int) -> Any:
        return params_of(self.message(self.requests[position]))

    def label(self, position: int) -> str:
        return f"{self.method(position)} #{self.seq(self.requests[position])}"

    def positions(self, method: str) -> Sequence[int]:
        return self._by_method.get(method, ())

    def methods(self) -> Sequence[str]:
        return list(self._by_method)

    # -- reading rows ---------------------------------------------------------------------------------------

    def seq(self, row: int) -> int:
        seq = self.capture.columns.seq_of_row(row)
        return seq if seq is not None else row + 1

    def event(self, row: int) -> Event:
        return self.capture.event(row)

    def raw(self, row: int) -> bytes:
        """All the raw bytes of a row's event (a line over a megabyte is read back a piece at a time)."""
        event = self.capture.event(row)
        if isinstance(event, PartialEvent):
            return b"".join(self.capture.raw_pieces(event))
        return event.raw

    def message(self, row: int) -> dict[str, Any]:
        """The JSON-RPC message of a row ({} when it is not one object)."""
        text = self.capture.raw_text(row, parse)
        # ASCII text parses as its UTF-8 bytes do (json.loads would read bytes that start with a NUL as UTF-16 or 32);
        # anything else is parsed from the event's bytes (a lone surrogate, which the bytes cannot hold, fails there).
        # parse: orjson where it reads the text exactly as json.loads does (about twice as fast), else json.loads
        try:
            if text is not None and text.isascii() and "\0" not in text[:4]:
                value = parse(text.encode("ascii"))
            else:
                value = json.loads(self.raw(row))
        except (ValueError, RecursionError):
            return {}
        return value if isinstance(value, dict) else {}

    def notification_rows(self, method: str) -> Sequence[int]:
        """The rows of the client's recorded notifications of ``method``, in order."""
        return self._notifications.get(method, ())

    def followers(self, row: int, answer: int | None = None) -> tuple[list[int], list[int]]:
        """The server's notifications that belong to the client message at ``row`` (those after it and before the
        client's next message): those recorded before ``answer`` (its answer's row) and those after it."""
        end = self._c2s.find(1, row + 1)
        end = len(self._s2c) if end < 0 else end
        before: list[int] = []
        after: list[int] = []
        columns = self.capture.columns
        at = self._s2c.find(1, row + 1, end)
        while at >= 0:
            if columns.partner(at) is None and columns.method(at).startswith(NOTIFICATION_PREFIX):
                rpc = self.capture.event(at).rpc
                if rpc is not None and rpc.kind == jsonrpc.NOTIFICATION:
                    (before if answer is not None and at < answer else after).append(at)
            at = self._s2c.find(1, at + 1, end)
        return before, after

    def handshake_rows(self, method: str) -> tuple[int, int] | None:
        """The rows of the recorded ``method`` of the handshake and of its answer: the first that succeeded (a probe
        refused, then retried), else the first."""
        found = self.handshake.get(method, [])[:8]
        return next((pair for pair in found if "result" in self.message(pair[1])), found[0] if found else None)

    def handshake_answer(self, method: str) -> tuple[dict[str, Any], dict[str, Any], int] | None:
        """The recorded ``method`` of the handshake with its answer (:meth:`handshake_rows`): (request, answer, the
        answer's seq)."""
        rows = self.handshake_rows(method)
        if rows is None:
            return None
        return self.message(rows[0]), self.message(rows[1]), self.seq(rows[1])


def index_cache_path(path: str | os.PathLike[str]) -> Path | None:
    """Where the scanned index of the capture at ``path`` is kept: a file named after the capture's real path in
    ``serve-index`` of the user's cache folder (never beside the capture); None for a capture under
    :data:`CACHED_FROM_BYTES` (or one that cannot be looked at: the scan says why)."""
    try:
        if os.stat(path).st_size < CACHED_FROM_BYTES:
            return None
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return None
    name = hashlib.blake2b(os.fsencode(real), digest_size=16).hexdigest()
    return cache_dir() / "serve-index" / f"{name}.idx"


def _touch(path: Path) -> None:
    try:
        os.utime(path)
    except OSError:
        pass


def _forget_old(folder: Path) -> None:
    """Keep the :data:`CACHED_CAPTURES` most recently used indexes in ``folder``."""
    try:
        kept = sorted(folder.glob("*.idx"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in kept[CACHED_CAPTURES:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass


def params_of(message: dict[str, Any]) -> Any:
    return message.get("params")
