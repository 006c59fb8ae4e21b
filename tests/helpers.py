"""Shared test helpers (import as `helpers`; tests/ is on the path via pytest's pythonpath): running the CLI
as a real subprocess, and bounded waits on conditions."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import warm_cli
import warm_python

ROOT = Path(__file__).resolve().parent.parent


def cli(*args: str, timeout: float = 60, cwd: Path | None = None, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    """Run ``mcp-inspector ARGS`` the way a user would, in a process of its own (tests/warm_cli.py: forked from a
    warm interpreter unless MCP_INSPECTOR_TESTS_COLD_CLI=1), bounded by ``timeout``."""
    return warm_cli.run([sys.executable, "-m", "inspector", *args], capture_output=True, text=True,
                        timeout=timeout, cwd=cwd or ROOT, env={**os.environ, **(env or {})})


def kill_group(pid: int) -> None:
    """SIGCONT (in case it was frozen) and SIGKILL to process group ``pid``; nothing if it is gone."""
    for sig in (signal.SIGCONT, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


#: How often ``wait_until`` looks again: soon enough that a wait ends within a few milliseconds of its condition,
#: seldom enough that a waiting test leaves the CPU to the processes it waits for. (It used to spin on
#: sched_yield, a whole core per waiting test on a 2-core machine that runs six test processes.)
POLL_SECONDS = 0.005


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``condition`` every :data:`POLL_SECONDS` until it holds; fail the test after ``timeout`` seconds
    (never waits longer)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(POLL_SECONDS)


async def until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Let the event loop run until ``condition`` holds; fail after ``timeout`` (the asyncio twin of
    ``wait_until`` and of pytest-qt's waitUntil)."""
    import asyncio

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(0.01)


#: The demo server (``python -m inspector.demo``), started warm (tests/warm_python.py).
DEMO = warm_python.module_command("inspector.demo")
