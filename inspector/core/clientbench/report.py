"""The bench's report: text for a person, JSON, JUnit XML (one testcase per scenario) and SARIF 2.1.0.

JSON is ``{"client": [...], "scenarios": [{"name", "status", "capture", "exit_code", "timed_out", "seconds",
"stdout", "stderr", "checks": [{"id", "status", "sentence", "spec", "seq"}]}]}`` (the client's output: the last
16 KiB of each). JUnit: a testsuite ``mcp-inspector test-client``, a testcase
per scenario, a ``failure`` for a failed one (its failed checks as the text), ``skipped`` for an incomplete one.
SARIF: as ``check --format sarif`` builds it (inspector/core/check/sarif.py): one run, a rule per check id with the
spec text as ``helpUri``, a result per failed check (kind ``fail``, level ``error``) and per incomplete one
(kind ``open``, level ``none``), located at the scenario's capture. Client text is kept as it came, escaped by
the format (the text report makes it safe for a terminal).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from inspector import __version__
from inspector.core.clientbench.bench import ScenarioResult
from inspector.core.clientbench.checks import FAILED, INCOMPLETE, NOT_APPLICABLE, PASSED
from inspector.core.exits import EXIT_CANNOT_CONNECT, EXIT_INCOMPLETE, EXIT_OK, EXIT_SERVER_FAILED
from inspector.core.text import safe

FORMATS = ("text", "json", "junit", "sarif")
SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://modelcontextprotocol.io/specification"
_MARK = {PASSED: "ok", FAILED: "FAIL", NOT_APPLICABLE: "n/a", INCOMPLETE: "??"}


def exit_status(results: list[ScenarioResult]) -> int:
    """0 when every scenario passed; 3 when the client cannot be started; 1 when one failed; else 8 when one is
    incomplete (:data:`~inspector.core.exits.TEST_CLIENT_EXITS`)."""
    if any(r.outcome.error for r in results):
        return EXIT_CANNOT_CONNECT
    statuses = {r.status for r in results}
    if FAILED in statuses:
        return EXIT_SERVER_FAILED
    if INCOMPLETE in statuses:
        return EXIT_INCOMPLETE
    return EXIT_OK


def render(results: list[ScenarioResult], fmt: str, command: list[str]) -> str:
    if fmt == "json":
        return as_json(results, command)
    if fmt == "junit":
        return as_junit(results)
    if fmt == "sarif":
        return as_sarif(results, command)
    return as_text(results)


def as_text(results: list[ScenarioResult]) -> str:
    lines = []
    for result in results:
        lines.append(f"{result.name}: {result.status}")
        for check in result.checks:
            lines.append(f"  [{_MARK[check.status]:>4}] {check.id}: {safe(check.sentence)}")
            if check.status == FAILED:
                lines.append(f"         {check.spec}")
        if result.capture is not None:
            lines.append(f"  capture: {safe(str(result.capture))}")
    counts = {s: sum(1 for r in results if r.status == s) for s in (PASSED, FAILED, INCOMPLETE)}
    lines.append(", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no scenario run")
    return "\n".join(lines) + "\n"


def as_dict(result: ScenarioResult) -> dict[str, Any]:
    return {"name": result.name, "status": result.status,
            "capture": str(result.capture) if result.capture else None,
            "exit_code": result.outcome.exit_code, "timed_out": result.outcome.timed_out,
            "seconds": round(result.outcome.seconds, 3),
            "stdout": result.stdout, "stderr": result.outcome.stderr,
            "checks": [{"id": c.id, "status": c.status, "sentence": c.sentence, "spec": c.spec, "seq": c.seq}
                       for c in result.checks]}


def as_json(results: list[ScenarioResult], command: list[str]) -> str:
    return json.dumps({"client": command, "scenarios": [as_dict(r) for r in results]}, indent=2,
                      ensure_ascii=False) + "\n"


def as_junit(results: list[ScenarioResult]) -> str:
    suite = ElementTree.Element("testsuite", name="mcp-inspector test-client", tests=str(len(results)),
                                failures=str(sum(r.status == FAILED for r in results)),
                                skipped=str(sum(r.status == INCOMPLETE for r in results)),
                                time=f"{sum(r.outcome.seconds for r in results):.3f}")
    for result in results:
        case = ElementTree.SubElement(suite, "testcase", classname="test-client", name=result.name,
                                      time=f"{result.outcome.seconds:.3f}")
        failed = [c for c in result.checks if c.status == FAILED]
        if failed:
            node = ElementTree.SubElement(case, "failure", message=_xml_safe(f"{failed[0].id}: {failed[0].sentence}"))
            node.text = _xml_safe("\n".join(f"{c.id}: {c.sentence} ({c.spec})" for c in failed))
        elif result.status == INCOMPLETE:
            why = next(c for c in result.checks if c.status == INCOMPLETE)
            ElementTree.SubElement(case, "skipped", message=_xml_safe(f"{why.id}: {why.sentence}"))
        if result.outcome.stderr:
            ElementTree.SubElement(case, "system-err").text = _xml_safe(result.outcome.stderr)
    ElementTree.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(suite, encoding="unicode") + "\n"


def _xml_safe(text: str) -> str:
    """XML 1.0 has no way to write most control characters, even escaped: they become U+FFFD."""
    return "".join(c if c in "\t\n\r" or (" " <= c <= "\ud7ff") or ("\ue000" <= c <= "\ufffd")
                   or c >= "\U00010000" else "\ufffd" for c in text)


def as_sarif(results: list[ScenarioResult], command: list[str]) -> str:
    rules: dict[str, dict[str, Any]] = {}
    found: list[dict[str, Any]] = []
    for result in results:
        for check in result.checks:
            if check.status not in (FAILED, INCOMPLETE):
                continue
            rule_id = f"{result.name}/{check.id}"
            if rule_id not in rules:
                rules[rule_id] = {"id": rule_id, "name": check.id,
                                  "shortDescription": {"text": f"{check.id} ({result.name})"},
                                  "helpUri": check.spec, "defaultConfiguration": {"level": "error"}}
            item: dict[str, Any] = {"ruleId": rule_id, "ruleIndex": list(rules).index(rule_id),
                                    "message": {"text": check.sentence}}
            if check.status == FAILED:
                item.update(kind="fail", level="error")
            else:
                item.update(kind="open", level="none")  # could not be decided, as check's incomplete results
            if result.capture is not None:
                item["locations"] = [{"physicalLocation": {"artifactLocation": {
                    "uri": Path(result.capture).absolute().as_uri()}}}]
            item["properties"] = {"scenario": result.name, "status": check.status, "spec": check.spec,
                                  "seq": check.seq}
            found.append(item)
    code = exit_status(results)
    run = {"tool": {"driver": {"name": "mcp-inspector", "version": __version__, "informationUri": INFORMATION_URI,
                               "rules": list(rules.values())}},
           "invocations": [{"executionSuccessful": True, "exitCode": code,
                            "commandLine": " ".join(command)}],
           "results": found,
           "properties": {"scenarios": {r.name: r.status for r in results}}}
    return json.dumps({"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}, indent=2,
                      ensure_ascii=False) + "\n"
