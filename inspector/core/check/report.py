"""A check report as text, Markdown, JSON, JUnit XML or SARIF (:mod:`inspector.core.check.sarif`).

Every format says, per check and revision: the status, the level, the sentence, the spec link, and for a
failure the exchange (its events, one line each, with their seq numbers in the named capture). Findings
passed in from the per-message rules (:class:`~inspector.core.check.checks.ExtraFinding`) follow the checks.
Each check also names the conformance suite's check ids it matches (``conformance``), so a report reads beside
the suite's.
Server text in the report is escaped (control characters) and, in Markdown, kept inside code spans.
"""

from __future__ import annotations

import json
from typing import Any
from xml.etree import ElementTree as ET

from inspector.core.check.checks import FAILED, INCOMPLETE, NOT_APPLICABLE, PASSED, Result
from inspector.core.check.runner import Report
from inspector.core.present.markdown import literal
from inspector.core.text import safe

FORMATS = ("text", "markdown", "json", "junit", "sarif")
#: the text report's mark of each outcome; an incomplete check is never shown as a pass nor as a skip
MARKS = {PASSED: "PASS", FAILED: "FAIL", NOT_APPLICABLE: "n/a ", INCOMPLETE: "INC "}


def render(report: Report, fmt: str) -> str:
    from inspector.core.check.sarif import as_sarif

    return {"text": as_text, "markdown": as_markdown, "json": as_json, "junit": as_junit,
            "sarif": as_sarif}[fmt](report)


def conformance_text(result: Result) -> str:
    """``suite: a, b`` (the conformance suite's ids for the check), or empty when none matches."""
    return f"suite: {', '.join(result.check.conformance)}" if result.check.conformance else ""


def _where(result: Result) -> str:
    return result.revision or "no revision"


def as_text(report: Report) -> str:
    lines = [f"mcp-inspector check: {safe(report.target)}"]
    if report.error:
        lines.append(f"error: {safe(report.error)}")
    revision = object()
    for result in report.results:
        if result.revision != revision:
            revision = result.revision
            lines += ["", f"at {_where(result)}:"]
        suite = conformance_text(result)
        lines.append(f"  {MARKS[result.status]} {result.check.level:<6} {result.check.id:<26} {_line(result.sentence)}"
                     + (f" [{suite}]" if suite else ""))
        if result.status == FAILED:
            lines.append(f"{'':14}spec: {result.check.source_for(result.revision).url}")
            lines += [f"{'':14}{safe(line)}" for line in result.exchange]
    if report.extra_findings:
        lines += ["", "per-message findings:"]
        lines += [f"  {f.level:<6} {f.rule}: {safe(f.sentence)}" + (f" (#{f.seq})" if f.seq else "")
                  for f in report.extra_findings]
    lines += ["", "captures: " + ", ".join(report.captures), report.summary()]
    return "\n".join(lines) + "\n"


def _line(text: str) -> str:
    """Server text on one line of the text report (a server's stderr quoted in a sentence has line breaks)."""
    return " ⏎ ".join(part.strip() for part in safe(text).splitlines() if part.strip())


def _code(text: str) -> str:
    """Text inside a Markdown code span, whatever backticks it holds."""
    text = safe(text).replace("\n", " ")
    fence = "``" if "`" in text else "`"
    return f"{fence} {text} {fence}" if fence == "``" else f"`{text}`"


