"""Requests and responses are paired the same way wherever a timeline comes from: a `record` of the real
server-everything reopened with --open, a tap capture, and the capture of a replay (its "Open capture"
button). Every answered request shows its latency and Ctrl+J jumps request to response and back.

What is answered is worked out from the capture's JSON alone (the responses' ``data.reply_to``), not by
the code under test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import warm_cli
from helpers import DEMO, ROOT
from npm_servers import install_everything
from qt_loop import open_test_window

from inspector.core.connect.target import Target
from inspector.ui.session.tab import SessionTab
from inspector.ui.timeline.model import COL_LATENCY

pytestmark = [pytest.mark.integration]
BOUND = 120

CALLS = [
    {"jsonrpc": "2.0", "method": "tools/list"},
    {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}},
    {"jsonrpc": "2.0", "method": "resources/list"},
    {"jsonrpc": "2.0", "method": "prompts/list"},
    {"jsonrpc": "2.0", "method": "ping"},
]

TAP_CLIENT = b"".join(json.dumps(line).encode() + b"\n" for line in (
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "scripted", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hé"}}},
    {"jsonrpc": "2.0", "id": 4, "method": "ping"},
))


def answered_in_file(path: Path) -> dict[int, int]:
    """Row of each request -> row of its response, from the capture's lines alone."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:] if line.strip()]
    row_of = {line["seq"]: row for row, line in enumerate(lines)}
    return {row_of[line["data"]["reply_to"]]: row for row, line in enumerate(lines)
            if "reply_to" in line.get("data", {}) and line["data"]["reply_to"] in row_of}


def check_pairing(tab: SessionTab, path: Path, at_least: int) -> None:
    model = tab.model
    model.index_of_file.scan_all()
    model.catch_up()
    pairs = answered_in_file(path)
    assert len(pairs) >= at_least, pairs
    for request, response in pairs.items():
        latency = model.index(request, COL_LATENCY).data()
        assert latency.endswith((" ms", " s")), f"row {request} ({model.event(request).method}) shows {latency!r}"
        assert model.pair_row(request) == response and model.pair_row(response) == request
        tab.timeline.select_row(request)
        assert model.highlight_row == response, "selecting a request tints its response"
        tab.timeline.jump_to_pair()
        assert tab.timeline.current_row() == response
        tab.timeline.jump_to_pair()
        assert tab.timeline.current_row() == request


def cli(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return warm_cli.run([sys.executable, "-m", "inspector", *args], input=stdin, capture_output=True,
                        timeout=BOUND, cwd=ROOT)


def test_a_recorded_server_everything_session_reopens_with_every_answer_paired(qapp, qloop, tmp_path):
    node, entry = install_everything()
    calls = tmp_path / "calls.jsonl"
    calls.write_text("".join(json.dumps(call) + "\n" for call in CALLS), encoding="utf-8")
    out = tmp_path / "everything.jsonl"
    done = cli("record", "--out", str(out), "--send", str(calls), "--", node, str(entry), "stdio")
    assert done.returncode == 0, done.stderr.decode()
    with open_test_window(qloop, tmp_path) as window:
        tab = window.open_capture(out)
        assert tab is not None
        check_pairing(tab, out, at_least=len(CALLS) + 1)


def test_a_tap_capture_opens_with_every_answer_paired(qapp, qloop, tmp_path):
    out = tmp_path / "tap.jsonl"
    done = cli("tap", "--capture", str(out), "--no-live", "--", *DEMO, stdin=TAP_CLIENT)
    assert done.returncode == 0, done.stderr.decode()
    with open_test_window(qloop, tmp_path) as window:
        tab = window.open_capture(out)
        assert tab is not None
        check_pairing(tab, out, at_least=4)


def test_a_replays_capture_opens_with_every_answer_paired(qapp, qloop, tmp_path):
    calls = tmp_path / "calls.jsonl"
    calls.write_text(json.dumps({"jsonrpc": "2.0", "method": "tools/list"}) + "\n", encoding="utf-8")
    source = tmp_path / "source.jsonl"
    done = cli("record", "--out", str(source), "--send", str(calls), "--", *DEMO)
    assert done.returncode == 0, done.stderr.decode()
    with open_test_window(qloop, tmp_path) as window:
        view = qloop.run_until_complete(window.runs.run_replay(source, Target(name="demo", argv=list(DEMO))))
        assert view is not None and view.result.out is not None
        view.open_button.click()  # "Open capture": the replay's own timeline
        tab = window.current_tab()
        assert tab is not None and tab.capture_path == view.result.out
        check_pairing(tab, view.result.out, at_least=2)
