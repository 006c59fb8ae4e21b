"""Reload on save through the stdio tap (``tap --watch DIR -- python server.py``): the Python SDK's own client
stays connected while the test rewrites the server's file (inspector/core/tap/reloading.py)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, until
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from inspector.core.capture import read_capture
from inspector.core.wire.events import Direction, Kind, Lifecycle
from inspector.core.wire.intercepted import describe, mark_of

pytestmark = pytest.mark.integration

#: Every wait of these tests is bounded by this (a Python SDK server starts in about a second here; the machine
#: is shared).
BOUND = 60.0

SERVER = '''\
import time
from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("watched")


@server.tool()
def echo(text: str) -> str:
    """Echo the text."""
    return text


@server.tool()
def wait_for(path: str) -> str:
    """Answer once the file exists."""
    while not Path(path).exists():
        time.sleep(0.02)
    return "there"

# TOOLS

if __name__ == "__main__":
    server.run()
'''

ADDED = '''
@server.tool()
def added(x: int) -> int:
    """A tool added while the client was connected."""
    return x * 2
'''


class Session:
    """A client connected through ``tap --watch``, what it was sent, and the tap's stderr."""

    def __init__(self, client: Client, server: Path, stderr: Path, capture: Path) -> None:
        self.client = client
        self.server = server
        self.stderr = stderr
        self.capture = capture
        self.list_changed = 0

    def stderr_text(self) -> str:
        return self.stderr.read_text(errors="replace")

    def rewrite(self, text: str) -> None:
        self.server.write_text(text)

    async def said(self, words: str, count: int = 1) -> None:
        await until(lambda: self.stderr_text().count(words) >= count, BOUND, f"the tap saying {words!r}")


@asynccontextmanager
async def watched_session(tmp_path: Path, mode: str = "legacy", *tap_args: str) -> AsyncIterator[Session]:
    folder = tmp_path / "srv"
    folder.mkdir()
    server = folder / "server.py"
    server.write_text(SERVER)
    capture = tmp_path / "session.jsonl"
    stderr = tmp_path / "stderr.txt"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "inspector", "tap", "--no-live", "--capture", str(capture), "--watch", str(folder), *tap_args, "--",
              sys.executable, str(server)],
        env=dict(os.environ), cwd=str(ROOT))
    holder: list[Session] = []

    async def on_message(message: Any) -> None:
        if "tools/list_changed" in repr(message) and holder:
            holder[0].list_changed += 1

    with stderr.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=BOUND, mode=mode,
                          message_handler=on_message) as client:
            session = Session(client, server, stderr, capture)
            holder.append(session)
            await session.said("watching")
            yield session


async def tool_names(client: Client) -> list[str]:
    return sorted(tool.name for tool in (await client.list_tools()).tools)


def lifecycle(capture: Path, what: str) -> list[dict[str, Any]]:
    return [event.data for event in read_capture(capture).events
            if event.kind == Kind.LIFECYCLE and event.data.get("what") == what]


def test_a_tool_added_to_the_watched_server_appears_in_the_same_session_and_the_capture_shows_two_starts(tmp_path):
    async def scenario() -> None:
        async with watched_session(tmp_path) as session:
            assert await tool_names(session.client) == ["echo", "wait_for"]
            session.rewrite(SERVER.replace("# TOOLS", ADDED))
            await until(lambda: session.list_changed == 1, BOUND, "notifications/tools/list_changed")
            assert await tool_names(session.client) == ["added", "echo", "wait_for"]
            result = await session.client.call_tool("added", {"x": 21})
            assert result.structured_content == {"result": 42}
        assert session.list_changed == 1

    asyncio.run(scenario())
    assert len(lifecycle(tmp_path / "session.jsonl", Lifecycle.SPAWNED)) == 2
    [reloading] = lifecycle(tmp_path / "session.jsonl", Lifecycle.RELOADING)
    assert [Path(path).name for path in reloading["changed"]] == ["server.py"]
    assert [data.get("reload") for data in lifecycle(tmp_path / "session.jsonl", Lifecycle.EXITED)] == [True, None]


def test_a_2026_client_listening_for_tool_changes_is_told_on_its_stream_after_a_reload(tmp_path):
    async def scenario() -> None:
        async with watched_session(tmp_path, mode="auto") as session:
            assert await tool_names(session.client) == ["echo", "wait_for"]
            async with session.client.listen(tools_list_changed=True) as stream:
                session.rewrite(SERVER.replace("# TOOLS", ADDED))
                event = await asyncio.wait_for(stream.__anext__(), BOUND)
                assert type(event).__name__ == "ToolsListChanged"
                assert await tool_names(session.client) == ["added", "echo", "wait_for"]

    asyncio.run(scenario())
    assert len(lifecycle(tmp_path / "session.jsonl", Lifecycle.SPAWNED)) == 2


