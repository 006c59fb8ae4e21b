"""Fault toggles in a serve tab: the window turns a running twin's faults on and off.

``mcp-inspector serve --live`` (on stdio, or over HTTP with ``--listen``), when a window listens, opens a second
connection to the window's tap socket (:mod:`inspector.core.tap.channel`: the same private per-user Unix socket
and the same checks) beside its feed, as the tap's breakpoint link does (:mod:`inspector.core.tap.breakpoint_link`).
Without a window there is no link; a window that starts listening later shows the session but cannot toggle its
faults.

Protocol, version 1: UTF-8 JSON, one object per line, both ways.

- serve → window, first: ``{"type": "faults", "protocol": 1, "name": NAME, "pid": PID}`` (the same name and
  pid as the served session's own hello, so the window finds the tab), then an ``in_force`` line.
- window → serve: ``{"type": "set", "spec": "latency=300"}`` (a spec as ``--fault`` takes it; it replaces the
  same fault's value) or ``{"type": "clear", "name": "latency"}``.
- serve → window: ``{"type": "in_force", "faults": [{"name": N, "value": V, "spec": S, "says": PHRASE}, ...],
  "seed": SEED, "said": SENTENCE or null}`` once at the start, after each line of the window's (``said``: why
  it could not be used, one sentence, the faults unchanged), and when a fault clears itself (``oversize``,
  once it padded an answer). The twin's next request meets what it says.

The changes are made by the thread that serves, never by the link's: :class:`FaultToggles` queues them, wakes
the serving loop (:func:`~inspector.core.serve.paced.serve_paced`'s hook; over HTTP a callback on the asyncio
loop) and the loop applies them between two reads (:meth:`FaultToggles.apply`), so no conductor sees the faults
change in the middle of an answer. Over HTTP the faults are the one :class:`Faults` all sessions ask.
When the link ends (the tab or the window closed), the faults go back to those of the command line: nobody is
left to see or turn off what the window turned on (``oversize`` aside, a one-shot left as it is). Lines serve
cannot read are skipped; nothing the window sends can do more than ``--fault`` can.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from inspector.core.serve.faults import NAMES, FaultError, Faults
from inspector.core.tap.channel import json_objects, peer_uid, private_dir_problem, send_json_line
from inspector.core.waiting import wait_for

PROTOCOL_VERSION = 1
HELLO_TYPE = "faults"
#: How long serve tries to reach the window's socket (a local socket answers at once or not at all).
CONNECT_WAIT = 1.0
#: How long closing waits for the link's thread.
CLOSE_WAIT = 1.0
#: The longest line either side reads (a spec is a few bytes; a longer line ends the link).
MAX_LINE_BYTES = 64 * 1024


class FaultToggles:
    """The window's changes to :attr:`faults`, taken on any thread (:meth:`request`) and made on the thread that
    serves (:meth:`apply`). ``answer`` gets each ``in_force`` line to send (the link's); ``wake`` is called
    after each request (the serving loop's way to stop waiting); ``noted`` gets a sentence per change made
    (the served session's record)."""

    def __init__(self, faults: Faults) -> None:
        self.faults = faults
        self.initial = [faults.spec(name) for name in faults.active()]  #: the command line's, as specs
        self.answer: Callable[[dict[str, Any]], None] = lambda obj: None
        self.wake: Callable[[], None] = lambda: None
        self.noted: Callable[[str], None] = lambda text: None
        self._pending: queue.SimpleQueue[dict[str, Any]] = queue.SimpleQueue()
        self._padding = faults.oversize is not None  #: an oversize in force when last said

    def request(self, change: dict[str, Any]) -> None:
        """A line of the window's (any thread): made at the serving thread's next :meth:`apply`."""
        self._pending.put(change)
        self.wake()

    def reset(self) -> None:
        """The window went away (any thread): back to the command line's faults at the next :meth:`apply`."""
        self.request({"type": "reset"})

    def apply(self) -> None:
        """Make the changes asked for so far, answering each (the serving thread, between two reads)."""
        if self._pending.empty():
            if self._padding and self.faults.oversize is None:  # it padded an answer and cleared itself
                self._padding = False
                self.answer(self.in_force())
            return
        while True:
            try:
                change = self._pending.get_nowait()
            except queue.Empty:
                return
            said = self._make(change)
            self._padding = self.faults.oversize is not None
            if change.get("type") != "reset":
                self.answer(self.in_force(said))

    def _make(self, change: dict[str, Any]) -> str | None:
        """Make one change; the sentence saying why it could not be, or None."""
        faults = self.faults
        kind = change.get("type")
        before = faults.active()
        try:
            if kind == "set" and isinstance(change.get("spec"), str):
                faults.set(change["spec"].strip())
            elif kind == "clear" and isinstance(change.get("name"), str):
                faults.clear(change["name"])
            elif kind == "reset":
                for name in NAMES:
                    if name != "oversize":
                        faults.clear(name)
                for spec in self.initial:
                    if not spec.startswith("oversize"):
                        faults.set(spec, merge=True)
            else:
                return f"the window's change {json.dumps(change)[:200]} is not one serve knows; nothing changed"
        except FaultError as exc:
            return str(exc)
        if faults.active() != before:
            who = "the window went away" if kind == "reset" else "the window changed the faults"
            shown = "; ".join(faults.describe()) or "none"
            self.noted(f"{who}: faults in force from here on: {shown}")
        return None

    def in_force(self, said: str | None = None) -> dict[str, Any]:
        """The ``in_force`` line: the faults in force now (and ``said``)."""
        faults = self.faults
        active = faults.active()
        return {"type": "in_force",
                "faults": [{"name": name, "value": value, "spec": faults.spec(name), "says": says}
                           for (name, value), says in zip(active.items(), faults.describe(), strict=True)],
                "seed": faults.seed, "said": said}


class FaultLink:
    """serve's side of the link: a thread of its own runs it (an asyncio loop), so the serving loop never waits
    for the window. :meth:`open` connects; :meth:`close` ends it."""

    def __init__(self, toggles: FaultToggles) -> None:
        self.toggles = toggles
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="serve-faults", daemon=True)
        self._writer: asyncio.StreamWriter | None = None
        self._task: asyncio.Task[None] | None = None
        self.closed = False

    @classmethod
    def open(cls, path: Path, hello: dict[str, Any], toggles: FaultToggles,
             warn: Callable[[str], None] | None = None) -> FaultLink | None:
        """The link to the window listening on ``path``, the faults in force already sent; None when no window
        of ours listens there (a listener of another user is said to ``warn``)."""
        link = cls(toggles)
        link._thread.start()
        connected = asyncio.run_coroutine_threadsafe(link._connect(path, hello, warn), link._loop)
        try:
            ok = connected.result(CONNECT_WAIT + 1)
        except (TimeoutError, OSError):
            ok = False
        if not ok:
            link.close()
            return None
        toggles.answer = link.send
        link.send(toggles.in_force())
        return link

    async def _connect(self, path: Path, hello: dict[str, Any], warn: Callable[[str], None] | None) -> bool:
        if private_dir_problem(path) is not None:
            return False  # the served session's feed says why (it checks the same before it connects)
        try:
            reader, writer = await wait_for(asyncio.open_unix_connection(os.fspath(path), limit=MAX_LINE_BYTES),
                                            CONNECT_WAIT)
        except (OSError, TimeoutError):
            return False
        uid = peer_uid(writer.get_extra_info("socket"))
        if uid not in (None, os.getuid()):
            writer.close()
            if warn is not None:
                warn(f"the listener on {path} runs as another user (uid {uid}); not linking the faults to it")
            return False
        self._writer = writer
        self._write({"type": HELLO_TYPE, "protocol": PROTOCOL_VERSION, "name": hello.get("name", ""),
                     "pid": hello.get("pid")})
        self._task = asyncio.ensure_future(self._read(reader))
        return True

    def send(self, obj: dict[str, Any]) -> None:
        """Send a line to the window (any thread; it is written by the link's own)."""
        if not self.closed and self._loop.is_running():
            with contextlib.suppress(RuntimeError):  # the loop stopped meanwhile
                self._loop.call_soon_threadsafe(self._write, obj)

    def _write(self, obj: dict[str, Any]) -> None:
        if self._writer is None or self._writer.is_closing():
            return
        send_json_line(self._writer, obj)

    async def _read(self, reader: asyncio.StreamReader) -> None:
        async for obj in json_objects(reader):
            if obj.get("type") in ("set", "clear"):
                self.toggles.request(obj)
        if not self.closed:  # the window went away, not serve: its changes end with it
            self.toggles.reset()
        if self._writer is not None:
            self._writer.close()

    def close(self) -> None:
        """End the link (serve ends): the window's tab sees it go."""
        self.closed = True
        if not self._thread.is_alive():
            return

        async def ending() -> None:
            if self._task is not None:
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task
            if self._writer is not None:
                self._writer.close()
                with contextlib.suppress(ConnectionError, OSError):
                    await self._writer.wait_closed()

        with contextlib.suppress(TimeoutError, RuntimeError):
            asyncio.run_coroutine_threadsafe(ending(), self._loop).result(CLOSE_WAIT)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(CLOSE_WAIT)
        if not self._thread.is_alive():
            self._loop.close()


class FaultsWindowSide:
    """The window's side of one link (what a serve tab drives): send changes, read what is in force. Made by the
    window's tap listener for a ``faults`` hello (:func:`inspector.core.tap.channel.listen`'s ``others``)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, hello: dict[str, Any]) -> None:
        self._reader = reader
        self._writer = writer
        self.hello = hello

    @property
    def pid(self) -> Any:
        return self.hello.get("pid")

    def set(self, spec: str) -> None:
        """Put ``spec`` (``latency=300``, ``junk``) in force."""
        self._write({"type": "set", "spec": spec})

    def clear(self, name: str) -> None:
        self._write({"type": "clear", "name": name})

    def close(self) -> None:
        """End the window's side: serve goes back to its command line's faults."""
        with contextlib.suppress(ConnectionError, RuntimeError, OSError):
            self._writer.close()

    def _write(self, obj: dict[str, Any]) -> None:
        send_json_line(self._writer, obj)

    async def in_force(self) -> AsyncIterator[dict[str, Any]]:
        """Each ``in_force`` line as a dict, until serve goes away."""
        async for obj in json_objects(self._reader):
            if obj.get("type") == "in_force" and isinstance(obj.get("faults"), list):
                yield obj
