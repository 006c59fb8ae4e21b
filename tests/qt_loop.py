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


@contextmanager
def open_test_window(qloop: asyncio.AbstractEventLoop, folder: Path) -> Iterator[Any]:
    """A main window with its own settings, profiles and captures in ``folder`` (shown); afterwards every
    session tab is closed (its server shut down) and the window deleted."""
    from PySide6.QtCore import QSettings

    from inspector.core.clients.profiles import ProfileStore
    from inspector.ui.main_window import MainWindow
    from inspector.ui.session.tab import SessionTab

    (folder / "captures").mkdir(exist_ok=True)
    win = MainWindow(settings=QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat),
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
