"""Fixtures for the tap tests."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A folder with a short path: a Unix socket path must fit in about 100 bytes, and pytest's tmp_path for
    a test named as a sentence does not."""
    path = Path(tempfile.mkdtemp(prefix="mcpi-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
