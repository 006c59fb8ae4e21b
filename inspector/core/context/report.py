"""A server's listing costed and linted (:func:`examine`), and the report as text, JSON or SARIF 2.1.0."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from inspector.core.context.cost import Cost, ItemCost, Listing, costs, total
from inspector.core.context.lint import ERROR, RULES, SEVERITIES, WARNING, Finding, collisions, lint
from inspector.core.context.tokenizers import Tokenizer


@dataclass
class ContextReport:
    source: str  #: the server or capture, as a person names it
    tokenizer: str
    items: list[ItemCost]
    findings: list[Finding]
    totals: Cost
    notes: list[str] = field(default_factory=list)  #: what could not be listed, in sentences
    budget: int | None = None
    #: the file the listing is of, for SARIF's physical locations: the client config that names the server, or
    #: the capture (code scanning places a result only in a file)
    artifact: str | None = None

    @property
    def over_budget(self) -> bool:
        return self.budget is not None and self.totals.tokens > self.budget

    @property
    def failing_findings(self) -> list[Finding]:
        """The findings at warning or above: they fail the run."""
        return [f for f in self.findings if f.severity in (WARNING, ERROR)]

    def kind_count(self, kind: str) -> int:
        return sum(1 for c in self.items if c.kind == kind)

    def budget_sentence(self) -> str:
        return (f"the listing costs {self.totals.tokens} tokens ({self.tokenizer}), over the budget of {self.budget} "
                f"by {self.totals.tokens - (self.budget or 0)}")

    def summary(self) -> str:
        counts = ", ".join(f"{n} {kind}{'s' if n != 1 else ''}" for kind in ("tool", "prompt", "template")
                           if (n := self.kind_count(kind)))
        by = {s: sum(1 for f in self.findings if f.severity == s) for s in SEVERITIES}
        found = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in reversed(by.items()) if n) or "no finding"
        return (f"{self.totals.tokens} tokens, {self.totals.bytes} bytes in all ({counts or 'nothing listed'}); "
                f"{found}")


def examine(listing: Listing, tok: Tokenizer, source: str, *, budget: int | None = None,
            notes: list[str] | None = None) -> ContextReport:
    """``listing`` costed with ``tok`` and linted."""
    items = costs(listing, tok)
    return ContextReport(source, tok.name, items, lint(listing), total(items), list(notes or ()), budget)


def examine_servers(named: list[tuple[str, Listing]], tok: Tokenizer, *, budget: int | None = None,
                    notes: list[str] | None = None) -> ContextReport:
    """Several servers costed and linted together, as a client that lists them all pays: every item and finding
    names its server, the total is theirs together, and each tool name several servers list is a finding."""
    items: list[ItemCost] = []
    findings: list[Finding] = []
    for server, listing in named:
        for cost in costs(listing, tok):
            cost.server = server
            items.append(cost)
        findings += [replace(f, server=server) for f in lint(listing)]
    items.sort(key=lambda c: (-c.cost.tokens, -c.cost.bytes, c.label()))
    findings += collisions(named)
    source = " + ".join(server for server, _listing in named)
    return ContextReport(source, tok.name, items, findings, total(items), list(notes or ()), budget)


def to_json(report: ContextReport) -> dict[str, Any]:
    def rows(kind: str) -> list[dict[str, Any]]:
        return [{k: v for k, v in c.to_json().items() if k != "kind"} for c in report.items if c.kind == kind]

    instructions = next((c for c in report.items if c.kind == "instructions"), None)
    return {"source": report.source, "tokenizer": report.tokenizer,
            "totals": {"tokens": report.totals.tokens, "bytes": report.totals.bytes},
            "budget": report.budget, "overBudget": report.over_budget,
            "tools": rows("tool"), "prompts": rows("prompt"), "resourceTemplates": rows("template"),
            "instructions": None if instructions is None else {"tokens": instructions.cost.tokens,
                                                               "bytes": instructions.cost.bytes},
            "findings": [f.to_json() for f in report.findings], "notes": report.notes}


def render_json(report: ContextReport) -> str:
    return json.dumps(to_json(report), ensure_ascii=False, indent=2) + "\n"


_PART_LABELS = {"inputSchema": "input", "outputSchema": "output", "description": "desc", "annotations": "annot"}


def render_text(report: ContextReport) -> str:
    width = max((len(c.label()) for c in report.items), default=4)
    width = min(max(width, 4), 40)
    lines = [f"{report.source}: tokenizer {report.tokenizer}", "",
             f"{'tokens':>7} {'bytes':>8}  {'kind':<12} {'name':<{width}}  parts (tokens)"]
    for c in report.items:
        parts = "  ".join(f"{_PART_LABELS.get(p, p)} {cost.tokens}" for p, cost in c.parts.items())
        name = c.label() if len(c.label()) <= width else c.label()[:width - 1] + "…"
        lines.append(f"{c.cost.tokens:>7} {c.cost.bytes:>8}  {c.kind:<12} {name:<{width}}  {parts}".rstrip())
    lines.append(f"{report.totals.tokens:>7} {report.totals.bytes:>8}  total")
    if report.findings:
        lines += ["", "findings:"]
        for f in report.findings:
            lines.append(f"  {f.severity:<7} {f.rule:<20} {f.kind} {f.label()} {f.field} [{f.start}:{f.end}]")
            lines.append(f"          {f.message}: {f.excerpt}")
    for note in report.notes:
        lines.append(f"note: {note}")
    lines += ["", report.summary()]
    if report.over_budget:
        lines.append(report.budget_sentence())
    return "\n".join(lines) + "\n"


def render_sarif(report: ContextReport, exit_code: int) -> str:
    """SARIF 2.1.0 as ``check`` writes it (its schema and version): a rule per lint rule, a result per finding,
    located logically (the item and field, the span in ``properties``) and, when the report has an artifact (a
    client config, a capture), in that file too."""
    from inspector import __version__
    from inspector.core.check.sarif import SARIF_SCHEMA, SARIF_VERSION

    index = {rule.id: i for i, rule in enumerate(RULES)}
    physical: dict[str, Any] = {}
    if report.artifact:
        physical["physicalLocation"] = {"artifactLocation": {"uri": Path(report.artifact).absolute().as_uri()}}
    rules = [{"id": r.id, "name": r.id, "shortDescription": {"text": r.title},
              "help": {"text": f"docs/context-rules.md, {r.id}: {r.source}"},
              "defaultConfiguration": {"level": r.severity}, "properties": {"source": r.source}}
             for r in RULES]
    results = [{"ruleId": f.rule, "ruleIndex": index[f.rule], "kind": "fail", "level": f.severity,
                "message": {"text": f"{f.kind} {f.label()}, {f.field}: {f.message}: {f.excerpt}"},
                "locations": [{"logicalLocations": [{"name": f.item, "kind": "member",
                                                     "fullyQualifiedName": f"{f.kind}s/{f.label()}/{f.field}"}],
                               **physical}],
                "properties": {"kind": f.kind, "item": f.item, "server": f.server, "field": f.field,
                               "span": [f.start, f.end],
                               "excerpt": f.excerpt}} for f in report.findings]
    run = {"tool": {"driver": {"name": "mcp-inspector", "version": __version__,
                               "informationUri": "https://modelcontextprotocol.io/specification", "rules": rules}},
           "invocations": [{"executionSuccessful": True, "exitCode": exit_code}],
           "results": results,
           "properties": {"source": report.source, "tokenizer": report.tokenizer,
                          "totals": {"tokens": report.totals.tokens, "bytes": report.totals.bytes},
                          "summary": report.summary()}}
    return json.dumps({"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}, indent=2,
                      ensure_ascii=False) + "\n"
