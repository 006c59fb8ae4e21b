"""The ``qloop`` fixture, shared by every test folder that drives the window (import it into a conftest or a
support module): a qasync loop over the test QApplication, so the window's asyncio tasks run on the Qt loop
exactly as in the app."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest


@pytest.fixture
def qloop(qapp) -> Iterator[asyncio.AbstractEventLoop]:
    """Run scenarios with ``qloop.run_until_complete(...)``; tasks left over are cancelled at the end."""
    import qasync

    loop = qasync.QEventLoop(qapp, already_running=False)
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        for task in asyncio.all_tasks(loop):
            task.cancel()
        loop.run_until_complete(asyncio.sleep(0))  # let the cancelled tasks finish
        loop.close()
        asyncio.set_event_loop(None)
