"""test-client's reports from verdicts made here: JSON of the issue's shape, JUnit that parses with one testcase
per scenario, SARIF that the OASIS schema accepts (tests/data/sarif), text, and the exit status."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import jsonschema
from helpers import ROOT

from inspector.core.clientbench.bench import ScenarioResult
from inspector.core.clientbench.checks import FAILED, INCOMPLETE, NOT_APPLICABLE, PASSED, PING, REQUESTS, CheckResult
from inspector.core.clientbench.report import as_json, as_junit, as_sarif, as_text, exit_status
from inspector.core.clientbench.verdicts import Outcome
from inspector.core.exits import EXIT_CANNOT_CONNECT, EXIT_INCOMPLETE, EXIT_OK, EXIT_SERVER_FAILED

SCHEMA = ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json"


def results(tmp_path: Path) -> list[ScenarioResult]:
    capture = tmp_path / "ping.jsonl"
    capture.write_text("{}\n", encoding="utf-8")
    ok = Outcome(exit_code=0, seconds=1.5, stderr="a line\x1b[31m with a control character\x00")
    return [
        ScenarioResult("handshake", [CheckResult("ids-unique", PASSED, "every request has an id of its own", REQUESTS),
                                     CheckResult("all-pages", NOT_APPLICABLE, "stopped early", REQUESTS)], ok, None),
        ScenarioResult("ping", [CheckResult("ping-answered", FAILED, "the client never answered <ping> & co", PING,
                                            seq=7)], ok, capture),
        ScenarioResult("crash", [CheckResult("ends-after-crash", INCOMPLETE, "no request after the handshake", PING)],
                       ok, None),
    ]


def test_json_has_the_issues_shape(tmp_path: Path) -> None:
    report = json.loads(as_json(results(tmp_path), ["client"]))
    assert [(s["name"], s["status"]) for s in report["scenarios"]] == [
        ("handshake", PASSED), ("ping", FAILED), ("crash", INCOMPLETE)]
    check = report["scenarios"][1]["checks"][0]
    assert {"id", "status", "sentence"} <= set(check) and check["seq"] == 7 and check["spec"] == PING
    assert report["scenarios"][1]["stderr"].startswith("a line")


def test_junit_parses_with_one_testcase_per_scenario_a_failure_and_a_skip(tmp_path: Path) -> None:
    suite = ElementTree.fromstring(as_junit(results(tmp_path)))
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert list(cases) == ["handshake", "ping", "crash"]
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "1", "1")
    failure = cases["ping"].find("failure")
    assert failure is not None and "never answered <ping> & co" in (failure.text or "")
    assert cases["crash"].find("skipped") is not None
    assert "\ufffd" in (cases["ping"].findtext("system-err") or "")  # a NUL has no XML 1.0 spelling


def test_sarif_validates_and_has_a_result_per_failed_and_incomplete_check(tmp_path: Path) -> None:
    log = json.loads(as_sarif(results(tmp_path), ["client"]))
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = list(validator.iter_errors(log))
    assert not errors, errors[:3]
    found = log["runs"][0]["results"]
    assert [(r["ruleId"], r["kind"], r["level"]) for r in found] == [
        ("ping/ping-answered", "fail", "error"), ("crash/ends-after-crash", "open", "none")]
    assert found[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("file://")
    assert log["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"] == PING


def test_text_names_each_check_and_the_spec_of_a_failed_one(tmp_path: Path) -> None:
    text = as_text(results(tmp_path))
    assert "ping: failed" in text and "[FAIL] ping-answered" in text and PING in text
    assert text.rstrip().endswith("1 passed, 1 failed, 1 incomplete")


def test_the_exit_status_is_0_only_when_every_scenario_passed(tmp_path: Path) -> None:
    made = results(tmp_path)
    assert exit_status(made[:1]) == EXIT_OK
    assert exit_status(made) == EXIT_SERVER_FAILED
    assert exit_status([made[0], made[2]]) == EXIT_INCOMPLETE
    never = ScenarioResult("handshake", made[2].checks, Outcome(error="cannot be started"), None)
    assert exit_status([never]) == EXIT_CANNOT_CONNECT
