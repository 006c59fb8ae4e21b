"""`mcp-inspector check --format sarif` (or a ``.sarif`` report) writes SARIF 2.1.0 that the official OASIS
schema accepts (tests/data/sarif, where it comes from): one run, a rule per check with its spec link, level and
conformance ids, a result per failed check (error for MUST, warning for SHOULD) and per incomplete one (kind
open), located in the session's capture."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest
from helpers import ROOT, cli

from inspector import __version__
from inspector.core.check.checks import BY_ID

SCHEMA = ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json"
BROKEN = [sys.executable, str(ROOT / "tests" / "check" / "servers" / "broken_server.py")]
RUN_TIMEOUT = 120.0


def validate(log: dict) -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


def run_sarif(tmp_path: Path, *args: str) -> tuple[dict, int]:
    report = tmp_path / "report.sarif"
    done = cli("check", "--timeout", "2", "--report", str(report), *args, timeout=RUN_TIMEOUT)
    assert "Traceback" not in done.stderr, done.stderr
    return json.loads(report.read_text(encoding="utf-8")), done.returncode


def test_a_sarif_report_of_a_server_that_breaks_rules_and_dies_validates_and_says_what_failed_and_what_is_open(
        tmp_path):
    # the broken server answers ping wrongly, mangles a big number id, then exits at the unknown method: ping
    # and ids-echoed fail (MUST), the checks after it could not be made; on a connection of its own it claims
    # to speak 1999-01-01 (handshake-unsupported fails)
    log, status = run_sarif(tmp_path, "--", *BROKEN, "--die-on", "mcp-inspector/no-such-method")
    validate(log)
    assert status == 1
    assert log["version"] == "2.1.0" and len(log["runs"]) == 1
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("mcp-inspector", __version__)
    rules = {rule["id"]: rule for rule in driver["rules"]}
    assert rules["ping"]["helpUri"] == BY_ID["ping"].source_for("2025-11-25").url
    assert rules["ping"]["properties"]["level"] == "MUST"
    assert rules["ping"]["properties"]["conformance"] == ["ping"]
    assert rules["unknown-method-code"]["properties"]["level"] == "SHOULD"
    failed = {r["ruleId"]: r for r in run["results"] if r["kind"] == "fail" and r["ruleId"] in rules}
    assert set(failed) == {"ping", "ids-echoed", "handshake-unsupported"}
    assert {r["level"] for r in failed.values()} == {"error"}
    assert "not an empty result" in failed["ping"]["message"]["text"]
    capture = failed["ping"]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert capture.startswith("file://") and capture.endswith("report-session.jsonl")
    assert Path(capture.removeprefix("file://")).exists()
    assert driver["rules"][failed["ping"]["ruleIndex"]]["id"] == "ping"
    opened = [r for r in run["results"] if r["kind"] == "open"]
    assert opened and {r["level"] for r in opened} == {"none"}
    assert all("exited with code 3" in r["message"]["text"] for r in opened), opened
    assert "unknown-method" in {r["ruleId"] for r in opened}
    # a passed or not-applicable check is a rule, never a result
    assert "handshake" in rules and "handshake" not in {r["ruleId"] for r in run["results"]}
    assert run["invocations"][0]["exitCode"] == 1


@pytest.mark.integration  # end to end through subprocesses, 4-7 s: CI's second step
def test_a_server_breaking_should_rules_gets_warnings_and_a_server_that_cannot_start_gets_a_valid_empty_run(
        tmp_path):
    log, status = run_sarif(tmp_path / "a", "--revision", "2025-03-26", "--format", "sarif", "--", *BROKEN)
    validate(log)
    levels = {r["ruleId"]: r["level"] for r in log["runs"][0]["results"] if r["ruleId"] in BY_ID}
    assert levels["unknown-method-code"] == "warning" and levels["pagination"] == "warning"
    assert levels["batch"] == "error"
    # a per-message finding (a schema rule a message broke) is a failed result of its own rule, not a check
    assert any(r["ruleId"] not in BY_ID for r in log["runs"][0]["results"])

    log, status = run_sarif(tmp_path / "b", "--", str(tmp_path / "no-such-server"))
    validate(log)
    assert status == 3
    run = log["runs"][0]
    assert run["results"] == [] and run["invocations"][0]["executionSuccessful"] is False
    assert run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
