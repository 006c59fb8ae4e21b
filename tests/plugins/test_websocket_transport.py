"""The WebSocket transport, shipped as a plug-in through the ``mcp_inspector.transports`` entry point,
against a real WebSocket MCP server on 127.0.0.1 (tests/plugins/servers/ws_bridge_server.py)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from helpers import ROOT, cli, wait_until

from inspector.core.capture import read_capture
from inspector.core.exits import EXIT_CANNOT_CONNECT
from inspector.core.session.outcomes import result_of
from inspector.core.session.session import Session
from inspector.core.transports.base import TransportError
from inspector.core.transports.http_common import HttpOptions
from inspector.core.transports.registry import ENTRY_POINT_GROUP, create_url_transport
from inspector.core.wire.events import Direction, Kind

SERVER = Path(__file__).parent / "servers" / "ws_bridge_server.py"
pytestmark = pytest.mark.integration


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def accepts(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def ws_url() -> Iterator[str]:
    port = free_port()
    server = subprocess.Popen([sys.executable, str(SERVER), str(port)], cwd=ROOT, start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_until(lambda: server.poll() is not None or accepts(port), 30, "the WebSocket server to listen")
        assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
        yield f"ws://127.0.0.1:{port}/ws"
    finally:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=10)
        if server.stderr:
            server.stderr.close()


def test_the_websocket_transport_is_registered_through_the_entry_point_group():
    names = {entry.name: entry.value for entry in entry_points(group=ENTRY_POINT_GROUP)}
    assert names.get("websocket") == "inspector.core.transports.websocket:WebSocketTransport"
    result = cli("record", "--help")
    assert "--transport" in result.stdout


def test_record_over_websocket_pairs_requests_and_shows_the_upgrade(ws_url, tmp_path):
    send = tmp_path / "send.jsonl"
    send.write_text(json.dumps({"method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi ws"}}}))
    out = tmp_path / "ws.jsonl"
    result = cli("record", "--url", ws_url, "--transport", "websocket", "--out", str(out), "--send", str(send),
                 "--handshake", "legacy")
    assert result.returncode == 0, result.stderr
    assert "transport websocket" in result.stdout
    events = read_capture(out).events
    upgrade = next(e for e in events if e.kind == Kind.HTTP)
    assert upgrade.data["status"] == 101
    assert upgrade.data["request_headers"]["sec-websocket-protocol"] == "mcp"
    assert upgrade.data["response_headers"]["sec-websocket-protocol"] == "mcp"
    call = next(e for e in events if e.method == "tools/call" and e.dir == Direction.C2S)
    answer = next(e for e in events if e.data.get("reply_to") == call.seq)
    assert json.loads(answer.raw)["result"]["content"][0]["text"] == "hi ws"
    shown = cli("show", str(out))
    assert "101 Switching Protocols" in shown.stdout


def test_a_binary_frame_from_the_server_is_a_framing_error_with_its_bytes(ws_url):
    async def scenario():
        transport = create_url_transport("websocket", HttpOptions(url=ws_url))
        session = Session(transport)
        got_binary = asyncio.Event()
        session.listeners.append(lambda batch: got_binary.set()
                                 if any(e.kind == Kind.FRAMING_ERROR and e.dir == Direction.S2C for e in batch)
                                 else None)
        await session.start()
        try:
            await session.handshake("legacy")
            response = await session.request("tools/list")
            await session.send_raw(b"binary please")
            await asyncio.wait_for(got_binary.wait(), 10)
            return result_of(response), [e for e in session.events
                                         if e.kind == Kind.FRAMING_ERROR and e.dir == Direction.S2C]
        finally:
            await session.close()

    (result, error), framing = asyncio.run(asyncio.wait_for(scenario(), 60))
    assert error is None and result["tools"]
    assert framing[0].raw == b"\x00\x01binary" and "binary WebSocket frame" in framing[0].reason


def test_a_websocket_url_where_nothing_listens_gets_one_sentence(tmp_path):
    port = free_port()
    out = tmp_path / "c.jsonl"
    result = cli("record", "--url", f"ws://127.0.0.1:{port}/ws", "--transport", "websocket", "--out", str(out))
    assert result.returncode == EXIT_CANNOT_CONNECT
    assert "connection refused" in result.stderr and "Traceback" not in result.stderr
    assert read_capture(out).events[-1].kind in (Kind.HTTP, Kind.NOTE, Kind.LIFECYCLE)


def test_an_unknown_transport_name_is_refused_with_the_list_of_known_ones(tmp_path):
    result = cli("record", "--url", "http://127.0.0.1:9/mcp", "--transport", "carrier-pigeon",
                 "--out", str(tmp_path / "c.jsonl"))
    assert result.returncode == 2
    assert "unknown transport 'carrier-pigeon'" in result.stderr and "websocket" in result.stderr


def test_creating_an_unknown_transport_raises_a_transport_error():
    with pytest.raises(TransportError, match="known: auto, streamable-http, sse"):
        create_url_transport("nope", HttpOptions(url="http://127.0.0.1:9/"))
