"""Session > Load test… in the window (inspector/ui/load): the Load view draws the run's live throughput and its
latency histogram with QtCharts, then the final figures; Stop ends the run early."""

from __future__ import annotations

import asyncio
import sys

import pytest
from helpers import until
from qt_loop import open_test_window
from window_views_support import LOAD_SERVER, shot

from inspector.core.connect.target import Target
from inspector.core.load.runner import LoadPlan, ToolCall
from inspector.ui.load.view import LoadView

pytestmark = pytest.mark.integration


@pytest.fixture
def window(qapp, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        yield win


def target() -> Target:
    return Target(name="load-server", argv=[sys.executable, str(LOAD_SERVER)])


def test_the_load_view_draws_throughput_and_a_latency_histogram_then_the_figures(window, qloop, tmp_path):
    plan = LoadPlan("tools/call", None, concurrency=5, duration=2.0)
    view = qloop.run_until_complete(window.load_tests.run_load_view(target(), plan,
                                                                    ToolCall("echo", [], {"text": "hi"})))
    window.resize(1300, 700)
    assert isinstance(view, LoadView) and view.result is not None
    assert view.result["requests"] > 0 and view.result["errors"] == 0
    assert len(view.points) >= 3 and all(rate >= 0 for _, rate in view.points)
    assert view.throughput.count() == len(view.points)
    counts = [view.bar_set.at(i) for i in range(view.bar_set.count())]
    assert sum(counts) == len(view.latencies) > 0
    assert view.bucket_axis.count() == view.bar_set.count()
    assert view.figures.text().startswith("done: ") and "p99" in view.figures.text()
    assert not view.stop_button.isEnabled() and view.open_button.isEnabled()
    assert (window.captures / view.result["capture"]).exists()
    shot(window, tmp_path, "load-view.png")


def test_stop_ends_the_run_before_its_duration(window, qloop):
    plan = LoadPlan("tools/call", None, concurrency=3, duration=60.0)

    async def scenario():
        task = asyncio.ensure_future(window.load_tests.run_load_view(target(), plan, ToolCall("echo", [], {})))
        await until(lambda: isinstance(window.tabs.currentWidget(), LoadView)
                    and window.tabs.currentWidget().points, 30, "the first progress point")
        window.tabs.currentWidget().stop_button.click()
        return await asyncio.wait_for(task, 20)

    view = qloop.run_until_complete(scenario())
    assert view.result["elapsed_s"] < 30


def test_an_unknown_tool_says_so_in_the_view(window, qloop):
    plan = LoadPlan("tools/call", None, concurrency=1, requests=1)
    view = qloop.run_until_complete(window.load_tests.run_load_view(target(), plan, ToolCall("ecko", [], {})))
    assert "no tool named ecko" in view.figures.text()


def test_session_load_test_asks_in_one_dialog_starting_from_the_explorers_tool(window, qloop, monkeypatch):
    """Issue 39: four modal dialogs one after the other, the arguments a raw "{}"; now one, and the Explorer's
    tool and its typed arguments are where it starts."""
    from inspector.ui.load import dialog as dialog_module

    shown: list[tuple[str, dict]] = []

    def answered(dialog: dialog_module.LoadDialog) -> int:
        shown.append(dialog.choice()[:2])
        dialog.duration.setValue(0.5)
        return 1

    monkeypatch.setattr(dialog_module.LoadDialog, "exec", answered)
    tab = window.open_live(target())
    tools = tab.explorer.tools
    qloop.run_until_complete(until(lambda: tools.tool_list.count() > 0 and tab.explorer.catalog.settled, 30,
                                   "the tools"))
    assert tools.select_tool("echo")
    tools.arguments_editor.set_arguments({"text": "hi"})
    window.load_tests.load_current()
    assert shown == [("echo", {"text": "hi"})]
    qloop.run_until_complete(until(lambda: isinstance(window.tabs.currentWidget(), LoadView)
                                   and window.tabs.currentWidget().result is not None, 30, "the run over"))
    view = window.tabs.currentWidget()
    assert view.result["requests"] > 0 and view.result["errors"] == 0
