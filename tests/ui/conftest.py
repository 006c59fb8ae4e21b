"""UI tests run offscreen, with a qasync event loop so the window's asyncio tasks (subprocess pipes, HTTP)
run on the Qt loop exactly as in the app."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402
from qt_loop import qloop  # noqa: E402,F401  (the shared fixture)


@pytest.fixture
def settings(tmp_path) -> QSettings:
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