def as_markdown(report: Report) -> str:
    lines = [f"# mcp-inspector check: {_code(report.target)}", "", f"{report.summary()}.", ""]
    if report.error:
        lines += [f"**Could not run:** {_code(report.error)}", ""]
    lines += ["| revision | check | level | status | why | conformance |", "|---|---|---|---|---|---|"]
    for result in report.results:
        link = result.check.source_for(result.revision).url
        suite = ", ".join(f"`{c}`" for c in result.check.conformance)
        lines.append(f"| {_where(result)} | [{result.check.id}]({link}) | {result.check.level} | {result.status} | "
                     f"{_code(result.sentence).replace('|', '&#124;')} | {suite} |")
    failed = [r for r in report.results if r.status == FAILED]
    if failed:
        lines += ["", "## Failures", ""]
        for result in failed:
            source = result.check.source_for(result.revision)
            lines += [f"### {result.check.id} at {_where(result)} ({result.check.level})", "",
                      literal(result.sentence), ""]
            if source.quote:
                lines += [f"> {source.quote} ([{source.revision}]({source.url}))", ""]
            if result.exchange:
                lines += [f"Exchange (capture `{result.capture}`):", "", "```"]
                lines += [safe(line).replace("```", "` ` `") for line in result.exchange]
                lines += ["```", ""]
    if report.extra_findings:
        lines += ["", "## Per-message findings", ""]
        lines += [f"- {f.level} `{f.rule}`: {_code(f.sentence)}" + (f" (#{f.seq})" if f.seq else "")
                  for f in report.extra_findings]
    lines += ["", "Captures: " + ", ".join(f"`{c}`" for c in report.captures)]
    return "\n".join(lines) + "\n"


def result_record(result: Result) -> dict[str, Any]:
    source = result.check.source_for(result.revision)
    return {"id": result.check.id, "title": result.check.title, "level": result.check.level,
            "revision": result.revision, "status": result.status, "sentence": result.sentence,
            "seqs": list(result.seqs), "capture": result.capture, "exchange": result.exchange,
            "spec": source.url, "quote": source.quote, "conformance": list(result.check.conformance)}


def as_json(report: Report) -> str:
    out = {"target": report.target, "error": report.error, "exit_code": report.exit_code,
           "counts": report.counts(), "captures": report.captures,
           "results": [result_record(r) for r in report.results],
           "extra_findings": [{"rule": f.rule, "level": f.level, "sentence": f.sentence, "revision": f.revision,
                               "seq": f.seq, "capture": f.capture} for f in report.extra_findings]}
    return json.dumps(out, indent=2, ensure_ascii=False) + "\n"


def as_junit(report: Report) -> str:
    """One testsuite per revision, one testcase per check; a failed MUST is a failure, a failed SHOULD a failure
    too (its message says SHOULD), not applicable is skipped, and incomplete is an error (it could not be
    tested: a CI must not take it for a pass)."""
    root = ET.Element("testsuites", name="mcp-inspector check")
    suites: dict[str, ET.Element] = {}
    for result in report.results:
        name = _where(result)
        suite = suites.get(name)
        if suite is None:
            suite = suites[name] = ET.SubElement(root, "testsuite", name=f"check {name}")
        case = ET.SubElement(suite, "testcase", classname=f"check.{name}", name=result.check.id)
        if result.status == FAILED:
            failure = ET.SubElement(case, "failure", message=f"{result.check.level}: {safe(result.sentence)}")
            failure.text = "\n".join(safe(line) for line in result.exchange)
        elif result.status == NOT_APPLICABLE:
            ET.SubElement(case, "skipped", message=f"{result.status}: {safe(result.sentence)}")
        elif result.status == INCOMPLETE:
            ET.SubElement(case, "error", message=f"incomplete: {safe(result.sentence)}")
    for suite in suites.values():
        cases = list(suite)
        suite.set("tests", str(len(cases)))
        suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
        suite.set("skipped", str(sum(1 for c in cases if c.find("skipped") is not None)))
        suite.set("errors", str(sum(1 for c in cases if c.find("error") is not None)))
    if report.error:
        suite = ET.SubElement(root, "testsuite", name="check run", tests="1", failures="1")
        case = ET.SubElement(suite, "testcase", classname="check", name="connect")
        ET.SubElement(case, "failure", message=safe(report.error))
    if report.extra_findings:
        suite = ET.SubElement(root, "testsuite", name="per-message findings", tests=str(len(report.extra_findings)),
                              failures=str(len(report.extra_findings)))
        for finding in report.extra_findings:
            case = ET.SubElement(suite, "testcase", classname="messages", name=finding.rule)
            ET.SubElement(case, "failure", message=f"{finding.level}: {safe(finding.sentence)}")
    return ET.tostring(root, encoding="unicode") + "\n"
