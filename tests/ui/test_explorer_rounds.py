"""A multi-round call in the window (2026-07-28 ``input_required``), against the Python SDK's server
(tests/core/servers/sdk_modern_server.py, ``greet``): the server's question comes to the Server requests tab as any
elicitation does and is answered through its form; the call is retried with the answer and shows its result; the
rounds are one entry of the Explorer's history and one span of the timeline. Screenshots in the test's folder.
One coroutine on the window's loop (see test_explorer_tasks.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import warm_python
from explorer_support import BOUND, rows, shown_text
from helpers import until
from qt_loop import open_test_window

from inspector.core.connect.target import Target
from inspector.ui.timeline.model import COL_SUMMARY

pytestmark = [pytest.mark.integration]
SERVER = Path(__file__).resolve().parents[1] / "core" / "servers" / "sdk_modern_server.py"


def test_a_multi_round_call_is_answered_through_the_elicitation_form_and_kept_as_one_call(qtbot, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        tab = win.open_live(Target(name="sdk", argv=warm_python.command(SERVER)))
        explorer = tab.explorer
        panel = tab.requests

        async def scenario() -> None:
            await until(lambda: explorer.tools.tool_list.count() >= 4 and explorer.catalog.settled, BOUND,
                        "the tools listed")
            tab.window().resize(1600, 1000)
            if not explorer.isVisible():
                tab.explorer_toggle.click()
            explorer.tools.call_tool("greet", {})
            await until(lambda: panel.current() is not None, BOUND, "the server's question in Server requests")
            assert panel.current().method == "elicitation/create"
            name = panel.reply_form().editor_at("arguments.name")
            name.clear()
            qtbot.keyClicks(name, "Grace")
            assert tab.grab().save(str(tmp_path / "rounds-question.png"))
            panel.accept_button.click()
            await until(lambda: "Hello, Grace!" in shown_text(explorer.tools.tool_result), BOUND,
                        "the result of the retry")
            await until(lambda: explorer.history.history_list.count() == 1, BOUND, "the call in the history")
            await until(lambda: tab.model.rowCount() == len(tab.events), BOUND, "the timeline caught up")

        qloop.run_until_complete(asyncio.wait_for(scenario(), 3 * BOUND))
        first, retry = [e for e in rows(tab, "tools/call") if e.dir == "c2s"]
        assert retry.json()["params"]["inputResponses"] and first.rpc.id != retry.rpc.id
        assert "Hello, Grace!" in explorer.history.history_list.item(0).text()  # the rounds are one call
        labels = {tab.model.cell(tab.model.row_of_seq(e.seq), COL_SUMMARY, 0).split("⟧")[0]
                  for e in rows(tab, "tools/call")}
        assert len(labels) == 1 and next(iter(labels)).startswith("⟦tools/call #")  # one span, all four rows
        assert tab.grab().save(str(tmp_path / "rounds-span.png"))
