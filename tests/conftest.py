"""Suite-wide settings: the Hypothesis profiles, the rows of the reliability report (report_rows.py), the line
that says a run is the quick suite (quick_run.py) and the caches warmed before the workers start (rewrite_cache.py).

Hypothesis profiles, chosen with the ``HYPOTHESIS_PROFILE`` environment variable:

- ``ci`` (default): 200 examples per property, no deadline; the suite stays fast.
- ``long``: 100 000 examples per property, for a soak run
  (``python scripts/reliability_report.py --long`` or ``HYPOTHESIS_PROFILE=long python -m pytest tests/fuzz``).
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile

import npm_servers
import pytest
import quick_run
import rewrite_cache
import xdist_groups
from hypothesis import settings
from report_rows import ReportRow, row_for, write_row
from xdist_groups import (  # noqa: F401 (pytest finds hooks by name in a conftest)
    pytest_collection_finish,
    pytest_configure_node,
    pytest_xdist_make_scheduler,
)


def _private_user_folders() -> None:
    """Point the user's data, config, state and runtime folders (XDG) at a folder of this test process, for
    it and every subprocess it starts: captures, profiles, QSettings and the tap socket of a test never land
    in the real home, and parallel workers (pytest-xdist, one process each) never share them. HOME and the
    cache folder stay: the npm test server and the packaging venvs are shared on purpose, under a lock."""
    base = tempfile.mkdtemp(prefix="mcpi-user-")  # 0700, as XDG_RUNTIME_DIR must be
    atexit.register(shutil.rmtree, base, ignore_errors=True)
    for variable, folder in (("XDG_DATA_HOME", "data"), ("XDG_CONFIG_HOME", "config"),
                             ("XDG_STATE_HOME", "state"), ("XDG_RUNTIME_DIR", "run")):
        os.makedirs(os.path.join(base, folder), mode=0o700)
        os.environ[variable] = os.path.join(base, folder)
    os.environ["MCP_INSPECTOR_CACHE"] = os.path.join(base, "cache")  # the inspector's own cache (serve's indexes)
    os.environ.pop("MCP_INSPECTOR_TAP_SOCKET", None)


def _bytecode_caches() -> None:
    """Write bytecode caches even where the environment turns them off (PYTHONDONTWRITEBYTECODE=1, which
    container images often set): otherwise every test process and every interpreter the tests start compiles
    the project from source, and pytest rewrites every test module's asserts again, about 3 s of CPU per test
    process and a tenth of a second per command or server started (issue 17). The caches land in the
    ``__pycache__`` folders git ignores; a test that checks what a process writes sets the variable again
    for that process (tests/ui/gui_process.py)."""
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
        sys.dont_write_bytecode = False


_private_user_folders()
_bytecode_caches()

settings.register_profile("ci", max_examples=200, deadline=None)
settings.register_profile("long", max_examples=100_000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

_ROWS = pytest.StashKey[ReportRow]()


@pytest.fixture
def report(request: pytest.FixtureRequest) -> ReportRow:
    """The report row of a test marked ``@pytest.mark.report(...)``; say what the user saw on it."""
    row = request.node.stash.get(_ROWS, None)
    if row is None:
        raise pytest.UsageError(f"{request.node.nodeid} uses the report fixture without a report marker")
    return row


def pytest_report_header(config: pytest.Config) -> str | None:
    return quick_run.header(config)


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]):
    """Group and order the tests that run (tests/xdist_groups.py): after pytest's ``-m``/``-k`` deselection (the
    quick suite's, from addopts), so each module's tests that remain are spread over the whole run."""
    result = yield
    xdist_groups.pytest_collection_modifyitems(config, items)
    return result


def pytest_configure(config: pytest.Config) -> None:
    xdist_groups.configure(config)
    if not hasattr(config, "workerinput"):  # the run's controller, or a run without pytest-xdist workers
        import shared_servers

        shared_servers.configure()


def pytest_sessionstart(session: pytest.Session) -> None:
    rewrite_cache.warm_before_workers(session.config)  # before pytest-xdist starts its workers (trylast there)


def pytest_unconfigure(config: pytest.Config) -> None:
    xdist_groups.unconfigure(config)
    if not hasattr(config, "workerinput"):
        import shared_servers

        shared_servers.unconfigure()


def pytest_runtest_setup(item: pytest.Item) -> None:
    npm_servers.running_test = item  # a test that runs an npm package must be marked npm (tests/npm_servers.py)
    row = row_for(item)
    if row is not None:
        item.stash[_ROWS] = row


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    row = item.stash.get(_ROWS, None)
    if row is None or report.when not in ("setup", "call"):
        return report
    if report.when == "setup" and report.passed:
        return report
    if report.skipped and hasattr(report, "wasxfail"):
        row.status, row.reason = "failing", report.wasxfail or "expected failure"
    elif report.skipped:
        row.status, row.reason = "not run", str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else ""
    elif report.passed:
        if row.section == "faults" and not row.sees:
            row.status, row.reason = "failing", "the test did not record what the user sees"
        else:
            row.status = "holds"
    else:
        crash = getattr(report.longrepr, "reprcrash", None)
        row.status, row.reason = "failing", (crash.message if crash else str(report.longrepr)).splitlines()[0]
    write_row(row)
    return report


@pytest.fixture(scope="session", autouse=True)
def _warm_python() -> None:
    """The script zygote of this test process (tests/warm_python.py), named in its environment."""
    import warm_python

    warm_python.start()


@pytest.fixture(scope="session")
def time_server() -> list[str]:
    """The reference ``mcp-server-time`` (PyPI, in the test extra), what its console script runs, with a fixed
    local timezone; started warm (tests/warm_python.py)."""
    import importlib.util

    import warm_python

    if importlib.util.find_spec("mcp_server_time") is None:
        pytest.fail("mcp-server-time is not installed (it is in the test extra): pip install -e '.[test]'")
    return warm_python.module_command("mcp_server_time", "--local-timezone", "UTC")


#: The widgets the running test gave ``qtbot.addWidget``, kept alive until its teardown (one test at a time runs
#: in a process).
_kept_widgets: list[object] = []


def _keep_test_widgets_alive() -> None:
    """pytest-qt's ``qtbot.addWidget`` keeps only a weak reference: a shown top-level widget whose last
    reference was a local of the test was deleted from Python the moment the test returned, with a relayout
    still posted for its tree view, and the worker crashed in the next processEvents (a segfault in
    QTreeViewPrivate::layout). The widgets are kept here until the test's teardown has closed and deleted them.

    pytest-qt has no hook for this, so its public ``QtBot.addWidget`` is wrapped (same signature in the pytest-qt
    versions the test extra pins)."""
    from pytestqt.qtbot import QtBot

    add_widget = QtBot.addWidget

    def add_and_keep(self, widget, *, before_close_func=None):  # type: ignore[no-untyped-def]
        add_widget(self, widget, before_close_func=before_close_func)
        _kept_widgets.append(widget)

    QtBot.addWidget = add_and_keep


_keep_test_widgets_alive()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item):
    """Delete the widgets pytest-qt closed at the end of the test now, and only then let them go.

    pytest-qt closes a test's widgets and calls ``deleteLater()``, but no event loop runs between tests to carry
    the deletion out: closed widgets lived on into the next test, still laid out. DeferredDelete events are sent
    here, after pytest-qt's teardown, and the strong references kept since ``addWidget`` are dropped after."""
    result = yield
    qt_core = sys.modules.get("PySide6.QtCore")
    if qt_core is not None and qt_core.QCoreApplication.instance() is not None:
        qt_core.QCoreApplication.sendPostedEvents(None, qt_core.QEvent.Type.DeferredDelete)
    _kept_widgets.clear()
    return result
