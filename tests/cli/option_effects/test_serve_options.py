"""The live options of ``serve``, observed where they act: a listening window's socket (a listener of the
product's own channel, as the window runs it). --match, --out and --max-message: tests/cli/test_serve_cmd.py."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import warm_cli
from helpers import DEMO, ROOT, cli
from option_effects_support import RUN_TIMEOUT

from inspector.core.serve.stdio import UNMATCHED
from inspector.core.tap.channel import TapConnection, listen
from inspector.core.wire.events import Event

pytestmark = pytest.mark.integration

#: What the client says: the handshake, a recorded call and one the capture never saw.
CLIENT = "".join(json.dumps(line) + "\n" for line in (
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "client", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 4}}},
)).encode()


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A folder with a short path, for a Unix socket (its path must fit in about 100 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="mcpi-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def capture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo server recorded answering add(2, 3)."""
    folder = tmp_path_factory.mktemp("serve-live")
    send = folder / "send.jsonl"
    send.write_text(json.dumps({"method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}})
                    + "\n", encoding="utf-8")
    out = folder / "add.jsonl"
    result = cli("record", "--out", str(out), "--send", str(send), "--handshake", "legacy", "--", *DEMO,
                 timeout=RUN_TIMEOUT)
    assert result.returncode == 0, result.stderr
    return out


def serve(capture: Path, *options: str) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "MCP_INSPECTOR_TAP_SOCKET"}
    return warm_cli.run([sys.executable, "-m", "inspector", "serve", str(capture), *options], input=CLIENT,
                        capture_output=True, timeout=RUN_TIMEOUT, cwd=ROOT, env=env)


def test_socket_live_and_no_live_reach_the_window(short_dir, capture):
    """Two served sessions while a window listens on --socket: the first with --no-live (it never connects), the
    second with --live: the window gets its hello (role serve) and every event of the session, the unmatched call
    with its finding, then the end line."""
    sock = short_dir / "run" / "tap.sock"

    async def scenario() -> tuple[list[dict[str, Any]], list[Event | dict[str, Any]], list[Any]]:
        hellos: list[dict[str, Any]] = []
        got: list[Event | dict[str, Any]] = []
        ended = asyncio.Event()

        async def window(conn: TapConnection) -> None:
            hellos.append(conn.hello)
            async for message in conn.messages():
                got.append(message)
            ended.set()

        loop = asyncio.get_running_loop()
        async with await listen(sock, window):
            first = await loop.run_in_executor(None, lambda: serve(capture, "--socket", str(sock), "--no-live"))
            second = await loop.run_in_executor(None, lambda: serve(capture, "--socket", str(sock), "--live"))
            await asyncio.wait_for(ended.wait(), RUN_TIMEOUT)
        return hellos, got, [first, second]

    hellos, got, runs = asyncio.run(scenario())
    for run in runs:
        assert run.returncode == 0, run.stderr
        assert [json.loads(line)["id"] for line in run.stdout.splitlines()] == [1, 2, 3]
    # --no-live: the first never connected (it would have been accepted first); --socket and --live: the second did
    assert len(hellos) == 1
    assert hellos[0]["role"] == "serve" and hellos[0]["name"] == "add.jsonl"
    assert hellos[0]["serving"] == str(capture.resolve()) and hellos[0]["capture"] is None
    events = [m for m in got if isinstance(m, Event)]
    assert [e.method for e in events if e.method] == ["initialize", "notifications/initialized", "tools/call",
                                                      "tools/call"]
    unmatched = [e for e in events if any(f.code == UNMATCHED for f in e.findings)]
    assert [e.json()["id"] for e in unmatched] == [3]
    answers = [e for e in events if e.dir == "s2c" and e.kind == "message"]
    assert [a.data.get("request_method") for a in answers] == ["initialize", "tools/call", "tools/call"]
    assert isinstance(got[-1], dict) and got[-1]["type"] == "end" and got[-1]["exit"] == 0
