"""Fixtures of the check tests: the window runs offscreen; tests/http's server launchers are importable."""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# tests/http's helpers (http_support) are imported by module name, as tests/http/conftest.py does; "http"
# itself cannot be a package name here (the standard library has one)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "http"))

from qt_loop import qloop  # noqa: F401 - the shared fixture
