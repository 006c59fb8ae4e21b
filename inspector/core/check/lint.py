"""A capture judged offline: every finding of every event, the wire layer's and the protocol judge's.

:func:`lint_capture` streams the file (a big capture is not held in memory: only the events with findings are
kept, as short records). A framing error counts as a finding of rule ``framing`` (stdio: the server MUST NOT
write anything to stdout that is not a valid MCP message), except a line that mcp-inspector's own stop cut short,
an ``info`` finding of rule ``cut-by-stop``. A finding of severity ``error`` is a MUST broken.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from inspector.core.capture import iter_capture
from inspector.core.present.describe import label, method_and_id
from inspector.core.protocol.judge import ProtocolJudge
from inspector.core.protocol.rules import BY_ID
from inspector.core.wire.events import Event, Kind
from inspector.core.wire.framing import cut_by_stop, server_broke_framing

#: Events are judged in batches of this many (the judge's listeners are called once a batch).
BATCH = 512
#: The rule of an ``info`` finding that says a line was cut short by mcp-inspector's own stop (the server was
#: still writing when it was ended): its bytes are in the capture, and it breaks no rule.
CUT_BY_STOP_RULE = "cut-by-stop"


@dataclass(frozen=True)
class LintFinding:
    seq: int
    rule: str
    severity: str
    text: str
    what: str  #: the event as the timeline names it: ``response tools/list #2``
    path: str = ""

    @property
    def level(self) -> str:
        rule = BY_ID.get(self.rule)
        if rule is not None:
            return rule.level
        return "MUST" if self.severity == "error" else "SHOULD" if self.severity == "warning" else "INFO"


@dataclass
class LintReport:
    path: str
    revision: str | None = None  #: the revision the session negotiated (or the one assumed)
    findings: list[LintFinding] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  #: what the reader skipped, in sentences
    events: int = 0

    @property
    def must_broken(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")

    def by_rule(self) -> dict[str, list[LintFinding]]:
        out: dict[str, list[LintFinding]] = {}
        for finding in self.findings:
            out.setdefault(finding.rule, []).append(finding)
        return out


def lint_capture(path: str | os.PathLike[str], revision: str | None = None) -> LintReport:
    """Judge the capture at ``path``; raises :class:`~inspector.core.capture.CaptureError` (a sentence) when it
    is not a capture. ``revision`` is assumed until the session names one."""
    report = LintReport(os.fspath(path))
    judge = ProtocolJudge(revision)
    named: dict[int, str] = {}
    batch: list[Event] = []

    def flush() -> None:
        for finding in judge.feed(batch):
            report.findings.append(LintFinding(finding.seq, finding.rule, finding.severity, finding.text,
                                               named.get(finding.seq, ""), finding.path))
        batch.clear()

    items = iter_capture(path, report.warnings)
    next(items)  # the header
    for item in items:
        if not isinstance(item, Event):
            continue
        report.events += 1
        what = f"{label(item)} {method_and_id(item)}".strip()
        if item.kind == Kind.MESSAGE:
            named[item.seq] = what
        if server_broke_framing(item):
            report.findings.append(LintFinding(item.seq, "framing", "error", str(item.reason or ""), what))
        elif cut_by_stop(item):  # said, as what it is: our stop's, not a rule the server broke
            report.findings.append(LintFinding(item.seq, CUT_BY_STOP_RULE, "info", str(item.reason or ""), what))
        for wire in item.findings:
            report.findings.append(LintFinding(item.seq, wire.code, wire.severity, wire.text, what))
        batch.append(item)
        if len(batch) >= BATCH:
            flush()
            named = {seq: text for seq, text in named.items() if seq in {e.seq for e, _, _ in judge.deferred}}
    flush()
    for finding in judge.judge_deferred():
        report.findings.append(LintFinding(finding.seq, finding.rule, finding.severity, finding.text,
                                           named.get(finding.seq, ""), finding.path))
    report.findings.sort(key=lambda f: f.seq)
    report.revision = judge.revision or revision
    return report
