"""Replays over HTTP (`--url`) against a real Streamable HTTP server (the official Python SDK) on 127.0.0.1:
the recorded handshake gives the replay the same session and protocol headers, and a capture's own URL is
used only with --yes."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import warm_python
from helpers import ROOT, cli, wait_until
from replay_support import SERVERS

from inspector.core.capture import read_capture
from inspector.core.wire.events import Kind

pytestmark = pytest.mark.integration
CALLS = [{"method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}},
         {"method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def accepts(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def url() -> Iterator[str]:
    port = free_port()
    server = subprocess.Popen(warm_python.command(SERVERS / "sdk_http_server.py", str(port)), cwd=ROOT,
                              start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: server.poll() is not None or accepts(port), 30, "the SDK's HTTP server to listen")
        assert server.poll() is None, "the SDK's HTTP server exited"
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=10)


@pytest.fixture
def record_url(tmp_path: Path) -> Callable[[str, str], Path]:
    """``record_url(url, handshake)``: ``mcp-inspector record --url`` with two tool calls; returns the capture."""
    counter = iter(range(1, 1000))

    def run(url: str, handshake: str) -> Path:
        number = next(counter)
        send = tmp_path / f"calls-{number}.jsonl"
        send.write_text("".join(json.dumps(c) + "\n" for c in CALLS))
        out = tmp_path / f"http-{number}.jsonl"
        result = cli("record", "--url", url, "--handshake", handshake, "--out", str(out), "--send", str(send))
        assert result.returncode == 0, result.stderr
        return out

    return run


def mcp_headers(path: Path) -> list[tuple[str, dict[str, str]]]:
    """Per HTTP exchange: its purpose and the MCP headers sent (the session id replaced by a placeholder)."""
    out = []
    for event in read_capture(path).events:
        if event.kind == Kind.HTTP and "request_headers" in event.data:
            headers = {k: ("<session>" if k == "mcp-session-id" else v)
                       for k, v in event.data["request_headers"].items() if k.startswith("mcp")}
            out.append((event.data.get("purpose"), headers))
    return out


@pytest.mark.parametrize("handshake", ["legacy", "auto"])
def test_a_capture_recorded_over_http_replays_over_http_with_the_same_headers(record_url, replay, url, tmp_path,
                                                                              handshake):
    capture = record_url(url, handshake)
    out = tmp_path / "r.jsonl"
    result = replay(capture, "--out", str(out), "--url", url)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "everything matches the recording" in result.stdout
    assert mcp_headers(out) == mcp_headers(capture)
    assert read_capture(out).header["target"]["url"] == url


def test_a_capture_of_an_http_server_names_its_url_and_replays_it_with_yes(record_url, replay, url, tmp_path):
    capture = record_url(url, "legacy")
    refused = replay(capture)
    assert refused.returncode == 2
    assert f"URL: {url} (transport auto)" in refused.stdout
    confirmed = replay(capture, "--yes", "--out", str(tmp_path / "r.jsonl"))
    assert confirmed.returncode == 0, confirmed.stdout + confirmed.stderr


def test_an_http_server_that_is_gone_fails_the_handshake(record_url, replay, tmp_path, url):
    capture = record_url(url, "legacy")
    dead = f"http://127.0.0.1:{free_port()}/mcp"
    result = replay(capture, "--out", str(tmp_path / "r.jsonl"), "--url", dead)
    assert result.returncode == 2
    assert result.stderr.startswith("mcp-inspector: cannot replay: the handshake failed: POST ")
    assert "connection refused" in result.stderr
