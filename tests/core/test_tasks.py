"""Background tasks are kept until they end, and a failure reaches the report as one sentence."""

from __future__ import annotations

import asyncio
import gc

from inspector.core.tasks import Tasks


def test_a_failing_task_is_reported_as_a_sentence_and_a_cancelled_one_is_not():
    said: list[str] = []

    async def fails() -> None:
        raise OSError("the pipe is closed")

    async def waits() -> None:
        await asyncio.Event().wait()

    async def main() -> None:
        tasks = Tasks(report=said.append)
        tasks.spawn(fails(), "sending the message")
        waiting = tasks.spawn(waits(), "waiting")
        await asyncio.sleep(0)
        waiting.cancel()
        await tasks.wait(5)
        assert len(tasks) == 0

    asyncio.run(main())
    assert said == ["sending the message failed: the pipe is closed"]


def test_a_task_nobody_else_references_survives_a_garbage_collection():
    done = []

    async def slow() -> None:
        await asyncio.sleep(0)
        gc.collect()
        await asyncio.sleep(0)
        done.append(True)

    async def main() -> None:
        tasks = Tasks()
        tasks.spawn(slow(), "slow")  # the only reference is the keeper's
        gc.collect()
        await tasks.wait(5)

    asyncio.run(main())
    assert done == [True]
