"""``mcp-inspector test-client`` end to end: real clients (the official Python SDK's, a deliberately broken one, one
that hangs, one that never starts or exits at once) run against the scenario servers over stdio, through the CLI
as a user runs it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from helpers import ROOT, cli, kill_group, wait_until

from inspector.core.exits import (
    EXIT_CANNOT_CONNECT,
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_SERVER_FAILED,
)

pytestmark = pytest.mark.integration

CLIENTS = ROOT / "tests" / "data" / "clients"
SDK_CLIENT = [sys.executable, str(CLIENTS / "sdk_client.py"), "--"]
BROKEN_CLIENT = [sys.executable, str(CLIENTS / "broken_client.py")]
HANGING_CLIENT = [sys.executable, str(CLIENTS / "hanging_client.py")]
RUN_TIMEOUT = 120.0


def bench(tmp_path: Path, *options: str, client: list[str], timeout: float = RUN_TIMEOUT,
          env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    report = tmp_path / "report.json"
    result = cli("test-client", *options, "--report", str(report), "--", *client, timeout=timeout, env=env)
    return result, json.loads(report.read_text(encoding="utf-8")) if report.exists() else {}


def checks_of(report: dict[str, Any], scenario: str) -> dict[str, dict[str, Any]]:
    [found] = [s for s in report["scenarios"] if s["name"] == scenario]
    return {c["id"]: c for c in found["checks"]}


def test_the_python_sdks_client_passes_handshake_over_stdio(tmp_path: Path) -> None:
    result, report = bench(tmp_path, "--scenario", "handshake", client=SDK_CLIENT)
    assert result.returncode == EXIT_OK, result.stdout + result.stderr
    [scenario] = report["scenarios"]
    assert scenario["name"] == "handshake" and scenario["status"] == "passed"
    assert {c["status"] for c in scenario["checks"]} == {"passed"}
    assert Path(scenario["capture"]).is_file()


def test_the_python_sdks_client_passes_handshake_ping_and_crash_over_http(tmp_path: Path) -> None:
    result, report = bench(tmp_path, "--transport", "http", "--scenario", "handshake", "--scenario", "ping",
                           "--scenario", "crash", client=SDK_CLIENT)
    assert result.returncode == EXIT_OK, result.stdout + result.stderr
    assert [(s["name"], s["status"]) for s in report["scenarios"]] == [
        ("handshake", "passed"), ("ping", "passed"), ("crash", "passed")]
    assert checks_of(report, "ping")["ping-answered"]["status"] == "passed"
    header = json.loads(Path(report["scenarios"][0]["capture"]).read_text(encoding="utf-8").splitlines()[0])
    assert header["target"]["url"].startswith("http://127.0.0.1:")


def test_a_broken_client_fails_with_checks_naming_its_missing_initialized_its_reused_id_and_its_ignored_ping(
        tmp_path: Path) -> None:
    result, report = bench(tmp_path, "--scenario", "handshake", "--scenario", "ping", client=BROKEN_CLIENT)
    assert result.returncode == EXIT_SERVER_FAILED, result.stderr
    handshake = checks_of(report, "handshake")
    assert handshake["initialized-sent"]["status"] == "failed"
    assert "notifications/initialized" in handshake["initialized-sent"]["sentence"]
    assert handshake["ids-unique"]["status"] == "failed"
    assert "reuses the id 1" in handshake["ids-unique"]["sentence"]
    ping = checks_of(report, "ping")
    assert ping["ping-answered"]["status"] == "failed"
    assert "never answered the server's ping" in ping["ping-answered"]["sentence"]


def test_junit_is_xml_with_one_testcase_per_scenario_and_crash_ends_without_a_hang(tmp_path: Path) -> None:
    report = tmp_path / "bench.xml"
    start = time.monotonic()
    result = cli("test-client", "--scenario", "handshake", "--scenario", "crash", "--scenario", "ping",
                 "--report", str(report), "--", *SDK_CLIENT, timeout=RUN_TIMEOUT)
    assert time.monotonic() - start < 60
    assert result.returncode == EXIT_OK, result.stderr
    suite = ElementTree.parse(report).getroot()
    assert suite.tag == "testsuite" and suite.get("tests") == "3"
    assert [case.get("name") for case in suite.iter("testcase")] == ["handshake", "crash", "ping"]
    assert (tmp_path / "bench-captures" / "crash.jsonl").is_file()


@pytest.mark.report("faults", "test-client: a client that never ends", surface="CLI", group="client bench",
                    advice="Make the client exit when its work is done (close the server's stdin, wait for it); "
                           "raise --timeout if it is only slow.")
def test_a_client_that_hangs_is_stopped_at_the_timeout_with_everything_it_started(tmp_path: Path, report: Any) -> None:
    pid_file = tmp_path / "client.pid"
    start = time.monotonic()
    result, found = bench(tmp_path, "--scenario", "handshake", "--timeout", "3", client=HANGING_CLIENT,
                           env={"HANGING_CLIENT_PID_FILE": str(pid_file)})
    assert result.returncode == EXIT_SERVER_FAILED, result.stderr
    ended = checks_of(found, "handshake")["ended"]
    assert ended["status"] == "failed" and "did not end within 3 s" in ended["sentence"]
    assert not _alive(int(pid_file.read_text()))
    report.saw(ended["sentence"], seconds=time.monotonic() - start)


def test_ctrl_c_ends_the_bench_and_the_client_with_its_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "client.pid"
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "test-client", "--scenario", "handshake",
                             "--timeout", "60", "--", *HANGING_CLIENT], cwd=ROOT, start_new_session=True,
                            env={**os.environ, "HANGING_CLIENT_PID_FILE": str(pid_file),
                                 "XDG_DATA_HOME": str(tmp_path / "data")},  # its captures in the test's folder
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(pid_file.exists, 30, "the hanging client's handshake")
        client = int(pid_file.read_text())
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == EXIT_INTERRUPTED
        wait_until(lambda: not _alive(client), 10, "the client to be gone")
    finally:
        kill_group(proc.pid)


@pytest.mark.report("faults", "test-client: a client command that cannot be started", surface="CLI",
                    group="client bench", advice="Check the command after --: the program's path, and that it is "
                                                 "executable.")
def test_a_client_command_that_cannot_start_is_one_sentence_and_status_3(tmp_path: Path, report: Any) -> None:
    result, found = bench(tmp_path, "--scenario", "handshake", "--scenario", "ping",
                          client=[str(tmp_path / "no-such-client")])
    assert result.returncode == EXIT_CANNOT_CONNECT
    assert [s["status"] for s in found["scenarios"]] == ["incomplete", "incomplete"]
    sentence = found["scenarios"][0]["checks"][0]["sentence"]
    assert "cannot be started" in sentence
    assert "Traceback" not in result.stderr
    report.saw(sentence)


@pytest.mark.report("faults", "test-client: a client that exits at once, flooding its stdout", surface="CLI",
                    group="client bench", advice="Make the client launch the command appended to its own (the "
                                                 "scenario server) as its MCP server.")
def test_a_client_that_exits_at_once_is_incomplete_with_why(tmp_path: Path, report: Any) -> None:
    result, found = bench(tmp_path, "--scenario", "handshake", client=[sys.executable, "-c", "print('x' * 100000)"])
    assert result.returncode == EXIT_INCOMPLETE
    [check] = found["scenarios"][0]["checks"]
    assert check["status"] == "incomplete" and "the scenario server never started" in check["sentence"]
    report.saw(check["sentence"])


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


@pytest.mark.npm
def test_the_official_inspector_cli_as_a_client_passes_handshake(tmp_path: Path) -> None:
    from npm_servers import OFFICIAL_INSPECTOR_PACKAGE, OFFICIAL_INSPECTOR_VERSION, install_package

    node, launcher = install_package(OFFICIAL_INSPECTOR_PACKAGE, OFFICIAL_INSPECTOR_VERSION,
                                     "clients/launcher/build/index.js")
    # its options first: the scenario server's argv is appended after them, as its server command
    client = [node, str(launcher), "--cli", "-e", f"PYTHONPATH={ROOT}", "--method", "tools/list"]
    result, report = bench(tmp_path, "--scenario", "handshake", client=client)
    assert result.returncode == EXIT_OK, result.stdout + result.stderr
    assert report["scenarios"][0]["status"] == "passed"
