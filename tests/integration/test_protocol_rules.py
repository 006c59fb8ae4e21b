"""The protocol rules on a real wire: a deliberately broken server breaks each rule a server can break once,
and `lint` and `show` say so; each rule fires once and nothing else does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import warm_cli
from integration_support import CLI_TIMEOUT, REPO, SERVERS, cli_env

from inspector.core.protocol.rules import RULES

BROKEN = SERVERS / "broken_protocol_server.py"
SEND = [{"jsonrpc": "2.0", "method": "tools/list", "params": {}},
        {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "echo", "arguments": {}}}]
#: The rules only a client can break, or only an HTTP server: judged in tests/core/protocol/test_judge_rules.py
#: and by the HTTP transport's own tests.
NOT_BY_A_STDIO_SERVER = {"cancel-initialize", "meta-revision-mismatch", "content-type", "202-for-request",
                         "200-with-body", "session-id-changed", "elicitation-content"}


def inspector(*args: str) -> subprocess.CompletedProcess[str]:
    return warm_cli.run([sys.executable, "-m", "inspector", *args], capture_output=True, text=True,
                        timeout=CLI_TIMEOUT, cwd=REPO, env=cli_env())


def record(tmp_path: Path, scenario: str, *options: str, send: list[dict] = SEND) -> Path:
    out = tmp_path / f"{scenario}.jsonl"
    messages = tmp_path / f"{scenario}-send.jsonl"
    messages.write_text("".join(json.dumps(m) + "\n" for m in send))
    done = inspector("record", "--out", str(out), "--send", str(messages), "--idle", "0.3", "--timeout", "10",
                     *options, "--", sys.executable, str(BROKEN), scenario)
    assert out.is_file(), done.stderr
    return out


def lint(capture: Path) -> tuple[int, dict]:
    done = inspector("lint", str(capture), "--format", "json")
    return done.returncode, json.loads(done.stdout)


@pytest.fixture(scope="module")
def captures(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("broken")
    return {
        "legacy": record(tmp, "legacy", "--handshake", "legacy", "--protocol-version", "2025-11-25", "--progress",
                         "--root", "file:///tmp"),
        "unknown-revision": record(tmp, "unknown-revision", "--handshake", "legacy", "--protocol-version",
                                   "2025-11-25"),
        "modern": record(tmp, "modern", "--handshake", "modern", send=SEND[:1]),
        "subscriptions": record(tmp, "subscriptions", "--handshake", "modern", send=[
            {"jsonrpc": "2.0", "method": "subscriptions/listen", "params": {"notifications": {
                "toolsListChanged": True}}}]),
    }


def test_each_rule_a_server_can_break_fires_exactly_once_and_nothing_else_fires(captures):
    counts: dict[str, int] = {}
    for capture in captures.values():
        for rule, count in lint(capture)[1]["counts"].items():
            counts[rule] = counts.get(rule, 0) + count
    # the client's answer to the second request with the reused id answers an id already answered when the
    # first answer got there first (a race the server's timing decides): the consequence of id-reused that the
    # wire layer names as such, at most once
    assert counts.pop("already-answered", 0) <= 1
    assert counts == {rule.id: 1 for rule in RULES if rule.id not in NOT_BY_A_STDIO_SERVER}


def test_lint_exits_1_on_a_broken_must_and_0_when_only_shoulds_are_broken(captures):
    status, report = lint(captures["legacy"])
    # 12 rules (outputSchema is a MUST: issue 39), and already-answered when it races
    assert status == 1 and report["must_broken"] in (12, 13)
    status, report = lint(captures["modern"])
    # logging in a 2026-07-28 session: a deprecated feature, an information, no problem
    assert (status, report["counts"]) == (0, {"log-without-level": 1, "deprecated-feature": 1})


def test_lint_finds_the_tools_list_result_without_input_schema(captures):
    status, report = lint(captures["legacy"])
    schema = [f for f in report["findings"] if f["rule"] == "schema"]
    assert status == 1
    assert schema == [{"seq": schema[0]["seq"], "rule": "schema", "level": "MUST", "severity": "error",
                       "text": 'result.tools[0] is missing the required field "inputSchema" (schema 2025-06-18, '
                               "ListToolsResult)",
                       "event": "response tools/list #2", "path": "result.tools[0]"}]


def test_show_prints_the_schema_finding_under_the_tools_list_row(captures):
    done = inspector("show", str(captures["legacy"]))
    lines = done.stdout.splitlines()
    row = next(i for i, line in enumerate(lines) if "response" in line and "tools/list #2" in line)
    assert "✗" in lines[row]
    assert 'result.tools[0] is missing the required field "inputSchema"' in lines[row + 1]
    shown = inspector("show", "--json", str(captures["legacy"]))
    records = [json.loads(line) for line in shown.stdout.splitlines()]
    answer = next(r for r in records if r.get("rpc", {}).get("method") == "tools/list" and r["label"] == "response")
    assert [f["code"] for f in answer["findings"]] == ["schema", "tool-name"]


def test_lint_says_in_one_sentence_that_a_file_is_no_capture_and_exits_2(tmp_path):
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n")
    done = inspector("lint", str(junk))
    assert done.returncode == 2
    assert done.stderr.strip().startswith("mcp-inspector: ") and "Traceback" not in done.stderr


def test_lint_writes_junit_with_a_failing_case_per_broken_must(captures):
    import xml.etree.ElementTree as ET

    done = inspector("lint", str(captures["legacy"]), "--format", "junit")
    suite = ET.fromstring(done.stdout)
    failed = {case.get("name") for case in suite if case.find("failure") is not None}
    assert "schema" in failed and "revision-other" not in failed
    assert suite.get("failures") == str(len(failed))
