"""A :class:`~inspector.core.compare.differ.Comparison` for people (:func:`text_lines`) and for programs
(:func:`to_json`).

The JSON object (``diff --format json``)::

    {"a": {"source", "name", "version", "protocolVersion"}, "b": {...},
     "differences": N, "same": bool, "comparedKinds": [...], "comparedRequests": N, "notes": [...],
     "interface": [{"kind", "name", "change": "added|removed|changed", "fields": [...],
                    "diffs": [{"path", "change", "old", "new"}]}],
     "behaviour": [{"request", "change": "status|isError|content|latency|only in A|only in B", "aSeq", "bSeq",
                    "aLatencyMs", "bLatencyMs", "detail", "diffs": [...]}]}

Server text is shown with its control characters escaped (:func:`inspector.core.present.describe.safe`).
"""

from __future__ import annotations

from typing import Any

from inspector.core.compare.differ import KIND_NAMES, BehaviourChange, Comparison, InterfaceChange
from inspector.core.compare.sessions import ServerRecord
from inspector.core.replay.diff import CHANGED, MessageDiff
from inspector.core.text import safe

#: Differences listed under one item before the rest are counted.
MAX_LISTED_DIFFS = 10
MARKS = {"added": "+", "removed": "-", "changed": "~"}


def text_lines(result: Comparison) -> list[str]:
    """The comparison as lines for a terminal: who was compared, each interface change with what changed
    inside it, each behaviour change, the notes, and a last line with the count."""
    lines = [f"A: {safe(result.a.describe())}", f"B: {safe(result.b.describe())}"]
    kinds = ", ".join(result.compared_kinds) or "nothing (neither side listed anything completely)"
    lines.append(f"interface: {kinds} compared; {_count(len(result.interface), 'change')}")
    for change in result.interface:
        lines.append(f"  {MARKS[change.change]} {safe(change.describe())}")
        lines += [f"      {line}" for line in _diff_lines(change.diffs)]
    counted = [c for c in result.behaviour if c.counts]
    lines.append(f"behaviour: {_count(result.compared_requests, 'request')} answered on both sides; "
                 f"{_count(len(counted), 'difference')}")
    for behaviour in result.behaviour:
        lines.append(f"  {'~' if behaviour.counts else '?'} {safe(behaviour.describe())}")
        lines += [f"      {line}" for line in _diff_lines(behaviour.diffs)]
    lines += [f"note: {safe(note)}" for note in result.notes]
    lines.append("no differences" if result.same else f"{_count(result.differences, 'difference')}")
    return lines


def _diff_lines(diffs: tuple[MessageDiff, ...]) -> list[str]:
    shown = [diff.describe() for diff in diffs[:MAX_LISTED_DIFFS]]
    if len(diffs) > MAX_LISTED_DIFFS:
        shown.append(f"... and {len(diffs) - MAX_LISTED_DIFFS} more")
    return shown


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def to_json(result: Comparison) -> dict[str, Any]:
    """The comparison as the JSON object the module describes."""
    return {
        "a": _server(result.a), "b": _server(result.b),
        "differences": result.differences, "same": result.same,
        "comparedKinds": result.compared_kinds, "comparedRequests": result.compared_requests,
        "latencyThresholdMs": None if result.latency_threshold is None else result.latency_threshold * 1000,
        "notes": result.notes,
        "interface": [interface_json(change) for change in result.interface],
        "behaviour": [behaviour_json(change) for change in result.behaviour],
    }


def _server(record: ServerRecord) -> dict[str, Any]:
    return {"source": record.source, "name": record.name, "version": record.version,
            "protocolVersion": record.protocol_version}


def interface_json(change: InterfaceChange) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": change.kind, "what": KIND_NAMES[change.kind], "name": change.name,
                           "change": change.change}
    if change.change == CHANGED:
        out["fields"] = change.fields
        out["diffs"] = [diff_json(d) for d in change.diffs]
    return out


def behaviour_json(change: BehaviourChange) -> dict[str, Any]:
    return {
        "request": change.label, "change": change.change,
        "aSeq": change.a.seq if change.a else None, "bSeq": change.b.seq if change.b else None,
        "aLatencyMs": _ms(change.a.latency) if change.a else None,
        "bLatencyMs": _ms(change.b.latency) if change.b else None,
        "detail": change.detail, "diffs": [diff_json(d) for d in change.diffs],
    }


def diff_json(diff: MessageDiff) -> dict[str, Any]:
    out: dict[str, Any] = {"path": diff.path, "change": diff.kind}
    if diff.kind != "added":
        out["old"] = diff.old
    if diff.kind != "removed":
        out["new"] = diff.new
    return out


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 3)
