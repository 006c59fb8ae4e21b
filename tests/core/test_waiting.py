"""core/waiting.wait_for: Python 3.11's asyncio.wait_for, minus the cancellation it could drop (CPython #86296)."""

from __future__ import annotations

import asyncio
import sys

import pytest

from inspector.core.waiting import wait_for


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 30))  # the test's own bound; nothing cancels it


def test_a_cancellation_that_comes_as_the_awaited_task_ends_still_cancels_the_waiter():
    # the race of CPython #86296, made certain: the inner task cancels its waiter in its last step
    async def scenario(wait):
        waiter = None

        async def inner():
            waiter.cancel()
            return "answer"

        async def waiting():
            return await wait(inner(), 10)

        waiter = asyncio.ensure_future(waiting())
        await asyncio.wait([waiter])
        return waiter.cancelled()

    assert run(scenario(wait_for)) is True
    if sys.version_info < (3, 12):  # the scenario does meet the race: Python 3.11's own wait_for drops it
        assert run(scenario(asyncio.wait_for)) is False


def test_an_awaitable_that_takes_too_long_is_cancelled_and_finished_before_the_timeout_error():
    ended: list[str] = []

    async def slow():
        try:
            await asyncio.Event().wait()
        finally:
            ended.append("finished")

    async def scenario():
        with pytest.raises(TimeoutError):
            await wait_for(slow(), 0.01)
        return list(ended)

    assert run(scenario()) == ["finished"]


def test_the_result_or_the_exception_of_the_awaitable_comes_back_as_it_is():
    async def fails():
        raise ValueError("no")

    async def scenario():
        with pytest.raises(ValueError, match="no"):
            await wait_for(fails(), 5)
        return await wait_for(asyncio.sleep(0, "yes"), None)

    assert run(scenario()) == "yes"
