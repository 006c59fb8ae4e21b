"""The live channel: a tap streams hello, events and end to a listening window over a private Unix socket;
the socket is owner-only, peers of another user are refused, and a slow window never slows the relay."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, until
from tap_support import DEMO, DEMO_SESSION, FLOOD, tap, wire

from inspector.core.capture import read_capture
from inspector.core.tap import channel as tap_channel
from inspector.core.tap.channel import (
    ChannelError,
    TapFeed,
    default_socket_path,
    listen,
)
from inspector.core.wire.events import Event, Kind

BOUND = 30.0  #: every await on the channel is bounded by this


class Collector:
    """A window's handler that keeps what each tap sent."""

    def __init__(self) -> None:
        self.connections: list[tuple[dict[str, Any], list[Event | dict[str, Any]]]] = []
        self.ended = asyncio.Event()

    async def __call__(self, conn: tap_channel.TapConnection) -> None:
        messages: list[Event | dict[str, Any]] = []
        self.connections.append((conn.hello, messages))
        async for message in conn.messages():
            messages.append(message)
        self.ended.set()


async def run_client(argv: list[str], stdin: bytes, env: dict[str, str]) -> tuple[int, bytes]:
    process = await asyncio.create_subprocess_exec(*argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                   stderr=subprocess.DEVNULL, cwd=ROOT, env={**os.environ, **env})
    stdout, _ = await asyncio.wait_for(process.communicate(stdin), BOUND)
    return process.returncode or 0, stdout


def test_a_listener_receives_the_taps_hello_then_its_events_then_its_end(short_dir, tmp_path):
    sock = short_dir / "run" / "tap.sock"
    out = tmp_path / "c.jsonl"

    async def scenario() -> tuple[Collector, int, bytes]:
        collector = Collector()
        async with await listen(sock, collector):
            code, stdout = await run_client(tap(*DEMO, capture=out, name="demo", live=True), DEMO_SESSION,
                                            {"MCP_INSPECTOR_TAP_SOCKET": str(sock)})
            await asyncio.wait_for(collector.ended.wait(), BOUND)
        return collector, code, stdout

    collector, code, stdout = asyncio.run(scenario())
    assert code == 0
    [(hello, messages)] = collector.connections
    assert hello["type"] == "tap" and hello["name"] == "demo" and hello["protocol"] == 1
    assert hello["capture"] == str(out) and hello["next_seq"] == 1 and hello["pid"] > 0
    assert hello["target"]["argv"] == DEMO
    events = [m for m in messages if isinstance(m, Event)]
    assert messages[-1] == {"type": "end", "exit": 0, "dropped": 0}
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    # the live events are the capture's, one for one
    assert [(e.seq, e.kind, e.dir, e.raw, e.eol) for e in events] == \
        [(e.seq, e.kind, e.dir, e.raw, e.eol) for e in read_capture(out).events]
    assert b"".join(e.raw + e.eol for e in events if e.dir == "s2c" and e.kind != Kind.STDERR) == stdout
    initialize = next(e for e in events if e.method == "initialize")
    assert any(e.data.get("reply_to") == initialize.seq for e in events)


def test_the_socket_is_0600_in_a_0700_folder_even_one_that_existed_with_looser_rights(short_dir):
    folder = short_dir / "run"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    sock = folder / "tap.sock"

    async def scenario() -> tuple[int, int, bool]:
        listener = await listen(sock, Collector())
        modes = stat.S_IMODE(os.stat(folder).st_mode), stat.S_IMODE(os.lstat(sock).st_mode)
        listener.close()
        await listener.wait_closed()
        return (*modes, sock.exists())

    folder_mode, sock_mode, left_behind = asyncio.run(scenario())
    assert (folder_mode, sock_mode) == (0o700, 0o600)
    assert not left_behind  # closing the listener removes its socket