def test_a_change_that_leaves_the_tools_the_same_sends_no_list_changed(tmp_path):
    async def scenario() -> None:
        async with watched_session(tmp_path) as session:
            await tool_names(session.client)
            session.rewrite(SERVER.replace("# TOOLS", "# a comment changed, nothing else"))
            await session.said("reloaded in")
            assert "(no list changed)" in session.stderr_text()
            assert await tool_names(session.client) == ["echo", "wait_for"]  # the new server answers
        assert session.list_changed == 0

    asyncio.run(scenario())
    assert len(lifecycle(tmp_path / "session.jsonl", Lifecycle.SPAWNED)) == 2


def test_a_request_in_flight_during_a_reload_is_answered_by_the_new_server(tmp_path):
    async def scenario() -> None:
        async with watched_session(tmp_path) as session:
            flag = tmp_path / "flag"
            call = asyncio.ensure_future(session.client.call_tool("wait_for", {"path": str(flag)}))
            await until(lambda: any(e.data.get("method") == "tools/call" or b"wait_for" in e.raw
                                    for e in read_capture(session.capture).events if e.dir == "c2s"),
                        BOUND, "the call to reach the server")
            session.rewrite(SERVER.replace("# TOOLS", ADDED))
            await until(lambda: session.list_changed == 1, BOUND, "notifications/tools/list_changed")
            flag.touch()
            result = await asyncio.wait_for(call, BOUND)
            assert result.structured_content == {"result": "there"}

    asyncio.run(scenario())


def test_a_request_in_flight_across_two_reloads_is_answered_by_the_third_server(tmp_path):
    async def scenario() -> None:
        async with watched_session(tmp_path) as session:
            flag = tmp_path / "flag"
            call = asyncio.ensure_future(session.client.call_tool("wait_for", {"path": str(flag)}))
            await until(lambda: any(e.data.get("method") == "tools/call" or b"wait_for" in e.raw
                                    for e in read_capture(session.capture).events if e.dir == "c2s"),
                        BOUND, "the call to reach the server")
            session.rewrite(SERVER.replace("# TOOLS", ADDED))
            await until(lambda: session.list_changed == 1, BOUND, "the first notifications/tools/list_changed")
            session.rewrite(SERVER)  # saved again before the call is answered: the tool added goes away
            await until(lambda: session.list_changed == 2, BOUND, "the second notifications/tools/list_changed")
            flag.touch()
            result = await asyncio.wait_for(call, BOUND)
            assert result.structured_content == {"result": "there"}

    asyncio.run(scenario())
    assert len(lifecycle(tmp_path / "session.jsonl", Lifecycle.SPAWNED)) == 3


def test_a_broken_server_after_a_change_answers_the_client_with_an_error_and_the_next_fix_brings_it_back(tmp_path):
    async def scenario() -> None:
        async with watched_session(tmp_path) as session:
            await tool_names(session.client)
            session.rewrite(SERVER.replace("# TOOLS", "def broken(:"))
            await session.said("doctor, step start: the server exited.")  # said last
            assert "failed to start (it exited, exit status 1)" in session.stderr_text()
            assert "SyntaxError" in session.stderr_text()  # the server's own stderr, passed on as usual
            with pytest.raises(MCPError, match=r"restarted after a change and failed to start .*exit status 1"):
                await session.client.call_tool("echo", {"text": "hi"})
            session.rewrite(SERVER.replace("# TOOLS", ADDED))
            await until(lambda: session.list_changed == 1, BOUND, "notifications/tools/list_changed")
            assert await tool_names(session.client) == ["added", "echo", "wait_for"]

    asyncio.run(scenario())
    assert len(lifecycle(tmp_path / "session.jsonl", Lifecycle.SPAWNED)) == 3


