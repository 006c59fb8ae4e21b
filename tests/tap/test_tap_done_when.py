"""The issue's "done when": a Claude Desktop config whose server is the demo is wrapped; a client reads the
wrapped entry, launches exactly that command line, speaks MCP to it over stdio, and a listening window
receives the session live."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from typing import Any

import pytest
from helpers import ROOT, cli

from inspector.core.capture import read_capture
from inspector.core.tap.channel import TapConnection, listen
from inspector.core.wire.events import Event

BOUND = 30.0

pytestmark = pytest.mark.integration


async def speak_mcp(argv: list[str], env: dict[str, str]) -> tuple[int, list[dict[str, Any]]]:
    """What a client does: initialize, initialized, tools/list over the process's stdio, then close stdin."""
    process = await asyncio.create_subprocess_exec(*argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                   stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
    assert process.stdin is not None and process.stdout is not None
    answers = []
    for message in ({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                "clientInfo": {"name": "done-when-client", "version": "1.0"}}},
                    {"jsonrpc": "2.0", "method": "notifications/initialized"},
                    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}):
        process.stdin.write(json.dumps(message).encode() + b"\n")
        await process.stdin.drain()
        if "id" in message:
            answers.append(json.loads(await asyncio.wait_for(process.stdout.readline(), BOUND)))
    process.stdin.close()
    await asyncio.wait_for(process.stdout.read(), BOUND)
    return await asyncio.wait_for(process.wait(), BOUND), answers


def test_a_wrapped_claude_desktop_server_is_recorded_and_seen_live_while_a_client_uses_it(tmp_path, short_dir):
    config = tmp_path / "Claude" / "claude_desktop_config.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"mcpServers": {"demo": {"command": sys.executable, "args": ["-m", "inspector.demo"]}},
                                  "globalShortcut": "Ctrl+Space"}, indent=2))
    wrapped = cli("wrap", str(config), "--all")
    assert wrapped.returncode == 0, wrapped.stderr
    entry = json.loads(config.read_text())["mcpServers"]["demo"]
    argv = [entry["command"], *entry["args"]]
    assert argv == [os.path.abspath(sys.executable), "-m", "inspector", "tap", "--name", "demo", "--",
                    sys.executable, "-m", "inspector.demo"]

    sock = short_dir / "run" / "tap.sock"
    # the client's environment; this checkout is what `-m inspector` must import (the client runs it from ROOT)
    env = {**os.environ, "MCP_INSPECTOR_TAP_SOCKET": str(sock), "XDG_DATA_HOME": str(tmp_path / "data")}
    live: list[tuple[dict[str, Any], list[Any]]] = []
    ended = asyncio.Event()

    async def window(conn: TapConnection) -> None:
        messages: list[Any] = []
        live.append((conn.hello, messages))
        async for message in conn.messages():
            messages.append(message)
        ended.set()

    async def scenario() -> tuple[int, list[dict[str, Any]]]:
        async with await listen(sock, window):
            result = await speak_mcp(argv, env)
            await asyncio.wait_for(ended.wait(), BOUND)
            return result

    code, answers = asyncio.run(scenario())
    assert code == 0
    assert answers[0]["result"]["serverInfo"]["name"] == "mcp-inspector-demo"
    assert "echo" in [tool["name"] for tool in answers[1]["result"]["tools"]]

    [(hello, messages)] = live
    assert hello["name"] == "demo"
    events = [m for m in messages if isinstance(m, Event)]
    methods = [(e.dir, e.method or e.data.get("request_method")) for e in events if e.kind == "message"]
    assert methods == [("c2s", "initialize"), ("s2c", "initialize"), ("c2s", "notifications/initialized"),
                       ("c2s", "tools/list"), ("s2c", "tools/list")]
    assert messages[-1] == {"type": "end", "exit": 0, "dropped": 0}
    [capture_file] = (tmp_path / "data" / "mcp-inspector" / "captures").glob("demo-*.jsonl")
    assert str(capture_file) == hello["capture"]
    assert len(read_capture(capture_file).events) == len(events)
