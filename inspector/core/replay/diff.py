"""Recorded and replayed messages compared: ignored JSON paths, value diffs, and notifications that came or went.

**Paths.** ``--ignore`` takes a small JSONPath subset, matched against the *whole response object* (so
results start with ``$.result`` and errors with ``$.error``):

=================  ==========================================================================================
``$``              the whole message (ignores everything)
``.name``          an object member; ``name`` is any run of characters other than ``.``, ``[``, ``]``,
                   quotes and white space (``$.result.content``)
``["name"]``       an object member by any name, in double or single quotes, ``\\"`` and ``\\\\`` escaped
                   (``$.result._meta["io.modelcontextprotocol/serverInfo"]``)
``[N]``            the array element at index N (0 or more)
``[*]`` or ``.*``  any one member or element
``..name``         ``name`` at any depth below (``$..timestamp``)
=================  ==========================================================================================

A path that matches a place drops every difference at or below it: ``$.result.content[*].text`` hides a
changed text but still reports a content block that appeared or disappeared.

**Diff.** Objects are compared member by member (a member only on one side is ``added`` or ``removed``),
arrays element by element at the same index (a longer array has ``added`` elements; there is no alignment
of shifted elements), anything else by value. Numbers compare as JSON numbers (``1`` equals ``1.0``) but
``true`` is not ``1``. Every difference is a :class:`MessageDiff`: data for the GUI's side-by-side view,
and one readable line for the terminal (:meth:`MessageDiff.describe`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from inspector.core.text import safe

CHANGED = "changed"
ADDED = "added"
REMOVED = "removed"
#: How many characters of a value a terminal line shows (long values are cut in the middle of nowhere
#: useful, so strings that share a long start are shown from shortly before where they part).
VALUE_WIDTH = 80
#: When two strings share a start longer than this, the shown values begin this many characters before
#: the first difference.
SHARED_START_SHOWN = 20

Segment = str | int
_NAME = re.compile(r"[^.\[\]'\"\s]+")


class PathError(ValueError):
    """A path outside the supported subset; the message says where and why, in one sentence."""


# -- paths ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JsonPath:
    """A parsed ``--ignore`` path. ``steps`` are ``("key", name)``, ``("index", n)``, ``("any", None)`` or
    ``("descend", name)`` (``..name``)."""

    text: str
    steps: tuple[tuple[str, Any], ...]

    @classmethod
    def parse(cls, text: str) -> JsonPath:
        if not text.startswith("$"):
            raise PathError(f"the path {text!r} must start with $ (for example $.result.content[0].text)")
        steps: list[tuple[str, Any]] = []
        i = 1
        while i < len(text):
            if text.startswith("..", i):
                match = _NAME.match(text, i + 2)
                if match is None:
                    raise PathError(f"the path {text!r} needs a member name after '..' at column {i + 3}")
                steps.append(("descend", match.group()))
                i = match.end()
            elif text[i] == ".":
                if text.startswith("*", i + 1):
                    steps.append(("any", None))
                    i += 2
                    continue
                match = _NAME.match(text, i + 1)
                if match is None:
                    raise PathError(f"the path {text!r} needs a member name after '.' at column {i + 2}")
                steps.append(("key", match.group()))
                i = match.end()
            elif text[i] == "[":
                step, i = _bracket(text, i)
                steps.append(step)
            else:
                raise PathError(f"the path {text!r} has {text[i]!r} at column {i + 1}, where '.' or '[' was expected")
        return cls(text, tuple(steps))

    def matches(self, segments: Sequence[Segment]) -> bool:
        """Whether this path names exactly the place ``segments`` (member names and array indexes)."""
        return _match(self.steps, 0, segments, 0)

    def __str__(self) -> str:
        return self.text


def _bracket(text: str, i: int) -> tuple[tuple[str, Any], int]:
    """One ``[...]`` step starting at ``text[i] == "["``; returns the step and the index after ``]``."""
    j = i + 1
    if j < len(text) and text[j] in "\"'":
        quote = text[j]
        j += 1
        name: list[str] = []
        while j < len(text) and text[j] != quote:
            if text[j] == "\\" and j + 1 < len(text):
                j += 1
            name.append(text[j])
            j += 1
        if text[j:j + 2] != quote + "]":
            raise PathError(f"the path {text!r} has an unclosed [{quote}...{quote}] at column {i + 1}")
        return ("key", "".join(name)), j + 2
    end = text.find("]", j)
    if end < 0:
        raise PathError(f"the path {text!r} has a '[' without ']' at column {i + 1}")
    inner = text[j:end].strip()
    if inner == "*":
        return ("any", None), end + 1
    if inner.isdigit():
        return ("index", int(inner)), end + 1
    raise PathError(f"the path {text!r} has [{inner}] at column {i + 1}: use [N] (N 0 or more), [*] or "
                    "[\"name\"]")


def _match(steps: tuple[tuple[str, Any], ...], si: int, segments: Sequence[Segment], gi: int) -> bool:
    if si == len(steps):
        return gi == len(segments)
    kind, value = steps[si]
    if kind == "descend":
        # ..name: skip any number of segments, then the member name
        return any(segments[k] == value and isinstance(segments[k], str) and _match(steps, si + 1, segments, k + 1)
                   for k in range(gi, len(segments)))
    if gi == len(segments):
        return False
    segment = segments[gi]
    if kind == "any":
        ok = True
    elif kind == "key":
        ok = isinstance(segment, str) and segment == value
    else:
        ok = isinstance(segment, int) and segment == value
    return ok and _match(steps, si + 1, segments, gi + 1)


def parse_paths(texts: Iterable[str]) -> list[JsonPath]:
    """Parse every ``--ignore``; raises PathError on the first that is not in the subset."""
    return [JsonPath.parse(text) for text in texts]


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def format_path(segments: Sequence[Segment]) -> str:
    """A place as people read it: ``result.content[0].text``; odd member names as ``["a/b"]``; ``$`` alone
    for the whole message."""
    out = ""
    for segment in segments:
        if isinstance(segment, int):
            out += f"[{segment}]"
        elif _IDENTIFIER.fullmatch(segment):
            out += ("." if out else "") + segment
        else:
            out += "[" + json.dumps(segment, ensure_ascii=False) + "]"
    return out or "$"


# -- value diffs ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MessageDiff:
    """One difference between a recorded value and the replayed one, at ``path`` (see :func:`format_path`).

    ``kind`` is ``changed`` (``old`` and ``new`` set), ``added`` (only in the replay: ``new``) or ``removed``
    (only in the recording: ``old``). ``segments`` is the same place as member names and indexes.
    """

    path: str
    kind: str
    old: Any = None
    new: Any = None
    segments: tuple[Segment, ...] = ()

    def describe(self, width: int = VALUE_WIDTH) -> str:
        """``result.content[0].text: "10:00" -> "11:00"``, ``result.isError: added true``, ``...: removed 3``."""
        if self.kind == ADDED:
            return f"{safe(self.path)}: added {clip_value(self.new, width)}"
        if self.kind == REMOVED:
            return f"{safe(self.path)}: removed {clip_value(self.old, width)}"
        old, new = clip_pair(self.old, self.new, width)
        return f"{safe(self.path)}: {old} -> {new}"


def same_value(a: Any, b: Any) -> bool:
    """JSON equality: numbers by value, booleans apart from numbers, containers deeply."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def diff_values(old: Any, new: Any, ignore: Sequence[JsonPath] = (), _at: tuple[Segment, ...] = ()
                ) -> list[MessageDiff]:
    """Every difference from ``old`` (recorded) to ``new`` (replayed), outside the ``ignore`` paths."""
    if ignore and any(path.matches(_at) for path in ignore):
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[MessageDiff] = []
        for key in old:
            where = (*_at, key)
            if key not in new:
                if not _ignored(where, ignore):
                    out.append(MessageDiff(format_path(where), REMOVED, old=old[key], segments=where))
            else:
                out.extend(diff_values(old[key], new[key], ignore, where))
        for key in new:
            where = (*_at, key)
            if key not in old and not _ignored(where, ignore):
                out.append(MessageDiff(format_path(where), ADDED, new=new[key], segments=where))
        return out
    if isinstance(old, list) and isinstance(new, list):
        out = []
        for index in range(max(len(old), len(new))):
            where = (*_at, index)
            if index >= len(new):
                if not _ignored(where, ignore):
                    out.append(MessageDiff(format_path(where), REMOVED, old=old[index], segments=where))
            elif index >= len(old):
                if not _ignored(where, ignore):
                    out.append(MessageDiff(format_path(where), ADDED, new=new[index], segments=where))
            else:
                out.extend(diff_values(old[index], new[index], ignore, where))
        return out
    if same_value(old, new):
        return []
    return [MessageDiff(format_path(_at), CHANGED, old=old, new=new, segments=_at)]


