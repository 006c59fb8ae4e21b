"""The test loop of tests/qt_loop.py: every asyncio callback it runs sees it as the running loop, as the app's
loop (which runs until the window closes) always does."""

from __future__ import annotations

import asyncio
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from qt_loop import new_qloop


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The loop marked running in this thread, or None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def test_a_task_woken_as_run_until_complete_ends_still_finds_its_loop_running(qapp):
    loop = new_qloop(qapp)
    seen: list[tuple[object, bool]] = []
    followers: list[asyncio.Task[None]] = []

    async def follower() -> None:
        await asyncio.sleep(0)  # its next step comes after the scenario has ended: in qasync's last pass
        seen.append((running_loop(), loop.is_running()))

    async def scenario() -> None:
        followers.append(asyncio.ensure_future(follower()))

    try:
        loop.run_until_complete(scenario())
        # it ran after run_forever had returned (is_running() is False: the case is exercised), with its loop
        assert seen == [(loop, False)]
        assert running_loop() is None  # unmarked once run_until_complete has returned
    finally:
        loop.close()


def test_a_closed_loop_leaves_no_qt_timer_behind_for_a_callback_still_scheduled(qapp):
    # qasync's close leaves its timers registered until they fire; the loop, garbage-collected in another thread
    # (a QObject deleted there cannot stop its timers), then left them firing on freed memory: segfaults in
    # QTimerInfoList::activateTimers after tests with no Qt at all
    from PySide6.QtCore import QAbstractEventDispatcher

    loop = new_qloop(qapp)
    loop.call_later(60, lambda: None)  # a request's timeout, say, still pending when the test ends
    timer = loop._timer
    dispatcher = QAbstractEventDispatcher.instance()
    assert len(dispatcher.registeredTimers(timer)) == 1, "the case is exercised"
    loop.close()
    assert dispatcher.registeredTimers(timer) == []
