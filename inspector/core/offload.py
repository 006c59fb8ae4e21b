"""Work too big for the event loop, done in a worker process: decoding, judging and formatting big messages.

Parsing or pretty-printing a 50 MB message holds the interpreter for a few hundred milliseconds to seconds
(the JSON C code never lets go of it, so a thread would freeze the window all the same). A process that owns
the window turns workers on with :func:`use_workers`; then :func:`run` sends the call (its arguments pickled:
a 50 MB bytes object is one copy, written by a pool thread) to one worker process and awaits its answer,
while the loop keeps running. Headless commands (``record``, the tap's recorder) never turn them on: they
have no window to keep responsive, and a worker would hold another copy of the message (their goal is
memory: see benchmarks/message_memory.py).

The worker is a fresh interpreter (the ``spawn`` start method: forking a process that runs Qt threads is
unsafe), started at the first big message and kept for the next ones. If it cannot be started or dies, the
call runs in place: slower for the window, never lost. The spawn method imports the main module again in the
worker, so a program that turns workers on keeps its work under ``if __name__ == "__main__"``
(``inspector/__main__.py`` does; the frozen app calls ``multiprocessing.freeze_support()``).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

T = TypeVar("T")

_enabled = False
_pool: ProcessPoolExecutor | None = None
_lock = threading.Lock()


def use_workers(enabled: bool = True) -> None:
    """Turn the worker process on (the window does, at start) or off (and end it). Turning it on starts the
    worker from a thread (starting a process takes tens of milliseconds: not on the event loop, and not when
    the first big message arrives)."""
    global _enabled
    _enabled = enabled
    if not enabled:
        shutdown()
    elif _pool is None:
        threading.Thread(target=_warm, name="offload-start", daemon=True).start()


def _warm() -> None:
    pool = _get_pool()
    if pool is not None:
        try:
            pool.submit(_nothing)
        except (RuntimeError, OSError):
            pass  # the first call says it again, and runs in place


def _nothing() -> None:
    return None


#: How often a worker checks that the process that started it is alive. A window killed outright (SIGKILL, a
#: crash) cannot end its worker: the worker ends itself within this, rather than idle on as an orphan.
OWNER_POLL_SECONDS = 1.0


def _watch_owner(owner: int) -> None:
    """In the worker: end it once ``owner`` is gone (then the worker's parent is no longer ``owner``)."""
    def watch() -> None:
        while os.getppid() == owner:
            time.sleep(OWNER_POLL_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="offload-owner-watch", daemon=True).start()


def workers_enabled() -> bool:
    return _enabled


def _get_pool() -> ProcessPoolExecutor | None:
    global _pool
    if not _enabled:
        return None
    with _lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_watch_owner, initargs=(os.getpid(),))
        return _pool


async def run(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in the worker process when workers are on (``fn`` and the arguments must pickle: a
    module-level function), else here and now."""
    pool = _get_pool()
    if pool is None:
        return fn(*args)
    try:
        future = pool.submit(fn, *args)
    except (BrokenProcessPool, OSError, RuntimeError):  # cannot start a process, or shut down meanwhile
        shutdown()
        return fn(*args)
    try:
        return await asyncio.wrap_future(future)
    except BrokenProcessPool:  # the worker died (killed, out of memory): the next call starts a new one
        shutdown()
        return fn(*args)


def submit(fn: Callable[..., T], *args: Any) -> Future[T]:
    """``fn(*args)`` in the worker process when workers are on, else here and now (a finished future): for
    callers without an asyncio loop (the detail pane's tree and "Show all"). A dead worker is replaced and
    the call run in place, as :func:`run` does. The future's callbacks run in a pool thread."""
    pool = _get_pool()
    if pool is not None:
        try:
            future = pool.submit(fn, *args)
        except (BrokenProcessPool, OSError, RuntimeError):  # cannot start a process, or shut down meanwhile
            shutdown()
        else:
            outer: Future[T] = Future()

            def done(inner: Future[T]) -> None:
                if inner.cancelled():  # shut down meanwhile
                    outer.cancel()
                    return
                error = inner.exception()
                if isinstance(error, BrokenProcessPool):  # the worker died: the next call starts a new one
                    shutdown()
                    _run_into(outer, fn, args)
                elif error is not None:
                    outer.set_exception(error)
                else:
                    outer.set_result(inner.result())

            future.add_done_callback(done)
            return outer
    result: Future[T] = Future()
    _run_into(result, fn, args)
    return result


def _run_into(future: Future[T], fn: Callable[..., T], args: tuple[Any, ...]) -> None:
    try:
        future.set_result(fn(*args))
    except Exception as exc:
        future.set_exception(exc)


def worker_pids() -> set[int]:
    """The process ids of the worker processes running now, and of multiprocessing's resource tracker (the
    app's own helpers, ended with it)."""
    pool = _pool
    processes = getattr(pool, "_processes", None) if pool is not None else None
    pids = set(processes) if isinstance(processes, dict) else set()
    # multiprocessing's resource tracker, started with the first worker, stays for the process's life
    from multiprocessing import resource_tracker

    tracker = getattr(getattr(resource_tracker, "_resource_tracker", None), "_pid", None)
    if isinstance(tracker, int):
        pids.add(tracker)
    return pids


def shutdown() -> None:
    """End the worker process, if one runs (without waiting for what it was doing)."""
    global _pool
    pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)
