"""Where the inspector keeps its files: the user's data and config folders, per platform conventions."""

from __future__ import annotations

import datetime as _dt
import os
import re
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


def cache_dir() -> Path:
    """What the inspector can rebuild from the user's files, e.g. serve's index of a capture
    (``$MCP_INSPECTOR_CACHE`` when set; else XDG_CACHE_HOME on Linux, Caches on macOS, LOCALAPPDATA on Windows).
    Not created here: a caller that writes creates it, and does without it when it cannot."""
    named = os.environ.get("MCP_INSPECTOR_CACHE")
    if named:
        return Path(named)
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA") or Path.home()) / APP_DIR / "cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / APP_DIR
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / APP_DIR


def captures_dir() -> Path:
    path = data_dir() / "captures"
    path.mkdir(parents=True, exist_ok=True)
    return path


def capture_name(name: str) -> str:
    """The file name of a new capture of the session called ``name``: the name made safe for any file system
    (at most 40 characters; ``session`` if nothing is left) and the local time to the millisecond, so names
    sort by when the sessions started: ``my-server-20261202-143005-123.jsonl``."""
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")[:-3]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")[:40] or "session"
    return f"{slug}-{stamp}.jsonl"


def default_capture_path(name: str, folder: Path | None = None) -> Path:
    """Where a new capture of the session called ``name`` goes: :func:`capture_name` in ``folder``, by default
    the user's captures folder (created if needed: raises OSError when it cannot be)."""
    return (folder or captures_dir()) / capture_name(name)
