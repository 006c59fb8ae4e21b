"""`mcp-inspector check` against a server that breaks specific rules on purpose (servers/broken_server.py):
each broken rule is a failed check with its exchange, the rest pass or do not apply, a server that dies
mid-check leaves the remaining checks "not run" with a reason, and the CLI's exit statuses follow."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from helpers import DEMO, cli

from inspector.core.check.checks import FAILED, INCOMPLETE, NOT_APPLICABLE, PASSED
from inspector.core.check.context import CheckOptions
from inspector.core.check.report import render
from inspector.core.check.runner import CheckRun, Report, run_checks
from inspector.core.connect.target import Target

# Every test here runs the CLI end to end against servers in subprocesses: CI's second step runs them, the
# quick suite does not (issue 39: it stays under two minutes as the suite grows).
pytestmark = pytest.mark.integration

BROKEN = [sys.executable, str(Path(__file__).resolve().parent / "servers" / "broken_server.py")]
#: the broken server answers at once; only the id it mangles is waited for in full
TIMEOUT = 2.0
#: a whole run against it: a handful of sessions of fast answers and one or two waits of TIMEOUT
RUN_BOUND = 60.0


def check(argv: list[str], tmp_path: Path, revision: str | None = None, **options: bool) -> Report:
    run = CheckRun(Target(name="broken", argv=argv), tmp_path / "report", revision=revision, timeout=TIMEOUT,
                   options=CheckOptions(**options))
    return asyncio.run(asyncio.wait_for(run_checks(run), RUN_BOUND))


def by_id(report: Report, revision: str) -> dict[str, object]:
    return {r.check.id: r for r in report.results if r.revision == revision}


#: the failures the broken server is built to cause, and a piece of each sentence
EXPECTED_FAILURES = {
    "ping": '{"pong": true}',
    "ids-echoed": 'a response with id "987654321"',
    "unknown-method": "with a result",
    "unknown-method-code": "instead of error -32601",
    "malformed-params": "-32603",
    "notification-no-response": "answered the notification",
    "batch": "no answer for id",
    "pagination": "'p2'",
    "tool-schemas": 'rows\'s inputSchema has type "array"',
    "resources-readable": "test://one",
    "prompts-gettable": "greet",
    "tools-callable": "fails: error -32603",
    "invalid-json": "no error -32700",
    "invalid-json-survives": "exited with code 2",
    "logging-set-level": '{"level": "info"}, not an empty result',
    "resources-subscribe": "yet resources/subscribe test://one got error -32601",
    "resources-unsubscribe": '{"unsubscribed": true}, not an empty result',
}


def test_every_rule_the_broken_server_breaks_is_a_failed_check_with_its_exchange(tmp_path):
    report = check(BROKEN, tmp_path, "2025-03-26", call_tools=True)
    results = by_id(report, "2025-03-26")
    failed = {i for i, r in results.items() if r.status == FAILED}
    assert failed == set(EXPECTED_FAILURES), report.summary()
    for check_id, piece in EXPECTED_FAILURES.items():
        result = results[check_id]
        assert piece in result.sentence, (check_id, result.sentence)
        assert result.seqs and result.exchange, f"{check_id} names no exchange"
        assert result.capture == str(tmp_path / "report-2025-03-26.jsonl")
    assert results["handshake"].status == PASSED
    assert results["cancellation"].status == PASSED
    unsupported = [r for r in report.results if r.check.id == "handshake-unsupported" and r.revision == "1999-01-01"]
    assert unsupported[0].status == FAILED and "claims to speak 1999-01-01" in unsupported[0].sentence
    assert results["http-origin"].status == NOT_APPLICABLE
    assert report.exit_code == 1


def test_a_failed_check_names_the_events_of_its_exchange_in_the_capture(tmp_path):
    report = check(BROKEN, tmp_path, "2025-11-25")
    ping = by_id(report, "2025-11-25")["ping"]
    lines = (tmp_path / "report-2025-11-25.jsonl").read_text(encoding="utf-8").splitlines()[1:]
    events = {json.loads(line)["seq"]: json.loads(line) for line in lines}
    shown = [events[s] for s in ping.seqs]
    assert [e["dir"] for e in shown] == ["c2s", "s2c"]
    assert '"pong"' in shown[1]["raw"]
    assert any('"method":"ping"' in line.replace(" ", "") for line in ping.exchange)


def test_structured_content_that_breaks_the_output_schema_fails_only_when_tools_are_called(tmp_path):
    called = by_id(check(BROKEN, tmp_path / "called", call_tools=True), "2025-11-25")
    assert called["tool-output-conforms"].status == FAILED
    assert "structuredContent.count" in called["tool-output-conforms"].sentence
    not_called = by_id(check(BROKEN, tmp_path / "not-called"), "2025-11-25")
    assert not_called["tool-output-conforms"].status == NOT_APPLICABLE
    assert "--call-tools" in not_called["tools-callable"].sentence


def test_a_server_that_dies_mid_check_leaves_the_rest_not_run_with_the_reason(tmp_path):
    started = time.monotonic()
    report = check([*BROKEN, "--die-on", "mcp-inspector/no-such-method"], tmp_path)
    assert time.monotonic() - started < RUN_BOUND
    results = by_id(report, "2025-11-25")
    assert results["ping"].status == FAILED  # before it died
    not_run = [r for r in results.values() if r.status == INCOMPLETE]
    assert {"unknown-method", "tool-schemas", "invalid-json"} <= {r.check.id for r in not_run}
    assert all("exited with code 3" in r.sentence for r in not_run), [r.sentence for r in not_run]
    for fmt in ("text", "markdown", "json", "junit"):
        assert "Traceback" not in render(report, fmt)


def test_the_report_formats_carry_the_same_results(tmp_path):
    report = check(BROKEN, tmp_path, "2025-11-25")
    data = json.loads(render(report, "json"))
    assert data["counts"][FAILED] == sum(1 for r in report.results if r.status == FAILED)
    assert {r["id"] for r in data["results"] if r["status"] == FAILED} >= {"ping", "tool-schemas"}
    suites = ET.fromstring(render(report, "junit"))
    failures = sum(int(s.get("failures", "0")) for s in suites if s.get("name") != "per-message findings")
    assert failures == data["counts"][FAILED]
    per_message = [s for s in suites if s.get("name") == "per-message findings"]
    assert len(data["extra_findings"]) == sum(int(s.get("tests", "0")) for s in per_message)
    markdown = render(report, "markdown")
    assert "| 2025-11-25 | [ping](https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping)" \
        in markdown
    assert "> The receiver MUST respond promptly with an empty response" in markdown


@pytest.mark.parametrize(("argv", "status"), [
    (BROKEN, 1),
    (DEMO, 0),
    (["/nonexistent/mcp-server"], 3),
])
def test_the_exit_status_says_whether_a_must_failed_or_the_server_could_not_be_started(tmp_path, argv, status):
    report = tmp_path / "report.json"
    done = cli("check", "--timeout", str(TIMEOUT), "--report", str(report), "--", *argv, timeout=RUN_BOUND)
    assert done.returncode == status, done.stderr
    assert "Traceback" not in done.stderr
    if status == 3:
        assert "mcp-inspector:" in done.stderr
        return
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["exit_code"] == status
    assert f"capture: {tmp_path / 'report-session.jsonl'}" in done.stdout
    assert (tmp_path / "report-session.jsonl").exists()


def test_a_batch_answered_with_array_ids_fails_the_batch_check_instead_of_crashing_the_probe(tmp_path):
    # the probe kept the ids it got in a set: "mcp-inspector failed in this probe (TypeError: unhashable type:
    # 'list')", and the batch check was "not run"
    report = check([*BROKEN, "--array-ids-in-batches"], tmp_path, "2025-03-26")
    batch = by_id(report, "2025-03-26")["batch"]
    assert batch.status == FAILED, (batch.status, batch.sentence)
    assert "a batch of two pings got no answer for id" in batch.sentence, batch.sentence
    assert batch.seqs
