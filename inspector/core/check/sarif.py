"""A check report as SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html), for code
scanning dashboards and CI annotations.

One run, whose ``tool.driver`` is mcp-inspector with its version and one rule per check the report holds (id,
title, rationale, the spec link as ``helpUri``, and in ``properties`` the spec's level MUST or SHOULD, the
revisions the rule exists at and the conformance suite's check ids it matches). One result per failed check and
revision: level ``error`` for a MUST, ``warning`` for a SHOULD, the check's sentence as the message, and the
session's capture file as the location (the seq numbers of the exchange in ``properties``). A check that could
not be tested (incomplete) is a result too, of kind ``open``; passed and not-applicable checks are not results.
Each per-message finding (a schema or lifecycle rule a server message broke) is a failed result of its own rule.
The run's invocation carries the exit status, and the sentence when the run could not start. Server text is
kept as it came, escaped by JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspector import __version__
from inspector.core.check.checks import CHECKS, FAILED, INCOMPLETE, MUST, Check, ExtraFinding, Result
from inspector.core.check.runner import Report

SARIF_VERSION = "2.1.0"
#: the OASIS schema the log follows (errata01, the one in force for 2.1.0)
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://modelcontextprotocol.io/specification"


def level_of(check: Check) -> str:
    """A failed MUST is an error (the server breaks the spec); a failed SHOULD a warning."""
    return "error" if check.level == MUST else "warning"


def rule_of(check: Check, revision: str | None) -> dict[str, Any]:
    source = check.source_for(revision)
    return {"id": check.id, "name": check.id,
            "shortDescription": {"text": check.title},
            "fullDescription": {"text": check.rationale},
            "helpUri": source.url,
            "defaultConfiguration": {"level": level_of(check)},
            "properties": {"level": check.level, "revisions": list(check.revisions),
                           "conformance": list(check.conformance), "httpOnly": check.http_only}}


def _location(capture: str) -> dict[str, Any]:
    return {"physicalLocation": {"artifactLocation": {"uri": Path(capture).absolute().as_uri()}}}


def result_of(result: Result, rule_index: int) -> dict[str, Any]:
    out: dict[str, Any] = {"ruleId": result.check.id, "ruleIndex": rule_index,
                           "message": {"text": result.sentence}}
    if result.status == FAILED:
        out["kind"] = "fail"
        out["level"] = level_of(result.check)
    else:
        # Incomplete: the rule applies but the probe could not decide it (the server went away, a list failed).
        # SARIF's kind "open" is exactly that: the rule was evaluated and there was not enough to say whether it
        # holds. "notApplicable" would claim the rule does not apply, "review" would ask a person to judge what
        # was seen, and "fail" would claim a violation not shown. A kind other than "fail" must have level
        # "none" (SARIF 2.1.0 §3.27.10).
        out["kind"] = "open"
        out["level"] = "none"
    if result.capture:
        out["locations"] = [_location(result.capture)]
    source = result.check.source_for(result.revision)
    out["properties"] = {"revision": result.revision, "status": result.status, "mustOrShould": result.check.level,
                         "seqs": list(result.seqs), "exchange": list(result.exchange), "spec": source.url,
                         "quote": source.quote, "conformance": list(result.check.conformance)}
    return out


def finding_result(finding: ExtraFinding) -> dict[str, Any]:
    """A per-message finding (a schema or lifecycle rule a server message broke): a failure of a rule that is
    not a check, so it names its rule by id only (SARIF lets ``ruleId`` stand without a rule descriptor)."""
    out: dict[str, Any] = {"ruleId": finding.rule, "kind": "fail",
                           "level": "error" if finding.level == MUST else "warning",
                           "message": {"text": finding.sentence}}
    if finding.capture:
        out["locations"] = [_location(finding.capture)]
    out["properties"] = {"revision": finding.revision, "mustOrShould": finding.level, "seq": finding.seq}
    return out


def as_sarif(report: Report) -> str:
    reported = {r.check.id for r in report.results}
    first_revision: dict[str, str | None] = {}
    for result in report.results:
        first_revision.setdefault(result.check.id, result.revision)
    checks = [c for c in CHECKS if c.id in reported]
    index = {c.id: i for i, c in enumerate(checks)}
    invocation: dict[str, Any] = {"executionSuccessful": report.error is None, "exitCode": report.exit_code}
    if report.error:
        invocation["toolExecutionNotifications"] = [{"level": "error", "message": {"text": report.error}}]
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "mcp-inspector", "version": __version__, "informationUri": INFORMATION_URI,
                            "rules": [rule_of(c, first_revision.get(c.id)) for c in checks]}},
        "invocations": [invocation],
        "results": [result_of(r, index[r.check.id]) for r in report.results if r.status in (FAILED, INCOMPLETE)]
                   + [finding_result(f) for f in report.extra_findings],
        "properties": {"target": report.target, "summary": report.summary(), "counts": report.counts(),
                       "captures": list(report.captures)},
    }
    log = {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
