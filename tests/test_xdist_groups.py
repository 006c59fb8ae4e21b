"""The suite's test groups hold under pytest-xdist with the project's own configuration (tests/xdist_groups.py).

A small suite runs in a pytest of its own with pyproject.toml's settings (``-n 6 --dist loadgroup``) and the
suite's grouping hooks; each test writes which worker ran it. An explicitly marked group and a module whose
tests share a module fixture must each run on one worker, while ungrouped tests still spread. When the
grouping breaks (as it did under pytest 9.2 with pytest-xdist 3.8, issue 25), the clean-install tests build
in one tree at once and this test fails first.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from helpers import ROOT

CONFTEST = """
import xdist_groups
from xdist_groups import (  # noqa: F401
    pytest_collection_finish,
    pytest_collection_modifyitems,
    pytest_configure_node,
    pytest_xdist_make_scheduler,
)

def pytest_configure(config):
    xdist_groups.configure(config)

def pytest_unconfigure(config):
    xdist_groups.unconfigure(config)
"""

RECORDER = """
import json, os, pathlib

def note(name):
    folder = pathlib.Path(os.environ["WORKERS_SEEN"])
    (folder / name).write_text(os.environ.get("PYTEST_XDIST_WORKER", "main"))
"""

MARKED = """
import pytest
from recorder import note

pytestmark = pytest.mark.xdist_group("one-venv")

@pytest.mark.parametrize("n", range(8))
def test_marked(n):
    note(f"marked-{n}")
"""

SHARED_FIXTURE = """
import pytest
from recorder import note

@pytest.fixture(scope="module")
def server():
    return object()

@pytest.mark.parametrize("n", range(8))
def test_shares(server, n):
    note(f"fixture-{n}")
"""

FREE = """
import pytest
from recorder import note

@pytest.mark.parametrize("n", range(24))
def test_free(n):
    note(f"free-{n}")
"""


def _workers_by_kind(seen: Path) -> dict[str, set[str]]:
    kinds: dict[str, set[str]] = {}
    for record in seen.iterdir():
        kinds.setdefault(record.name.split("-")[0], set()).add(record.read_text())
    return kinds


def test_a_marked_group_and_a_module_sharing_a_fixture_each_run_on_one_worker_under_the_projects_settings(
        tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for name, text in (("conftest.py", CONFTEST), ("recorder.py", RECORDER), ("test_marked.py", MARKED),
                       ("test_shared_fixture.py", SHARED_FIXTURE), ("test_free.py", FREE)):
        (project / name).write_text(textwrap.dedent(text))
    seen = tmp_path / "seen"
    seen.mkdir()
    # -c: pyproject.toml's addopts (--dist loadgroup) and its pythonpath (tests/, for xdist_groups); of the
    # installed plugins only pytest-xdist is loaded (the others cost a second of CPU and play no part here).
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(project),
         "-p", "xdist", "-p", "no:cacheprovider", "-q", "-n", "3", str(project)],
        cwd=project, capture_output=True, text=True, timeout=120,
        env={**_env(), "WORKERS_SEEN": str(seen), "PYTHONPATH": str(project), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    kinds = _workers_by_kind(seen)
    ran = json.dumps({kind: sorted(workers) for kind, workers in kinds.items()})
    assert len(list(seen.iterdir())) == 40, ran
    assert len(kinds["free"]) > 1, f"the ungrouped tests all ran on one worker, so nothing was tested: {ran}"
    assert len(kinds["marked"]) == 1, f"the marked group was split: {ran}"
    assert len(kinds["fixture"]) == 1, f"the module sharing a fixture was split: {ran}"


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
