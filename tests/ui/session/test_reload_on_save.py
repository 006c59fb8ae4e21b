"""Reload on save in the window (issue 45): a live stdio session whose server file is watched restarts the server in
the same tab when the file changes; the pinned call (the Explorer's last history entry) runs again and the Reload
tab shows its old and new answers; the status line names the reload; the capture stays one, with the restart in
it. The server is a small Python SDK (mcp 2.x MCPServer) server written into tmp_path."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from explorer_support import wait
from qt_loop import open_test_window

from inspector.core.capture.reader import read_capture
from inspector.core.connect.target import Target
from inspector.core.explore.history import FILE_NAME, Call, History
from inspector.core.wire.events import Kind, Lifecycle

pytestmark = [pytest.mark.integration]

SERVER = '''\
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("weather")

@mcp.tool()
def forecast() -> str:
    """Tomorrow's weather."""
    return "{answer}"
{extra}
mcp.run()
'''

EXTRA_TOOL = '''
@mcp.tool()
def humidity() -> str:
    """How damp it is."""
    return "80%"
'''


def write_server(path: Path, answer: str, extra: str = "") -> None:
    path.write_text(SERVER.format(answer=answer, extra=extra), encoding="utf-8")


def explorer_filled(tab) -> bool:
    catalog = tab.explorer.catalog
    return catalog is not None and catalog.loaded and catalog.settled and tab.explorer.tools.tool_list.count() > 0


def server_file(tmp_path: Path) -> Path:
    """The watched server's file, in a folder of its own (the folder is what is watched)."""
    folder = tmp_path / "srv"
    folder.mkdir()
    return folder / "server.py"


def weather_tab(win, qloop, tmp_path: Path, server: Path, *, pinned: bool = True, name: str = "weather"):
    if pinned:  # the user called forecast in the Explorer once: its history's last entry
        History(tmp_path / FILE_NAME).add(name, Call("forecast", {}))
    tab = win.open_live(Target(name=name, argv=[sys.executable, str(server)], handshake="legacy"),
                        watch=[server.parent])
    wait(qloop, lambda: explorer_filled(tab), "the Explorer to list the first server's tools")
    return tab


def test_a_saved_server_file_reloads_the_server_in_the_tab_and_the_pinned_call_shows_both_answers(
        qtbot, qloop, tmp_path):
    server = server_file(tmp_path)
    write_server(server, "sunny")
    with open_test_window(qloop, tmp_path) as win:
        tab = weather_tab(win, qloop, tmp_path, server)
        assert tab.reload_panel is not None

        write_server(server, "rain", EXTRA_TOOL)  # the developer saves: another answer, one more tool
        wait(qloop, lambda: "reloaded in" in tab.status.text(), "the status line to name the reload")

        assert "1 tool added" in tab.status.text()
        assert "1 pinned call answered differently" in tab.status.text()
        shown = tab.reload_panel.text.toPlainText()
        assert '"sunny" -> "rain"' in shown, shown
        assert "tool humidity added" in shown, shown
        assert win.tabs.count() == 1 and win.tabs.currentWidget() is tab  # the same tab: not closed and reopened
        assert tab.explorer.tools.tool_list.count() == 2  # the Explorer listed the new server's tools
        capture = tab.capture_path
    events = read_capture(capture).events  # the window closed: the capture is whole
    restarts = [e for e in events if e.kind == Kind.LIFECYCLE and e.data.get("what") == Lifecycle.RELOADING]
    assert [r.data["changed"] for r in restarts] == [[str(server)]]
    spawned = [e for e in events if e.kind == Kind.LIFECYCLE and e.data.get("what") == Lifecycle.SPAWNED]
    assert len(spawned) == 2  # one capture, two servers
    assert [e.seq for e in events] == sorted(e.seq for e in events)


def test_a_server_that_fails_to_start_after_a_change_says_why_and_the_next_change_brings_it_back(
        qtbot, qloop, tmp_path):
    server = server_file(tmp_path)
    write_server(server, "sunny")
    with open_test_window(qloop, tmp_path) as win:
        tab = weather_tab(win, qloop, tmp_path, server, pinned=False)

        server.write_text("raise SystemExit('forecast.py: a typo on line 3')\n", encoding="utf-8")
        wait(qloop, lambda: "the doctor's first failing step" in tab.status.text(),
             "the doctor's word on the failed restart")
        assert "reload failed" in tab.status.text()
        assert "a typo on line 3" in tab.stderr.view.toPlainText() or "a typo on line 3" in tab.status.text()

        write_server(server, "fog")
        wait(qloop, lambda: "reloaded in" in tab.status.text(), "the next change to bring the server back")
        wait(qloop, lambda: explorer_filled(tab), "the Explorer to list the tools again")
        assert tab.live.state == "ready"


def test_session_reload_on_save_turns_watching_on_for_a_live_tab_and_off_again(qtbot, qloop, tmp_path):
    server = server_file(tmp_path)
    write_server(server, "sunny")
    with open_test_window(qloop, tmp_path) as win:
        tab = win.open_live(Target(name="weather", argv=[sys.executable, str(server)], handshake="legacy"))
        wait(qloop, lambda: explorer_filled(tab), "the Explorer to list the server's tools")
        assert tab.reloader is None and win.menu_actions["reload_on_save"].isEnabled()

        win.reload_on_save_current([server])  # Session > Reload on save…, the file chosen
        assert "restarts the server" in win.statusBar().currentMessage()
        write_server(server, "rain", EXTRA_TOOL)
        wait(qloop, lambda: "reloaded in" in tab.status.text(),
             "the reload the menu turned on")
        wait(qloop, lambda: tab.explorer.tools.tool_list.count() == 2, "the new tool listed")

        win.reload_on_save_current()  # chosen again: off
        assert tab.reloader is None and tab.reload_panel is None
        assert "Reload on save is off" in win.statusBar().currentMessage()
        assert tab.live.state == "ready"  # the server stays up


def test_a_pinned_collection_runs_after_the_reload_instead_of_the_history(qtbot, qloop, tmp_path):
    from inspector.core.collections.format import Collection, SavedRequest

    server = server_file(tmp_path)
    write_server(server, "sunny")
    pinned = tmp_path / "weather.json"
    Collection("weather", [SavedRequest("forecast", "tools/call", {"name": "forecast", "arguments": {}})]).save(pinned)
    with open_test_window(qloop, tmp_path) as win:
        tab = weather_tab(win, qloop, tmp_path, server, pinned=False)  # nothing in the History
        assert "nothing yet" in tab.reload_panel.pins.text()
        tab.reloader.pin_collection(pinned)
        assert tab.reload_panel.pins.text() == "Pinned: the collection weather.json."

        write_server(server, "rain")
        wait(qloop, lambda: "reloaded in" in tab.status.text(), "the reload")
        assert "1 pinned call answered differently" in tab.status.text()
        assert '"sunny" -> "rain"' in tab.reload_panel.text.toPlainText()


def test_a_change_after_session_stop_restarts_nothing_and_asks_no_doctor(qtbot, qloop, tmp_path):
    server = server_file(tmp_path)
    write_server(server, "sunny")
    with open_test_window(qloop, tmp_path) as win:
        tab = weather_tab(win, qloop, tmp_path, server, pinned=False)
        qloop.run_until_complete(tab.live.stop())  # Session > Stop
        assert tab.live.state == "closed"
        tab.reloader.on_change([str(server)])  # the watcher's next batch
        assert tab.reloader.reloads == 0 and len(tab.reloader.tasks) == 0
        assert "reload" not in tab.status.text()


SLOW_SERVER = '''\
import anyio
from pathlib import Path

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("slow")

