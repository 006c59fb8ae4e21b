"""A bare ``python -m pytest`` runs the quick suite; naming tests or ``--whole`` runs what was named
(tests/quick_run.py). A small suite runs in a pytest of its own with the suite's hooks, and says which of its
tests ran."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
import quick_run

CONFTEST = """
import quick_run


def pytest_addoption(parser):
    quick_run.add_option(parser)


def pytest_report_header(config):
    return quick_run.header(config)


def pytest_collection_modifyitems(config, items):
    quick_run.deselect_the_slow_part(config, items)
"""

TESTS = """
import pytest


def test_plain():
    pass


@pytest.mark.integration
def test_real_server():
    pass


@pytest.mark.npm
def test_npm_package():
    pass


@pytest.mark.slow
def test_memory_under_a_flood():
    pass



class TestInstall:
    pytestmark = pytest.mark.packaging

    def test_pip_install(self):
        pass
"""

INI = """
[pytest]
testpaths = tests
markers =
    integration: real servers
    npm: npm packages
    packaging: a venv
    slow: whole processes
"""


@pytest.fixture
def small_suite(tmp_path: Path) -> Path:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "conftest.py").write_text(CONFTEST)
    (tmp_path / "tests" / "test_tiers.py").write_text(textwrap.dedent(TESTS))
    (tmp_path / "pytest.ini").write_text(INI)
    return tmp_path


def ran(suite: Path, *args: str, cwd: Path | None = None) -> tuple[set[str], str]:
    env = {**os.environ, "PYTHONPATH": str(Path(quick_run.__file__).parent),
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # no installed plugin plays a part: each costs start-up time
    done = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", *args],
                          capture_output=True, text=True, timeout=120, cwd=cwd or suite, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    passed = {line.split("::")[-1].split()[0] for line in done.stdout.splitlines() if " PASSED" in line}
    return passed, done.stdout


EVERY_TEST = {"test_plain", "test_real_server", "test_npm_package", "test_pip_install", "test_memory_under_a_flood"}


def test_a_bare_run_leaves_out_the_marked_tests_and_says_so_and_how_to_run_them(small_suite):
    passed, output = ran(small_suite)
    assert passed == {"test_plain"}
    assert "4 deselected" in output
    assert "the quick suite: tests marked integration, npm, packaging, slow are left out; " \
           "`python -m pytest --whole` runs them too" in output


def test_asking_for_the_whole_suite_runs_every_test(small_suite):
    passed, output = ran(small_suite, "--whole")
    assert passed == EVERY_TEST
    assert "the quick suite" not in output


def test_a_run_started_in_a_subfolder_runs_that_folders_tests_marked_or_not(small_suite):
    passed, output = ran(small_suite, cwd=small_suite / "tests")
    assert passed == EVERY_TEST
    assert "the quick suite" not in output


@pytest.mark.parametrize("named", [{"file_or_dir": ["tests"]}, {"file_or_dir": ["tests/test_x.py::test_y"]},
                                   {"keyword": "server"}, {"markexpr": "npm"}, {"whole": True}, {"lf": True},
                                   {"stepwise": True}],
                         ids=["a folder", "a node id", "-k", "-m", "--whole", "--lf", "--sw"])
def test_a_run_naming_tests_is_not_the_quick_suite(named):
    bare = {"whole": False, "file_or_dir": [], "keyword": "", "markexpr": "", "lf": False, "stepwise": False}
    assert quick_run.is_quick(SimpleNamespace(option=SimpleNamespace(**bare)))  # type: ignore[arg-type]  # is_quick reads only .option
    assert not quick_run.is_quick(SimpleNamespace(option=SimpleNamespace(**{**bare, **named})))  # type: ignore[arg-type]  # as above


def test_a_mark_expression_picks_among_all_tests_the_slow_part_included(small_suite):
    passed, _ = ran(small_suite, "-m", " or ".join(quick_run.LEFT_OUT_OF_THE_QUICK_RUN))
    assert passed == EVERY_TEST - {"test_plain"}


def test_ci_runs_the_quick_suite_and_then_exactly_the_tests_it_left_out():
    lines = (Path(quick_run.__file__).parent.parent / ".ci" / "run").read_text().splitlines()
    commands = [line for line in lines if "python -m pytest" in line]
    assert commands[0].endswith("&& python -m pytest")
    assert commands[1] == f'python -m pytest -m "{" or ".join(quick_run.LEFT_OUT_OF_THE_QUICK_RUN)}"'
