"""Fixtures for the comparison tests: captures of the two versions of a real SDK server, recorded with the CLI once
per module."""

from __future__ import annotations

from pathlib import Path

import pytest
from compare_support import record_version


@pytest.fixture(scope="module")
def versions(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Captures of version 1 and version 2 of the server, each asked :data:`SCRIPT`."""
    folder = tmp_path_factory.mktemp("versions")
    return record_version(folder, 1), record_version(folder, 2)
