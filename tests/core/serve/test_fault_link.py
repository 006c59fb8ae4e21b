"""The fault link between a running twin and a window's serve tab, over the real private Unix socket and the real
paced loop (pipes for the client's stdin and stdout, no process): the window's changes reach the conductor
between two reads, each is answered with the faults now in force, a bad spec with its sentence, and the
window's going away puts the command line's faults back."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import until

from inspector.core.serve.conduct import LIST_CHANGED, Conductor
from inspector.core.serve.fault_link import FaultLink, FaultsWindowSide, FaultToggles
from inspector.core.serve.faults import INTERNAL_ERROR, Faults
from inspector.core.serve.index import ServeIndex
from inspector.core.serve.paced import serve_paced
from inspector.core.serve.twin import Twin
from inspector.core.tap.channel import listen
from inspector.core.waiting import wait_for

BOUND = 30.0  #: every wait on the link or the twin is bounded by this
HELLO = {"name": "recorded.jsonl", "pid": 4242}


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A folder with a short path (a Unix socket's path must fit in about 100 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="mcpi-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def index(capture: Path) -> Iterator[ServeIndex]:
    opened = ServeIndex(capture)
    yield opened
    opened.close()


@pytest.fixture
def capture(tmp_path: Path) -> Path:
    from test_conduct import write_capture  # the conductor's tests' capture: initialize, add(2, 3), tools/list

    return write_capture(tmp_path / "recorded.jsonl", [
        ("c2s", {"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}}}),
        ("s2c", {"id": 1, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                                     "serverInfo": {"name": "recorded", "version": "1"}}}),
        ("c2s", {"id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}),
        ("s2c", {"id": 2, "result": {"content": [{"type": "text", "text": "5"}]}}),
    ])


class Window:
    """The window's handler for fault links: keeps the side and each ``in_force`` line it is sent."""

    def __init__(self) -> None:
        self.side: FaultsWindowSide | None = None
        self.in_force: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.leave = asyncio.Event()
        self.left = asyncio.Event()

    async def __call__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, hello: dict[str, Any]) -> None:
        assert hello == {"type": "faults", "protocol": 1, **HELLO}
        self.side = FaultsWindowSide(reader, writer, hello)
        reading = asyncio.ensure_future(self._read(self.side))
        await self.leave.wait()
        self.side.close()
        reading.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reading
        with contextlib.suppress(ConnectionError, OSError):
            await writer.wait_closed()
        self.left.set()

    async def _read(self, side: FaultsWindowSide) -> None:
        async for line in side.in_force():
            await self.in_force.put(line)

    async def next(self) -> dict[str, Any]:
        return await wait_for(self.in_force.get(), BOUND)


