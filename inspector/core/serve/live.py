"""A served session streamed to a listening window, live, as ``mcp-inspector tap`` streams a tapped one.

The window's tap listener (:func:`inspector.core.tap.channel.listen`) takes it as any tap: the hello is a tap's,
with ``"role": "serve"`` and ``"serving"`` (the served capture's path), so the window names the tab
``serve: CAPTURE``; then each event of the served session exactly as ``--out`` records it (the client's
requests, the twin's answers with ``data.served_from``, a request without a recorded answer with its
``serve-unmatched`` finding), then the end line.

The feed is the tap's :class:`~inspector.core.tap.channel.TapFeed`, given by the command (``serve`` and ``tap``
are sibling features: neither imports the other; :class:`Feed` is what is used of it). The stdio loop blocks on
its reads, so the feed runs on an asyncio loop in a thread of its own: the serving thread hands it lines and
never waits for the window (a slow window loses events, counted, exactly as with tap; a window that is not there
costs a connection attempt a second).
Without ``--out`` the session goes through the capture pipeline only while a window is connected: serving to
no one costs nothing more than serving without ``--live``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from inspector.core.capture.format import event_to_line
from inspector.core.serve.stdio import ServedCapture
from inspector.core.wire.events import Event

#: The hello's role: the window names such a tab ``serve: NAME`` and says it serves a capture.
ROLE = "serve"
#: How long serving waits at its start for the first connection attempt (a window that listens sees the
#: session from its first event).
CONNECT_WAIT = 2.0
#: How long closing waits for a slow window to take the rest and the end line (the feed's own wait, and a margin).
CLOSE_WAIT = 2.0


class Feed(Protocol):
    """What is used of a :class:`~inspector.core.tap.channel.TapFeed`."""

    next_seq: int

    @property
    def connected(self) -> bool: ...
    async def start(self) -> None: ...
    def send(self, lines: list[str]) -> None: ...
    async def close(self, exit_code: int | None) -> None: ...


#: Makes the feed from the hello (what the window is told first).
FeedFactory = Callable[[dict[str, Any]], Feed]


def hello(served: Path, target: dict[str, Any], out: Path | None) -> dict[str, Any]:
    """The served session's hello: a tap's, with its role and the served capture."""
    return {"name": served.name, "pid": os.getpid(), "capture": str(out.resolve()) if out else None,
            "target": target, "role": ROLE, "serving": str(served.resolve())}


class LiveServe:
    """The live feed of one served session: :meth:`start`, then :meth:`events` as the pipeline's listener,
    then :meth:`close`."""

    def __init__(self, feed: Feed) -> None:
        self.feed = feed
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="serve-live", daemon=True)

    def start(self) -> None:
        """Connect now if a window listens (waiting at most :data:`CONNECT_WAIT`), and keep trying after."""
        self._thread.start()
        started = asyncio.run_coroutine_threadsafe(self.feed.start(), self._loop)
        with contextlib.suppress(TimeoutError):
            started.result(CONNECT_WAIT)

    def events(self, events: list[Event]) -> None:
        """A batch the pipeline numbered: to the window when one is connected (lines made only then)."""
        if not events:
            return
        self.feed.next_seq = events[-1].seq + 1
        if self.feed.connected:
            lines = [event_to_line(event) for event in events]
            self._loop.call_soon_threadsafe(self.feed.send, lines)

    def close(self, exit_code: int | None) -> None:
        """Send what is queued and the end line (waiting at most about a second for a slow window), then stop."""
        if not self._thread.is_alive():
            return
        closing = asyncio.run_coroutine_threadsafe(self.feed.close(exit_code), self._loop)
        with contextlib.suppress(TimeoutError):
            closing.result(CLOSE_WAIT)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(CLOSE_WAIT)
        if not self._thread.is_alive():
            self._loop.close()


class LiveCapture(ServedCapture):
    """The served session for ``--live``: as :class:`ServedCapture` (the file only with ``--out``), and its events to
    a listening window; closing it ends the window's tab too."""

    def __init__(self, path: Path | None, source: Path, source_header: dict[str, Any], mode: str,
                 feed: FeedFactory, url: tuple[str, str] | None = None) -> None:
        super().__init__(path, source, source_header, mode, url)
        self.live = LiveServe(feed(hello(source, self.target, path)))
        self.pipeline.listeners.append(self.live.events)
        self.live.start()

    def _push(self, events: list[Event], at: float | None = None) -> None:
        if self.writer is not None or self.live.feed.connected:
            super()._push(events, at)

    def close(self) -> None:
        super().close()
        self.live.close(0)
