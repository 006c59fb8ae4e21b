"""Fixtures for the replay tests: captures recorded from real servers with the CLI, and the CLI's replay.

Every run is a real ``python -m inspector`` subprocess bounded by a timeout; the user's captures folder is
a temporary one (XDG_DATA_HOME), so a default ``--out`` never lands in the real one.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import cli
from replay_support import RUN_TIMEOUT


@pytest.fixture(autouse=True)
def own_captures_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "xdg-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    return folder / "mcp-inspector" / "captures"


@pytest.fixture
def record(tmp_path: Path) -> Callable[..., Path]:
    """``record(server_argv, messages, *options)``: ``mcp-inspector record`` with ``--send``; returns the capture."""
    counter = iter(range(1, 1_000_000))

    def run(server: list[str], messages: list[dict[str, Any]], *options: str, expect: int = 0) -> Path:
        number = next(counter)
        send = tmp_path / f"send-{number}.jsonl"
        send.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
        out = tmp_path / f"recorded-{number}.jsonl"
        result = cli("record", "--out", str(out), "--send", str(send), *options, "--", *server, timeout=RUN_TIMEOUT)
        assert result.returncode == expect, result.stderr
        return out

    return run


@pytest.fixture
def replay() -> Callable[..., subprocess.CompletedProcess[str]]:
    """``replay(capture, *options, target=[...])``: ``mcp-inspector replay``; target after ``--`` when given."""

    def run(capture: Path, *options: str, target: list[str] | None = None) -> subprocess.CompletedProcess[str]:
        args = ["replay", str(capture), *options]
        if target is not None:
            args += ["--", *target]
        return cli(*args, timeout=RUN_TIMEOUT)

    return run

