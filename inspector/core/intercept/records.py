"""What a host records for a verdict: the messages, in order, each with its direction and its mark
(:mod:`inspector.core.wire.intercepted`). Every host (the session's wrapper, the taps, ``serve``) records
through :func:`records`, so a capture says the same whoever intercepted.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from inspector.core.intercept.engine import PASS_ACTION, Verdict
from inspector.core.wire import intercepted as marks


class Record(NamedTuple):
    """One message to record: its direction, its bytes, its mark (None: an ordinary message)."""

    dir: str
    raw: bytes
    mark: dict[str, Any] | None


def other(direction: str) -> str:
    return "s2c" if direction == "c2s" else "c2s"


def records(direction: str, raw: bytes, verdict: Verdict, *, arrived: float | None = None,
            paused: float | None = None) -> list[Record]:
    """The messages to record for ``raw`` (going ``direction``) given ``verdict``, in the order they happened.

    A delay is recorded once it went on: ``arrived`` is when it came (the host's clock). ``paused`` is how long
    a person held it (seconds), for a paused message.
    """
    rule = verdict.rule
    if rule is None and verdict.action == PASS_ACTION:
        return [Record(direction, raw, None)]
    number, action, name = (rule.number, rule.do, rule.name or None) if rule is not None else (0, "pause", None)

    def mark(role: str, **extra: Any) -> dict[str, Any]:
        return marks.mark(number, action, role, name=name, paused=round(paused, 3) if paused is not None else None,
                          **extra)

    if verdict.note is not None:
        return [Record(direction, raw, mark(marks.UNCHANGED, note=verdict.note))]
    if verdict.action == "drop":
        return [Record(direction, raw, mark(marks.DROPPED))]
    if verdict.answer is not None:
        return [Record(direction, raw, mark(marks.HELD)), Record(other(direction), verdict.answer, mark(marks.ANSWER))]
    if verdict.changed:
        return [Record(direction, raw, mark(marks.ORIGINAL)), Record(direction, verdict.out, mark(marks.CHANGED))]
    if verdict.action == "delay" or paused is not None:
        ms = round(verdict.delay * 1000) + (round(paused * 1000) if paused is not None else 0)
        return [Record(direction, raw, mark(marks.DELAYED, ms=ms, arrived=arrived))]
    return [Record(direction, raw, mark(marks.UNCHANGED, note="the message already said that"))]
