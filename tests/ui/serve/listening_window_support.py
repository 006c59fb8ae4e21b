"""A window that listens for served sessions (``mcp-inspector serve --live``) on a socket of the test's own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.core.clients.profiles import ProfileStore
from inspector.ui.app import build_window
from inspector.ui.main_window import MainWindow


def listening_window(settings: Any, tmp_path: Path) -> tuple[MainWindow, Path]:
    """A shown window listening on ``tmp_path/run/tap.sock``, and that socket. Built in the test itself, on its
    running qloop: the listener starts on the loop the scenario runs."""
    socket_path = tmp_path / "run" / "tap.sock"
    window = build_window(settings=settings, store=ProfileStore(tmp_path / "profiles.json"), captures=tmp_path,
                          tap_socket=socket_path, listen_for_taps=True)
    window.show()
    return window, socket_path
