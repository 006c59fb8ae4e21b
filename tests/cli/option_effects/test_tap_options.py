"""The options of ``tap``, observed where they act: the capture file, a listening window's socket (a listener
of the product's own channel, as the window runs it) and the redaction of the command line.
--max-message: tests/cli/test_max_message.py."""

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
from helpers import ROOT
from option_effects_support import RUN_TIMEOUT, probe

from inspector.core.capture import read_capture
from inspector.core.tap.channel import TapConnection, listen

SECRET = "s3cret-tap-41"
#: What the client says: the handshake and one call.
CLIENT = "".join(json.dumps(line) + "\n" for line in (
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "client", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}},
)).encode()


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A folder with a short path, for a Unix socket (its path must fit in about 100 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="mcpi-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def tap(*options: str, server_log: Path) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "MCP_INSPECTOR_TAP_SOCKET"}
    return warm_cli.run([sys.executable, "-m", "inspector", "tap", *options, "--",
                         *probe(server_log, f"--api-key={SECRET}")],
                        input=CLIENT, capture_output=True, timeout=RUN_TIMEOUT, cwd=ROOT, env=env)


def test_capture_name_socket_no_live_and_no_redact_reach_the_capture_and_the_window(short_dir, tmp_path):
    """Two taps while a window listens on --socket: the first with --no-live (it never connects) and
    --no-redact (the secret of its command line stays in its capture), the second live: the window gets its
    hello under --name, and its capture, at --capture, has the secret redacted."""
    sock = short_dir / "run" / "tap.sock"
    quiet, live = tmp_path / "quiet.jsonl", tmp_path / "live.jsonl"

    async def scenario() -> tuple[list[dict[str, Any]], list[subprocess.CompletedProcess[bytes]]]:
        hellos: list[dict[str, Any]] = []
        ended = asyncio.Event()

        async def window(conn: TapConnection) -> None:
            hellos.append(conn.hello)
            async for _ in conn.messages():
                pass
            ended.set()

        loop = asyncio.get_running_loop()
        async with await listen(sock, window):
            first = await loop.run_in_executor(None, lambda: tap(
                "--capture", str(quiet), "--socket", str(sock), "--no-live", "--no-redact",
                server_log=tmp_path / "quiet.log"))
            second = await loop.run_in_executor(None, lambda: tap(
                "--capture", str(live), "--socket", str(sock), "--name", "probe-by-name",
                server_log=tmp_path / "live.log"))
            await asyncio.wait_for(ended.wait(), RUN_TIMEOUT)
        return hellos, [first, second]

    hellos, runs = asyncio.run(scenario())
    for run in runs:
        assert run.returncode == 0, run.stderr
        assert [json.loads(line)["id"] for line in run.stdout.splitlines()] == [1, 2]  # relayed
    # --socket: the live tap connected to the socket given; --no-live: the first never did (it would have been
    # accepted first); --name: the name the window shows
    assert [hello["name"] for hello in hellos] == ["probe-by-name"]
    assert hellos[0]["capture"] == str(live)
    # --capture: each tap's capture is where it was told, with the session's messages
    assert [e.method for e in read_capture(live).events if e.method] == \
        [e.method for e in read_capture(quiet).events if e.method] != []
    assert read_capture(live).header["tap"]["name"] == "probe-by-name"
    # --no-redact: the secret of the command line stays; without it, it is redacted
    assert SECRET in quiet.read_text(encoding="utf-8")
    assert SECRET not in live.read_text(encoding="utf-8")


def test_otlp_endpoint_sends_the_relayed_call_as_a_span_to_the_collector(tmp_path):
    """The recorder turns the relayed call into a span and sends it to the OTLP receiver (opentelemetry-proto
    decodes it there), the server's name from its initialize answer on it."""
    from helpers import wait_until
    from otlp_receiver import attributes, otlp_receiver

    with otlp_receiver() as receiver:
        done = tap("--capture", str(tmp_path / "c.jsonl"), "--no-live", "--otlp-endpoint", receiver.url,
                   server_log=tmp_path / "server.log")
        assert done.returncode == 0, done.stderr
        wait_until(lambda: any(s.name == "tools/call echo" for s in receiver.spans), RUN_TIMEOUT,
                   "the tools/call span at the receiver")
    call = next(s for s in receiver.spans if s.name == "tools/call echo")
    assert attributes(call)["mcp.method.name"] == "tools/call"
    assert attributes(call)["jsonrpc.request.id"] == "2"
