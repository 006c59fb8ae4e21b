"""`mcp-inspector check` against issue 26's hostile servers (tests/data/hostile/hs.py, copied verbatim): what
could not be tested is "incomplete" (never missing, never passed), a run with an incomplete check never exits
0, and a server that answers every request twice breaks MUSTs in the report as it does in `lint`."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from helpers import ROOT, cli

from inspector.core.capture import read_capture
from inspector.core.check.checks import CHECKS, INCOMPLETE, NOT_APPLICABLE, PASSED
from inspector.core.check.lint import lint_capture
from inspector.core.exits import EXIT_INCOMPLETE, EXIT_OK, EXIT_SERVER_FAILED

HOSTILE = [sys.executable, str(ROOT / "tests" / "data" / "hostile" / "hs.py")]
#: the hostile servers answer at once; a wait of TIMEOUT is a request they never answer
TIMEOUT = "2"
RUN_BOUND = 60.0
ADVICE = "Read the report's sentence for each incomplete check: it says why it could not be tested."


def check(tmp_path: Path, *mode: str) -> tuple[int, dict, str, float]:
    report = tmp_path / "report.json"
    started = time.monotonic()
    done = cli("check", "--timeout", TIMEOUT, "--report", str(report), "--", *HOSTILE, *mode, timeout=RUN_BOUND,
               env={"HS_GOODVER": "1"})
    elapsed = time.monotonic() - started
    assert "Traceback" not in done.stderr, done.stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["exit_code"] == done.returncode
    return done.returncode, data, done.stdout.splitlines()[0], elapsed


def session(data: dict, revision: str = "2025-11-25") -> dict[str, dict]:
    return {r["id"]: r for r in data["results"] if r["revision"] == revision}


@pytest.mark.report("faults", "check: the server dies at its 4th request", surface="CLI", group="hostile",
                    advice=ADVICE)
def test_checks_a_crashed_server_could_not_run_are_incomplete_and_the_run_does_not_pass(tmp_path, report):
    code, data, said, elapsed = check(tmp_path, "c_exit", "4")
    results = session(data)
    assert set(results) == {c.id for c in CHECKS}, "a check is missing from the report"
    incomplete = {i for i, r in results.items() if r["status"] == INCOMPLETE}
    # 15, and since the checks beside the conformance suite: the lists, logging/setLevel and the two
    # subscription checks (it declares logging and resources.subscribe), and tools-listed (issue 39)
    assert len(incomplete) == 20, incomplete
    assert {"lists-answered", "logging-set-level", "resources-subscribe", "resources-unsubscribe",
            "tools-listed"} <= incomplete
    assert all("exited with code 3" in results[i]["sentence"] for i in incomplete)
    assert not {i for i, r in results.items() if r["status"] == PASSED} & incomplete
    assert data["counts"][INCOMPLETE] == 20
    # the half message it wrote before dying is a framing error: a MUST broken, so 1 (before 8)
    assert code == EXIT_SERVER_FAILED
    report.saw(f"{said} (exit {code})", seconds=elapsed)


@pytest.mark.report("faults", "check: every list the server declares answers an error", surface="CLI", group="hostile",
                    advice=ADVICE)
def test_lists_a_server_declares_and_never_answers_leave_their_checks_incomplete(tmp_path, report):
    code, data, said, elapsed = check(tmp_path, "c_escerr")
    results = session(data)
    for check_id in ("tool-schemas", "resources-readable", "prompts-gettable", "pagination"):
        assert results[check_id]["status"] == INCOMPLETE, results[check_id]
        assert "could not" in results[check_id]["sentence"] or "no list" in results[check_id]["sentence"]
    assert "no list the server declares was answered" in results["pagination"]["sentence"]
    # the one check that judges the lists themselves fails, naming each (a SHOULD: the exit status stays 8)
    assert results["lists-answered"]["status"] == "failed", results["lists-answered"]
    assert "the server declares tools, yet" in results["lists-answered"]["sentence"]
    assert "had a second page" not in results["pagination"]["sentence"]
    assert not data["extra_findings"] and not [r for r in data["results"]
                                               if r["status"] == "failed" and r["level"] == "MUST"]
    assert code == EXIT_INCOMPLETE
    report.saw(f"{said} (exit {code})", seconds=elapsed)


def test_a_list_the_server_does_not_declare_is_still_not_applicable(tmp_path):
    server = tmp_path / "no_lists.py"
    server.write_text((ROOT / "tests" / "data" / "hostile" / "hs.py").read_text().replace(
        '"capabilities": {"tools": {}, "resources": {}, "prompts": {}, "completions": {}}', '"capabilities": {}'))
    (tmp_path / "modes.py").write_text((ROOT / "tests" / "data" / "hostile" / "modes.py").read_text())
    (tmp_path / "hs.py").write_text(server.read_text())
    report = tmp_path / "report.json"
    done = cli("check", "--timeout", TIMEOUT, "--report", str(report), "--", sys.executable, str(tmp_path / "hs.py"),
               "plain", timeout=RUN_BOUND, env={"HS_GOODVER": "1"})
    results = session(json.loads(report.read_text()))
    for check_id in ("tool-schemas", "resources-readable", "prompts-gettable", "pagination"):
        assert results[check_id]["status"] == NOT_APPLICABLE, results[check_id]
    assert done.returncode == EXIT_OK, done.stdout


@pytest.mark.report("faults", "check: every request is answered twice", surface="CLI", group="hostile",
                    advice="Answer each request once: a second answer to an id is a MUST broken.")
def test_a_server_that_answers_every_request_twice_fails_as_lint_of_the_same_capture_says(tmp_path, report):
    code, data, said, elapsed = check(tmp_path, "c_twice")
    assert code == EXIT_SERVER_FAILED
    reported = {f["rule"] for f in data["extra_findings"] if f["level"] == "MUST"}
    assert "already-answered" in reported
    capture = tmp_path / "report-session.jsonl"
    from_server = {e.seq for e in read_capture(capture).events if e.dir == "s2c"}
    server_musts = {f.rule for f in lint_capture(capture).findings if f.severity == "error" and f.seq in from_server}
    assert server_musts <= reported, (server_musts, reported)
    report.saw(f"{said} (exit {code})", seconds=elapsed)


def test_a_server_that_dies_before_the_handshake_is_answered_lists_every_check(tmp_path):
    report = tmp_path / "report.json"
    done = cli("check", "--timeout", TIMEOUT, "--report", str(report), "--", sys.executable, "-c",
               "import sys; sys.stdin.readline(); sys.exit(3)", timeout=RUN_BOUND)
    assert done.returncode not in (EXIT_OK, EXIT_INCOMPLETE)
    data = json.loads(report.read_text())
    ids = {r["id"] for r in data["results"] if r["revision"] is None or r["revision"] != "1999-01-01"}
    assert ids == {c.id for c in CHECKS}
    statuses = {r["status"] for r in data["results"] if r["id"] != "handshake"}
    assert statuses <= {INCOMPLETE, NOT_APPLICABLE} and INCOMPLETE in statuses


def test_check_help_documents_the_incomplete_exit_status():
    done = cli("check", "--help")
    assert f"  {EXIT_INCOMPLETE}    incomplete: no MUST check failed, but some checks could not be made" in done.stdout
