"""The window's controllers without a main window (inspector/ui/host.py): each is given a view host and its services,
and says what it did with signals: ``said`` a sentence for the status line, ``view_ready`` a view for a tab of its
own, ``capture_wanted`` a capture to open. A fake host stands in for the window here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMenu, QWidget

from inspector.core.connect.target import Target
from inspector.core.tasks import Tasks
from inspector.ui.collections.run import CollectionRuns
from inspector.ui.collections.view import CollectionView
from inspector.ui.compare.run import Comparisons
from inspector.ui.compare.view import CompareView
from inspector.ui.controllers.files import CaptureFiles
from inspector.ui.controllers.settings import SessionSettings
from inspector.ui.host import Controller, ViewHost
from inspector.ui.load.run import LoadTests

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample-v1.jsonl"


class FakeHost:
    """A view host with no tabs: it keeps what it is asked."""

    def __init__(self) -> None:
        self.parent = QWidget()
        self.warnings: list[tuple[str, str]] = []
        self.shown: list[QWidget] = []

    def current_tab(self) -> Any:
        return None

    def session_tabs(self) -> list[Any]:
        return []

    def show_tab(self, widget: QWidget) -> None:
        self.shown.append(widget)

    def window(self) -> QWidget:
        return self.parent

    def warn(self, title: str, text: str) -> None:
        self.warnings.append((title, text))


class Heard:
    """Every signal of a controller, as it was emitted."""

    def __init__(self, controller: Controller) -> None:
        self.said: list[str] = []
        self.views: list[tuple[Any, str, str]] = []
        self.captures: list[Path] = []
        controller.said.connect(self.said.append)
        controller.view_ready.connect(lambda view, title, tip: self.views.append((view, title, tip)))
        controller.capture_wanted.connect(self.captures.append)


@pytest.fixture
def host(qapp: Any) -> FakeHost:
    fake = FakeHost()
    _: ViewHost = fake  # the fake is a view host as mypy sees it
    return fake


def unchanged(target: Target) -> Target:
    return target


def test_a_comparison_of_two_captures_is_a_view_ready_for_the_host_with_a_sentence(host, qloop, tmp_path):
    comparisons = Comparisons(host, Tasks(), tmp_path, unchanged, list)
    heard = Heard(comparisons)
    view = qloop.run_until_complete(comparisons.run_compare(SAMPLE, capture=SAMPLE))
    assert isinstance(view, CompareView)
    assert heard.views == [(view, "compare: sample-v1", "")]
    assert heard.said == ["compared with " + view.result.b.describe() + ": no differences"]
    assert host.warnings == []


def test_a_comparison_that_cannot_read_its_capture_warns_through_the_host_and_opens_no_view(host, qloop, tmp_path):
    comparisons = Comparisons(host, Tasks(), tmp_path, unchanged, list)
    heard = Heard(comparisons)
    missing = tmp_path / "gone.jsonl"
    assert qloop.run_until_complete(comparisons.run_compare(SAMPLE, capture=missing)) is None
    assert heard.views == []
    assert [title for title, _ in host.warnings] == ["Compare"]
    assert heard.said == [host.warnings[0][1]]


def test_a_collection_that_cannot_be_read_still_shows_its_view_saying_why(host, qloop, tmp_path):
    runs = CollectionRuns(host, Tasks(), tmp_path, unchanged)
    heard = Heard(runs)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps({"format": "something else"}))
    view = qloop.run_until_complete(runs.run_collection_view(Target(name="never started", argv=["false"]), path))
    assert isinstance(view, CollectionView)
    assert [(v, title) for v, title, _ in heard.views] == [(view, "run: broken")]
    assert len(heard.said) == 1 and heard.said[0].startswith("run collection: ")
    assert view.summary.text() == heard.said[0].removeprefix("run collection: ")
    assert not list(tmp_path.glob("run-*.jsonl")), "nothing was started"


def test_a_view_that_offers_its_capture_asks_the_host_to_open_it(host, tmp_path):
    controller = Controller(host)
    heard = Heard(controller)
    view = CollectionView("smoke", tmp_path / "run.jsonl", host.window())
    controller.show_view(view, "run: smoke")
    view.open_button.setEnabled(True)
    view.open_button.click()
    assert heard.captures == [tmp_path / "run.jsonl"]


def test_load_test_without_a_live_session_says_so_and_asks_nothing(host, tmp_path):
    load = LoadTests(host, Tasks(), tmp_path, unchanged)
    heard = Heard(load)
    load.load_current()
    assert heard.said == ["Load test needs a live session: connect to the server first"]
    assert heard.views == []


def test_a_recent_capture_chosen_from_the_menu_is_a_capture_wanted(host, tmp_path):
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    menu = QMenu()
    files = CaptureFiles(host, settings, tmp_path, menu)
    heard = Heard(files)
    files.remember(SAMPLE)
    actions = menu.actions()
    assert [a.text() for a in actions] == [str(SAMPLE)] and menu.isEnabled()
    actions[0].trigger()
    assert heard.captures == [SAMPLE]


def test_a_new_request_timeout_is_said_and_reaches_no_window(host, tmp_path):
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    session_settings = SessionSettings(host, settings, None, None)
    heard = Heard(session_settings)
    session_settings.set_request_timeout(12.0)
    assert heard.said == ["sessions without a profile now wait 12 s for each response"]
    assert session_settings.request_timeout() == 12.0
    assert session_settings.set_max_message("2K") is None
    assert heard.said[-1] == "messages up to 2 KiB are read whole in sessions started from now on"
