"""Coroutines the window starts and does not wait for."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

# The event loop holds only a weak reference to a task: one nobody else holds can be collected mid-run.
_running: set[asyncio.Task[Any]] = set()


def spawn(coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
    """Run ``coro`` as a task on the running loop, held until it ends; returns the task."""
    task = asyncio.ensure_future(coro)
    _running.add(task)
    task.add_done_callback(_running.discard)
    return task
