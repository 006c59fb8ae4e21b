"""The quick suite is pyproject.toml's mark expression (tests/quick_run.py): ``python -m pytest`` and
``python -m pytest tests`` run the same tests, a ``-m`` on the command line replaces it, and CI's two commands
run every test once. A small suite runs in a pytest of its own under the project's own configuration (``-c
pyproject.toml``), with one test for each mark the configuration declares."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import quick_run

ROOT = Path(quick_run.__file__).resolve().parent.parent

CONFTEST = """
import quick_run


def pytest_report_header(config):
    return quick_run.header(config)
"""


def declared_marks() -> list[str]:
    """The names of the marks pyproject.toml declares (``--strict-markers`` allows no other)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return [re.match(r"\w+", line).group() for line in config["tool"]["pytest"]["ini_options"]["markers"]]  # type: ignore[union-attr]  # every declaration starts with its name


def small_suite_source() -> str:
    """An unmarked test, a test per declared mark, and a test carrying two of the left-out marks."""
    tests = ["import pytest", "", "", "def test_plain():", "    pass"]
    for mark in declared_marks():
        tests += ["", "", f"@pytest.mark.{mark}", f"def test_marked_{mark}():", "    pass"]
    tests += ["", "", "@pytest.mark.integration", "@pytest.mark.slow", "def test_marked_twice():", "    pass", ""]
    return "\n".join(tests)


#: What the README says the quick suite leaves out; every other test is in it, marked or not.
LEFT_OUT = {"test_marked_integration", "test_marked_npm", "test_marked_packaging", "test_marked_slow",
            "test_marked_twice"}


@pytest.fixture(scope="module")
def small_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    suite = tmp_path_factory.mktemp("project")
    (suite / "tests").mkdir()
    (suite / "tests" / "conftest.py").write_text(CONFTEST)
    (suite / "tests" / "test_tiers.py").write_text(small_suite_source())
    return suite


def ran(suite: Path, *args: str) -> tuple[set[str], str]:
    """The tests that passed in a run of the small suite with the project's configuration, and its output."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "COV_"))}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the installed plugins cost start-up time; only pytest-xdist
    # is loaded, since addopts names its options (-n 0: the small suite runs in one process)
    done = subprocess.run([sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir",
                           str(suite), "-p", "xdist", "-n", "0", "-p", "no:cacheprovider", "-v", *args],
                          capture_output=True, text=True, timeout=120, cwd=suite, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    passed = {line.split("::")[-1].split()[0] for line in done.stdout.splitlines() if " PASSED" in line}
    return passed, done.stdout


@pytest.fixture(scope="module")
def run(small_suite: Path):
    """``ran`` in the small suite, each command line run once for the module (the bare run is CI's first)."""
    done: dict[tuple[str, ...], tuple[set[str], str]] = {}

    def run_once(*args: str) -> tuple[set[str], str]:
        if args not in done:
            done[args] = ran(small_suite, *args)
        return done[args]

    return run_once


def every_test() -> set[str]:
    return {"test_plain", "test_marked_twice"} | {f"test_marked_{mark}" for mark in declared_marks()}


@pytest.mark.parametrize("named", [(), ("tests",)], ids=["nothing named", "the tests folder"])
def test_a_bare_run_and_a_run_of_the_tests_folder_are_the_same_quick_suite_and_say_so(run, named):
    passed, output = run(*named)
    assert passed == every_test() - LEFT_OUT
    assert 'the quick suite: -m "not (integration or npm or packaging or slow)" (pyproject.toml\'s addopts); ' \
           '-m "" runs every test' in output


def test_an_empty_mark_expression_runs_the_whole_suite(run):
    passed, output = run("-m", "")
    assert passed == every_test()
    assert "the quick suite" not in output


def test_ci_runs_the_quick_suite_and_then_the_rest_each_test_exactly_once(run):
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = [shlex.split(line.split("&&")[-1]) for line in lines if "python -m pytest" in line]
    assert [command[:3] for command in commands] == [["python", "-m", "pytest"]] * 2
    assert commands[0] == ["python", "-m", "pytest"]  # the README's test command, the quick suite
    first, _ = run()
    second, output = run(*commands[1][3:])  # its -m replaces the quick suite's
    assert "the quick suite" not in output
    assert second == LEFT_OUT
    assert not first & second, f"run twice: {sorted(first & second)}"
    assert first | second == every_test(), f"never run: {sorted(every_test() - first - second)}"
