from __future__ import annotations

import io
from pathlib import Path

import pytest

from inspector.core.seat.server import SeatServer


@pytest.fixture
def seat(tmp_path: Path) -> tuple[SeatServer, io.BytesIO]:
    """A seat whose captures folder is ``tmp_path / "captures"`` (empty), and the bytes it writes."""
    out = io.BytesIO()
    (tmp_path / "captures").mkdir()
    return SeatServer(tmp_path / "captures", out), out