def test_a_peer_of_another_user_is_refused_before_anything_is_read(short_dir):
    sock = short_dir / "tap.sock"

    async def scenario() -> tuple[Collector, int, bytes]:
        collector = Collector()
        # pretend the only allowed user is someone else: our own connection is then "another user"
        async with await listen(sock, collector, allowed_uid=os.getuid() + 1) as listener:
            reader, writer = await asyncio.open_unix_connection(str(sock))
            writer.write(b'{"type":"tap","name":"intruder"}\n')
            try:
                rest = await asyncio.wait_for(reader.read(), BOUND)  # the listener hangs up
            except ConnectionResetError:
                rest = b""  # it hung up on the unread hello
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()
            return collector, listener.refused, rest

    collector, refused, rest = asyncio.run(scenario())
    assert (refused, rest, collector.connections) == (1, b"", [])


NOBODY = 65534


def connect_as_nobody(path: Path) -> int:
    """Fork; the child becomes another user and connects to ``path``: returns its pid. It exits 0 when it
    connected (and the listener hung up), 13 when it could not reach the socket."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            with socket.socket(socket.AF_UNIX) as client:
                client.settimeout(BOUND)
                client.connect(str(path))
                with contextlib.suppress(ConnectionError):  # the listener may hang up at once
                    client.sendall(b'{"type":"tap","name":"nobody"}\n')
                    client.recv(1)
            code = 0
        except PermissionError:
            code = 13
        finally:
            os._exit(code)
    return pid


async def exit_code_of(pid: int) -> int:
    """The child's exit code, waited for without blocking the event loop: the listener must run to hang up on
    the child, which waits for that."""
    statuses: list[int] = []

    def exited() -> bool:
        got, status = os.waitpid(pid, os.WNOHANG)
        if got:
            statuses.append(status)
        return bool(statuses)

    await until(exited, BOUND, "the other user's process to exit")
    return os.waitstatus_to_exitcode(statuses[0])


@pytest.mark.skipif(os.getuid() != 0, reason="becoming another user needs root")
def test_another_user_cannot_reach_the_socket_and_is_refused_even_when_the_folder_is_opened(short_dir):
    sock = short_dir / "run" / "tap.sock"

    async def scenario() -> tuple[int, int, int, Collector]:
        collector = Collector()
        async with await listen(sock, collector) as listener:
            blocked = await exit_code_of(connect_as_nobody(sock))  # the 0700 folder stops it
            os.chmod(short_dir, 0o755)
            os.chmod(sock.parent, 0o755)
            os.chmod(sock, 0o666)
            pid = connect_as_nobody(sock)
            await until(lambda: listener.refused == 1, BOUND, "the refusal")  # SO_PEERCRED stops it
            return blocked, await exit_code_of(pid), listener.refused, collector

    blocked, refused_one, refused, collector = asyncio.run(scenario())
    assert (blocked, refused_one, refused, collector.connections) == (13, 0, 1, [])


def test_a_stale_socket_is_replaced_but_a_live_listener_is_left_alone(short_dir):
    sock = short_dir / "tap.sock"
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(sock))
    stale.close()  # a window that crashed leaves its socket file behind

    async def scenario() -> str:
        async with await listen(sock, Collector()):
            with pytest.raises(ChannelError) as refused:
                await listen(sock, Collector())
            return str(refused.value)

    assert asyncio.run(scenario()) == f"another mcp-inspector window already listens on {sock}"


def test_a_path_that_is_not_a_socket_is_not_removed(short_dir):
    (short_dir / "tap.sock").write_text("precious")
    with pytest.raises(ChannelError, match="exists and is not a socket"):
        asyncio.run(listen(short_dir / "tap.sock", Collector()))
    assert (short_dir / "tap.sock").read_text() == "precious"


def test_the_feed_drops_the_newest_events_when_the_window_is_slow_and_marks_where(short_dir):
    sock = short_dir / "tap.sock"
    lines = [f'{{"seq":{n},"t":0,"wall":0,"kind":"note","data":{{"text":"{"x" * 100}"}}}}\n' for n in range(1, 51)]
    room = sum(map(len, lines[:10])) + sum(map(len, lines[40:45]))

    async def scenario() -> tuple[list[Any], TapFeed]:
        collector = Collector()
        async with await listen(sock, collector):
            feed = TapFeed(sock, {"name": "unit"}, max_queued_bytes=room)
            await feed.start()
            # the writer has not run yet, so nothing leaves the queue in between: one read's events at a time
            feed.send(lines[:10])
            feed.send(lines[10:30])  # too much: dropped
            feed.send(lines[30:40])  # still too much: counted with the same marker
            feed.send(lines[40:45])  # fits again
            await feed.close(0)
            await asyncio.wait_for(collector.ended.wait(), BOUND)
        return collector.connections[0][1], feed

    messages, feed = asyncio.run(scenario())
    assert feed.dropped == 30
    assert [m.seq if isinstance(m, Event) else m for m in messages] == [
        *range(1, 11), {"type": "dropped", "count": 30, "total": 30}, *range(41, 46),
        {"type": "end", "exit": 0, "dropped": 30}]


def test_a_feed_started_before_the_window_connects_when_it_appears_and_says_where_it_joins(short_dir):
    sock = short_dir / "tap.sock"
    line = '{"seq":7,"t":0,"wall":0,"kind":"note","data":{"text":"after the window came"}}\n'

    async def scenario() -> list[Any]:
        feed = TapFeed(sock, {"name": "early"}, retry_interval=0.01)
        await feed.start()
        assert not feed.connected
        feed.next_seq = 7
        collector = Collector()
        async with await listen(sock, collector):
            await until(lambda: feed.connected, BOUND, "the feed to connect")
            feed.send([line])
            await feed.close(None)
            await asyncio.wait_for(collector.ended.wait(), BOUND)
        hello, messages = collector.connections[0]
        return [hello["next_seq"], *[m.seq if isinstance(m, Event) else m for m in messages]]

    assert asyncio.run(scenario()) == [7, 7, {"type": "end", "exit": None, "dropped": 0}]


def test_the_feed_does_not_connect_to_a_socket_in_a_folder_others_can_write(short_dir):
    shared = short_dir / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    sock = shared / "tap.sock"
    warnings: list[str] = []

    async def scenario() -> bool:
        server = await asyncio.start_unix_server(lambda r, w: w.close(), path=str(sock))
        async with server:
            feed = TapFeed(sock, {"name": "careful"}, warn=warnings.append)
            await feed.start()
            connected = feed.connected
            await feed.close(None)
            return connected

    assert asyncio.run(scenario()) is False
    assert warnings == [f"the folder of {sock} is not private (it must belong to you and be writable only by you); "
                        "not streaming to it"]


@pytest.mark.integration  # end to end through subprocesses, 7-13 s: CI's second step
def test_a_window_that_never_reads_does_not_slow_or_stop_the_relay_and_the_capture_gets_everything(short_dir, tmp_path):
    sock = short_dir / "tap.sock"
    out = tmp_path / "c.jsonl"
    count, size = 40_000, 500  # 20 MB: far more than the socket and the feed's queue hold

    async def stuck(conn: tap_channel.TapConnection) -> None:
        await asyncio.Event().wait()  # accepts, then never reads (cancelled when the listener closes)

    async def scenario() -> tuple[int, bytes]:
        async with await listen(sock, stuck):
            result = await run_client(tap(*FLOOD, str(count), str(size), capture=out, live=True), b"",
                                      {"MCP_INSPECTOR_TAP_SOCKET": str(sock)})
            # the recorder (nice 19, in a session of its own) may outlast the tap under load: its last word, the
            # note of what the live channel dropped, comes after the server's exit
            await until(lambda: '"dropped"' in out.read_text(), BOUND, "the recorder's note of the dropped events")
            return result

    code, stdout = asyncio.run(scenario())
    assert code == 0
    assert stdout.count(b"\n") == count
    capture = read_capture(out)
    assert wire(capture, "s2c") == stdout
    [note] = [e for e in capture.events if e.kind == Kind.NOTE and "dropped" in e.data]
    assert note.data["dropped"] > 0


def test_the_default_socket_is_the_env_override_else_in_xdg_runtime_dir_else_in_the_data_folder(tmp_path):
    assert default_socket_path({"MCP_INSPECTOR_TAP_SOCKET": "/x/y.sock", "XDG_RUNTIME_DIR": str(tmp_path)}) == \
        Path("/x/y.sock")
    assert default_socket_path({"XDG_RUNTIME_DIR": str(tmp_path)}) == tmp_path / "mcp-inspector" / "tap.sock"
    assert default_socket_path({"XDG_RUNTIME_DIR": str(tmp_path / "missing")}).parts[-3:] == \
        ("mcp-inspector", "run", "tap.sock")
