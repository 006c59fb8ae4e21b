"""test-client's options, each seen in what it changes: the scenarios listed, the revision in the capture's
initialize answer, the report's format on stdout. (--scenario, --transport, --timeout and --report are proven by
tests/cli/test_test_client_cmd.py, registered in option_effects_registry.py.)"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from helpers import ROOT, cli

from inspector.core.capture import read_capture
from inspector.core.clientbench.scenarios import SCENARIOS

pytestmark = pytest.mark.integration

BROKEN_CLIENT = [sys.executable, str(ROOT / "tests" / "data" / "clients" / "broken_client.py")]


def test_list_scenarios_prints_every_scenario_with_what_it_checks_and_runs_nothing() -> None:
    result = cli("test-client", "--list-scenarios", "--", "no-such-client")
    assert result.returncode == 0, result.stderr
    names = [line.split()[0] for line in result.stdout.splitlines()]
    assert names == list(SCENARIOS)


def test_revision_is_what_the_scenario_server_answers_and_format_json_goes_to_stdout(tmp_path: Path) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    result = cli("test-client", "--scenario", "handshake", "--revision", "2025-06-18", "--format", "json", "--",
                 *BROKEN_CLIENT, env=env, timeout=60)
    report = json.loads(result.stdout)
    [scenario] = report["scenarios"]
    answers = [json.loads(e.raw) for e in read_capture(scenario["capture"]).events
               if e.dir == "s2c" and e.rpc is not None and e.rpc.kind == "response"]
    assert answers[0]["result"]["protocolVersion"] == "2025-06-18"
