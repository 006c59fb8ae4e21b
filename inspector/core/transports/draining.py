"""Reading a finished server's pipes to their end: bounded by quiet, not by the clock alone.

Once a server has exited, what it wrote last is still in its pipes, and end of file comes once that is read,
unless a process it left behind holds a pipe open. The wait for end of file must be bounded (such a leftover
may never close it), but a plain timeout drops data on a loaded machine: an event loop that gets no CPU for
longer than the timeout wakes with the timeout expired and the pipes still full, and stopping then loses the
server's last lines (a stdio session whose loop missed the grace kept 7,645 of a server's 8,192 last lines:
tests/core/test_draining.py). So the wait goes on while a pipe has something to take (bytes, or the end of
file itself), and ends once ``grace`` seconds pass in which none has, or after ``limit`` in all (a leftover
that never stops writing).
"""

from __future__ import annotations

import asyncio
import select
from collections.abc import Callable, Iterable
from typing import Any

#: Once the server has exited, how long the pipes are read in all while they keep having data. What the server
#: itself left in them takes milliseconds once the loop runs; this is for a starved loop, and it cuts off a
#: process the server left behind (outside its group) that writes without end.
PIPE_DRAIN_LIMIT = 5.0


def readable(fds: Iterable[int]) -> bool:
    """Whether any of ``fds`` has something to read right now: bytes, or an end of file not taken yet. A closed
    or invalid descriptor counts as nothing to read."""
    poller = select.poll()
    for fd in fds:
        if fd >= 0:
            poller.register(fd, select.POLLIN)
    try:
        return any(event & (select.POLLIN | select.POLLHUP) and not event & select.POLLNVAL
                   for _, event in poller.poll(0))
    except OSError:
        return False


async def wait_while_busy(waits: Iterable[asyncio.Future[Any]], busy: Callable[[], bool], grace: float,
                          limit: float = PIPE_DRAIN_LIMIT) -> set[asyncio.Future[Any]]:
    """Wait for ``waits`` (the pipes' readers reaching end of file). Ends when they are done, when ``grace``
    seconds pass and ``busy()`` says false (say, none of the pipes still read has anything to read: see
    :func:`readable`), or after ``limit``. Returns the ones not done."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    pending = {wait for wait in waits if not wait.done()}
    while pending:
        _, pending = await asyncio.wait(pending, timeout=max(0.0, min(grace, deadline - loop.time())))
        if not pending or loop.time() >= deadline or not busy():
            break
    return pending


def read_fd(transport: Any) -> int:
    """The descriptor an asyncio read pipe transport reads, or -1 once it is closed (or for None)."""
    handle = transport.get_extra_info("pipe") if transport is not None else None
    try:
        return handle.fileno() if handle is not None and not transport.is_closing() else -1
    except (ValueError, OSError):  # closed
        return -1
