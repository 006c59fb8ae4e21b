"""Rows of the reliability report (`docs/reliability.md`), produced by the tests themselves.

A test marked ``@pytest.mark.report(section, case, surface=..., group=..., advice=...)`` asks for the ``report``
fixture and states what the user saw (``report.saw(sentence, seconds=...)``) or a figure
(``report.figure(name, value)``). After the test's call phase the row is written, with its status taken
from the test's outcome: ``holds`` when it passed, ``failing`` with the reason when it failed or is an
expected failure (``xfail(reason=...)``). A failing case is therefore a row marked failing, never a row
left out. ``advice`` (fault rows) is what a user should do on seeing the sentence; it feeds
docs/troubleshooting.md.

Rows go to the JSON-lines file named by ``MCP_INSPECTOR_REPORT_ROWS`` (set by
``scripts/reliability_report.py``); without it they are only checked, not written. Under pytest-xdist every
worker appends to the same file, one line per write (``O_APPEND``), so rows come in any order: each carries
``order``, its test's place in the collection (the same in every worker), and the report sorts by it.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any

import pytest

ROWS_ENV = "MCP_INSPECTOR_REPORT_ROWS"
SECTIONS = ("faults", "fuzz", "crash", "security")
SURFACES = ("CLI", "GUI", "core", "both")


@dataclass
class ReportRow:
    section: str
    case: str
    surface: str
    group: str = ""
    advice: str = ""
    sees: str = ""
    seconds: float | None = None
    figures: dict[str, Any] = field(default_factory=dict)
    status: str = "not run"
    reason: str = ""
    test: str = ""
    order: int = 0

    def saw(self, sentence: str, seconds: float | None = None) -> None:
        """What the user sees at the end of the case (one sentence), and how long after the start."""
        if not sentence.strip():
            raise AssertionError(f"{self.case}: the user saw an empty message")
        self.sees = " ".join(sentence.split())
        if seconds is not None:
            self.seconds = round(seconds, 3)

    def figure(self, name: str, value: Any) -> None:
        self.figures[name] = value


def row_for(item: pytest.Item) -> ReportRow | None:
    marker = item.get_closest_marker("report")
    if marker is None:
        return None
    section, case = marker.args
    surface = marker.kwargs.get("surface", "core")
    if section not in SECTIONS or surface not in SURFACES:
        raise pytest.UsageError(f"{item.nodeid}: report marker needs a section in {SECTIONS} "
                                f"and a surface in {SURFACES}")
    return ReportRow(section=section, case=case, surface=surface, group=marker.kwargs.get("group", ""),
                     advice=marker.kwargs.get("advice", ""), test=item.nodeid, order=_place(item))


_PLACES = pytest.StashKey[dict[str, int]]()


def _place(item: pytest.Item) -> int:
    """The item's index in the session's collection (every xdist worker collects the same list)."""
    stash = item.session.stash
    if _PLACES not in stash:
        stash[_PLACES] = {each.nodeid: index for index, each in enumerate(item.session.items)}
    return stash[_PLACES].get(item.nodeid, 0)


def write_row(row: ReportRow) -> None:
    path = os.environ.get(ROWS_ENV)
    if path:
        line = (json.dumps(asdict(row), ensure_ascii=False) + "\n").encode("utf-8")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)  # one write: lines of parallel workers never interleave
        finally:
            os.close(fd)