def test_the_client_never_sees_the_inspector_s_own_requests_nor_a_second_initialize_answer(tmp_path):
    """A client speaking raw JSON lines: everything it reads through a reload is its own answers and the
    list_changed notification."""
    folder = tmp_path / "srv"
    folder.mkdir()
    server = folder / "server.py"
    server.write_text(SERVER)

    async def scenario() -> list[dict[str, Any]]:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "inspector", "tap", "--no-live", "--capture", str(tmp_path / "c.jsonl"),
            "--watch", str(folder), "--", sys.executable, str(server),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            cwd=ROOT)
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        read: list[dict[str, Any]] = []

        async def send(message: dict[str, Any]) -> None:
            assert process.stdin is not None
            process.stdin.write(json.dumps(message).encode() + b"\n")
            await process.stdin.drain()

        async def read_until(condition: Any) -> None:
            assert process.stdout is not None
            while not read or not condition(read[-1]):
                read.append(json.loads(await asyncio.wait_for(process.stdout.readline(), BOUND)))

        assert b"watching" in await asyncio.wait_for(process.stderr.readline(), BOUND)
        await send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "raw", "version": "1"}}})
        await read_until(lambda message: message.get("id") == 1)
        await send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        server.write_text(SERVER.replace("# TOOLS", ADDED))
        await read_until(lambda message: message.get("method") == "notifications/tools/list_changed")
        await send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        await read_until(lambda message: message.get("id") == 2)
        process.stdin.close()
        rest = await asyncio.wait_for(process.stdout.read(), BOUND)
        read.extend(json.loads(line) for line in rest.splitlines() if line.strip())
        assert await asyncio.wait_for(process.wait(), BOUND) == 0
        return read

    read = asyncio.run(scenario())
    assert [message.get("id", message.get("method")) for message in read] == [
        1, "notifications/tools/list_changed", 2]
    assert "added" in {tool["name"] for tool in read[-1]["result"]["tools"]}
    # the SDK server declares tools.listChanged false; the tap sends list_changed for it, so it says it will
    assert read[0]["result"]["capabilities"]["tools"]["listChanged"] is True
    answers = [event for event in read_capture(tmp_path / "c.jsonl").events
               if event.kind == Kind.MESSAGE and event.dir == Direction.S2C and b'"id":1,' in event.raw]
    assert [(json.loads(event.raw)["result"]["capabilities"]["tools"]["listChanged"], mark_of(event.data)["role"])
            for event in answers] == [(False, "original"), (True, "changed")]
    assert describe(mark_of(answers[0].data)).startswith("original, never delivered: tap --watch changed it")


def test_intercept_rules_go_on_acting_on_the_client_s_messages_across_a_reload(tmp_path):
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"rules": [{"when": {"dir": "c2s", "method": "tools/call", "tool": "echo"},
                                            "do": "error", "code": -32000, "message": "injected"}]}))

    async def scenario() -> None:
        async with watched_session(tmp_path, "legacy", "--rules", str(rules)) as session:
            with pytest.raises(MCPError, match="injected"):
                await session.client.call_tool("echo", {"text": "hi"})
            session.rewrite(SERVER.replace("# TOOLS", ADDED))
            await until(lambda: session.list_changed == 1, BOUND, "notifications/tools/list_changed")
            assert await tool_names(session.client) == ["added", "echo", "wait_for"]
            with pytest.raises(MCPError, match="injected"):
                await session.client.call_tool("echo", {"text": "hi"})
            assert (await session.client.call_tool("added", {"x": 1})).structured_content == {"result": 2}

    asyncio.run(scenario())


def test_a_change_to_an_ignored_file_restarts_nothing_and_the_reload_names_only_the_server_s_file(tmp_path):
    async def scenario() -> None:
        async with watched_session(tmp_path, "legacy", "--watch-ignore", "*.log") as session:
            await tool_names(session.client)
            (session.server.parent / "server.log").write_text("a log line the server wrote\n")
            session.rewrite(SERVER.replace("# TOOLS", ADDED))
            await until(lambda: session.list_changed == 1, BOUND, "notifications/tools/list_changed")
            assert await tool_names(session.client) == ["added", "echo", "wait_for"]

    asyncio.run(scenario())
    changed = [Path(path).name for data in lifecycle(tmp_path / "session.jsonl", Lifecycle.RELOADING)
               for path in data["changed"]]
    assert changed == ["server.py"]


