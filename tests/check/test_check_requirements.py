"""`mcp-inspector check --requirements R` runs exactly revision R's required set, as the conformance suite's
``--requirements`` does: one session that speaks R, and in the report the checks whose rule is part of R and
nothing else (the Streamable HTTP rules only for a server over HTTP). A server that does not speak R leaves
the set incomplete. Each result names the suite's check ids it matches (``conformance``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import warm_python
from helpers import DEMO, ROOT, cli
from http_support import ServerProcess, launch_on_free_port, stop

from inspector.core.check.checks import BY_ID, MODERN, required_checks

BROKEN = [sys.executable, str(ROOT / "tests" / "check" / "servers" / "broken_server.py")]
SDK_HTTP_SERVER = ROOT / "tests" / "http" / "servers" / "sdk_http_server.py"
RUN_TIMEOUT = 120.0


def run_check(tmp_path: Path, *args: str) -> tuple[dict, int]:
    report = tmp_path / "report.json"
    done = cli("check", "--timeout", "3", "--report", str(report), *args, timeout=RUN_TIMEOUT)
    assert "Traceback" not in done.stderr, done.stderr
    return json.loads(report.read_text(encoding="utf-8")), done.returncode


def required_ids(revision: str, *, http: bool) -> set[str]:
    return {c.id for c in required_checks(revision, http=http)}


@pytest.fixture(scope="module")
def sdk_streamable(tmp_path_factory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("sdk-http")
    server = launch_on_free_port("SDK server (streamable-http)",
                                 lambda port: warm_python.command(SDK_HTTP_SERVER, "streamable-http", str(port)),
                                 folder / "server.log")
    try:
        yield server
    finally:
        stop(server)


def test_requirements_2025_11_25_on_stdio_reports_exactly_that_revisions_checks_spoken_at_it(tmp_path):
    data, status = run_check(tmp_path, "--requirements", "2025-11-25", "--", *DEMO)
    ids = {r["id"] for r in data["results"]}
    assert ids == required_ids("2025-11-25", http=False)
    assert "batch" not in ids and "http-origin" not in ids  # 2025-03-26 only; Streamable HTTP only
    assert "ping" in ids
    # the session speaks 2025-11-25; the unsupported revision is asked on a connection of its own
    assert {r["revision"] for r in data["results"]} == {"2025-11-25", "1999-01-01"}
    assert all(r["revision"] == "2025-11-25" for r in data["results"] if r["id"] != "handshake-unsupported")
    assert status == 0
    # every result names the conformance suite's ids of its check
    for result in data["results"]:
        assert result["conformance"] == list(BY_ID[result["id"]].conformance)
    assert next(r for r in data["results"] if r["id"] == "ping")["conformance"] == ["ping"]


def test_requirements_2026_07_28_on_stdio_speaks_server_discover_and_leaves_out_the_legacy_rules(tmp_path):
    data, status = run_check(tmp_path, "--requirements", MODERN, "--", *DEMO)
    ids = {r["id"] for r in data["results"]}
    assert ids == required_ids(MODERN, http=False)
    assert "ping" not in ids and "batch" not in ids
    assert {r["revision"] for r in data["results"]} == {MODERN}
    handshake = next(r for r in data["results"] if r["id"] == "handshake")
    assert handshake["status"] == "passed" and "server/discover" in handshake["sentence"]
    assert len(data["captures"]) == 1, "one session, no connection of its own for the unsupported revision"
    assert status == 0


def test_requirements_over_streamable_http_include_the_http_rules_of_the_revision(tmp_path, sdk_streamable):
    data, _ = run_check(tmp_path, "--requirements", "2025-11-25", "--url", sdk_streamable.url("/mcp"))
    ids = {r["id"] for r in data["results"]}
    assert ids == required_ids("2025-11-25", http=True)
    assert {"http-origin", "http-delete", "http-get-stream"} <= ids and "http-modern-405" not in ids
    assert not [r for r in data["results"] if r["status"] == "incomplete"], data["results"]


def test_a_server_that_answers_with_another_revision_leaves_the_required_set_incomplete(tmp_path):
    # initialize at 2025-11-25 is answered with 2025-06-18: the server may do that, but then nothing of the
    # 2025-11-25 set has been tested (and is not tested at 2025-06-18 instead)
    data, status = run_check(tmp_path, "--requirements", "2025-11-25", "--", *BROKEN, "--speaks", "2025-06-18")
    results = {r["id"]: r for r in data["results"] if r["revision"] == "2025-11-25"}
    assert {r["id"] for r in data["results"]} == required_ids("2025-11-25", http=False)
    assert results["handshake"]["status"] == "not applicable"
    rest = [r for r in results.values() if r["id"] != "handshake"]
    assert rest and all(r["status"] == "incomplete" for r in rest), rest
    assert all("does not speak 2025-11-25 (it answered with 2025-06-18)" in r["sentence"] for r in rest)
    assert "2025-06-18" not in {r["revision"] for r in data["results"]}
    assert status == 8


def test_a_legacy_server_fails_the_2026_07_28_handshake_and_leaves_the_rest_incomplete(tmp_path):
    # the broken server is legacy only: server/discover is an unknown method to it, and a 2026-07-28 server
    # MUST implement it (as the suite's sep-2575-server-implements-discover says too)
    data, status = run_check(tmp_path, "--requirements", MODERN, "--", *BROKEN)
    results = {r["id"]: r for r in data["results"]}
    assert set(results) == required_ids(MODERN, http=False)
    assert results["handshake"]["status"] == "failed"
    rest = [r for r in data["results"] if r["id"] != "handshake"]
    assert rest and all(r["status"] == "incomplete" for r in rest), rest
    assert status == 1


def test_requirements_and_revision_together_are_refused_with_one_sentence(tmp_path):
    done = cli("check", "--requirements", MODERN, "--revision", MODERN, "--", *DEMO, timeout=RUN_TIMEOUT)
    assert done.returncode == 2
    assert "either --requirements or --revision" in done.stderr and "Traceback" not in done.stderr