def _ignored(where: tuple[Segment, ...], ignore: Sequence[JsonPath]) -> bool:
    return any(path.matches(where) for path in ignore)


def diff_messages(recorded: Any, replayed: Any, ignore: Sequence[JsonPath] = ()) -> list[MessageDiff]:
    """Differences between a recorded response and its replayed counterpart, after normalisation: the
    replayed response's ``id`` is the fresh id of the replayed request, and the ``requestState`` of an
    ``input_required`` result is the server's opaque token for this run (the replay passes it on to the
    retry), so both are compared as the recorded ones: mapping them is the point, not a difference."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        if "id" in recorded and "id" in replayed:
            replayed = {**replayed, "id": recorded["id"]}
        old, new = recorded.get("result"), replayed.get("result")
        if isinstance(old, dict) and isinstance(new, dict) and "requestState" in old and "requestState" in new \
                and old.get("resultType") == new.get("resultType") == "input_required":
            replayed = {**replayed, "result": {**new, "requestState": old["requestState"]}}
    return diff_values(recorded, replayed, ignore)


# -- showing values ---------------------------------------------------------------------------------------


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def clip_value(value: Any, width: int = VALUE_WIDTH) -> str:
    """A value as compact JSON, control characters escaped, cut to ``width`` characters with ``…``."""
    text = safe(compact(value))
    return text if len(text) <= width else text[: width - 1] + "…"


def clip_pair(old: Any, new: Any, width: int = VALUE_WIDTH) -> tuple[str, str]:
    """Both values clipped; two long strings that share a start are shown from just before they part, so
    the difference is on screen."""
    a, b = safe(compact(old)), safe(compact(new))
    if isinstance(old, str) and isinstance(new, str) and (len(a) > width or len(b) > width):
        shared = 0
        for x, y in zip(a, b, strict=False):  # the shared start is at most the shorter one
            if x != y:
                break
            shared += 1
        if shared > SHARED_START_SHOWN:
            start = shared - SHARED_START_SHOWN
            a, b = "…" + a[start:], "…" + b[start:]
    return (a if len(a) <= width else a[: width - 1] + "…"), (b if len(b) <= width else b[: width - 1] + "…")


# -- messages that came or went ---------------------------------------------------------------------------


@dataclass(frozen=True)
class WindowDelta:
    """Server messages of one ``label`` (a notification method, or ``METHOD request`` for a server request)
    that the replay has ``count`` more (``extra``) or fewer (``missing``) of than the recording, in the window
    of one replayed message: from sending it to sending the next."""

    label: str
    kind: str  #: ``missing`` or ``extra``
    count: int

    def describe(self) -> str:
        return f"{safe(self.label)}: {self.count} {self.kind}"


def compare_windows(recorded: Sequence[Counter[str]], replayed: Sequence[Counter[str]]) -> list[list[WindowDelta]]:
    """Per window, the labels that are missing or extra in the replay.

    A message that moved to the neighbouring window (a log line that now arrives just after the response
    instead of just before it) is timing, not behaviour: a missing one and an extra one of the same label in
    adjacent windows cancel out.
    """
    n = max(len(recorded), len(replayed))
    net: list[Counter[str]] = []
    for i in range(n):
        delta: Counter[str] = Counter()
        old = recorded[i] if i < len(recorded) else Counter()
        new = replayed[i] if i < len(replayed) else Counter()
        for label in set(old) | set(new):
            if new[label] != old[label]:
                delta[label] = new[label] - old[label]
        net.append(delta)
    for i in range(n - 1):
        here, there = net[i], net[i + 1]
        for label in list(here):
            if label in there and (here[label] > 0) != (there[label] > 0):
                moved = min(abs(here[label]), abs(there[label]))
                here[label] += -moved if here[label] > 0 else moved
                there[label] += -moved if there[label] > 0 else moved
    return [
        [WindowDelta(label, "extra" if d > 0 else "missing", abs(d)) for label, d in sorted(delta.items()) if d]
        for delta in net
    ]
