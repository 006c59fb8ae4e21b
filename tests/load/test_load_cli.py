"""``mcp-inspector load`` against real servers: the stdlib load server of tests/load/servers (it reports the most
requests it held at once), and the SDK's server over Streamable HTTP."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from helpers import cli

SERVER = Path(__file__).parent / "servers" / "load_server.py"
RUN_TIMEOUT = 120.0


def load(tmp_path: Path, *options: str, report: Path | None = None):  # type: ignore[no-untyped-def]
    env = {"LOAD_SERVER_REPORT": str(report)} if report is not None else {}
    return cli("load", *options, "--out", str(tmp_path / "load.jsonl"), "--", sys.executable, str(SERVER),
               timeout=RUN_TIMEOUT, env=env)


def test_a_run_of_n_requests_sends_exactly_n_and_saves_them_answered_in_its_capture(tmp_path: Path) -> None:
    done = load(tmp_path, "echo", "text=hi", "--requests", "500", "--concurrency", "10", "--format", "json")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert (figures["requests"], figures["errors"], figures["concurrency"]) == (500, 0, 10)
    latency = figures["latency_ms"]
    assert 0 < latency["min"] <= latency["p50"] <= latency["p90"] <= latency["p99"] <= latency["max"]
    assert figures["throughput"] > 0
    events = [json.loads(line) for line in (tmp_path / "load.jsonl").read_text().splitlines()[1:]]
    calls = [e for e in events if e["kind"] == "message" and e["dir"] == "c2s" and '"tools/call"' in e["raw"]]
    answers = [e for e in events if e.get("data", {}).get("request_method") == "tools/call"]
    assert len(calls) == len(answers) == 500
    assert figures["capture"] == str(tmp_path / "load.jsonl")


def test_never_more_than_concurrency_requests_wait_at_once(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    done = load(tmp_path, "echo", "text=hi", "--requests", "700", "--concurrency", "7", report=report)
    assert done.returncode == 0, done.stderr
    seen = json.loads(report.read_text())
    assert seen == {"most_pending": 7, "calls": 700}


def test_tool_errors_rpc_errors_and_unanswered_requests_are_counted_and_exit_1(tmp_path: Path) -> None:
    flaky = load(tmp_path, "flaky", "--requests", "300", "--format", "json")
    assert flaky.returncode == 1
    figures = json.loads(flaky.stdout)
    assert figures["error_kinds"] == {"rpc_error": 0, "tool_error": 100, "no_answer": 0}
    broken = json.loads(load(tmp_path, "broken", "--requests", "20", "--format", "json").stdout)
    assert broken["error_kinds"]["rpc_error"] == 20
    assert broken["error_messages"] == [{"message": "broken on purpose (code -32000)", "count": 20}]
    dropped = load(tmp_path, "drop", "--requests", "3", "--timeout", "0.5", "--format", "json")
    assert dropped.returncode == 1
    assert json.loads(dropped.stdout)["error_kinds"]["no_answer"] == 3


def test_rate_spreads_the_requests_over_the_duration(tmp_path: Path) -> None:
    done = load(tmp_path, "echo", "--rate", "50", "--duration", "2", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert 80 <= json.loads(done.stdout)["requests"] <= 101  # 50 a second for 2 s, the first at once


def test_a_progress_line_goes_to_stderr_while_it_runs_and_the_text_summary_to_stdout(tmp_path: Path) -> None:
    done = load(tmp_path, "--method", "ping", "--duration", "1.6")
    assert done.returncode == 0, done.stderr
    progress = [line for line in done.stderr.splitlines() if line.startswith("load: ")]
    assert progress and " requests " in progress[0] and "/s  p50 " in progress[0]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("ping: ") and "requests/s" in lines[0]
    assert lines[2].startswith("latency ms: min ")


def test_an_unknown_tool_or_arguments_that_do_not_fit_exit_2_with_a_sentence(tmp_path: Path) -> None:
    unknown = load(tmp_path, "ecko", "--requests", "1")
    assert unknown.returncode == 2
    assert "no tool named ecko" in unknown.stderr and "did you mean echo" in unknown.stderr
    wrong = load(tmp_path, "echo", "--args", '{"text": 3}', "--requests", "1")
    assert wrong.returncode == 2 and "do not fit the inputSchema of echo" in wrong.stderr
    both = cli("load", "echo", "--method", "ping", "--", sys.executable, str(SERVER))
    assert both.returncode == 2 and "one of them" in both.stderr


def test_load_over_streamable_http_against_the_sdk_server(tmp_path: Path, sdk_http_url: str) -> None:
    done = cli("load", "add", "a=2", "b=3", "--requests", "60", "--concurrency", "6", "--format", "json",
               "--out", str(tmp_path / "http.jsonl"), "--url", sdk_http_url, timeout=RUN_TIMEOUT)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert (figures["requests"], figures["errors"]) == (60, 0)