@mcp.tool()
async def brew() -> str:
    """Coffee, when it is ready."""
    Path({started!r}).touch()
    while {blocks} and not Path({gate!r}).exists():  # the first server answers only once the test allows it
        await anyio.sleep(0.05)
    return "{answer}"

mcp.run()
'''


def write_slow_server(path: Path, tmp_path: Path, answer: str, *, blocks: bool) -> None:
    path.write_text(SLOW_SERVER.format(started=str(tmp_path / "started"), gate=str(tmp_path / "gate"),
                                       blocks=blocks, answer=answer), encoding="utf-8")


def brewing_tab(win, qloop, tmp_path: Path, server: Path):
    """The slow server's tab with a call to ``brew`` pending on the first server; and the list of the Explorer's
    finished calls, (tool, summary) each."""
    tab = weather_tab(win, qloop, tmp_path, server, pinned=False, name="slow")
    called: list[tuple[str, str]] = []
    tab.explorer.tools.called.connect(lambda name, _arguments, summary: called.append((name, summary)))
    tab.explorer.tools.call_tool("brew", {})
    wait(qloop, lambda: (tmp_path / "started").exists(), "the first server to be brewing")
    return tab, called


def test_a_call_pending_when_the_server_file_is_saved_is_sent_again_and_shows_the_new_servers_answer(
        qtbot, qloop, tmp_path):
    server = server_file(tmp_path)
    write_slow_server(server, tmp_path, "old brew", blocks=True)  # never answers: the gate is never opened
    with open_test_window(qloop, tmp_path) as win:
        tab, called = brewing_tab(win, qloop, tmp_path, server)
        (tmp_path / "started").unlink()

        write_slow_server(server, tmp_path, "new brew", blocks=False)  # the developer saves while it brews
        wait(qloop, lambda: bool(called), "the pending call to end")
        assert called == [("brew", "new brew")]
        wait(qloop, lambda: "reloaded in" in tab.status.text(), "the status line to name the reload")
        capture = tab.capture_path
    events = read_capture(capture).events
    calls = [e for e in events if e.method == "tools/call" and e.dir == "c2s"]
    assert len(calls) >= 2 and "resend_of" not in calls[0].data
    resend = calls[1]
    assert resend.data["resend_of"] == calls[0].seq and resend.rpc.id == calls[0].rpc.id
    spawned = [e.seq for e in events if e.kind == Kind.LIFECYCLE and e.data.get("what") == Lifecycle.SPAWNED]
    assert len(spawned) == 2 and resend.seq > spawned[1]  # sent to the new server, after its handshake
    answer = next(e for e in events if e.dir == "s2c" and e.data.get("reply_to") == resend.seq)
    assert "new brew" in answer.raw.decode() and not answer.findings
    # the old server's word as it was stopped (the SDK answers "Connection closed") is kept, and ended no wait
    assert all(e.seq < spawned[1] for e in events if e.dir == "s2c" and e.data.get("reply_to") == calls[0].seq)


def test_a_call_pending_when_the_saved_server_fails_to_start_fails_saying_the_server_restarted(
        qtbot, qloop, tmp_path):
    server = server_file(tmp_path)
    write_slow_server(server, tmp_path, "old brew", blocks=True)
    with open_test_window(qloop, tmp_path) as win:
        tab, called = brewing_tab(win, qloop, tmp_path, server)

        server.write_text("raise SystemExit('server.py: a typo on line 3')\n", encoding="utf-8")
        wait(qloop, lambda: bool(called), "the pending call to end")
        [(name, summary)] = called
        assert name == "brew" and summary.startswith("failed: the server restarted and failed to start: "), summary
        wait(qloop, lambda: "the doctor's first failing step" in tab.status.text(), "the doctor's word")
