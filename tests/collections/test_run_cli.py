"""``mcp-inspector run`` against a real server (the SDK's MCPServer of tests/compare/servers): text, JSON and
JUnit XML, and exit 1 when an expectation fails."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import warm_python
from helpers import cli

SERVER = Path(__file__).parent.parent / "compare" / "servers" / "versioned_server.py"
RUN_TIMEOUT = 90.0
TARGET = ["--env", "TOOLS_VERSION=1", "--", *warm_python.command(SERVER)]


@pytest.fixture
def collection(tmp_path: Path) -> Path:
    path = tmp_path / "smoke.json"
    path.write_text(json.dumps({"format": "mcp-inspector-collection", "version": 1, "name": "smoke", "requests": [
        {"name": "add", "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}},
         "expect": {"status": "result", "isError": False, "textContains": "5",
                    "equals": {"/structuredContent/result": 5}, "outputSchema": True, "latencyUnderMs": 20000}},
        {"name": "echo <wrong>", "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}},
         "expect": {"textContains": ["bye"]}},
        {"name": "no such tool", "method": "tools/call", "params": {"name": "nope", "arguments": {}},
         "expect": {"isError": True}},
    ]}))
    return path


def test_a_run_with_a_failed_expectation_exits_1_and_says_which(collection: Path, tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    done = cli("run", str(collection), "--out", str(out), *TARGET, timeout=RUN_TIMEOUT)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("PASS add (")
    assert lines[1].startswith("FAIL echo <wrong>")
    assert lines[2].strip() == 'textContains: the text does not contain "bye"; it is "hi"'
    assert lines[-1] == "smoke: 1 of 3 requests failed (1 expectation)"
    assert out.read_text().count('"method\\":\\"tools/call\\"') == 3  # the run's session, saved


def test_junit_has_a_testcase_per_request_and_a_failure_for_the_one_that_failed(collection: Path) -> None:
    done = cli("run", str(collection), "--format", "junit", *TARGET, timeout=RUN_TIMEOUT)
    assert done.returncode == 1, done.stderr
    suite = ET.fromstring(done.stdout.encode())
    assert (suite.tag, suite.get("name"), suite.get("tests"), suite.get("failures")) == ("testsuite", "smoke", "3", "1")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert list(cases) == ["add", "echo <wrong>", "no such tool"]
    failure = cases["echo <wrong>"].find("failure")
    assert failure is not None and failure.get("message", "").startswith("textContains: the text does not contain")
    assert cases["add"].find("failure") is None


def test_json_lists_every_outcome(collection: Path) -> None:
    done = cli("run", str(collection), "--format", "json", *TARGET, timeout=RUN_TIMEOUT)
    result = json.loads(done.stdout)
    assert result["passed"] is False
    assert [r["passed"] for r in result["results"]] == [True, False, True]
    assert [o["expectation"] for o in result["results"][0]["outcomes"]] == [
        "answered", "status", "isError", "textContains", "equals /structuredContent/result", "outputSchema",
        "latencyUnderMs"]


def test_a_collection_that_all_passes_exits_0(tmp_path: Path) -> None:
    path = tmp_path / "ok.json"
    path.write_text(json.dumps({"format": "mcp-inspector-collection", "version": 1, "requests": [
        {"method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}},
         "expect": {"textContains": "hi"}}]}))
    done = cli("run", str(path), *TARGET, timeout=RUN_TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "ok: all 1 request met their expectations"


def test_a_broken_collection_exits_2_before_any_server_starts(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "mcp-inspector-collection", "version": 1, "requests": [{}]}')
    done = cli("run", str(path), "--", "/nonexistent/server")
    assert done.returncode == 2
    assert "request 1 needs a \"method\"" in done.stderr and "Traceback" not in done.stderr
