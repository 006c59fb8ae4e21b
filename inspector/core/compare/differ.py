"""Two servers compared (:func:`compare`): their interfaces and their answers to the same requests.

**Interface.** For each kind (tools, resources, resource templates, prompts) the items are matched by their key
(a tool's or prompt's ``name``, a resource's ``uri``, a template's ``uriTemplate``): an item only in B is
``added``, only in A ``removed``, and one whose definition differs is ``changed``, with every difference inside
it (``inputSchema.properties.text.type``, ``annotations.readOnlyHint``, ``description``...) found by the
replay's differ (:func:`inspector.core.replay.diff.diff_values`). A kind one side never listed is not compared
(a note says so).

**Behaviour.** A request of A and one of B are the same request when their method and params agree, the
``_meta`` the client adds left out (:meth:`~inspector.core.compare.sessions.Exchange.key`); the n-th such
request of A is compared with the n-th of B. Compared: the status (a result, a JSON-RPC error, no answer), then
``isError`` and the content, with the replay's :func:`~inspector.core.replay.diff.diff_messages` (the ids
mapped, ``--ignore`` paths dropped, the protocol's own ``_meta`` members of a result left out); and, with a
``latency_threshold``, a latency that moved by more than it. A request only one side sent is listed (``only in
A``, ``only in B``) but is no difference: it says what was asked, not how the server answered.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.core.compare.sessions import KEYS, Exchange, ServerRecord, without_protocol_meta
from inspector.core.replay.diff import ADDED, CHANGED, REMOVED, JsonPath, MessageDiff, diff_messages, diff_values

#: The kinds, in the order reports list them, and how they are named there.
KIND_NAMES = {"tools": "tool", "resources": "resource", "templates": "resource template", "prompts": "prompt",
              "instructions": "server"}  # a baseline's pinned instructions: "server instructions changed (text)"
STATUS = "status"
IS_ERROR = "isError"
CONTENT = "content"
LATENCY = "latency"
ONLY_A = "only in A"
ONLY_B = "only in B"


@dataclass(frozen=True)
class InterfaceChange:
    """One tool, resource, template or prompt that was added, removed or changed (``change``)."""

    kind: str  #: tools, resources, templates or prompts
    name: str
    change: str  #: added, removed or changed
    diffs: tuple[MessageDiff, ...] = ()  #: what changed inside it (``changed`` only)
    old: Any = None
    new: Any = None

    @property
    def fields(self) -> list[str]:
        """The top-level members that changed, in order: ``description``, ``inputSchema``, ``annotations``..."""
        seen: list[str] = []
        for diff in self.diffs:
            top = str(diff.segments[0]) if diff.segments else "$"
            if top not in seen:
                seen.append(top)
        return seen

    def describe(self) -> str:
        what = f"{KIND_NAMES[self.kind]} {self.name}"
        if self.change != CHANGED:
            return f"{what} {self.change}"
        return f"{what} changed ({', '.join(self.fields)})"


@dataclass(frozen=True)
class BehaviourChange:
    """How the answer to one request differs (``change``: status, isError, content, latency), or a request
    that only one side sent."""

    label: str  #: ``tools/call echo``
    change: str
    a: Exchange | None
    b: Exchange | None
    diffs: tuple[MessageDiff, ...] = ()
    detail: str = ""  #: the sentence for status, isError and latency

    @property
    def counts(self) -> bool:
        """Whether this is a difference in how the server answered (else: a request only one side sent)."""
        return self.change not in (ONLY_A, ONLY_B)

    def describe(self) -> str:
        where = f"#{self.a.seq}" if self.a is not None else ""
        where += (" -> " if self.a is not None and self.b is not None else "") + \
            (f"#{self.b.seq}" if self.b is not None else "")
        head = f"{self.label} ({where})"
        if self.change in (ONLY_A, ONLY_B):
            return f"{head}: {self.change}"
        if self.detail:
            return f"{head}: {self.detail}"
        return f"{head}: {len(self.diffs)} difference{'s' if len(self.diffs) != 1 else ''} in the answer"


@dataclass
class Comparison:
    """Everything :func:`compare` found."""

    a: ServerRecord
    b: ServerRecord
    interface: list[InterfaceChange] = field(default_factory=list)
    behaviour: list[BehaviourChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  #: what could not be compared, in sentences
    compared_kinds: list[str] = field(default_factory=list)
    compared_requests: int = 0  #: requests answered on both sides and compared
    latency_threshold: float | None = None  #: seconds

    @property
    def differences(self) -> int:
        """Interface changes plus behaviour changes (requests one side only sent not counted)."""
        return len(self.interface) + sum(1 for change in self.behaviour if change.counts)

    @property
    def same(self) -> bool:
        return self.differences == 0

    def changed_names(self) -> list[str]:
        """The tools (and other items) that changed in any way, as ``tool echo``."""
        return [f"{KIND_NAMES[c.kind]} {c.name}" for c in self.interface]


def compare(a: ServerRecord, b: ServerRecord, *, ignore: Sequence[JsonPath] = (),
            latency_threshold: float | None = None) -> Comparison:
    """Compare ``a`` (the old, the recording) with ``b`` (the new, the live server). ``latency_threshold`` in
    seconds: report a request whose latency moved by more (None: latency is not compared)."""
    result = Comparison(a, b, latency_threshold=latency_threshold)
    result.notes += [f"A: {note}" for note in a.notes] + [f"B: {note}" for note in b.notes]
    for kind in KEYS:
        old, new = a.interface.get(kind), b.interface.get(kind)
        if old is None or new is None:
            if old is not None or new is not None:
                missing = "A" if old is None else "B"
                result.notes.append(f"{kind}: not compared, {missing} never listed them completely")
            continue
        result.compared_kinds.append(kind)
        result.interface.extend(diff_interface(kind, old, new))
    _compare_behaviour(result, ignore)
    return result


def diff_interface(kind: str, old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]]) -> list[InterfaceChange]:
    """The items of ``kind`` added, removed and changed from ``old`` to ``new`` (both keyed by name)."""
    changes = [InterfaceChange(kind, name, REMOVED, old=old[name]) for name in old if name not in new]
    changes += [InterfaceChange(kind, name, ADDED, new=new[name]) for name in new if name not in old]
    for name in old:
        if name in new:
            diffs = diff_values(old[name], new[name])
            if diffs:
                changes.append(InterfaceChange(kind, name, CHANGED, tuple(diffs), old[name], new[name]))
    return changes


def _compare_behaviour(result: Comparison, ignore: Sequence[JsonPath]) -> None:
    by_key: dict[str, list[Exchange]] = defaultdict(list)
    for exchange in result.b.exchanges:
        by_key[exchange.key()].append(exchange)
    taken: dict[str, int] = defaultdict(int)
    matched: set[int] = set()
    for old in result.a.exchanges:
        key = old.key()
        candidates = by_key.get(key, [])
        index = taken[key]
        if index >= len(candidates):
            result.behaviour.append(BehaviourChange(old.label(), ONLY_A, old, None))
            continue
        taken[key] += 1
        new = candidates[index]
        matched.add(id(new))
        result.behaviour.extend(compare_answers(old, new, ignore, result.latency_threshold))
        if old.response is not None and new.response is not None:
            result.compared_requests += 1
    for new in result.b.exchanges:
        if id(new) not in matched:
            result.behaviour.append(BehaviourChange(new.label(), ONLY_B, None, new))


def compare_answers(old: Exchange, new: Exchange, ignore: Sequence[JsonPath] = (),
                    latency_threshold: float | None = None) -> list[BehaviourChange]:
    """How ``new``'s answer differs from ``old``'s (the same request): status first; for two results, isError
    and the content; for two errors, the error; and the latency beyond ``latency_threshold`` seconds."""
    label = old.label()
    changes: list[BehaviourChange] = []
    if old.status != new.status:
        changes.append(BehaviourChange(label, STATUS, old, new, detail=f"{old.status} -> {new.status}"))
    elif old.response is not None and new.response is not None:
        diffs = diff_messages(without_protocol_meta(old.response), without_protocol_meta(new.response), ignore)
        flag = [d for d in diffs if d.segments[:2] == ("result", "isError")]
        rest = tuple(d for d in diffs if d not in flag)
        if flag:
            changes.append(BehaviourChange(label, IS_ERROR, old, new, tuple(flag),
                                           f"isError {_flag(old.result)} -> {_flag(new.result)}"))
        if rest:
            changes.append(BehaviourChange(label, CONTENT, old, new, rest))
    if latency_threshold is not None and old.latency is not None and new.latency is not None:
        moved = new.latency - old.latency
        if abs(moved) > latency_threshold:
            changes.append(BehaviourChange(label, LATENCY, old, new, detail=(
                f"latency {old.latency * 1000:.1f} ms -> {new.latency * 1000:.1f} ms ({moved * 1000:+.1f} ms, beyond "
                f"{latency_threshold * 1000:g} ms)")))
    return changes


def _flag(result: Any) -> str:
    return "true" if isinstance(result, dict) and result.get("isError") is True else "false"
