"""Which recorded answer a client's request gets (sans-io): the ``--match`` modes of ``mcp-inspector serve``.

A request is known by its method and its params without what changes from one run of a client to the next
(:data:`VOLATILE_PARAMS`: ``_meta``, which holds the progress token, the trace context and, on a 2026-07-28
request, the revision and the client's capabilities). Cursors and task ids the capture's server minted are
served as they were recorded, so the client sends them back as the recorded client did; :class:`CursorMap`
says which recorded cursor a client's cursor stands for (the same one, unless an answer was rewritten).

Modes (:data:`MODES`):

* ``auto``: the recorded request with the same key; identical requests get the recorded answers in recorded
  order, then the last one again;
* ``sequential``: the recorded answers in recorded order, whatever comes;
* ``strict``: as ``auto``, and in the recorded order: the request must be the next recorded one. Polls
  (:data:`POLLS`: ``tasks/get``), whose number depends on how long a task took, are matched as in ``auto`` and
  are no part of the order.

A request the capture has no answer for is a :class:`Miss` whose sentence names the closest recorded request
and what differs (:func:`closest`).
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

MODES = ("auto", "sequential", "strict")
#: Requests a client repeats as often as its timing says (a task's status polled until it is done): identical
#: ones get the recorded answers in order, then the last (the final status) again, in every mode but sequential.
POLLS = frozenset({"tasks/get"})
#: Members of params that a client sets anew on each run and that say nothing of what it asks.
VOLATILE_PARAMS = frozenset({"_meta"})
#: At most this many distinct recorded requests of a method are compared for the closest one (a capture of a
#: million calls of one tool still answers a miss at once).
MAX_COMPARED = 500
#: ... among at most this many of its recorded requests (the first ones).
MAX_SCANNED = 5000
#: A value shown in a sentence is cut to this many characters.
SHOWN_CHARS = 40
#: The JSON-RPC error codes of a miss: the method was never recorded (the spec's "Method not found", which a
#: client probing ``server/discover`` reads as a server of the initialize era), or it was and not with these
#: params, or not now (an implementation-defined server error).
METHOD_NOT_RECORDED = -32601
NO_RECORDED_ANSWER = -32000


class RequestBook(Protocol):
    """The recorded requests that have an answer, in recorded order (a position is an index into that order)."""

    def __len__(self) -> int: ...

    def method(self, position: int) -> str:
        """The recorded request's method."""

    def params(self, position: int) -> Any:
        """The recorded request's params (decoded on demand; None when it had none)."""

    def label(self, position: int) -> str:
        """How a sentence names it, e.g. ``tools/call #9`` (its seq in the capture)."""

    def positions(self, method: str) -> Sequence[int]:
        """The positions of the requests of ``method``, ascending."""

    def methods(self) -> Sequence[str]:
        """Every method that has a recorded request."""


@dataclass(frozen=True, slots=True)
class Hit:
    """The recorded request whose answer the client gets."""

    position: int


@dataclass(frozen=True, slots=True)
class Miss:
    """No recorded answer: ``text`` is the sentence for the client and the summary; ``closest`` the position of
    the closest recorded request, if any; ``code`` the JSON-RPC error code."""

    text: str
    closest: int | None
    code: int


class CursorMap:
    """The cursors handed to the client and the recorded cursors they stand for.

    Answers are served as recorded, so each cursor maps to itself; the map is where an answer that rewrites its
    ``nextCursor`` (a fault, a window's edit) keeps the recorded one, so the client's next page still matches."""

    def __init__(self) -> None:
        self._recorded: dict[str, str] = {}

    def handed(self, served: str, recorded: str) -> None:
        self._recorded[served] = recorded

    def learn(self, cursor: str | None) -> None:
        """Note the ``nextCursor`` of a result served as recorded."""
        if cursor is not None:
            self._recorded.setdefault(cursor, cursor)

    def recorded(self, cursor: str) -> str:
        return self._recorded.get(cursor, cursor)


def normalized(params: Any, cursors: CursorMap | None = None) -> Any:
    """``params`` without its volatile members, a cursor replaced by the recorded one it stands for; no params
    and empty params are the same, and so are ``3`` and ``3.0`` (JSON has one kind of number: a client may
    write either)."""
    if params is None:
        return {}
    if not isinstance(params, dict):
        return _numbers(params)
    out = {key: _numbers(value) for key, value in params.items() if key not in VOLATILE_PARAMS}
    cursor = out.get("cursor")
    if cursors is not None and isinstance(cursor, str):
        out["cursor"] = cursors.recorded(cursor)
    return out


