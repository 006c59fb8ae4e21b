"""The Explorer against the Python SDK's 2026-07-28 server (tests/core/servers/sdk_modern_server.py): it opens a
subscriptions/listen stream and says so (its subscription id, what the server acknowledged), lists the tools
again when the server says they changed on it, and subscribes to a resource by opening a stream whose filter has
it; the update then shows on the Resources page. A screenshot in the test's folder. One coroutine on the window's
loop (see test_explorer_tasks.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import warm_python
from explorer_support import BOUND, rows
from helpers import until
from qt_loop import open_test_window

from inspector.core.connect.target import Target
from inspector.ui.timeline.model import COL_LATENCY

pytestmark = [pytest.mark.integration]
SERVER = Path(__file__).resolve().parents[1] / "core" / "servers" / "sdk_modern_server.py"


def test_a_2026_server_is_heard_on_a_subscription_shown_with_its_id(qtbot, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        tab = win.open_live(Target(name="sdk", argv=warm_python.command(SERVER)))
        explorer = tab.explorer
        line = explorer.extensions.subscription

        async def scenario() -> None:
            await until(lambda: "hearing tools, prompts, resources list changes" in line.text(), BOUND,
                        "the acknowledgement")
            [listen] = [e for e in rows(tab, "subscriptions/listen") if e.dir == "c2s"]
            assert line.text().startswith(f"Listening: subscription {listen.rpc.id}:")
            tab.window().resize(1600, 1000)
            if not explorer.isVisible():
                tab.explorer_toggle.click()
            explorer.tools.call_tool("add_tool", {"name": "zap"})
            tools = explorer.tools.tool_list
            await until(lambda: any(tools.item(r).text().startswith("zap") for r in range(tools.count())), BOUND,
                        "the new tool in the list")
            assert "1 notification" in line.text() and "1 notifications" not in line.text()
            explorer.pages.setCurrentIndex(1)  # Resources
            explorer.resources.resource_list.setCurrentRow(0)
            assert explorer.resources.subscribe_button.isVisible()
            explorer.resources.subscribe_button.click()
            await until(lambda: "updates of 1 resource" in line.text() and "hearing" in line.text(), BOUND,
                        "the new filter acknowledged")
            explorer.tools.call_tool("touch", {"uri": "test://greeting"})
            await until(lambda: "test://greeting was updated" in explorer.resources.updates.text(), BOUND,
                        "the update shown")
            await until(lambda: tab.model.rowCount() == len(tab.events), BOUND, "the timeline caught up")

        qloop.run_until_complete(asyncio.wait_for(scenario(), 3 * BOUND))
        listen_row = tab.model.row_of_seq(rows(tab, "subscriptions/listen")[-1].seq)
        assert tab.model.cell(listen_row, COL_LATENCY, 0).startswith("listening")  # an open stream, not late
        # the live judge reads each stream's id and filter: notifications the filter asked for are no problem
        flagged = [e.seq for e in tab.events if e.kind == "message" and tab.judge.of(e.seq)]
        assert flagged == [], {seq: tab.judge.of(seq) for seq in flagged}
        assert tab.grab().save(str(tmp_path / "explorer-subscription.png"))