class Client:
    """The twin's client: a pipe to its stdin, one from its stdout, read a line at a time in a thread."""

    def __init__(self) -> None:
        self.stdin_r, self.stdin_w = os.pipe()
        self.stdout_r, self.stdout_w = os.pipe()
        self._out = os.fdopen(self.stdout_r, "rb")

    def send(self, message: dict[str, Any]) -> None:
        os.write(self.stdin_w, json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")

    async def line(self) -> bytes:
        return await wait_for(asyncio.to_thread(self._out.readline), BOUND)

    async def answer(self) -> dict[str, Any]:
        return json.loads(await self.line())

    def close(self) -> None:
        """The client's stdin ends (the twin ends once what is due went out)."""
        os.close(self.stdin_w)

    def release(self) -> None:
        """Close the rest of the pipes (the twin has ended)."""
        self._out.close()
        for fd in (self.stdin_r, self.stdout_w):
            with contextlib.suppress(OSError):
                os.close(fd)


async def served(short_dir: Path, index: ServeIndex, faults: Faults, window: Window
                 ) -> tuple[Any, FaultLink, Client, threading.Thread]:
    """The window listening, the twin linked to it and serving on pipes in a thread of its own."""
    listener = await listen(short_dir / "tap.sock", no_tap, others={"faults": window})
    toggles = FaultToggles(faults)
    link = await asyncio.to_thread(FaultLink.open, short_dir / "tap.sock", HELLO, toggles)
    assert link is not None
    client = Client()
    serving = threading.Thread(target=serve_paced, args=(Conductor(Twin(index), faults),), kwargs={
        "max_message": 1 << 20, "stdin_fd": client.stdin_r, "stdout_fd": client.stdout_w, "toggles": toggles},
        daemon=True)
    serving.start()
    return listener, link, client, serving


async def ended(listener: Any, link: FaultLink, client: Client, window: Window) -> None:
    """The twin's link and the window's side closed, the listener too, the pipes released."""
    await asyncio.to_thread(link.close)
    window.leave.set()
    await wait_for(window.left.wait(), BOUND)
    listener.close()
    await listener.wait_closed()
    client.release()


async def no_tap(connection: Any) -> None:
    raise AssertionError("no tap connects in these tests")


def names(line: dict[str, Any]) -> dict[str, str]:
    return {fault["name"]: fault["value"] for fault in line["faults"]}


INIT = {"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}}}
ADD = {"method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}


def test_the_window_turns_error_rate_on_and_off_and_each_next_call_meets_what_is_in_force(short_dir, index):
    async def scenario() -> list[Any]:
        window = Window()
        listener, link, client, serving = await served(short_dir, index, Faults(seed=1), window)
        try:
            seen: list[Any] = [names(await window.next())]  # what is in force at the start: nothing
            client.send(INIT)
            seen.append((await client.answer())["result"]["serverInfo"]["name"])
            assert window.side is not None
            window.side.set("error-rate=1")
            turned_on = await window.next()
            seen.append((names(turned_on), turned_on["faults"][0]["says"], turned_on["said"]))
            client.send({"id": 2, **ADD})
            seen.append((await client.answer())["error"]["code"])
            window.side.clear("error-rate")
            seen.append(names(await window.next()))
            client.send({"id": 3, **ADD})
            seen.append((await client.answer())["result"]["content"][0]["text"])
            client.close()
            await asyncio.to_thread(serving.join, BOUND)
            return seen
        finally:
            await ended(listener, link, client, window)

    seen = asyncio.run(scenario())
    assert seen == [{}, "recorded", ({"error-rate": "1"}, "100% of requests answered with an internal error", None),
                    INTERNAL_ERROR, {}, "5"]


def test_a_bad_spec_from_the_window_is_answered_with_its_sentence_and_changes_nothing(short_dir, index):
    async def scenario() -> list[dict[str, Any]]:
        window = Window()
        listener, link, client, serving = await served(short_dir, index, Faults(["latency=5"], seed=1), window)
        try:
            lines = [await window.next()]
            assert window.side is not None
            window.side.set("latency=soon")
            lines.append(await window.next())
            window.side.set("no-such-fault=1")
            lines.append(await window.next())
            window.side._write({"type": "set", "spec": 7})  # not a spec at all: said, not a crash
            lines.append(await window.next())
            client.close()
            await asyncio.to_thread(serving.join, BOUND)
            assert not serving.is_alive()
            return lines
        finally:
            await ended(listener, link, client, window)

    first, latency, unknown, foreign = asyncio.run(scenario())
    assert names(first) == {"latency": "5"} and first["said"] is None and first["seed"] == 1
    assert latency["said"] == ("--fault latency=soon: 'soon' is not a number of milliseconds up to 3,600,000, or "
                               "MIN-MAX")
    assert unknown["said"].startswith("--fault no-such-fault=1: no such fault; choose one of latency, error-rate")
    assert "is not one serve knows; nothing changed" in foreign["said"]
    assert names(latency) == names(unknown) == names(foreign) == {"latency": "5"}


def test_a_change_wakes_the_twin_waiting_for_its_client_so_list_changed_starts_ticking_at_once(short_dir, index):
    async def scenario() -> bytes:
        window = Window()
        listener, link, client, serving = await served(short_dir, index, Faults(seed=1), window)
        try:
            await window.next()
            client.send(INIT)
            await client.answer()
            assert window.side is not None
            window.side.set("list-changed=0.05")  # the twin waits for the client, with nothing due: woken
            await window.next()
            tick = await client.line()
            client.close()
            await asyncio.to_thread(serving.join, BOUND)
            return tick
        finally:
            await ended(listener, link, client, window)

    assert asyncio.run(scenario()).rstrip(b"\n") == LIST_CHANGED


def test_when_the_window_goes_away_the_command_lines_faults_are_back(short_dir, index):
    faults = Faults(["latency=5", "oversize=1K"], seed=1)

    async def scenario() -> dict[str, str]:
        window = Window()
        listener, link, client, serving = await served(short_dir, index, faults, window)
        try:
            await window.next()
            assert window.side is not None
            window.side.clear("latency")
            window.side.set("error-rate=0.5")
            window.side.set("junk")
            await window.next()
            await window.next()
            shown = names(await window.next())
            window.leave.set()  # the tab closed
            await until(lambda: faults.active() == {"latency": "5", "oversize": "1024"}, BOUND,
                        "the command line's faults back")
            client.close()
            await asyncio.to_thread(serving.join, BOUND)
            return shown
        finally:
            await ended(listener, link, client, window)

    assert asyncio.run(scenario()) == {"error-rate": "0.5", "junk": "", "oversize": "1024"}


def test_without_a_window_there_is_no_link(short_dir):
    assert FaultLink.open(short_dir / "nobody.sock", HELLO, FaultToggles(Faults())) is None
