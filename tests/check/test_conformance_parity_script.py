"""scripts/conformance_parity.py reads a run of the official suite beside a check report: a row per generic suite
check with both verdicts, a mark where they differ, and the coverage."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers import ROOT

SCRIPT = ROOT / "scripts" / "conformance_parity.py"


def suite_run(folder: Path, checks: dict[str, list[dict[str, str]]]) -> Path:
    for scenario, items in checks.items():
        (folder / f"server-{scenario}-2026-12-04T04-17-15-563Z").mkdir(parents=True)
        (folder / f"server-{scenario}-2026-12-04T04-17-15-563Z" / "checks.json").write_text(json.dumps(items))
    return folder


def report(path: Path, results: dict[str, str], must_finding: bool = False) -> Path:
    path.write_text(json.dumps({
        "results": [{"id": i, "status": s, "revision": "2025-11-25"} for i, s in results.items()],
        "extra_findings": [{"rule": "schema", "level": "MUST"}] if must_finding else []}))
    return path


def run(*args: Path | str) -> str:
    done = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_each_generic_suite_check_gets_a_row_with_both_verdicts_and_a_mark_where_they_differ(tmp_path):
    suite = suite_run(tmp_path / "suite", {
        "dns-rebinding-protection": [{"id": "localhost-host-rebinding-rejected", "status": "FAILURE"}],
        "logging-set-level": [{"id": "logging-set-level", "status": "SUCCESS"},
                              {"id": "wire-schema-valid", "status": "SUCCESS"}],
        "server-session-lifecycle": [{"id": "server-session-delete-accepted", "status": "SUCCESS"}],
    })
    ours = report(tmp_path / "ours.json", {"http-host": "failed", "logging-set-level": "passed",
                                           "http-delete": "failed"}, must_finding=True)
    out = run("--suite", suite, "--ours", ours, "--label", "x")
    rows = {line.split(" | ")[0].strip("| `"): line for line in out.splitlines() if line.startswith("| `")}
    assert rows["localhost-host-rebinding-rejected"].endswith("| `http-host` | failed | failed |")
    assert rows["logging-set-level"].endswith("| passed | passed |")
    # where the two verdicts on one requirement differ, the row is marked
    assert rows["server-session-delete-accepted"].endswith("| passed | failed **≠** |")
    # a MUST per-message finding is the suite's wire-schema-valid failing
    assert rows["wire-schema-valid"].endswith("| passed | failed **≠** |")
    assert "2 verdicts differ where both ran" in out
    assert "generic suite checks matched by a check of ours" in out


def test_every_generic_suite_check_but_two_is_matched_and_the_two_say_why_not(tmp_path):
    suite = suite_run(tmp_path / "suite", {
        "tools-call-error": [{"id": "tools-call-error", "status": "SUCCESS"}],
        "tools-list": [{"id": "tools-list", "status": "SUCCESS"}],
    })
    ours = report(tmp_path / "ours.json", {"tools-listed": "passed"})
    out = run("--suite", suite, "--ours", ours)
    rows = {line.split(" | ")[0].strip("| `"): line for line in out.splitlines() if line.startswith("| `")}
    assert rows["tools-list"].endswith("| `tools-listed` | passed | passed |")
    assert "| none (calls the suite's fixture tool test_error_handling;" in rows["tools-call-error"]
    assert "| none (spaces around a header value" in rows["sep-2243-server-accepts-whitespace-header-value"]
    # the issue-39 holes are each matched
    for suite_id in ("server-session-initialized-accepted", "localhost-host-valid-accepted",
                     "sep-2575-http-server-no-independent-requests-on-stream",
                     "sep-2575-server-no-log-without-loglevel", "sep-2575-server-tags-subscription-id",
                     "sep-2575-server-honors-notification-filter", "sep-2322-ignore-unexpected-params"):
        assert rows[suite_id].split(" | ")[1].startswith("`"), rows[suite_id]
    assert "62 of 64 generic suite checks matched by a check of ours (97%)" in out
