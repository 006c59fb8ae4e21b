"""Changes to files and folders the user named with ``--watch``, debounced, for a server to reload on save.

:class:`Watcher` runs ``watchfiles`` (the field's watcher: inotify on Linux, FSEvents on macOS, ReadDirectoryChangesW
on Windows, through the Rust ``notify`` crate) in a daemon thread and hands each debounced batch of changed paths
to a callback on the caller's event loop (``loop.call_soon_threadsafe``), so it works the same under plain asyncio
(the tap) and under qasync (the window), which watchfiles' own ``awatch`` (anyio) does not promise.

Debounce: an editor's save is several events (a temporary file, a rename, a chmod); watchfiles yields a batch once
:data:`QUIET_MS` pass without a new event, and never holds one longer than :data:`MAX_BATCH_MS`. What is ignored:
watchfiles' defaults (``__pycache__``, ``.git``, ``*.pyc``, editor swap files, ...) and the user's
``--watch-ignore`` patterns (``fnmatch`` globs, matched against each part of a path and against the whole path).

This module imports nothing of the inspector's: it is a leaf the tap, the session and the window sit on.
"""

from __future__ import annotations

import asyncio
import fnmatch
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import watchfiles

#: How long a batch waits for the next event before it is handed on: an editor's save is a burst of events a few
#: milliseconds apart, and a reload wants to start soon after the burst (the issue's bar: save to list_changed
#: under 1.5 s).
QUIET_MS = 80
#: The longest a batch grows while events keep coming (a checkout of many files), before it is handed on anyway.
MAX_BATCH_MS = 1000
#: How often the watcher thread looks at its stop flag when nothing changes: the longest ``stop()`` waits for it.
STOP_POLL_MS = 200


class WatchError(ValueError):
    """A path that cannot be watched; ``str()`` is one sentence for a person."""


def check_paths(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The paths as absolute :class:`Path` objects; raises :class:`WatchError` naming the first that does not exist."""
    checked = []
    for path in paths:
        resolved = Path(path).expanduser().resolve()
        if not resolved.exists():
            raise WatchError(f"--watch {path}: there is no such file or folder.")
        checked.append(resolved)
    return checked


class IgnoreFilter:
    """watchfiles' default filter plus the user's glob patterns, each matched against the whole path and against
    each of its parts (so ``*.log`` ignores log files and ``build`` everything in a folder named build).
    watchfiles is imported here and in :class:`Watcher`, not with the module: the window and the tap check
    ``--watch`` paths (:func:`check_paths`) at every start, watching or not."""

    def __init__(self, patterns: Sequence[str] = ()) -> None:
        import watchfiles

        self.default = watchfiles.DefaultFilter()
        self.patterns = tuple(patterns)

    def __call__(self, change: watchfiles.Change, path: str) -> bool:
        if not self.default(change, path):
            return False
        parts = Path(path).parts
        return not any(fnmatch.fnmatch(path, pattern) or any(fnmatch.fnmatch(part, pattern) for part in parts)
                       for pattern in self.patterns)


class Watcher:
    """Watches ``paths`` and calls ``on_change(sorted changed paths)`` on ``loop`` once per debounced batch.

    ``start()`` begins watching (the first callback comes only for changes made after it returns); ``stop()``
    ends it and waits (at most :data:`STOP_POLL_MS` and a little) for the thread. Neither raises: a watch that
    fails later (a folder deleted under it) ends the thread, and ``on_error(sentence)`` says why.
    """

    def __init__(self, paths: Sequence[Path], on_change: Callable[[list[str]], None],
                 loop: asyncio.AbstractEventLoop, ignore: Sequence[str] = (),
                 on_error: Callable[[str], None] | None = None) -> None:
        self.paths = list(paths)
        self.on_change = on_change
        self.on_error = on_error
        self.loop = loop
        self.filter = IgnoreFilter(ignore)
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="mcp-inspector-watch", daemon=True)
        self._thread.start()
        self._ready.wait(timeout=STOP_POLL_MS / 1000 + 5)  # watchfiles has set its watches up

    def stop(self) -> None:
        self._stop.set()
        self._ready.set()  # a start() still waiting (in another thread) returns now
        if self._thread is not None:
            self._thread.join(timeout=STOP_POLL_MS / 1000 + 2)
            self._thread = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        import watchfiles

        try:
            batches = watchfiles.watch(*self.paths, watch_filter=self.filter, debounce=MAX_BATCH_MS, step=QUIET_MS,
                                       stop_event=self._stop, rust_timeout=STOP_POLL_MS, yield_on_timeout=True,
                                       raise_interrupt=False, ignore_permission_denied=True)
            for batch in batches:  # the first batch (empty after rust_timeout, if nothing changed) comes once the
                self._ready.set()  # watches are set up: start() returns then, so a change after it is seen
                if batch:
                    self._hand_on(sorted({path for _change, path in batch}))
        except Exception as exc:  # a watch that breaks (a folder removed under it) ends with a sentence
            if self.on_error is not None and not self._stop.is_set():
                on_error, sentence = self.on_error, f"watching stopped: {exc}"
                self._call(lambda: on_error(sentence))
        finally:  # a watch stopped before its first batch yields none: start() must not wait its bound out
            self._ready.set()

    def _hand_on(self, paths: list[str]) -> None:
        self._call(lambda: self.on_change(paths))

    def _call(self, call: Callable[[], None]) -> None:
        try:
            self.loop.call_soon_threadsafe(call)
        except RuntimeError:  # the loop closed while a batch was on its way: nobody is left to tell
            pass
