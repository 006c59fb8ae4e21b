"""``mcp-inspector lint CAPTURE [--revision R] [--format text|json|junit]``: a capture judged offline against
the protocol rules (docs/protocol-checks.md). Exit 1 when a MUST is broken, 0 otherwise, 2 for a file that is
not a usable capture."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from inspector.core.text import safe

EXIT_CLEAN = 0
EXIT_MUST_BROKEN = 1
EXIT_UNUSABLE = 2


def add_parser(sub: argparse._SubParsersAction) -> None:
    from inspector.core.protocol.revisions import REVISIONS

    lint = sub.add_parser(
        "lint", help="judge a capture against the MCP protocol rules and schemas",
        description="Judge every message of a capture against the official schema of the revision the session "
                    "negotiated and against the lifecycle, capability, progress, cancellation and transport rules "
                    "(docs/protocol-checks.md). Exit status: 0 no MUST broken (SHOULDs may be), 1 a MUST broken, "
                    "2 the file is not a usable capture.")
    lint.add_argument("capture", type=Path, metavar="CAPTURE")
    lint.add_argument("--revision", choices=REVISIONS, metavar="R",
                      help="the revision to assume until the session names one (for captures without a handshake); "
                           f"one of {', '.join(REVISIONS)}")
    lint.add_argument("--format", choices=("text", "json", "junit"), default="text", help="output (default text)")


def run_lint(args: argparse.Namespace) -> int:
    from inspector.core.capture import CaptureError
    from inspector.core.check.lint import lint_capture

    try:
        report = lint_capture(args.capture, args.revision)
    except CaptureError as exc:
        print(f"mcp-inspector: {safe(str(exc))}", file=sys.stderr)
        return EXIT_UNUSABLE
    for warning in report.warnings:
        print(f"mcp-inspector: warning: {safe(warning)}", file=sys.stderr)
    out = {"text": _text, "json": _json, "junit": _junit}[args.format](report)
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
    except BrokenPipeError:
        sys.stderr.close()
    return EXIT_MUST_BROKEN if report.must_broken else EXIT_CLEAN


def _text(report: object) -> str:
    from inspector.core.check.lint import LintReport

    assert isinstance(report, LintReport)
    lines = [f"{report.path}: {report.events} events, revision {report.revision or 'unknown'}"]
    for f in report.findings:
        lines.append(safe(f"#{f.seq:<6} {f.level:<6} {f.rule:<28} {f.what}: {f.text}"))
    groups = report.by_rule()
    if groups:
        lines.append("")
        for rule, found in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            lines.append(f"{len(found):6d}  {found[0].level:<6} {rule}")
    broken = report.must_broken
    lines.append(f"{broken} MUST broken, {len(report.findings) - broken} other findings")
    return "\n".join(lines) + "\n"


def _json(report: object) -> str:
    from inspector.core.check.lint import LintReport

    assert isinstance(report, LintReport)
    doc = {
        "capture": report.path, "revision": report.revision, "events": report.events,
        "must_broken": report.must_broken,
        "counts": {rule: len(found) for rule, found in report.by_rule().items()},
        "findings": [{"seq": f.seq, "rule": f.rule, "level": f.level, "severity": f.severity, "text": f.text,
                      "event": f.what, **({"path": f.path} if f.path else {})} for f in report.findings],
    }
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def _junit(report: object) -> str:
    """One test case per rule of the table (and per other finding code seen); a case fails on a MUST broken."""
    from xml.sax.saxutils import escape, quoteattr  # here: it imports urllib.request, ~15 ms at every start

    from inspector.core.check.lint import LintReport
    from inspector.core.protocol.rules import RULES

    assert isinstance(report, LintReport)
    groups = report.by_rule()
    names = [r.id for r in RULES] + sorted(set(groups) - {r.id for r in RULES})
    cases = []
    failures = 0
    for name in names:
        found = groups.get(name, [])
        body = ""
        if found:
            text = "\n".join(f"#{f.seq} {f.what}: {f.text}" for f in found)
            if any(f.severity == "error" for f in found):
                failures += 1
                body = f"<failure message={quoteattr(f'{len(found)} x {name}')}>{escape(text)}</failure>"
            else:
                body = f"<system-out>{escape(text)}</system-out>"
        cases.append(f'  <testcase classname="mcp-inspector.lint" name={quoteattr(name)}>{body}</testcase>')
    head = (f'<testsuite name={quoteattr("lint " + report.path)} tests="{len(names)}" failures="{failures}" '
            f'errors="0">')
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + head + "\n" + "\n".join(cases) + "\n</testsuite>\n"
