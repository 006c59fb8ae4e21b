"""The ``qloop`` fixture, shared by every test folder that drives the window (import it into a conftest or a
support module): a qasync loop over the test QApplication, so the window's asyncio tasks run on the Qt loop
exactly as in the app."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest


def new_qloop(qapp: Any) -> asyncio.AbstractEventLoop:
    """A qasync loop over ``qapp`` (not set as the current loop) whose callbacks always see it as the running
    loop, as they do on the app's loop (which runs until the window closes).

    qasync's ``run_until_complete`` lets Qt process its pending events once more after ``run_forever`` has
    returned and unmarked the loop as running. An asyncio callback delivered there (a task woken just as the
    awaited condition came true) then runs with no running loop, and a task step that calls
    ``asyncio.get_running_loop()`` dies with "no running event loop": seen as the Explorer's icon task that drew
    the first icon and died before measuring the next (tests/faults/test_hostile_window.py, about one run in
    two). This loop keeps itself marked running through that last pass.

    Two private names are used, for want of public ones (the test extra pins qasync to the versions tested):
    ``asyncio._set_running_loop``, which asyncio exports for event-loop implementations (qasync itself marks its
    loop with it; no public call does), and qasync's ``_timer`` with its name-mangled callbacks (:meth:`close`).
    tests/test_qt_loop.py fails if either stops doing what this expects."""
    import qasync

    class Loop(qasync.QEventLoop):
        _completing = False  #: inside run_until_complete: its last pass of Qt's events is still to come

        def run_forever(self) -> Any:
            try:
                return super().run_forever()
            finally:
                if self._completing:
                    asyncio._set_running_loop(self)  # qasync unmarked it; its last pass is next

        def run_until_complete(self, future: Any) -> Any:
            self._completing = True
            try:
                return super().run_until_complete(future)
            finally:
                self._completing = False
                asyncio._set_running_loop(None)

        def close(self) -> None:
            """Close, and end the Qt timers of the callbacks still scheduled here and now, in the GUI thread.

            qasync's close only marks its timer object stopped and lets each timer die when it next fires. The
            loop is then garbage, and Python may collect it in any thread (the execnet or the offload pool's);
            a QObject deleted outside its thread cannot stop its timers, so they fired later on freed memory:
            the test workers' segmentation faults in QTimerInfoList::activateTimers, during pytest-qt's
            processEvents after a test with no Qt at all (a core dump showed it)."""
            super().close()
            timer = self._timer
            for timer_id in list(timer._SimpleTimer__callbacks):  # qasync's own bookkeeping, name-mangled
                timer.killTimer(timer_id)
            timer._SimpleTimer__callbacks.clear()

    return Loop(qapp, already_running=False)


@pytest.fixture
def qloop(qapp) -> Iterator[asyncio.AbstractEventLoop]:
    """Run scenarios with ``qloop.run_until_complete(...)``; tasks left over are cancelled at the end."""
    loop = new_qloop(qapp)
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        for task in asyncio.all_tasks(loop):
            task.cancel()
        loop.run_until_complete(asyncio.sleep(0))  # let the cancelled tasks finish
        loop.close()
        asyncio.set_event_loop(None)


@contextmanager
def open_test_window(qloop: asyncio.AbstractEventLoop, folder: Path) -> Iterator[Any]:
    """A main window with its own settings, profiles and captures in ``folder`` (shown); afterwards every
    session tab is closed (its server shut down) and the window deleted."""
    from PySide6.QtCore import QSettings

    from inspector.core.clients.profiles import ProfileStore
    from inspector.ui.app import build_window
    from inspector.ui.session.tab import SessionTab

    (folder / "captures").mkdir(exist_ok=True)
    win = build_window(settings=QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat),
                     store=ProfileStore(folder / "profiles.json"), captures=folder / "captures")
    win.show()
    try:
        yield win
    finally:
        for index in range(win.tabs.count()):
            tab = win.tabs.widget(index)
            if isinstance(tab, SessionTab):
                qloop.run_until_complete(tab.close())
        win.settings.clear()
        win.deleteLater()


def sent_calls(tab: Any) -> list[Any]:
    """The tools/call requests a session tab sent, in order."""
    return [e for e in tab.events if e.kind == "message" and e.dir == "c2s" and e.method == "tools/call"]


async def call_tool(tab: Any, name: str, arguments: dict[str, Any] | None = None) -> Any:
    """Send tools/call ``name`` from the tab's composer, as a user does; returns the request's event once its
    row is in the timeline."""
    import json

    from helpers import until

    before = len(sent_calls(tab))
    tab.composer.set_text(json.dumps({"jsonrpc": "2.0", "method": "tools/call",
                                      "params": {"name": name, "arguments": arguments or {}}}))
    assert tab.composer.send()
    await until(lambda: len(sent_calls(tab)) > before, 10, f"the {name} call in the timeline")
    tab.feed.flush_now()  # its row is in the model now
    return sent_calls(tab)[-1]


def latency_cell(tab: Any, event: Any) -> str:
    """What the timeline's Latency column shows on the row of ``event``."""
    from PySide6.QtCore import Qt

    from inspector.ui.timeline.model import COL_LATENCY

    return tab.model.cell(tab.model.row_of_seq(event.seq), COL_LATENCY, Qt.ItemDataRole.DisplayRole)


async def accept_elicitation(tab: Any, request: Any, content: dict[str, Any]) -> Any:
    """Accept the elicitation shown in the tab's Server requests panel with ``content``, as a user does, and
    wait for the answer to ``request`` (the call that caused it); returns that answer's event."""
    import json

    from helpers import until

    tab.requests.answer_editor.setPlainText(json.dumps({"content": content}))
    assert tab.requests.elicitation_action("accept")
    await until(lambda: any(e.data.get("reply_to") == request.seq for e in tab.events), 15, "the tool's result")
    tab.feed.flush_now()
    return next(e for e in tab.events if e.data.get("reply_to") == request.seq)
