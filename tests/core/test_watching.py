"""The watcher behind ``--watch``: debounced batches of changed paths, ignore patterns, a clear sentence."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from inspector.core.watching import STOP_POLL_MS, Watcher, WatchError, check_paths


def test_a_path_that_does_not_exist_is_one_sentence(tmp_path: Path):
    with pytest.raises(WatchError, match=r"^--watch .*nope: there is no such file or folder\.$"):
        check_paths([tmp_path / "nope"])


async def _batches(folder: Path, ignore: tuple[str, ...], edit) -> list[list[str]]:
    loop = asyncio.get_running_loop()
    got: asyncio.Queue[list[str]] = asyncio.Queue()
    watcher = Watcher(check_paths([folder]), got.put_nowait, loop, ignore=ignore)
    watcher.start()
    try:
        edit()
        first = await asyncio.wait_for(got.get(), timeout=10)
        return [first]
    finally:
        watcher.stop()


def test_a_save_made_of_several_writes_is_one_batch(tmp_path: Path):
    server = tmp_path / "server.py"
    server.write_text("v1")

    def save() -> None:  # as editors do: a temporary file, then a rename over the original
        temp = tmp_path / ".server.py.tmp"
        temp.write_text("v2")
        temp.replace(server)
        server.chmod(0o644)

    [batch] = asyncio.run(_batches(tmp_path, (), save))
    assert str(server) in batch


def test_ignored_names_make_no_batch_and_others_still_do(tmp_path: Path):
    def edit() -> None:
        (tmp_path / "notes.log").write_text("ignored")
        (tmp_path / "cache").mkdir()
        (tmp_path / "cache" / "x.py").write_text("ignored by its path")
        (tmp_path / "tool.py").write_text("seen")

    [batch] = asyncio.run(_batches(tmp_path, ("*.log", "cache"), edit))
    assert batch == [str(tmp_path / "tool.py")]


def test_a_watcher_stopped_before_it_was_ready_lets_its_start_return_at_once(tmp_path: Path):
    """The tap starts watching in a worker thread; a session over at once stops it before watchfiles yields its
    first batch, and the tap's exit must not wait out start()'s bound (5 s) for that thread."""
    loop = asyncio.new_event_loop()
    try:
        watcher = Watcher(check_paths([tmp_path]), lambda paths: None, loop)
        watcher.stop()
        began = time.monotonic()
        watcher.start()
        assert time.monotonic() - began < STOP_POLL_MS / 1000 + 1
        watcher.stop()
        assert not watcher.running
    finally:
        loop.close()
