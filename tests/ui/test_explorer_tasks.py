"""The Explorer's tasks in the window: server-everything's simulate-research-query (taskSupport required) shows
its task's status while it runs and its research result when it ends, the Tasks page lists it, and its requests
are one span of the timeline; its ambiguous variant's question is answered through the elicitation form; a task
of tests/core/servers/task_server.py is cancelled from the Tasks page. Screenshots in the test's folder.

Each scenario runs as one coroutine on the window's loop (``qloop.run_until_complete`` once), as the window's own
loop never stops. (It was the workaround for qasync running Qt's pending events once more after each
``run_until_complete`` with no running loop, where a task's follower woken then died; tests/qt_loop.py's loop now
keeps itself running through that pass.)"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from explorer_support import BOUND, everything_tab, rows, shown_text
from helpers import until
from qt_loop import open_test_window

from inspector.core.connect.target import Target
from inspector.ui.explorer.tasks_page import COL_STATUS, COL_TOOL
from inspector.ui.timeline.model import COL_SEQ, COL_SUMMARY

pytestmark = [pytest.mark.integration]
TASK_SERVER = Path(__file__).resolve().parents[1] / "core" / "servers" / "task_server.py"


def select_tool(explorer: Any, name: str) -> None:
    tools = explorer.tools.tool_list
    row = next(r for r in range(tools.count()) if tools.item(r).text().startswith(name))
    explorer.tools.tool_list.setCurrentRow(row)


def run(qloop: Any, scenario: Any) -> None:
    qloop.run_until_complete(asyncio.wait_for(scenario, 3 * BOUND))


@pytest.mark.npm
def test_a_required_task_shows_its_status_then_its_result_and_its_requests_are_one_span(qtbot, qloop, tmp_path):
    with everything_tab(qtbot, qloop, tmp_path) as tab:
        tab.window().resize(1600, 1000)
        explorer = tab.explorer
        select_tool(explorer, "simulate-research-query")
        option = explorer.extensions.task_option
        # taskSupport required: the option is shown, checked, and cannot be unchecked
        assert not option.isHidden() and option.isChecked() and not option.isEnabled()
        qtbot.keyClicks(explorer.tools.arguments_editor.editor_at("arguments.topic"), "tides")

        async def scenario() -> None:
            explorer.tools.call()
            # while it runs: the task's status in the result pane (the server's stage messages)
            await until(lambda: "working" in explorer.tools.tool_result.heading.text(), BOUND, "the task's status")
            assert "simulate-research-query" in explorer.tools.tool_result.heading.text()
            await until(lambda: "Research Report: tides" in shown_text(explorer.tools.tool_result), BOUND,
                        "the research result")
            await until(lambda: tab.model.rowCount() == len(tab.events), BOUND, "the timeline caught up")

        run(qloop, scenario())
        assert explorer.grab().save(str(tmp_path / "explorer-task-result.png"))
        page = explorer.extensions.tasks_page
        explorer.pages.setCurrentWidget(page)
        assert page.table.rowCount() == 1
        assert page.table.item(0, COL_TOOL).text() == "simulate-research-query"
        assert page.table.item(0, COL_STATUS).text().startswith("completed")
        assert explorer.grab().save(str(tmp_path / "explorer-tasks-page.png"))

        # the timeline: every tasks/get and tasks/result row, and the call itself, carry the task's span
        model = tab.model
        call_row = model.row_of_seq(rows(tab, "tools/call")[0].seq)
        label = model.cell(call_row, COL_SUMMARY, 0)
        assert label.startswith("⟦task ")
        assert "simulate-research-query" in model.cell(call_row, COL_SUMMARY, 3)  # the tooltip names the tool
        for event in rows(tab, "tasks/get") + rows(tab, "tasks/result"):
            row = model.row_of_seq(event.seq)
            assert model.cell(row, COL_SUMMARY, 0).startswith("⟦task "), event.seq
            assert model.cell(row, COL_SEQ, 8) is not None  # the span's band (BackgroundRole)
        assert model.cell(model.row_of_seq(rows(tab, "tools/list")[0].seq), COL_SEQ, 8) is None
        assert tab.grab().save(str(tmp_path / "timeline-task-span.png"))
        # the polls kept to the server's pollInterval (1000 ms), the window's Qt timers notwithstanding
        created = next(e.t for e in rows(tab, "tools/call") if e.dir == "s2c")
        answers = [created] + [e.t for e in rows(tab, "tasks/get") if e.dir == "s2c"]
        polls = [e.t for e in rows(tab, "tasks/get") if e.dir == "c2s"]
        assert polls and all(poll - answer >= 0.999 for answer, poll in zip(answers, polls, strict=False)), \
            (answers, polls)
        history = explorer.history.history_list
        assert history.count() == 1 and "Research Report" in history.item(0).text()


@pytest.mark.npm
def test_a_tasks_question_is_answered_through_the_elicitation_form(qtbot, qloop, tmp_path):
    """server-everything's research task, ambiguous: the task goes input_required (shown in the result pane), its
    question comes on tasks/result to the Server requests tab like any elicitation, and the answer reaches the
    report."""
    with everything_tab(qtbot, qloop, tmp_path) as tab:
        explorer = tab.explorer
        panel = tab.requests

        async def scenario() -> None:
            explorer.tools.call_tool("simulate-research-query", {"topic": "python", "ambiguous": True})
            await until(lambda: "input required" in explorer.tools.tool_result.heading.text(), BOUND,
                        "the task waiting for input")
            await until(lambda: panel.current() is not None, BOUND, "the task's question in Server requests")
            assert panel.current().method == "elicitation/create"
            choice = panel.reply_form().editor_at("arguments.interpretation")
            choice.setCurrentIndex(choice.findText("Python snake species"))
            choice.activated.emit(choice.currentIndex())
            panel.accept_button.click()
            await until(lambda: "Clarification" in shown_text(explorer.tools.tool_result), BOUND,
                        "the report with the answer")

        run(qloop, scenario())
        assert "snake" in shown_text(explorer.tools.tool_result)
        [question] = [e for e in tab.events if e.kind == "message" and e.dir == "s2c" and e.rpc
                      and e.rpc.method == "elicitation/create"]
        assert question.data.get("span")  # asked on behalf of the task: drawn with it


@pytest.mark.report("faults", "a task cancelled from the Tasks page (both forms of tasks)",
                    surface="GUI", group="window")
@pytest.mark.parametrize("legacy", [True, False], ids=["2025-11-25", "2026-07-28 extension"])
def test_a_task_is_cancelled_from_the_tasks_page(qtbot, qloop, tmp_path, legacy, report):
    """In both forms of tasks; the extension's tasks/cancel is only acknowledged, and the page said "working
    (cancel requested)" for good (issue 39): the task's end is asked for."""
    with open_test_window(qloop, tmp_path) as win:
        tab = win.open_live(Target(name="tasks", argv=[sys.executable, str(TASK_SERVER), *(["--legacy"] * legacy)]))
        explorer = tab.explorer
        page = explorer.extensions.tasks_page
        option = explorer.extensions.task_option

        async def scenario() -> None:
            await until(lambda: explorer.tools.tool_list.count() == 4 and explorer.catalog.settled, BOUND,
                        "the tools listed")
            tab.window().resize(1600, 1000)
            if not explorer.isVisible():  # folded on a small screen: opened as a user would
                tab.explorer_toggle.click()
            if legacy:  # with the extension the server decides: no option
                select_tool(explorer, "slow-sum")  # optional: the option is free, unchecked
                assert not option.isHidden() and option.isEnabled() and not option.isChecked()
                select_tool(explorer, "quick")  # forbidden: no option
                assert option.isHidden()
            select_tool(explorer, "forever")
            explorer.tools.call()
            await until(lambda: page.table.rowCount() == 1, BOUND, "the task in the Tasks page")
            explorer.pages.setCurrentWidget(page)
            page.table.selectRow(0)
            assert page.cancel_button.isEnabled()
            page.cancel_button.click()
            await until(lambda: page.table.item(0, COL_STATUS).text().startswith("cancelled"), BOUND,
                        "the task cancelled")
            assert not page.cancel_button.isEnabled()
            await until(lambda: "cancelled" in explorer.tools.tool_result.heading.text(), BOUND,
                        "the call says it was cancelled")
            assert rows(tab, "tasks/cancel")
            assert page.table.item(0, COL_STATUS).text() == "cancelled — cancelled by request"
            assert page.list_button.isVisible() == legacy  # a 2025-11-25 server that declares tasks.list
            if legacy:
                page.list_button.click()
                await until(lambda: any(e.dir == "s2c" for e in rows(tab, "tasks/list")), BOUND,
                            "tasks/list answered")
                assert page.table.rowCount() == 1  # the server keeps the one task this session knows
                await until(lambda: "the session knows" in explorer.status.text(), BOUND, "the count said")
                assert explorer.status.text() == "the session knows 1 task"  # not "1 task(s)" (issue 39)
            await until(lambda: tab.model.rowCount() == len(tab.events), BOUND, "the timeline caught up")
            # the task's later news do not cover the call's outcome
            assert "was cancelled" in explorer.tools.tool_result.heading.text()

        run(qloop, scenario())
        assert tab.grab().save(str(tmp_path / "explorer-task-cancelled.png"))
    report.saw("the task's row settles as cancelled; the call's result says it was cancelled")
