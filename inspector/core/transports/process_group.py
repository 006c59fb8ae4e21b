"""A server's process group: how the stdio transport and the tap end a server and what it leaves behind.

Servers run in a process group of their own (``start_new_session``), so a signal reaches the grandchildren a
wrapper (``npx``, ``uv run``, a shell script) starts. Ending one is: wait for it to exit by itself, then
SIGTERM to the group, wait, then SIGKILL; once the leader is gone, members still alive (helpers it left
behind) get SIGTERM, then SIGKILL. Every signal but SIGKILL is followed by SIGCONT (as systemd does): a
stopped process (SIGSTOP, Ctrl-Z, a debugger's stop) cannot act on SIGTERM until it runs again, and would
otherwise only end with SIGKILL, without its chance to clean up.

Each step is announced as a lifecycle event through the owner's callback: ``signal`` (``signal``, ``pid``,
``forwarded`` for a signal the tap passes on) and ``group_leftovers`` (``pids``, ``signal``).
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path

from inspector.core.wire.events import Lifecycle

#: After SIGTERM to the process group, how long before SIGKILL.
SIGTERM_GRACE = 2.0
#: After SIGKILL, how long we wait for the group to disappear before giving up (it cannot resist SIGKILL;
#: this only bounds the wait for the kernel).
SIGKILL_GRACE = 2.0
#: How often we look whether the process group is gone while waiting for it.
GROUP_POLL_INTERVAL = 0.02

#: ``announce(what, **data)``: the owner's way to record a lifecycle event.
Announce = Callable[..., None]
#: ``exited(timeout)``: wait up to ``timeout`` seconds for the group's leader to exit; True if it did.
Exited = Callable[[float], Awaitable[bool]]


class ProcessGroup:
    """The process group ``pgid`` (its leader's pid), ended in the order the module describes."""

    def __init__(self, pgid: int, announce: Announce) -> None:
        self.pgid = pgid
        self.announce = announce
        #: the last signal we chose to send (not one passed on for someone else), for "exited after SIGTERM"
        self.signalled: str | None = None
        #: members still running after the leader exited (helpers it left behind), ended by us
        self.leftovers: list[int] = []

    def send(self, sig: signal.Signals, *, forwarded: bool = False) -> None:
        """Signal the group (then SIGCONT, unless SIGKILL), announced as ``signal``; ``forwarded``: passed on
        from someone else (the tap's client), so not counted as ours."""
        name = signal_name(sig)
        if not forwarded:
            self.signalled = name
        self.announce(Lifecycle.SIGNAL, signal=name, pid=self.pgid, **({"forwarded": True} if forwarded else {}))
        try:
            kill_group(self.pgid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    async def stop(self, exited: Exited, grace: float) -> None:
        """Give the leader ``grace`` seconds to exit by itself, then SIGTERM and :data:`SIGTERM_GRACE`, then
        SIGKILL and :data:`SIGKILL_GRACE`; returns as soon as it exited."""
        if await exited(grace):
            return
        self.send(signal.SIGTERM)
        await self.kill_after(exited, SIGTERM_GRACE)

    async def kill_after(self, exited: Exited, grace: float) -> None:
        """SIGKILL unless the leader exits within ``grace``; then wait (bounded) for it to go."""
        if await exited(grace):
            return
        self.send(signal.SIGKILL)
        await exited(SIGKILL_GRACE)

    async def reap(self) -> None:
        """After the leader exited: members of the group still alive get SIGTERM, then SIGKILL, each
        announced as ``group_leftovers``; returns when none is left or after the graces."""
        loop = asyncio.get_running_loop()
        for sig, grace in ((signal.SIGTERM, SIGTERM_GRACE), (signal.SIGKILL, SIGKILL_GRACE)):
            members = group_members(self.pgid)
            if not members:
                return
            self.leftovers = self.leftovers or members
            self.announce(Lifecycle.GROUP_LEFTOVERS, pids=members, signal=signal_name(sig))
            try:
                kill_group(self.pgid, sig)
            except (ProcessLookupError, PermissionError):
                return
            deadline = loop.time() + grace
            while group_members(self.pgid) and loop.time() < deadline:
                await asyncio.sleep(GROUP_POLL_INTERVAL)


def kill_group(pgid: int, sig: signal.Signals) -> None:
    """Signal a process group; any signal but SIGKILL is followed by SIGCONT, so a stopped member can act on
    it. Raises ProcessLookupError or PermissionError as ``os.killpg`` does."""
    os.killpg(pgid, sig)
    if sig != signal.SIGKILL:
        os.killpg(pgid, signal.SIGCONT)


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes of a process group. Reads /proc on Linux, else asks the kernel."""
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
            return [pgid]
        except (ProcessLookupError, PermissionError):
            return []
    members = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # fields after the parenthesised command: state ppid pgrp ...
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) >= 3 and fields[0] not in ("Z", "X") and int(fields[2]) == pgid:
            members.append(int(entry.name))
    return members


def process_state(pid: int) -> str | None:
    """The one-letter state of a process (``R``, ``S``, ``T`` stopped, ``t`` stopped by a debugger, ``Z``...);
    None where /proc cannot tell."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def signal_name(signum: int) -> str:
    """``SIGTERM`` for 15: how lifecycle events and sentences name a signal."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
