"""Faults a served capture can be told to make (``serve --fault SPEC``, and the window's toggles): sans-io.

A :class:`Faults` holds the faults in force, by name, and may change while the twin runs (the window sets and
clears them: :meth:`Faults.set`, :meth:`Faults.clear`; :meth:`Faults.describe` lists them for a person). The
conductor (:mod:`inspector.core.serve.conduct`) asks it, for each request the twin answers, what to do; random
choices come from one :class:`random.Random` seeded by ``--seed`` (:attr:`Faults.seed`), so a run can be made
again.

The specs (:data:`NAMES`):

* ``latency=MS`` or ``latency=MIN-MAX``: each answer waits that long (a range: uniformly within it); the other
  requests' answers keep flowing meanwhile.
* ``error-rate=P`` (0 to 1): each request outside the handshake is answered, with probability P, by a JSON-RPC
  internal error (-32603) whose message says it is a fault (:func:`fault_error`).
* ``junk``: a line that is no JSON (:data:`JUNK_LINE`) before each answer on stdio; an HTTP host sends a broken
  SSE frame instead (:data:`JUNK_SSE_FRAME`): the conductor hands the host an item marked ``junk`` and the host
  writes what its transport breaks on (:func:`junk_bytes`).
* ``drop=METHOD`` (repeatable, or ``drop=a,b``): requests of these methods are never answered.
* ``close-after=N``: the twin ends after answering N requests (stdio: the output is closed and serve exits 0).
* ``oversize=BYTES``: the next answer outside the handshake is padded past BYTES (``_meta`` of its result, or
  ``data`` of its error, gets :data:`PADDING_KEY`), once: the fault then clears itself.
* ``list-changed=SECONDS``: ``notifications/tools/list_changed`` every SECONDS once the handshake is answered.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

from inspector.core.sizes import format_size, parse_size

NAMES = ("latency", "error-rate", "junk", "drop", "close-after", "oversize", "list-changed")
#: The JSON-RPC internal error an ``error-rate`` fault answers with.
INTERNAL_ERROR = -32603
#: The line ``junk`` writes before an answer on stdio: no JSON, nothing a client can parse.
JUNK_LINE = b"mcp-inspector serve: junk before the answer (--fault junk), not a JSON-RPC message"
#: What ``junk`` sends before an answer on an HTTP event stream: an event whose data is cut-off JSON.
JUNK_SSE_FRAME = b'event: message\ndata: {"jsonrpc":"2.0","id":\n\n'
#: The member ``oversize`` pads an answer with (in its result's ``_meta``, or its error's ``data``).
PADDING_KEY = "io.github.mcp-inspector/padding"
#: A latency longer than an hour is a mistake, not a test.
MAX_LATENCY_MS = 3_600_000
#: The largest padding (a bigger answer tests nothing a client's limit of a few hundred megabytes does not).
MAX_OVERSIZE = 256 << 20
#: The shortest list_changed period (a faster one floods the client, which is no fault of a server's).
MIN_PERIOD = 0.01


class FaultError(ValueError):
    """A fault spec that cannot be honoured; ``str()`` is one sentence for a person."""


def junk_bytes(transport: str) -> bytes:
    """What a ``junk`` item is on ``transport``: a line for ``stdio`` (the host adds the newline), else a broken
    SSE frame (sent as it is, before the answer's own event)."""
    return JUNK_LINE if transport == "stdio" else JUNK_SSE_FRAME


def fault_error(request_id: Any, spec: str) -> dict[str, Any]:
    """The internal error answering a request in place of its recorded answer (``spec`` names the fault)."""
    return {"jsonrpc": "2.0", "id": request_id,
            "error": {"code": INTERNAL_ERROR, "message": f"Internal error: a fault injected by mcp-inspector serve "
                                                         f"(--fault {spec}), not the recorded answer"}}


class Faults:
    """The faults in force (see the module), changeable at any time; ``seed`` makes the random ones repeatable."""

    def __init__(self, specs: list[str] | tuple[str, ...] = (), seed: int | None = None) -> None:
        self.seed = seed if seed is not None else int.from_bytes(os.urandom(4), "big")
        self.random = random.Random(self.seed)
        self.latency: tuple[int, int] | None = None  #: milliseconds, min and max
        self.error_rate: float | None = None
        self.junk = False
        self.drop: frozenset[str] = frozenset()
        self.close_after: int | None = None
        self.oversize: int | None = None
        self.list_changed: float | None = None  #: seconds
        for spec in specs:
            self.set(spec, merge=True)

    def __bool__(self) -> bool:
        return bool(self.describe())

    # -- setting and clearing (the CLI, the window) --------------------------------------------------------

    def set(self, spec: str, merge: bool = False) -> None:
        """Put the fault of ``spec`` (``name`` or ``name=value``) in force, in place of the same name's;
        ``merge``: a ``drop`` adds its methods to those already dropped. Raises :class:`FaultError`."""
        name, has_value, value = spec.partition("=")
        name = name.strip()
        if name not in NAMES:
            raise FaultError(f"--fault {spec}: no such fault; choose one of {', '.join(NAMES)} (e.g. latency=200, "
                             f"error-rate=0.1, drop=tools/call)")
        if name == "junk":
            if has_value:
                raise FaultError(f"--fault {spec}: junk takes no value; write --fault junk")
            self.junk = True
            return
        if not value.strip():
            raise FaultError(f"--fault {spec}: {name} needs a value, e.g. --fault {_EXAMPLES[name]}")
        value = value.strip()
        if name == "latency":
            self.latency = _latency(spec, value)
        elif name == "error-rate":
            self.error_rate = _number(spec, value, 0.0, 1.0, "a probability from 0 to 1")
        elif name == "drop":
            methods = frozenset(m.strip() for m in value.split(",") if m.strip())
            if not methods:
                raise FaultError(f"--fault {spec}: name the method whose requests go unanswered, e.g. drop=tools/call")
            self.drop = self.drop | methods if merge else methods
        elif name == "close-after":
            self.close_after = int(_number(spec, value, 1, 1 << 62, "a whole number of requests, 1 or more",
                                           whole=True))
        elif name == "oversize":
            self.oversize = _size(spec, value)
        else:
            self.list_changed = _number(spec, value, MIN_PERIOD, 86_400.0, f"a period in seconds from {MIN_PERIOD} "
                                        "to 86400")

    def clear(self, name: str) -> bool:
        """Take the fault ``name`` out of force; whether it was in force."""
        if name not in NAMES:
            raise FaultError(f"no such fault {name!r}; choose one of {', '.join(NAMES)}")
        was = name in self.active()
        attribute = name.replace("-", "_")
        setattr(self, attribute, False if name == "junk" else frozenset() if name == "drop" else None)
        return was

    def active(self) -> dict[str, str]:
        """The faults in force: name -> the spec's value (``""`` for ``junk``), in :data:`NAMES` order."""
        found: dict[str, str] = {}
        if self.latency is not None:
            low, high = self.latency
            found["latency"] = str(low) if low == high else f"{low}-{high}"
        if self.error_rate is not None:
            found["error-rate"] = _shown(self.error_rate)
        if self.junk:
            found["junk"] = ""
        if self.drop:
            found["drop"] = ",".join(sorted(self.drop))
        if self.close_after is not None:
            found["close-after"] = str(self.close_after)
        if self.oversize is not None:
            found["oversize"] = str(self.oversize)
        if self.list_changed is not None:
            found["list-changed"] = _shown(self.list_changed)
        return found

    def spec(self, name: str) -> str:
        """The spec of the fault ``name`` in force, as ``--fault`` takes it (``error-rate=0.25``)."""
        value = self.active().get(name, "")
        return f"{name}={value}" if value else name

    def describe(self) -> list[str]:
        """A phrase per fault in force, for a person (the window's list, serve's line on stderr)."""
        out = []
        for name in self.active():
            if name == "latency":
                low, high = self.latency or (0, 0)
                out.append(f"each answer waits {low} ms" if low == high else f"each answer waits {low}-{high} ms")
            elif name == "error-rate":
                out.append(f"{_shown((self.error_rate or 0) * 100)}% of requests answered with an internal error")
            elif name == "junk":
                out.append("a line of junk before each answer")
            elif name == "drop":
                out.append(f"{', '.join(sorted(self.drop))} never answered")
            elif name == "close-after":
                out.append(f"the twin ends after {self.close_after:,} requests")
            elif name == "oversize":
                out.append(f"the next answer padded past {format_size(self.oversize or 0)}")
            else:
                out.append(f"tools/list_changed every {_shown(self.list_changed or 0)} s")
        return out

    # -- effects (the conductor asks) ----------------------------------------------------------------------

    def delay(self) -> float:
        """How long the next answer waits, in seconds (0 without ``latency``)."""
        if self.latency is None:
            return 0.0
        low, high = self.latency
        return (low if low == high else self.random.uniform(low, high)) / 1000

    def errs(self) -> bool:
        """Whether the next request (outside the handshake) gets an internal error."""
        rate = self.error_rate
        return rate is not None and rate > 0 and self.random.random() < rate

    def padded(self, answer: dict[str, Any]) -> dict[str, Any] | None:
        """``answer`` padded past ``oversize`` (which then clears itself), or None without it."""
        size = self.oversize
        if size is None:
            return None
        self.oversize = None
        bare = len(json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode())
        padding = "x" * max(1, size - bare + 1)
        if isinstance(answer.get("result"), dict):
            result = dict(answer["result"])
            meta = result.get("_meta")
            result["_meta"] = {**(meta if isinstance(meta, dict) else {}), PADDING_KEY: padding}
            return {**answer, "result": result}
        error = answer.get("error")
        if isinstance(error, dict):
            data = error.get("data")
            data = {**data, PADDING_KEY: padding} if isinstance(data, dict) else {PADDING_KEY: padding,
                                                                                   "data": data}
            return {**answer, "error": {**error, "data": data}}
        return None


_EXAMPLES = {"latency": "latency=200 or latency=50-500", "error-rate": "error-rate=0.1", "drop": "drop=tools/call",
             "close-after": "close-after=3", "oversize": "oversize=1M", "list-changed": "list-changed=5"}


def _shown(number: float) -> str:
    return f"{number:g}"


def _number(spec: str, value: str, low: float, high: float, what: str, whole: bool = False) -> float:
    try:
        number = int(value) if whole else float(value)
    except ValueError:
        number = None
    if number is None or number != number or not low <= number <= high:
        raise FaultError(f"--fault {spec}: {value!r} is not {what}")
    return number


def _latency(spec: str, value: str) -> tuple[int, int]:
    low_text, dash, high_text = value.partition("-")
    what = f"a number of milliseconds up to {MAX_LATENCY_MS:,}, or MIN-MAX"
    low = int(_number(spec, low_text.strip(), 0, MAX_LATENCY_MS, what, whole=True))
    high = int(_number(spec, high_text.strip(), 0, MAX_LATENCY_MS, what, whole=True)) if dash else low
    if high < low:
        raise FaultError(f"--fault {spec}: the range goes down ({low} to {high}); write MIN-MAX, e.g. "
                         f"latency={high}-{low}")
    return low, high


def _size(spec: str, value: str) -> int:
    try:
        size = parse_size(value)
    except ValueError:
        size = None
    if size is None or not 1 <= size <= MAX_OVERSIZE:
        raise FaultError(f"--fault {spec}: {value!r} is not a size from 1 byte to {format_size(MAX_OVERSIZE)} "
                         "(e.g. 100000, 64K, 2M)")
    return size
