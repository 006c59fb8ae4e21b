"""Helpers of the packaging tests: cached virtual environments, bounded subprocess runs and waits.

A plain module (import it by name; tests/ is on the path). The venvs live in the test cache folder, next to
the npm test server: ``~/.cache/mcp-inspector-tests``, or ``$MCP_INSPECTOR_TEST_CACHE`` when it is set. A
venv is made again whenever the project's dependencies change; delete its folder to start it from nothing.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
from helpers import ROOT
from npm_servers import file_lock

#: pip installing PySide6 (about 600 MB unpacked) from a cold cache over a slow link; bounded all the same.
INSTALL_TIMEOUT = 1200.0


def cache_dir() -> Path:
    configured = os.environ.get("MCP_INSPECTOR_TEST_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "mcp-inspector-tests"


def run(argv: list[str], *, timeout: float, what: str, env: dict[str, str] | None = None,
        cwd: Path | None = None, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` to completion within ``timeout`` seconds; fail the test with its output otherwise."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd or ROOT,
                              input=input, stdin=None if input is not None else subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{what} did not finish within {timeout:g} s: {' '.join(argv)}\n{exc.stdout}\n{exc.stderr}")
    return done


def dependencies_key(*extra: str) -> str:
    """A digest of what a venv was made from: the dependencies in pyproject.toml and ``extra`` (so a changed
    or removed dependency makes a fresh venv)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    text = "\n".join([sys.version, *project.get("dependencies", []), *extra])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def venv_lock(name: str) -> AbstractContextManager[None]:
    """The lock of the cached venv ``name``: held while it is made, and while something installs into it."""
    cache_dir().mkdir(parents=True, exist_ok=True)
    return file_lock(cache_dir() / f".{name}.lock", INSTALL_TIMEOUT)


#: What a copy of the checkout leaves out: version control, build output, virtual environments, caches.
_NOT_SOURCE = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", ".venv", "venv", "__pycache__",
                                     ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache", "node_modules")


def _not_source(folder: str, names: list[str]) -> set[str]:
    ignored = set(_NOT_SOURCE(folder, names))
    if Path(folder) == ROOT / "benchmarks":
        ignored.add("out")  # benchmark results (git ignores them)
    return ignored


def source_copy(target: Path) -> Path:
    """A copy of the checkout's source at ``target`` (symbolic links kept as links), for a build that must not
    write into the checkout."""
    shutil.copytree(ROOT, target, symlinks=True, ignore=_not_source)
    return target


def venv(name: str, *extra: str) -> Path:
    """The python of a cached venv ``name``, made with ``python -m venv`` (no system site-packages) the first
    time, and again whenever the project's dependencies or ``extra`` change. Returns ``VENV/bin/python``."""
    folder = cache_dir() / name
    python = folder / "bin" / "python"
    stamp = folder / ".made-from"
    key = dependencies_key(*extra)
    with venv_lock(name):
        if not (python.exists() and stamp.exists() and stamp.read_text() == key):
            shutil.rmtree(folder, ignore_errors=True)
            made = run([sys.executable, "-m", "venv", str(folder)], timeout=300, what="python -m venv")
            assert made.returncode == 0, made.stderr
            stamp.write_text(key)
    return python


def clean_env(**overrides: str) -> dict[str, str]:
    """The environment of a user's shell: no PYTHONPATH (the checkout must not leak in), no virtualenv, no
    display unless given, HOME and the XDG folders as given."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM",
                        "PYTHONHOME", "PYTHONSTARTUP")}
    env.update(overrides)
    return env


def home_env(home: Path, **overrides: str) -> dict[str, str]:
    """``clean_env`` with HOME and every XDG folder inside ``home`` (nothing lands in the real home)."""
    runtime = home / "run"
    runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
    return clean_env(HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"),
                     XDG_CACHE_HOME=str(home / "cache"), XDG_RUNTIME_DIR=str(runtime), **overrides)


def wait_for(process: subprocess.Popen[bytes], condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Check ``condition`` until it holds, waiting on ``process`` in between (so a process that dies ends the
    wait at once, with its output); fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if process.poll() is not None:
            out, err = process.communicate()
            pytest.fail(f"the process exited with {process.returncode} before {what}:\n{out!r}\n{err!r}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}")
        try:
            process.wait(timeout=0.05)
        except subprocess.TimeoutExpired:
            pass
