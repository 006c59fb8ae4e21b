"""UI tests run offscreen, with a qasync event loop so the window's asyncio tasks (subprocess pipes, HTTP)
run on the Qt loop exactly as in the app."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import QCoreApplication, QSettings, Qt
from qt_loop import qloop  # noqa: F401 - the shared fixture

# Qt WebEngine (the MCP Apps tests) wants shared OpenGL contexts, set before the test application is made
QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)


@pytest.fixture
def settings(tmp_path) -> QSettings:
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def loop():
    """A plain asyncio loop, not running (panels given one schedule their answers on it)."""
    import asyncio

    loop = asyncio.new_event_loop()
    yield loop
    loop.run_until_complete(loop.shutdown_asyncgens())
    loop.close()