def _numbers(value: Any) -> Any:
    """``value`` with every whole float made an int (booleans stay booleans)."""
    kind = type(value)
    if kind is float:
        return int(value) if value.is_integer() else value
    if kind is dict:
        return {key: _numbers(item) for key, item in value.items()}
    if kind is list:
        return [_numbers(item) for item in value]
    return value


_KEY_ENCODE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


def request_key(method: str, params: Any, cursors: CursorMap | None = None) -> bytes:
    """A digest of the method and normalized params: equal for requests that get the same recorded answers."""
    text = _KEY_ENCODE([method, normalized(params, cursors)])
    return hashlib.blake2b(text.encode("utf-8", errors="surrogatepass"), digest_size=16).digest()


@dataclass
class Matcher:
    """Picks the recorded answer of each request of the client, as ``mode`` says (one of :data:`MODES`)."""

    book: RequestBook
    mode: str = "auto"
    cursors: CursorMap = field(default_factory=CursorMap)
    _keys: dict[str, _Keyed] = field(default_factory=dict)  # method -> its recorded requests' keys, as far as read
    _served: dict[bytes, int] = field(default_factory=dict)  # key -> how many of its answers were given
    _next: int = 0  # sequential and strict: the position due next

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"--match {self.mode!r}: choose one of {', '.join(MODES)}")

    def match(self, method: str, params: Any) -> Hit | Miss:
        if self.mode == "sequential":
            return self._sequential(method)
        if not method:  # "": what a recorded batch is kept under, no request's method
            return Miss("no recorded answer to a request whose method is empty", None, METHOD_NOT_RECORDED)
        key = request_key(method, params, self.cursors)
        if self.mode == "strict" and method not in POLLS:
            return self._strict(method, params, key)
        served = self._served.get(key, 0)
        found = self._positions(method, key, served)
        if not found:
            return self.miss(method, params)
        self._served[key] = served + 1
        return Hit(found[min(served, len(found) - 1)])

    def take(self, position: int) -> bool:
        """Whether the recorded answer at ``position`` may be given now though the client's request is not the
        recorded one (a multi-round retry whose input differs): in strict mode only when it is the one due next."""
        if self.mode != "strict":
            return True
        if position != self._due():
            return False
        self._next += 1
        return True

    def _due(self) -> int:
        """strict: the position due next, the recorded polls and batches passed over."""
        while self._next < len(self.book) and (self.book.method(self._next) in POLLS
                                               or not self.book.method(self._next)):  # a poll, a recorded batch
            self._next += 1
        return self._next

    def _sequential(self, method: str) -> Hit | Miss:
        while self._next < len(self.book) and not self.book.method(self._next):  # a recorded batch: not one answer
            self._next += 1
        if self._next >= len(self.book):
            return Miss(f"no recorded answer to {method}: all {len(self.book)} recorded answers have been given "
                        "in order (--match sequential)", None, NO_RECORDED_ANSWER)
        self._next += 1
        return Hit(self._next - 1)

    def _strict(self, method: str, params: Any, key: bytes) -> Hit | Miss:
        due = self._due()
        if due >= len(self.book):
            return Miss(f"no recorded answer to {method}: all {len(self.book)} recorded requests have been answered "
                        "in order (--match strict)", None, NO_RECORDED_ANSWER)
        if request_key(self.book.method(due), self.book.params(due)) == key:
            self._next += 1
            return Hit(due)
        difference = difference_text(self.book.method(due), self.book.params(due), method, params, self.cursors)
        return Miss(f"no recorded answer to {method} at this point: the next recorded request, {self.book.label(due)}, "
                    f"differs in {difference} (--match strict)", due, NO_RECORDED_ANSWER)

    def _positions(self, method: str, key: bytes, served: int) -> list[int]:
        """The positions of the recorded requests of ``method`` with ``key``, in order: at least ``served + 1`` of them,
        or all there are. The method's recorded requests are read in recorded order only as far as that needs (a
        capture of a million calls answers its first ones at once; a request it has no answer to, or asked once more
        than recorded, reads them all, once), so the list is a prefix of them all, long enough to pick from."""
        keyed = self._keys.get(method)
        if keyed is None:
            keyed = self._keys[method] = _Keyed(self.book.positions(method))
        found = keyed.by_key.setdefault(key, [])
        positions, book = keyed.positions, self.book
        while len(found) <= served and keyed.read < len(positions):
            position = positions[keyed.read]
            keyed.read += 1
            keyed.by_key.setdefault(request_key(method, book.params(position)), []).append(position)
        return found

    def miss(self, method: str, params: Any) -> Miss:
        """The sentence for a request without a recorded answer, naming the closest recorded request."""
        return closest(self.book, method, params, self.cursors)


