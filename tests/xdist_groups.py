"""Test groups that pytest-xdist keeps on one worker, whatever pytest and pytest-xdist versions are installed.

``--dist loadgroup`` (pyproject addopts) is meant to run every test marked ``xdist_group(NAME)`` on one worker.
pytest-xdist 3.8 does it by appending ``@NAME`` to the item's ``_nodeid``; since pytest 9.2 an item's nodeid
comes from ``_id`` instead, so the suffix is silently lost, every group is spread over all workers, and the
clean-install tests ran ``pip install <checkout>`` five times at once in one source tree (issue 25). Module
fixtures (servers, runs that wait out a timeout) were also made once per worker instead of once.

So the grouping is done here, through pytest-xdist's public hooks only:

- each worker, when its collection is final, writes ``{nodeid: group}`` for its grouped tests into a folder
  the controller made (its path travels in ``workerinput``), before pytest-xdist reports the collection;
- the controller's scheduler (:class:`MarkedGroupScheduling`, a ``LoadGroupScheduling``) reads those files
  when it first schedules, after every worker reported, and gives every test of a group the same scope.

One private method is overridden, for want of a public one: ``LoadScopeScheduling._split_scope`` (the scope of
a node id), which every scope scheduler of pytest-xdist has been built on since 1.19 (2017) and which its own
``LoadGroupScheduling`` overrides the same way; a public hook gives only the whole scheduler
(``pytest_xdist_make_scheduler``, used below), and rewriting the scheduler to stay public would copy pytest-xdist's
work distribution instead. The test extra pins pytest-xdist to the minor versions tested (pyproject.toml).

``conftest.py`` re-exports the hooks below. tests/test_xdist_groups.py runs a small suite with the project's
own configuration and fails when a group is split again.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadGroupScheduling

#: The ``workerinput`` key carrying the folder the workers write their groups into.
GROUPS_FOLDER_KEY = "mcpi_xdist_groups"

_FOLDER = pytest.StashKey[Path]()


def group_of(item: pytest.Item) -> str | None:
    """The group of ``item``: the names of all its ``xdist_group`` marks, sorted and joined with ``_`` (as
    pytest-xdist names it), or None for a test that may run anywhere."""
    names = {str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
             for mark in item.iter_markers("xdist_group")}
    return "_".join(sorted(names)) if names else None


def configure(config: pytest.Config) -> None:
    """On the controller of a ``--dist loadgroup`` run: make the folder the workers write into."""
    if hasattr(config, "workerinput") or config.getoption("dist", "no") != "loadgroup":
        return
    folder = Path(tempfile.mkdtemp(prefix="mcpi-xdist-groups-"))
    config.stash[_FOLDER] = folder


def unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_FOLDER, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def pytest_configure_node(node: Any) -> None:
    """Controller side (a pytest-xdist hook): tell each worker where to write its groups."""
    folder = node.config.stash.get(_FOLDER, None)
    if folder is not None:
        node.workerinput[GROUPS_FOLDER_KEY] = str(folder)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook sends the collection to the controller
def pytest_collection_finish(session: pytest.Session) -> None:
    """Worker side: write this worker's ``{nodeid: group}`` atomically (the controller may read at once)."""
    workerinput = getattr(session.config, "workerinput", None)
    if not workerinput or GROUPS_FOLDER_KEY not in workerinput:
        return
    groups = {item.nodeid: group for item in session.items if (group := group_of(item)) is not None}
    folder = Path(workerinput[GROUPS_FOLDER_KEY])
    part = folder / f".{workerinput['workerid']}.json.part"
    part.write_text(json.dumps(groups), encoding="utf-8")
    os.replace(part, folder / f"{workerinput['workerid']}.json")


@pytest.hookimpl(tryfirst=True)  # the marks are in place before anything reads them
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests of a module that share a module- or class-scoped fixture (a server, a run that waits out a
    timeout) go to one pytest-xdist worker (``--dist loadgroup`` in pyproject), so the fixture is made once,
    as in a single process; every other test goes wherever a worker is free. Under pytest-xdist the tests
    are then spread out, each module over the whole run (:func:`_interleaved`)."""
    grouped: set[str] = set()
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None:
            continue
        for name in info.names_closure:
            if any(d.scope in ("module", "class", "package") for d in info.name2fixturedefs.get(name, ())):
                item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
                grouped.add(item.nodeid.split("::")[0])
                break
    if getattr(config.option, "numprocesses", None) or hasattr(config, "workerinput"):
        items[:] = _interleaved(items, grouped)


def _interleaved(items: list[pytest.Item], grouped: set[str]) -> list[pytest.Item]:
    """The tests with each module's spread evenly over the whole run: the k-th of a module's n tests goes at
    the fraction (k + 1/2)/n of the order; a module whose tests share a fixture stays whole, at the start.

    Why: pytest-xdist hands tests out in this order. In file order, the six workers took six tests of one
    file at once, and a file of tests that wait out a timeout (tests/faults/test_stdio_faults.py, the check
    tests) left both cores idle for seconds at a time: 30 core-seconds of a 2-minute run (issue 17). Dealt
    in rounds, one test per module each, the short files ran out early and left the long waits for the end.
    The order is a function of the collection only, as pytest-xdist needs every worker to agree on it; a
    run without workers (``-n 0``, the reliability report) keeps the file order."""
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::")[0], []).append(item)
    keyed: list[tuple[float, int, int, pytest.Item]] = []
    for rank, (module, tests) in enumerate(modules.items()):
        for index, item in enumerate(tests):
            place = 0.0 if module in grouped else (index + 0.5) / len(tests)
            keyed.append((place, rank, index, item))
    keyed.sort(key=lambda entry: entry[:3])
    return [entry[3] for entry in keyed]


class MarkedGroupScheduling(LoadGroupScheduling):
    """``--dist loadgroup`` with the groups the workers wrote (see the module docstring)."""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        super().__init__(config, log)
        self._folder = config.stash[_FOLDER]
        self._groups: dict[str, str] | None = None

    def _split_scope(self, nodeid: str) -> str:
        if self._groups is None:  # first asked in schedule(), after every worker reported its collection
            self._groups = {}
            for part in sorted(self._folder.glob("*.json")):
                self._groups.update(json.loads(part.read_text(encoding="utf-8")))
        group = self._groups.get(nodeid)
        return f"group:{group}" if group is not None else super()._split_scope(nodeid)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> MarkedGroupScheduling | None:
    if config.stash.get(_FOLDER, None) is None:
        return None
    return MarkedGroupScheduling(config, log)
