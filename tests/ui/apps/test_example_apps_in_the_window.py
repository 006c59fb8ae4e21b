"""The official MCP Apps example servers from npm in the window: each tool's app, called from the Explorer,
renders in the Apps tab; get-time's shows the server's time; the system monitor's polls its app-only tool
through the host, each poll a row of the timeline."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import until
from npm_servers import install_app_server
from qt_loop import open_test_window

from inspector.core.connect.target import Target

pytestmark = [pytest.mark.integration, pytest.mark.npm]
#: Node starts, the explorer lists the tools and a web view renders a 200-300 KB app within this
BOUND = 90


def wait(qloop: Any, condition: Any, what: str) -> None:
    qloop.run_until_complete(until(condition, BOUND, what))


def shown(qloop: Any, server: str, tool: str, win: Any) -> Any:
    tab = win.open_live(Target(name=server, argv=install_app_server(server)))
    wait(qloop, lambda: tab.explorer.catalog.settled and tab.explorer.catalog.find("tools", tool), "the tools")
    tab.explorer.tools.call_tool(tool, {})
    wait(qloop, lambda: tab.apps.run is not None and tab.apps.run.host.state.result_sent, f"{tool}'s app fed")
    return tab


def text(qloop: Any, tab: Any) -> str:
    """The app's text once it is idle (everything answered, a second without a word): the page's text changes
    with no signal to wait on, so the wait is on the app's own quiet, as ``mcp-inspector app``'s is."""
    run = tab.apps.run
    wait(qloop, lambda: run.host.settled and run.host.quiet_for() >= 1.0, "the app idle")
    return qloop.run_until_complete(run.view.visible_text())


def test_get_times_app_shows_the_servers_time(qtbot, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        tab = shown(qloop, "basic", "get-time", win)
        answer = next(e for e in tab.events if e.kind == "message" and e.data.get("request_method") == "tools/call")
        server_time = answer.json()["result"]["structuredContent"]["time"]
        assert server_time in text(qloop, tab)
        assert tab.apps.run.blocked == [] or all(not b.request for b in tab.apps.run.blocked)


def test_the_budget_allocator_renders_in_the_apps_tab(qtbot, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        tab = shown(qloop, "budget", "get-budget-data", win)
        shows = text(qloop, tab)
        assert "Budget Allocator" in shows and "Marketing" in shows


def test_the_system_monitors_app_polls_through_the_host_in_the_window(qtbot, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        tab = shown(qloop, "monitor", "get-system-info", win)

        def polls() -> list[Any]:
            return [e for e in tab.events if e.kind == "message" and e.dir == "c2s" and e.method == "tools/call"
                    and e.data.get("app") == 1]

        wait(qloop, lambda: len(polls()) >= 2, "two polls of poll-system-stats")
        assert {e.json()["params"]["name"] for e in polls()} == {"poll-system-stats"}
