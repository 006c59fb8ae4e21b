"""The Apps tab of a live session in the window: a tool with an app, called from the Explorer, has its app
rendered beside the timeline, the policy shown requested, effective and blocked side by side, the app's messages
as rows of the timeline; a link it asks to open is opened only after the person says yes; Fullscreen tells the
app; closing the tab tears the app down while its answer can still be recorded."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from app_servers.support import probe_argv, recording_origins
from helpers import until
from PySide6.QtCore import Qt
from qt_loop import open_test_window

from inspector.core.capture import read_capture
from inspector.core.connect.target import Target
from inspector.ui.apps import panel as panel_module
from inspector.ui.timeline.model import COLUMNS

pytestmark = [pytest.mark.integration]
#: the SDK server starts, the explorer lists it and a web view renders the app within this on a loaded machine
BOUND = 60


def wait(qloop: Any, condition: Any, what: str) -> None:
    qloop.run_until_complete(until(condition, BOUND, what))


def app_text(qloop: Any, tab: Any) -> str:
    return qloop.run_until_complete(tab.apps.run.view.visible_text())


def probe_done(tab: Any) -> bool:
    """The probe app went through all it does: its last act is to say its size, then everything is answered."""
    run = tab.apps.run
    return run.host.state.size is not None and run.host.settled


def open_probe(qloop: Any, win: Any, origins: Any) -> Any:
    tab = win.open_live(Target(name="probe", argv=probe_argv(origins)))
    wait(qloop, lambda: tab.explorer.tools.tool_list.count() > 0 and tab.explorer.catalog.settled, "the tools")
    tab.explorer.tools.call_tool("probe", {"note": "from the window"})
    wait(qloop, lambda: tab.apps.run is not None and tab.apps.run.host.state.phase == "ready", "the app ready")
    return tab


@pytest.mark.parametrize("says_yes", [True, False])
def test_a_tool_called_from_the_explorer_shows_its_app_and_a_link_opens_only_after_a_yes(
        qtbot, qloop, tmp_path, monkeypatch, says_yes):
    asked: list[str] = []
    opened: list[str] = []

    async def person(parent: Any, title: str, text: str) -> bool:
        asked.append(text)
        return says_yes

    monkeypatch.setattr(panel_module, "ask_user", person)
    monkeypatch.setattr(panel_module, "open_link_in_browser", lambda url: opened.append(url) or True)
    with recording_origins() as origins, open_test_window(qloop, tmp_path) as win:
        tab = open_probe(qloop, win, origins)
        wait(qloop, lambda: probe_done(tab), "the app done")
        text = app_text(qloop, tab)
        assert 'input: {"note":"from the window"}' in text and "result: apps negotiated: yes" in text
        assert ("open-link: opened" if says_yes else "open-link: denied") in text
        assert opened == (["https://example.com/probe"] if says_yes else [])
        assert len(asked) == 1 and "https://example.com/probe" in asked[0]
        assert origins.blocked not in origins.hits


def test_the_tab_shows_the_policy_side_by_side_and_the_app_lane_in_the_timeline(qtbot, qloop, tmp_path, monkeypatch):
    async def no(parent: Any, title: str, text: str) -> bool:
        return False

    monkeypatch.setattr(panel_module, "ask_user", no)
    with recording_origins() as origins, open_test_window(qloop, tmp_path) as win:
        tab = open_probe(qloop, win, origins)
        policy = tab.apps.policy
        wait(qloop, lambda: "by-script.js" in policy.cell("resourceDomains", "Blocked")
             and "by-img.png" in policy.cell("resourceDomains", "Blocked")
             and "by-fetch" in policy.cell("connectDomains", "Blocked"), "the blocks in the table")
        assert policy.cell("connectDomains", "Requested") == origins.allowed
        assert policy.cell("connectDomains", "Effective") == origins.allowed
        assert policy.cell("frameDomains", "Effective") == "(none)"
        assert "3 requests blocked" in tab.apps.status.text()
        if os.geteuid() == 0:  # this test process turned the sandbox off (conftest): the tab says so
            assert "apps run without Chromium's sandbox, as QTWEBENGINE_DISABLE_SANDBOX asks" in tab.apps.status.text()
        wait(qloop, lambda: "hello from the probe" in policy.said.toPlainText(), "the app's message")
        assert "tools/call model-only refused" in policy.said.toPlainText()
        tab.feed.flush_now()
        kind = COLUMNS.index("Kind")
        labels = [tab.model.cell(row, kind, Qt.ItemDataRole.DisplayRole) for row in range(tab.model.rowCount())]
        assert "app request" in labels and "app response" in labels and "app blocked" in labels
        caused = [e for e in tab.events if e.kind == "message" and e.dir == "c2s" and "app_request" in e.data]
        assert [e.json()["params"].get("name") for e in caused if e.method == "tools/call"] == ["app-only-step"]
        initialize = next(e for e in tab.events if e.kind == "app" and e.rpc is not None
                          and e.rpc.method == "ui/initialize")
        assert tab.timeline.select_seq(initialize.seq)
        assert '"method": "ui/initialize"' in tab.detail.pretty.toPlainText(), "an app message is shown as JSON"
        blocked = next(e for e in tab.events if e.kind == "app" and e.data.get("what") == "blocked")
        assert tab.timeline.select_seq(blocked.seq)
        assert "blocked by the browser (its CSP)" in tab.detail.info.toPlainText()
        assert tab.detail.tabs.currentWidget() is tab.detail.info


def test_fullscreen_tells_the_app_and_closing_the_tab_records_its_teardown(qtbot, qloop, tmp_path, monkeypatch):
    async def no(parent: Any, title: str, text: str) -> bool:
        return False

    monkeypatch.setattr(panel_module, "ask_user", no)
    with recording_origins() as origins, open_test_window(qloop, tmp_path) as win:
        tab = open_probe(qloop, win, origins)
        wait(qloop, lambda: probe_done(tab), "the app done")
        tab.apps.fullscreen_button.click()
        assert tab.apps.fullscreen is not None and tab.apps.run.view.parent() is tab.apps.fullscreen
        changed = [e for e in tab.events if e.kind == "app" and e.rpc is not None
                   and e.rpc.method == "ui/notifications/host-context-changed"]
        assert json.loads(changed[-1].raw)["params"]["displayMode"] == "fullscreen"
        tab.apps.fullscreen.leave.emit()  # Escape
        assert tab.apps.fullscreen is None and tab.apps.run.view.parent() is tab.apps.holder
        capture = tab.capture_path
        qloop.run_until_complete(tab.close())
    events = read_capture(capture).events
    lane = [e for e in events if e.kind == "app"]
    teardown = next(e for e in lane if e.rpc is not None and e.rpc.method == "ui/resource-teardown" and e.dir == "h2a")
    answer = next(e for e in lane if e.data.get("reply_to") == teardown.seq)
    assert answer.dir == "a2h" and lane[-1].data == {"what": "closed", "app": 1, "reason": "the session is closing"}, \
        [(e.seq, e.dir, e.data.get("what")) for e in lane[-3:]]
    assert lane[-1].seq < next(e.seq for e in events if e.kind == "lifecycle" and e.data.get("what") == "stdin_closed")


@pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox can run here: nothing to refuse")
def test_as_root_without_the_variable_the_tab_says_why_and_renders_nothing(qtbot, qloop, tmp_path, monkeypatch):
    monkeypatch.delenv("QTWEBENGINE_DISABLE_SANDBOX", raising=False)
    with recording_origins() as origins, open_test_window(qloop, tmp_path) as win:
        tab = win.open_live(Target(name="probe", argv=probe_argv(origins)))
        wait(qloop, lambda: tab.explorer.tools.tool_list.count() > 0 and tab.explorer.catalog.settled, "the tools")
        tab.explorer.tools.call_tool("probe", {})
        wait(qloop, lambda: "is not shown" in tab.apps.status.text(), "the sentence")
        assert tab.apps.status.text() == (
            "The app of probe is not shown: apps are not rendered as root, where Chromium's sandbox cannot run; to "
            "render them without the sandbox anyway, set QTWEBENGINE_DISABLE_SANDBOX=1 yourself (the app's HTML "
            "then runs unsandboxed).")
        assert tab.apps.run is None and not any(e.kind == "app" for e in tab.events)


@pytest.mark.report("faults", "an MCP App that renders in the Apps tab", surface="GUI", group="window")
def test_an_app_that_renders_brings_the_apps_tab_forward_with_most_of_its_room_and_its_tool_is_marked(
        qtbot, qloop, tmp_path, monkeypatch, report):
    """Issue 39: the Apps tab stayed behind the Composer, nothing in the Explorer marked a tool with an app, and
    the app and Policy panes opened a few lines high until dragged."""
    async def no(parent: Any, title: str, text: str) -> bool:
        return False

    monkeypatch.setattr(panel_module, "ask_user", no)
    with recording_origins() as origins, open_test_window(qloop, tmp_path) as win:
        win.resize(1280, 800)
        tab = win.open_live(Target(name="probe", argv=probe_argv(origins)))
        tools = tab.explorer.tools
        wait(qloop, lambda: tools.tool_list.count() > 0 and tab.explorer.catalog.settled, "the tools")
        line = next(tools.tool_list.item(r).text() for r in range(tools.tool_list.count())
                    if tools.tool_list.item(r).text().startswith("probe"))
        assert line.endswith("[app]"), line
        assert tools.select_tool("probe") and "(a call shows it in the Apps tab)" in tools.tool_about.text()
        assert tab.side.currentWidget() is not tab.apps
        tools.call_tool("probe", {"note": "from the window"})
        wait(qloop, lambda: tab.apps.run is not None and tab.apps.run.host.state.phase == "ready", "the app ready")
        assert tab.side.currentWidget() is tab.apps
        wait(qloop, lambda: tab.apps.stage.height() >= tab.apps.height() // 2, "the app given most of the room")
        app, policy = tab.apps.split.sizes()
        assert app > 2 * policy > 0, (app, policy)
        assert win.grab().save(str(tmp_path / "apps-tab.png"))
    report.saw("the Apps tab comes forward, the app in most of its room and its policy below; the tool is marked [app]")
