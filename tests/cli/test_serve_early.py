"""``mcp-inspector serve`` of a big capture (one whose handshake is answered while the capture is indexed): the
session after the handshake is served as always, server requests and ``--out`` included, and a truncated capture
still warns."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import warm_cli
from lines_capture import write_messages

from inspector.core.capture import read_capture
from inspector.core.exits import EXIT_OK
from inspector.core.serve.early import EARLY_FROM_BYTES
from inspector.core.wire.events import Direction

C, S = Direction.C2S, Direction.S2C
RUN_TIMEOUT = 60.0
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
READ = {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "big://one"}}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask", "arguments": {}}}
BIG = "b" * (EARLY_FROM_BYTES + 1000)


def big_capture(path: Path) -> Path:
    """A handshake, a resource read whose answer makes the capture big enough, a call that asked the client for
    sampling before its answer."""
    lines = [
        (C, INIT),
        (S, {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {
            "tools": {}, "resources": {}}, "serverInfo": {"name": "big", "version": "1"}}}),
        (C, {"jsonrpc": "2.0", "method": "notifications/initialized"}),
        (C, READ),
        (S, {"jsonrpc": "2.0", "id": 1, "result": {"contents": [{"uri": "big://one", "text": BIG}]}}),
        (C, CALL),
        (S, {"jsonrpc": "2.0", "id": 70, "method": "sampling/createMessage", "params": {"messages": []}}),
        (C, {"jsonrpc": "2.0", "id": 70, "result": {"role": "assistant", "model": "m",
                                                    "content": {"type": "text", "text": "hi"}}}),
        (S, {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "asked"}]}}),
    ]
    return write_messages(path, lines)


def drive(capture: Path, messages: list[dict], *options: str) -> tuple[list[dict], str]:
    run = warm_cli.run([sys.executable, "-m", "inspector", "serve", str(capture), *options],
                       input="".join(json.dumps(m) + "\n" for m in messages), capture_output=True, text=True,
                       timeout=RUN_TIMEOUT, env=dict(os.environ))
    assert run.returncode == EXIT_OK, run.stderr
    return [json.loads(line) for line in run.stdout.splitlines()], run.stderr


@pytest.fixture(scope="module")
def capture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return big_capture(tmp_path_factory.mktemp("early") / "big.jsonl")


@pytest.mark.integration
def test_a_big_capture_serves_its_server_requests_and_records_the_session_after_an_early_handshake(capture,
                                                                                                     tmp_path):
    out = tmp_path / "served.jsonl"
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"role": "assistant", "model": "mine",
                                                    "content": {"type": "text", "text": "x"}}}
    answers, stderr = drive(capture, [INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"}, READ, CALL,
                                      answer], "--out", str(out))
    assert answers[0]["result"]["serverInfo"] == {"name": "big", "version": "1"}
    assert answers[1]["result"]["contents"][0]["text"] == BIG
    assert answers[2]["method"] == "sampling/createMessage"
    assert answers[3]["result"]["content"][0]["text"] == "asked"
    assert "served 3 requests" in stderr
    assert "1 request of the server's (sampling, elicitation, roots) sent to the client, 1 answered" in stderr
    served = [e for e in read_capture(out).events if e.dir == Direction.S2C]
    assert [e.json().get("id") for e in served] == [0, 1, 1, 2]
    assert "served_from" in served[0].data  # the early answer is recorded as any other


@pytest.mark.integration
def test_a_big_capture_whose_last_line_was_cut_serves_and_warns(capture, tmp_path):
    cut = tmp_path / "cut.jsonl"
    text = capture.read_bytes()
    cut.write_bytes(text[:text.rindex(b"\n", 0, len(text) - 1) + 20])  # into the last line
    answers, stderr = drive(cut, [INIT, READ])
    assert answers[0]["result"]["serverInfo"]["name"] == "big" and answers[1]["id"] == 1
    assert "mcp-inspector: warning: the last line (line " in stderr and "was cut off" in stderr