@dataclass(slots=True)
class _Keyed:
    """The recorded requests of one method by key, read as far as :attr:`read` (of :attr:`positions`)."""

    positions: Sequence[int]
    by_key: dict[bytes, list[int]] = field(default_factory=dict)
    read: int = 0


def closest(book: RequestBook, method: str, params: Any, cursors: CursorMap | None = None) -> Miss:
    """The recorded request closest to ``method`` with ``params``: of the same method, the one with the fewest
    differing fields (the earliest of equals); else the recorded method nearest by name."""
    positions = book.positions(method)
    if not positions:
        methods = [name for name in book.methods() if name]  # "" holds the recorded batches
        if not methods:
            return Miss(f"no recorded answer to {method}: the capture holds no answered request", None,
                        METHOD_NOT_RECORDED)
        near = difflib.get_close_matches(method, methods, n=1, cutoff=0.0) or methods[:1]
        position = book.positions(near[0])[0]
        return Miss(f"no recorded answer to {method}: the capture has no {method} request; the closest recorded "
                    f"request is {book.label(position)}", position, METHOD_NOT_RECORDED)
    mine = normalized(params, cursors)
    best: tuple[int, int] | None = None  # (differences, position)
    seen: set[bytes] = set()
    for position in positions[:MAX_SCANNED]:
        key = request_key(method, book.params(position))
        if key in seen:
            continue
        seen.add(key)
        count = len(differences(normalized(book.params(position)), mine))
        if best is None or count < best[0]:
            best = (count, position)
        if len(seen) >= MAX_COMPARED:
            break
    assert best is not None
    position = best[1]
    text = difference_text(method, book.params(position), method, params, cursors)
    return Miss(f"no recorded answer to this {method}: the closest recorded request, {book.label(position)}, "
                f"differs in {text}", position, NO_RECORDED_ANSWER)


def difference_text(recorded_method: str, recorded_params: Any, method: str, params: Any,
                    cursors: CursorMap | None = None) -> str:
    """What differs between a recorded request and the client's, in words (``params.arguments.b (recorded 3,
    here 4) and 1 more field``)."""
    if recorded_method != method:
        return f"its method ({recorded_method}, here {method})"
    found = differences(normalized(recorded_params), normalized(params, cursors))
    if not found:
        return "nothing but volatile fields"
    path, recorded, here = found[0]
    if recorded is _ABSENT:
        text = f"params{path} (here only: {_shown(here)})"
    elif here is _ABSENT:
        text = f"params{path} (recorded {_shown(recorded)}, absent here)"
    else:
        text = f"params{path} (recorded {_shown(recorded)}, here {_shown(here)})"
    if len(found) > 1:
        more = len(found) - 1
        text += f" and {more} more field{'s' if more != 1 else ''}"
    return text


_ABSENT: Any = object()


def differences(recorded: Any, here: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """The leaves where two JSON values differ: (path, recorded value, value here), a side that has nothing
    there being :data:`_ABSENT`. Lists are compared item by item; a value of another type differs as a whole."""
    if isinstance(recorded, dict) and isinstance(here, dict):
        found: list[tuple[str, Any, Any]] = []
        for key in list(recorded) + [k for k in here if k not in recorded]:
            found += differences(recorded.get(key, _ABSENT), here.get(key, _ABSENT), f"{path}.{key}")
        return found
    if isinstance(recorded, list) and isinstance(here, list):
        found = []
        for index in range(max(len(recorded), len(here))):
            found += differences(recorded[index] if index < len(recorded) else _ABSENT,
                                 here[index] if index < len(here) else _ABSENT, f"{path}[{index}]")
        return found
    if type(recorded) is type(here) and recorded == here:
        return []
    if {type(recorded), type(here)} == {int, float} and recorded == here:
        return []  # 3 and 3.0: the same JSON number
    return [(path, recorded, here)]


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, allow_nan=True)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 1] + "…"
