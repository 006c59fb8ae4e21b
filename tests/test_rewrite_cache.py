"""The bytecode warm-up before the workers start (tests/rewrite_cache.py): pytest reads what it wrote instead
of rewriting the module again, and the rewritten asserts still explain a failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import rewrite_cache
from _pytest.assertion import rewrite as pytest_rewrite


def _a_small_suite(folder: Path) -> Path:
    (folder / "tests" / "data").mkdir(parents=True)
    (folder / "tests" / "data" / "test_hostile.py").write_text("this is not python (\n")
    (folder / "tests" / "venv" / "lib").mkdir(parents=True)  # a virtual environment inside the tree walked
    (folder / "tests" / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (folder / "tests" / "venv" / "lib" / "test_of_another_project.py").write_text("def test_x():\n    pass\n")
    (folder / "tests" / "support.py").write_text("ANSWER = 42\n")
    (folder / "tests" / "conftest.py").write_text("import support\n")
    module = folder / "tests" / "test_lists.py"
    module.write_text(textwrap.dedent("""\
        from support import ANSWER


        def test_lists_differ():
            assert [1, ANSWER] == [1, 43]
        """))
    return module


def test_test_modules_and_conftests_are_rewritten_every_other_module_is_plain_data_and_venvs_skipped(tmp_path):
    module = _a_small_suite(tmp_path)
    rewritten, plain = rewrite_cache.modules_to_warm([tmp_path / "tests"], ["test_*.py", "*_test.py"])
    assert rewritten == [tmp_path / "tests" / "conftest.py", module]
    assert plain == [tmp_path / "tests" / "support.py"]


def test_pytest_reads_the_warmed_module_without_rewriting_it_and_its_assert_still_explains_the_failure(tmp_path):
    module = _a_small_suite(tmp_path)
    rewritten, plain = rewrite_cache.modules_to_warm([tmp_path / "tests"], ["test_*.py"])
    files = {"plain": list(map(str, plain)), "rewrite": list(map(str, rewritten))}
    done = subprocess.run([sys.executable, rewrite_cache.__file__], input=json.dumps(files), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    pyc = pytest_rewrite.get_cache_dir(module) / ("test_lists" + pytest_rewrite.PYC_TAIL)
    assert pytest_rewrite._read_pyc(module, pyc) is not None
    warmed = pyc.stat().st_mtime_ns, pyc.stat().st_ino

    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # pytest alone: the installed plugins play no part here
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "--rootdir", str(tmp_path), "-c", os.devnull, "--confcutdir", str(tmp_path),
                          "-o", "pythonpath=tests", str(module)],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert "1 failed" in run.stdout, run.stdout + run.stderr
    assert "At index 1 diff: 42 != 43" in run.stdout  # the rewritten assert, read from the cache
    assert (pyc.stat().st_mtime_ns, pyc.stat().st_ino) == warmed  # pytest wrote no cache of its own
    assert list((tmp_path / "tests" / "__pycache__").glob("support.*.pyc"))


CHECKS_ITS_OWN_CACHE = """
import os
from pathlib import Path

from _pytest.assertion import rewrite

import conftest


def test_this_module_was_rewritten_before_this_worker_started():
    assert os.environ.get("PYTEST_XDIST_WORKER")
    assert conftest.CACHED_WHEN_CONFIGURED
"""


def test_the_projects_conftest_warms_the_test_modules_before_the_workers_start(tmp_path):
    """The suite's own ``pytest_sessionstart`` (tests/conftest.py) under ``-n 1``: the cache of the test module
    a worker imports is there when that worker is configured, before it collects anything."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_warmed.py").write_text(CHECKS_ITS_OWN_CACHE)
    (suite / "conftest.py").write_text(textwrap.dedent("""\
        from pathlib import Path

        import rewrite_cache
        from _pytest.assertion import rewrite

        CACHED_WHEN_CONFIGURED = None


        def pytest_configure(config):
            global CACHED_WHEN_CONFIGURED
            module = Path(__file__).with_name("test_warmed.py")  # on a worker: not imported yet
            pyc = rewrite.get_cache_dir(module) / (module.name[:-3] + rewrite.PYC_TAIL)
            CACHED_WHEN_CONFIGURED = pyc.exists()


        def pytest_sessionstart(session):
            rewrite_cache.warm_before_workers(session.config)
        """))
    project_hook = Path(rewrite_cache.__file__).with_name("conftest.py").read_text()
    assert "rewrite_cache.warm_before_workers(session.config)" in project_hook.split("def pytest_sessionstart")[1]
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(Path(rewrite_cache.__file__).parent)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # of the installed plugins, only pytest-xdist plays a part
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "xdist", "-n", "1", "-p", "no:cacheprovider",
                          "--rootdir", str(suite), "-c", os.devnull, str(suite)],
                         capture_output=True, text=True, timeout=120, cwd=suite, env=env)
    assert "1 passed" in run.stdout, run.stdout + run.stderr
