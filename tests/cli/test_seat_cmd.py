"""``mcp-inspector mcp`` end to end, each test a real process: the inspector's own one-shot commands, the
Python SDK's client and ``check`` talk to the seat, and through it the seat drives the bundled demo server."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, cli, wait_until

pytestmark = pytest.mark.integration

TEN = ["list_servers", "list_tools", "call_tool", "read_resource", "check_server", "doctor", "record_session",
       "show_capture", "diff", "context_cost"]
DEMO = {"command": [sys.executable, "-m", "inspector.demo"]}


def seat(captures: Path) -> list[str]:
    return ["--", sys.executable, "-m", "inspector", "mcp", "--captures", str(captures)]


def call(captures: Path, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    done = cli("call", tool, "--json", "--args", json.dumps(arguments), *seat(captures), timeout=90)
    assert done.stdout, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_the_inspectors_tools_command_lists_the_seats_ten_tools(tmp_path):
    done = cli("tools", "--json", *seat(tmp_path))
    assert done.returncode == 0, done.stderr
    assert [tool["name"] for tool in json.loads(done.stdout)["tools"]] == TEN


def test_call_tool_through_the_seat_returns_the_demo_servers_sum_and_its_capture(tmp_path):
    result = call(tmp_path, "call_tool", {"target": DEMO, "tool": "add", "arguments": {"a": 2, "b": 3}})
    assert result["isError"] is False
    assert result["structuredContent"]["result"]["structuredContent"] == {"sum": 5}
    capture = Path(result["structuredContent"]["inspector"]["capture"])
    assert capture.parent == tmp_path and capture.is_file()


def test_call_tool_says_what_the_inspector_saw_beside_the_answer_a_print_on_stdout(tmp_path):
    result = call(tmp_path, "call_tool", {"target": DEMO, "tool": "junk_stdout"})
    framing = result["structuredContent"]["inspector"]["framingErrors"]
    assert framing[0]["raw"] == "hello from print()" and "stdout is reserved for JSON-RPC" in framing[0]["reason"]


def test_doctor_through_the_seat_names_the_failing_step_of_a_missing_command(tmp_path):
    result = call(tmp_path, "doctor", {"target": {"command": ["no-such-mcp-server-xyz"]}})
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith("The first failing step is command: command not found")


def test_a_target_that_cannot_start_is_a_tool_error_with_the_doctors_step(tmp_path):
    result = call(tmp_path, "list_tools", {"target": {"command": ["no-such-mcp-server-xyz"]}})
    assert result["isError"] is True
    assert result["structuredContent"]["failingStep"]["step"] == "command"


def test_record_session_then_show_capture_shows_the_recorded_call(tmp_path):
    send = [{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
             "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}]
    recorded = call(tmp_path, "record_session", {"target": DEMO, "send": send})
    assert recorded["isError"] is False, recorded
    path = recorded["structuredContent"]["capture"]
    shown = call(tmp_path, "show_capture", {"path": path, "method": "tools/call"})
    events = shown["structuredContent"]["events"]
    assert [event["dir"] for event in events] == ["c2s", "s2c"]
    assert json.loads(events[1]["raw"])["result"]["structuredContent"] == {"sum": 5}
    resources = cli("resources", "--json", *seat(tmp_path))
    assert json.loads(resources.stdout)["resources"][0]["uri"] == "capture://" + Path(path).name


def test_the_python_sdks_client_lists_the_seats_tools(tmp_path):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def listed() -> list[str]:
        parameters = StdioServerParameters(command=sys.executable,
                                           args=["-m", "inspector", "mcp", "--captures", str(tmp_path)])
        async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return [tool.name for tool in (await session.list_tools()).tools]

    assert asyncio.run(asyncio.wait_for(listed(), 60)) == TEN


def test_our_own_check_of_the_seat_has_no_failure(tmp_path):
    done = cli("check", "--format", "json", *seat(tmp_path), timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    report = json.loads(done.stdout)
    assert report["counts"]["failed"] == 0 and report["counts"]["passed"] > 0
    assert not report["extra_findings"]


def test_the_inspectors_skill_command_loads_the_seats_skill_verified(tmp_path):
    listed = cli("skills", *seat(tmp_path))
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)["skills"][0]["frontmatter"]["name"] == "debug-mcp-server"
    loaded = cli("skill", "debug-mcp-server", *seat(tmp_path))
    assert loaded.returncode == 0, loaded.stderr
    assert json.loads(loaded.stdout)["contents"][0]["verified"] is True


def test_skill_file_writes_the_skill_into_the_folder_named(tmp_path):
    done = cli("skill-file", str(tmp_path / "skills"))
    assert done.returncode == 0, done.stderr
    written = tmp_path / "skills" / "debug-mcp-server" / "SKILL.md"
    assert done.stdout.strip() == str(written) and written.read_text(encoding="utf-8").startswith("---\n")


def pids_with(marker: str) -> list[int]:
    """The processes whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def running_with(marker: str) -> bool:
    """Whether some process's command line holds ``marker``."""
    return bool(pids_with(marker))


