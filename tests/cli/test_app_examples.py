"""``mcp-inspector app`` against the official MCP Apps example servers from npm (each run with --stdio): each
app renders headless, ``app get-time --text`` shows the server's time, and the system monitor's app polls its
app-only tool through the host."""

from __future__ import annotations

import json
import os
import re
import struct

import pytest
from helpers import cli
from npm_servers import install_app_server

from inspector.core.capture import read_capture
from inspector.core.exits import EXIT_OK

pytestmark = [pytest.mark.integration, pytest.mark.npm]
#: Node starts, and a web view renders a 200-300 KB app, well within this on a loaded machine
BOUND = 180
#: Chromium's sandbox cannot run as root (how these tests run in containers): turned off explicitly, as a user
#: would have to (tests/cli/test_app_command.py checks the command refuses without it)
UNSANDBOXED = {"QTWEBENGINE_DISABLE_SANDBOX": "1"} if os.geteuid() == 0 else {}


def png_size(path) -> tuple[int, int]:
    return struct.unpack(">II", path.read_bytes()[16:24])


def test_get_time_shows_the_servers_time_in_its_app(tmp_path):
    done = cli("app", "get-time", "--text", "--out", str(tmp_path / "time.jsonl"), "--screenshot",
               str(tmp_path / "time.png"), "--", *install_app_server("basic"), timeout=BOUND, env=UNSANDBOXED)
    assert done.returncode == EXIT_OK, done.stderr
    events = read_capture(tmp_path / "time.jsonl").events
    answer = next(e for e in events if e.kind == "message" and e.data.get("request_method") == "tools/call")
    server_time = answer.json()["result"]["structuredContent"]["time"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z", server_time)
    lines = done.stdout.splitlines()
    assert lines[lines.index("Server Time:") + 1] == server_time, done.stdout
    assert png_size(tmp_path / "time.png") == (800, 600)


def test_the_budget_allocator_renders_its_chart_and_sliders(tmp_path):
    done = cli("app", "get-budget-data", "--json", "--screenshot", str(tmp_path / "budget.png"), "--",
               *install_app_server("budget"), timeout=BOUND, env=UNSANDBOXED)
    assert done.returncode == EXIT_OK, done.stderr
    report = json.loads(done.stdout)
    assert report["app"]["initialized"] and report["outcome"]["state"] == "idle"
    assert "Budget Allocator" in report["text"] and "Marketing" in report["text"]
    assert [b for b in report["blocked"] if b["request"]] == []
    assert png_size(tmp_path / "budget.png")[0] == 800


def test_the_system_monitors_app_polls_its_app_only_tool_through_the_host(tmp_path):
    done = cli("app", "get-system-info", "--wait", "5", "--json", "--out", str(tmp_path / "monitor.jsonl"), "--",
               *install_app_server("monitor"), timeout=BOUND, env=UNSANDBOXED)
    assert done.returncode == EXIT_OK, done.stderr
    report = json.loads(done.stdout)
    assert report["outcome"]["state"] == "waited"
    assert report["messages"]["app_to_host"]["tools/call"] >= 2, "it polls every 2 s"
    assert "Memory" in report["text"] or "MEMORY" in report["text"]
    events = read_capture(tmp_path / "monitor.jsonl").events
    tools = next(e for e in events if e.kind == "message" and e.data.get("request_method") == "tools/list")
    poll = next(t for t in tools.json()["result"]["tools"] if t["name"] == "poll-system-stats")
    assert poll["_meta"]["ui"]["visibility"] == ["app"]
    by_seq = {e.seq: e for e in events}
    polls = [e for e in events if e.kind == "message" and e.dir == "c2s" and e.method == "tools/call"
             and e.json()["params"]["name"] == "poll-system-stats"]
    assert len(polls) >= 2
    for request in polls:
        asked = by_seq[request.data["app_request"]]
        assert asked.kind == "app" and asked.dir == "a2h" and asked.json()["params"]["name"] == "poll-system-stats"
        answered = next(e for e in events if e.data.get("reply_to") == request.seq)
        relayed = next(e for e in events if e.kind == "app" and e.data.get("reply_to") == asked.seq)
        assert relayed.json()["result"] == answered.json()["result"], "the host relays the server's answer as it is"