class RawClient:
    """A client speaking raw JSON lines to ``tap --watch`` (its stdin, stdout and stderr pipes)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.stderr = b""

    @classmethod
    async def start(cls, tmp_path: Path) -> tuple[RawClient, Path]:
        folder = tmp_path / "srv"
        folder.mkdir()
        server = folder / "server.py"
        server.write_text(SERVER)
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "inspector", "tap", "--no-live", "--capture", str(tmp_path / "c.jsonl"),
            "--watch", str(folder), "--", sys.executable, str(server),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            cwd=ROOT, start_new_session=True)
        client = cls(process)
        await client.said(b"watching")
        await client.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                      "clientInfo": {"name": "raw", "version": "1"}}})
        await client.read_until(lambda message: message.get("id") == 1)
        await client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return client, server

    async def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        await self.process.stdin.drain()

    async def read_until(self, condition: Any) -> dict[str, Any]:
        assert self.process.stdout is not None
        while True:
            message = json.loads(await asyncio.wait_for(self.process.stdout.readline(), BOUND))
            if condition(message):
                return message

    async def said(self, words: bytes) -> None:
        assert self.process.stderr is not None
        while words not in self.stderr:
            line = await asyncio.wait_for(self.process.stderr.readline(), BOUND)
            assert line, f"the tap's stderr ended before it said {words!r}: {self.stderr!r}"
            self.stderr += line

    async def exit_status(self) -> int:
        assert self.process.stderr is not None
        self.stderr += await asyncio.wait_for(self.process.stderr.read(), BOUND)
        return await asyncio.wait_for(self.process.wait(), BOUND)


def spawned_pids(capture: Path) -> list[int]:
    return [data["pid"] for data in lifecycle(capture, Lifecycle.SPAWNED)]


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_signal_to_the_tap_after_a_reload_ends_the_new_server_and_leaves_no_server_behind(tmp_path):
    async def scenario() -> int:
        client, server = await RawClient.start(tmp_path)
        server.write_text(SERVER.replace("# TOOLS", ADDED))
        await client.read_until(lambda message: message.get("method") == "notifications/tools/list_changed")
        client.process.send_signal(signal.SIGTERM)
        return await client.exit_status()

    assert asyncio.run(scenario()) == 128 + signal.SIGTERM
    pids = spawned_pids(tmp_path / "c.jsonl")
    assert len(pids) == 2
    asyncio.run(until(lambda: all(gone(pid) for pid in pids), BOUND, "both servers to be gone"))


def test_the_client_s_eof_while_no_server_runs_ends_the_tap_with_the_failed_server_s_status(tmp_path):
    async def scenario() -> int:
        client, server = await RawClient.start(tmp_path)
        server.write_text(SERVER.replace("# TOOLS", "def broken(:"))
        await client.said(b"failed to start")
        await client.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        answer = await client.read_until(lambda message: message.get("id") == 2)
        assert "failed to start (it exited, exit status 1)" in answer["error"]["message"]
        assert client.process.stdin is not None
        client.process.stdin.close()
        return await client.exit_status()

    assert asyncio.run(scenario()) == 1


def test_a_signal_to_the_tap_while_no_server_runs_ends_it(tmp_path):
    async def scenario() -> int:
        client, server = await RawClient.start(tmp_path)
        server.write_text(SERVER.replace("# TOOLS", "def broken(:"))
        await client.said(b"failed to start")
        client.process.send_signal(signal.SIGINT)
        return await client.exit_status()

    assert asyncio.run(scenario()) == 128 + signal.SIGINT


def test_the_client_s_eof_during_a_restart_closes_the_new_server_s_stdin_once_it_runs(tmp_path):
    capture = tmp_path / "c.jsonl"

    async def scenario() -> int:
        client, server = await RawClient.start(tmp_path)
        server.write_text(SERVER.replace("# TOOLS", ADDED))
        await until(lambda: bool(lifecycle(capture, Lifecycle.RELOADING)), BOUND, "the reload to begin")
        assert client.process.stdin is not None
        client.process.stdin.close()
        return await client.exit_status()

    assert asyncio.run(scenario()) == 0
    pids = spawned_pids(capture)
    assert len(pids) == 2
    stdin_closed = lifecycle(capture, Lifecycle.STDIN_CLOSED)
    assert [data.get("by") for data in stdin_closed] == ["client"]
    asyncio.run(until(lambda: all(gone(pid) for pid in pids), BOUND, "both servers to be gone"))


def test_a_new_server_that_never_answers_the_handshake_is_stopped_and_its_failure_said(tmp_path):
    capture = tmp_path / "c.jsonl"

    async def scenario() -> None:
        client, server = await RawClient.start(tmp_path)
        server.write_text("import time\ntime.sleep(3600)\n" + SERVER)
        await client.said(b"failed to start (it did not answer the handshake within 10 s)")
        await client.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        answer = await client.read_until(lambda message: message.get("id") == 2)
        assert answer["error"]["message"] == ("The server restarted after a change and failed to start (it did not "
                                              "answer the handshake within 10 s).")
        hung = spawned_pids(capture)[-1]
        await until(lambda: gone(hung), BOUND, "the hung server to be stopped")
        server.write_text(SERVER)  # back as the client last saw it: it is not told that anything changed
        await client.said(b"(no list changed)")
        await client.send({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
        assert "result" in await client.read_until(lambda message: message.get("id") == 3)
        assert client.process.stdin is not None
        client.process.stdin.close()
        assert await client.exit_status() == 0

    asyncio.run(scenario())