def listening_sockets_of(pids: list[int]) -> set[str]:
    """The inodes of the listening TCP sockets (IPv4 or IPv6) that these processes hold."""
    held = set()
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    held.add(target[8:-1])
    listening = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if fields[3] == "0A":  # TCP_LISTEN
                listening.add(fields[9])
    return held & listening


def test_a_running_call_reports_progress_opens_no_port_and_a_cancelled_one_stops_its_server(tmp_path):
    marker = f"seat-silent-{tmp_path.name}"
    silent = [sys.executable, "-c", f"import sys; sys.stdin.read()  # {marker}"]  # never answers
    seat_process = subprocess.Popen([sys.executable, "-m", "inspector", "mcp", "--captures", str(tmp_path)],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)
    assert seat_process.stdin is not None and seat_process.stdout is not None
    lines: queue.Queue[dict[str, Any]] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(json.loads(line)) for line in seat_process.stdout],
                     daemon=True).start()

    def send(message: dict[str, Any]) -> None:
        assert seat_process.stdin is not None
        seat_process.stdin.write(json.dumps(message).encode() + b"\n")
        seat_process.stdin.flush()

    try:
        send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "1"}}})
        assert lines.get(timeout=30)["id"] == 0
        send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
              "params": {"name": "list_tools", "arguments": {"target": {"command": silent}, "timeout": 120},
                         "_meta": {"progressToken": "p1"}}})
        progress = lines.get(timeout=30)
        assert progress["method"] == "notifications/progress" and progress["params"]["progressToken"] == "p1"
        # the command the seat runs, then the server it starts: both hold the marker (the first alone, a moment)
        wait_until(lambda: len(pids_with(marker)) >= 2, 30, "the command and its silent server to start")
        # the seat, the command it runs and the server: none listens while the call runs
        assert seat_process.pid in pids_with(str(tmp_path))
        assert listening_sockets_of([*pids_with(marker), seat_process.pid]) == set()
        send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
        wait_until(lambda: not running_with(marker), 30, "the cancelled call's server to stop")
        send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        answer = lines.get(timeout=30)
        while answer.get("method") == "notifications/progress":
            answer = lines.get(timeout=30)
        assert answer["id"] == 2  # and never an answer to the cancelled request 1
    finally:
        seat_process.stdin.close()
        try:
            seat_process.wait(30)
        finally:
            if seat_process.poll() is None:
                seat_process.kill()
                seat_process.wait()
            seat_process.stdout.close()
    assert seat_process.returncode == 0


def test_check_server_through_the_seat_returns_the_demo_servers_counts(tmp_path):
    result = call(tmp_path, "check_server", {"target": DEMO})
    counts = result["structuredContent"]["counts"]
    assert counts["passed"] > 0
    assert result["content"][0]["text"].startswith(f"Check: {counts['passed']} passed, {counts['failed']} failed")


def test_diff_and_context_cost_through_the_seat_read_the_captures_it_made(tmp_path):
    listed = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    first = call(tmp_path, "record_session", {"target": DEMO, "send": [listed]})["structuredContent"]["capture"]
    second = call(tmp_path, "record_session", {"target": DEMO, "send": [listed]})["structuredContent"]["capture"]
    compared = call(tmp_path, "diff", {"a": first, "b": second})
    assert compared["structuredContent"]["same"] is True and compared["content"][0]["text"].startswith("No diff")
    cost = call(tmp_path, "context_cost", {"capture": first})
    assert cost["structuredContent"]["totals"]["tokens"] > 0
    assert cost["content"][0]["text"].startswith("The listing costs ")


