"""Where the inspector keeps its files: the user's data and config folders, per platform conventions."""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_DIR = "mcp-inspector"


def data_dir() -> Path:
    """Captures and other recorded data (XDG_DATA_HOME on Linux, Application Support on macOS, APPDATA on Windows)."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or os.environ.get("APPDATA") or Path.home())
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / APP_DIR


def captures_dir() -> Path:
    path = data_dir() / "captures"
    path.mkdir(parents=True, exist_ok=True)
    return path
