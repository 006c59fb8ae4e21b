"""Warm the bytecode caches once, before the pytest-xdist workers start (issue 25).

In a fresh clone nothing is cached yet, so each of the six workers rewrote the asserts of every test module
itself while it collected: about 8 s of CPU a worker on the 2-core machine, six times over, before the first
test ran (a cold collection 14 s of CPU, a warm one 5 s). The run's controller now does it once, split over a
process per core, and the workers, the zygotes and the commands find the caches:

- the test modules and conftests get the file pytest's own import hook writes
  (``__pycache__/NAME.cpython-311-pytest-X.pyc``, made by ``_pytest.assertion.rewrite``'s own functions);
- every other module of the checkout (the ``inspector`` package, the tests' support modules) gets its plain
  ``.pyc``, as the first import would write it.

``_pytest.assertion.rewrite`` is pytest's internals: pytest has no public way to write its rewritten bytecode
without importing the module, and importing every test module (``--collect-only`` in the warm-up processes)
would cost each of them the collection's CPU again, the very time saved. So the test extra pins pytest to the
minor versions this was tested with (pyproject.toml), and tests/test_rewrite_cache.py fails when a new one
reads the cache otherwise. Where pytest differs from what this expects (a renamed function, the assertion pass
hook, which changes the rewritten code) the warm-up leaves the test modules alone and the workers rewrite them
as before; a wrong cache cannot result, because pytest checks each cached file
against its source when it reads it (its size and time, or since pytest 9.2 a hash of it). An interpreter run
with ``-O`` or ``-X pycache_prefix`` is left alone: its caches are named or placed otherwise.

Run as a script, it warms the files named in the JSON object on its stdin: ``{"plain": [...], "rewrite": [...]}``.
"""

from __future__ import annotations

import compileall
import fnmatch
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

#: How long the warm-up may take, all of it, before the run goes on without it: a fresh clone takes 2-4 s.
WARM_UP_TIMEOUT = 60.0
#: Folders never walked: caches, data files of tests (hostile inputs, some not even Python), npm packages.
_SKIPPED_FOLDERS = ("__pycache__", "data", "node_modules")


def modules_to_warm(roots: list[Path], test_patterns: list[str]) -> tuple[list[Path], list[Path]]:
    """The Python files under ``roots`` split in two: those pytest rewrites (names matching ``test_patterns``
    and ``conftest.py``) and every other one. Hidden folders, :data:`_SKIPPED_FOLDERS` and virtual
    environments (a folder holding ``pyvenv.cfg``: another project's tests are not this run's) are not walked."""
    rewritten: list[Path] = []
    plain: list[Path] = []

    def sort(path: Path) -> None:
        name = path.name
        if name == "conftest.py" or any(fnmatch.fnmatch(name, pattern) for pattern in test_patterns):
            rewritten.append(path)
        else:
            plain.append(path)

    for root in roots:
        if root.is_file():
            sort(root)
            continue
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = sorted(name for name in subfolders if not name.startswith(".")
                                   and name not in _SKIPPED_FOLDERS
                                   and not os.path.exists(os.path.join(folder, name, "pyvenv.cfg")))
            for name in sorted(files):
                if name.endswith(".py"):
                    sort(Path(folder) / name)
    return rewritten, plain


def rewrite(paths: list[Path]) -> int:
    """Write pytest's rewritten bytecode of each file whose cache is missing or stale; the count written."""
    from _pytest.assertion import rewrite as pytest_rewrite

    state = SimpleNamespace(trace=lambda message: None)  # all ``_write_pyc`` reads of pytest's assertion state
    written = 0
    for path in paths:
        cache = pytest_rewrite.get_cache_dir(path)
        pyc = cache / (path.name[:-3] + pytest_rewrite.PYC_TAIL)
        if pytest_rewrite._read_pyc(path, pyc) is not None or not pytest_rewrite.try_makedirs(cache):
            continue
        try:
            source_stat, code = pytest_rewrite._rewrite_test(path, None)  # type: ignore[arg-type]  # a config is read only for the pass hook, checked off by the caller
        except SyntaxError:
            continue  # pytest reports it where the module is collected
        written += bool(pytest_rewrite._write_pyc(state, code, source_stat, pyc))  # type: ignore[arg-type]  # duck-typed: only .trace is read
    return written


def _usable(config: pytest.Config) -> bool:
    """Whether this run rewrites asserts the way the warm-up does."""
    try:
        from _pytest.assertion import rewrite as pytest_rewrite

        needed = ("get_cache_dir", "PYC_TAIL", "_read_pyc", "try_makedirs", "_rewrite_test", "_write_pyc")
        return (all(hasattr(pytest_rewrite, name) for name in needed)
                and config.getoption("assertmode", "rewrite") == "rewrite"
                and not config.getini("enable_assertion_pass_hook"))
    except (ImportError, ValueError):
        return False


def warm_before_workers(config: pytest.Config) -> None:
    """On the controller of a run with pytest-xdist workers: warm the caches of what the run will import, in
    ``os.cpu_count()`` processes at once; a warm-up that fails or times out only costs its own time."""
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None) \
            or sys.dont_write_bytecode or sys.flags.optimize or sys.pycache_prefix:
        return
    here = Path(config.invocation_params.dir)
    roots = [here / arg.split("::")[0] for arg in config.args]
    roots.append(Path(config.rootpath) / "inspector")
    roots = [root for root in roots if root.exists()]
    rewritten, plain = modules_to_warm(roots, list(config.getini("python_files")))
    if not _usable(config):
        rewritten = []
    jobs = max(1, min(os.cpu_count() or 1, 6))
    deadline = time.monotonic() + WARM_UP_TIMEOUT
    processes: list[subprocess.Popen[bytes]] = []
    try:
        for job in range(jobs):
            files = {"plain": list(map(str, plain[job::jobs])), "rewrite": list(map(str, rewritten[job::jobs]))}
            process = subprocess.Popen([sys.executable, __file__], stdin=subprocess.PIPE,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            processes.append(process)
            assert process.stdin is not None
            process.stdin.write(json.dumps(files).encode())
            process.stdin.close()
    except OSError:
        pass  # cannot start another process or write to it: those started still warm their share
    for process in processes:
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main() -> int:
    files = json.load(sys.stdin)
    for path in files["plain"]:
        compileall.compile_file(path, quiet=2)
    rewrite([Path(path) for path in files["rewrite"]])
    return 0


if __name__ == "__main__":
    sys.exit(main())