PROBE = ROOT / "tests" / "cli" / "option_effects" / "servers" / "probe_server.py"


def test_diff_compares_a_capture_with_a_live_target_and_names_the_tools_it_lost(tmp_path):
    probe = {"command": [sys.executable, str(PROBE), str(tmp_path / "probe.log")]}
    send = [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"x": 1}}}]
    capture = call(tmp_path, "record_session", {"target": probe, "send": send})["structuredContent"]["capture"]
    same = call(tmp_path, "diff", {"a": capture, "target": probe})
    assert same["isError"] is False, same["content"]
    assert same["structuredContent"]["same"] is True and same["structuredContent"]["comparedRequests"] == 1
    assert same["structuredContent"]["b"]["source"].endswith(f"probe_server.py {tmp_path / 'probe.log'}")
    fewer = call(tmp_path, "diff", {"a": capture, "target": {**probe, "env": {"PROBE_TOOLS": "where,echo"}}})
    assert fewer["isError"] is False, fewer["content"]
    removed = {row["name"] for row in fewer["structuredContent"]["interface"] if row["change"] == "removed"}
    assert removed == {"slow", "big", "ask", "late", "progress", "mutate"}
    assert fewer["content"][0]["text"].startswith("6 difference(s): 6 in the interface")


@pytest.mark.report("security", "the agent seat asked about a server with a secret flag (--api-key KEY)",
                     surface="CLI", group="seat")
def test_what_the_seat_returns_about_a_target_holds_none_of_its_secrets(tmp_path, report):
    key = "sk-ant-api03-seatSECRET0123456789"
    probe = {"command": [sys.executable, str(PROBE), str(tmp_path / "probe.log"), "--api-key", key]}
    send = [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}]
    recorded = call(tmp_path, "record_session", {"target": probe, "send": send})
    compared = call(tmp_path, "diff", {"a": recorded["structuredContent"]["capture"], "target": probe})
    called = call(tmp_path, "call_tool", {"target": probe, "tool": "where"})  # the probe answers with its argv
    for result in (recorded, compared, called):
        assert key not in json.dumps(result)
    assert compared["structuredContent"]["b"]["source"].endswith("--api-key [redacted]")
    assert "[redacted]" in json.dumps(called["structuredContent"]["result"])
    report.saw(f"diff names the live server {compared['structuredContent']['b']['source'].split('/')[-1]}")


def test_read_resource_through_the_seat_returns_the_demo_servers_readme(tmp_path):
    result = call(tmp_path, "read_resource", {"target": DEMO, "uri": "demo://readme"})
    assert result["isError"] is False
    assert result["structuredContent"]["contents"][0]["uri"] == "demo://readme"


def test_a_server_that_never_answers_is_a_tool_error_within_the_tools_timeout(tmp_path):
    silent = {"command": [sys.executable, "-c", "import sys; sys.stdin.read()"]}
    result = call(tmp_path, "list_tools", {"target": silent, "timeout": 3})
    assert result["isError"] is True
    assert result["structuredContent"]["failingStep"]["step"] == "handshake"
    assert "raise the tool's timeout argument" in result["content"][0]["text"]


@pytest.mark.npm
def test_the_official_inspector_cli_lists_the_seats_tools_and_the_seat_sums_on_server_everything(tmp_path):
    import warm_cli
    from npm_servers import OFFICIAL_INSPECTOR_PACKAGE, OFFICIAL_INSPECTOR_VERSION, install_everything, install_package

    node, everything = install_everything()
    _, launcher = install_package(OFFICIAL_INSPECTOR_PACKAGE, OFFICIAL_INSPECTOR_VERSION,
                                  "clients/launcher/build/index.js")
    official = [node, str(launcher), "--cli", "-e", f"PYTHONPATH={ROOT}", sys.executable, "-m", "inspector", "mcp",
                "--captures", str(tmp_path), "--method", "tools/list"]
    done = warm_cli.run(official, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [tool["name"] for tool in json.loads(done.stdout)["tools"]] == TEN
    result = call(tmp_path, "call_tool", {"target": {"command": [node, str(everything), "stdio"]}, "tool": "get-sum",
                                          "arguments": {"a": 2, "b": 3}})
    assert result["isError"] is False, result
    assert result["structuredContent"]["result"]["content"] == [{"type": "text", "text": "The sum of 2 and 3 is 5."}]
