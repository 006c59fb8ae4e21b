"""What counts as a problem, decided once for every place that shows problems (issue 27): the timeline's band and
its "problems only" filter, F8 (next problem), the Problems panel, and the exported reports.

A problem is something that breaks the protocol: a line on the message channel the server framed wrongly
(a framing error, not one our own stop cut short), or a finding that a MUST (severity ``error``) or a SHOULD
(``warning``) was broken, whether the wire layer put it on the event or the protocol judge found it.

Not problems: ``info`` findings (expected and explained: a refused probe, a deprecation note) and failures that
keep the protocol (a tool whose result says ``isError``: the server reported the failure correctly). They are
still shown on the event itself (the detail pane's Findings).

:class:`ProblemBook` keeps one session's problems by seq, with the rules muted for it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Generic, Protocol, TypeVar

from inspector.core.wire.correlation import TOOL_ERROR
from inspector.core.wire.events import Event, Finding
from inspector.core.wire.framing import server_broke_framing


class ProtocolFinding(Protocol):
    """What this module reads of a judged finding (:class:`inspector.core.protocol.judge.ProtocolFinding`): the
    wire sits below the judge, so it names the shape, not the class."""

    @property
    def seq(self) -> int: ...
    @property
    def rule(self) -> str: ...
    @property
    def severity(self) -> str: ...


#: The findings a :class:`ProblemBook` keeps (the judge's :class:`~inspector.core.protocol.judge.ProtocolFinding`).
F = TypeVar("F", bound=ProtocolFinding)

#: Severities of a broken rule: MUST and SHOULD.
PROBLEM_SEVERITIES = frozenset({"error", "warning"})
#: Finding codes that report a failure the protocol itself carries (not a broken rule).
FAILURE_CODES = frozenset({TOOL_ERROR})


def is_problem_finding(code: str, severity: str) -> bool:
    """Whether a finding with this code and severity is a problem (see the module docstring)."""
    return severity in PROBLEM_SEVERITIES and code not in FAILURE_CODES


def event_severity(event: Event) -> str | None:
    """How badly the event itself breaks the protocol: ``error`` (a server framing error, a MUST broken),
    ``warning`` (a SHOULD broken), or None (no problem; perhaps notes or a failure)."""
    if server_broke_framing(event):
        return "error"
    worst = None
    for finding in event.findings:
        if is_problem_finding(finding.code, finding.severity):
            if finding.severity == "error":
                return "error"
            worst = "warning"
    return worst


def event_is_problem(event: Event, more: Iterable[Finding | ProtocolFinding] = ()) -> bool:
    """Whether ``event`` is a problem by what it carries (framing, its own findings), or by ``more`` findings
    about it (the judge's)."""
    if server_broke_framing(event):
        return True
    if any(is_problem_finding(f.code, f.severity) for f in event.findings):
        return True
    return any(is_problem_finding(_code(f), f.severity) for f in more)


def _code(finding: Finding | ProtocolFinding) -> str:
    return finding.code if isinstance(finding, Finding) else finding.rule


class ProblemBook(Generic[F]):
    """One session's problems (the judge's and the wire's, as :class:`ProtocolFinding`), by seq, and the rules
    muted for the session (a muted rule's findings are no problems while it is muted)."""

    def __init__(self) -> None:
        self._by_seq: dict[int, list[F]] = {}
        self.muted: set[str] = set()

    def add(self, found: Iterable[F]) -> list[F]:
        """Keep the problems among ``found``; returns them (the rest are notes and failures)."""
        kept = [f for f in found if is_problem_finding(f.rule, f.severity)]
        for finding in kept:
            self._by_seq.setdefault(finding.seq, []).append(finding)
        return kept

    def of(self, seq: int) -> list[F]:
        """The problems of event ``seq`` whose rule is not muted."""
        return [f for f in self._by_seq.get(seq, ()) if f.rule not in self.muted]

    def is_problem(self, seq: int) -> bool:
        return any(f.rule not in self.muted for f in self._by_seq.get(seq, ()))

    def set_muted(self, rule: str, muted: bool) -> list[int]:
        """Mute or unmute ``rule``; returns the seqs whose problems changed."""
        if muted == (rule in self.muted):
            return []
        if muted:
            self.muted.add(rule)
        else:
            self.muted.discard(rule)
        return [seq for seq, found in self._by_seq.items() if any(f.rule == rule for f in found)]

    def __len__(self) -> int:
        """How many problems are kept (muted ones included)."""
        return sum(map(len, self._by_seq.values()))
