"""Fixtures for the security rows: offscreen Qt with a qasync loop (as tests/ui/conftest.py), short folders for
Unix sockets, and a private HOME for the processes the tests start."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from qt_loop import qloop  # noqa: F401 - the shared fixture


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A folder with a short path (a Unix socket path must fit in about 100 bytes; tmp_path may not)."""
    path = Path(tempfile.mkdtemp(prefix="mcpi-sec-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
