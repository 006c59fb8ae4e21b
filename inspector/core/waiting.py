"""``wait_for``: wait for an awaitable, bounded, without ever losing a cancellation of the waiting task.

Use it instead of ``asyncio.wait_for`` (ruff bans that in ``inspector/``). Python 3.11's ``asyncio.wait_for``
runs the awaitable in a task of its own, and when the waiting task is cancelled in the moment that task ends
(between its end and the waiter's next step), it returns the result and drops the cancellation:
https://github.com/python/cpython/issues/86296. Ctrl-C in a command is such a cancellation (``asyncio.run``
cancels the main task), and a request's send ends in that moment often enough on a loaded machine: ``record``
then went on waiting for a silent server's answer, its whole ``--timeout``, instead of stopping.

Python 3.12 rewrote ``asyncio.wait_for`` over ``asyncio.timeout`` (https://github.com/python/cpython/issues/96764),
which also runs the awaitable in the waiting task instead of a task of its own. That changes what runs first:
a request's POST then goes out before the standalone GET stream that the handshake started, and a recording and
its replay disagreed on the order. So this keeps 3.11's shape, alike on every version: the awaitable runs in a
task of its own, waited for with ``asyncio.wait``, which never swallows the waiter's cancellation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def wait_for(awaitable: Awaitable[T], timeout: float | None) -> T:
    """``await awaitable`` in a task of its own (a future as it is), or TimeoutError after ``timeout`` seconds
    (None: no bound), the awaitable cancelled and finished first. A cancellation of the waiting task always
    propagates, the awaitable cancelled and finished first too."""
    task = asyncio.ensure_future(awaitable)
    try:
        await asyncio.wait((task,), timeout=timeout)
    except asyncio.CancelledError:
        await _cancel_and_finish(task)
        if not task.cancelled():
            task.exception()  # retrieved: what it ended with no longer matters to a waiter that was cancelled
        raise
    if task.done():
        return task.result()
    await _cancel_and_finish(task)
    try:
        return task.result()  # it may have ended anyway, or turned its cancellation into an answer
    except asyncio.CancelledError as exc:
        raise TimeoutError from exc


async def _cancel_and_finish(task: asyncio.Future[T]) -> None:
    """Cancel ``task`` and wait until it has ended (as ``asyncio.wait_for`` does: nothing of it runs on after
    the wait), its outcome left in it."""
    task.cancel()
    if not task.done():
        await asyncio.wait((task,))
