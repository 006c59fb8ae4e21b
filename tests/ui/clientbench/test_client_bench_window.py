"""Session > Test a client… in the window, end to end with real clients: the broken client from tests/data fails
handshake (initialized-sent) and ping, and activating the failed check opens the scenario's capture with the
client's offending message selected; Stop during a run ends it, the client and what it started included."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import ROOT, until, wait_until

from inspector.core.capture import read_capture
from inspector.core.clients.profiles import ProfileStore
from inspector.ui.app import build_window
from inspector.ui.clientbench.dialog import SEQ_ROLE

pytestmark = pytest.mark.integration

CLIENTS = ROOT / "tests" / "data" / "clients"


@pytest.fixture
def window(qapp, settings, tmp_path):
    window = build_window(settings=settings, store=ProfileStore(tmp_path / "profiles.json"), captures=tmp_path,
                          tap_socket=tmp_path / "run" / "tap.sock")
    window.show()
    yield window
    window.client_benches.stop()
    window.close()


def bench_dialog(window, client: str, *scenarios: str):
    window.menu_actions["test_client"].trigger()
    dialog = window.client_benches.dialog
    assert dialog is not None and dialog.isVisible()
    dialog.command.setText(f"{sys.executable} {CLIENTS / client}")
    for name, box in dialog.boxes.items():
        box.setChecked(name in scenarios)
    return dialog


def children(item) -> dict[str, object]:
    return {item.child(i).text(0): item.child(i) for i in range(item.childCount())}


def test_the_broken_client_fails_handshake_and_its_failed_check_opens_the_capture_at_its_message(window, qloop):
    dialog = bench_dialog(window, "broken_client.py", "handshake", "ping")

    async def scenario():
        dialog.run_button.click()
        await until(lambda: dialog.run.state == "idle", 90, "the bench to end")

    qloop.run_until_complete(scenario())
    scenarios = {dialog.tree.topLevelItem(i).text(0): dialog.tree.topLevelItem(i)
                 for i in range(dialog.tree.topLevelItemCount())}
    assert {name: item.text(1) for name, item in scenarios.items()} == {"handshake": "failed", "ping": "failed"}
    checks = children(scenarios["handshake"])
    assert checks["initialized-sent"].text(1) == "failed"
    assert children(scenarios["ping"])["ping-answered"].text(1) == "failed"
    assert dialog.progress.value() == 2 and dialog.state.text().startswith("Done: 2 failed.")
    seq = checks["initialized-sent"].data(0, SEQ_ROLE)
    assert isinstance(seq, int)
    before = window.tabs.count()
    dialog.tree.itemActivated.emit(checks["initialized-sent"], 0)
    tab = window.current_tab()
    assert window.tabs.count() == before + 1 and tab.capture_path == dialog.folder / "handshake.jsonl"

    async def selected():
        await until(lambda: (event := tab.timeline.current_event()) is not None and event.seq == seq, 20,
                    "the offending message selected")

    qloop.run_until_complete(selected())
    reused = checks["ids-unique"].data(0, SEQ_ROLE)
    assert isinstance(reused, int) and reused != seq
    dialog.tree.itemActivated.emit(checks["ids-unique"], 0)  # the same capture: its tab again, another message
    assert window.tabs.count() == before + 1 and window.current_tab() is tab
    assert tab.timeline.current_event().seq == reused


def _group(pgid: int) -> list[int]:
    """The live processes of the process group ``pgid``."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(stat.parent.name))
    return members


def test_stop_during_a_run_ends_it_and_leaves_no_process_behind(window, qloop, tmp_path, monkeypatch):
    pid_file = tmp_path / "client.pid"
    monkeypatch.setenv("HANGING_CLIENT_PID_FILE", str(pid_file))
    dialog = bench_dialog(window, "hanging_client.py", "handshake", "ping")
    dialog.timeout.setValue(120)

    async def scenario():
        dialog.run_button.click()
        await until(pid_file.exists, 30, "the hanging client's handshake")
        assert dialog.stop_button.isEnabled() and dialog.items["handshake"].text(1) == "running…"
        group = dialog.run.client_group
        dialog.stop_button.click()
        await until(lambda: dialog.run.state == "idle", 20, "the run to stop")
        return group

    group = qloop.run_until_complete(scenario())
    assert group == int(pid_file.read_text())
    assert _group(group) == []  # the client and the scenario server it launched
    assert dialog.state.text() == "Stopped: the client and everything it started were ended."
    assert [dialog.items[name].text(1) for name in ("handshake", "ping")] == ["not run", "not run"]
    assert dialog.run_button.isEnabled() and not dialog.stop_button.isEnabled()


def test_the_sdks_client_passes_handshake_over_http_at_the_revision_chosen_in_the_dialog(window, qloop):
    dialog = bench_dialog(window, "sdk_client.py", "handshake")
    dialog.transport.setCurrentText("HTTP")
    assert "URL is appended" in dialog.how.text()
    dialog.revision.setCurrentText("2025-06-18")

    async def scenario():
        dialog.run_button.click()
        await until(lambda: dialog.run.state == "idle", 90, "the bench to end")

    qloop.run_until_complete(scenario())
    assert dialog.items["handshake"].text(1) == "passed", dialog.state.text()
    assert dialog.state.text().startswith("Done: 1 passed.")
    answer = next(e.json()["result"] for e in read_capture(dialog.folder / "handshake.jsonl").events
                  if e.kind == "message" and e.data.get("request_method") == "initialize")
    assert answer["protocolVersion"] == "2025-06-18"


def test_closing_the_window_during_a_run_ends_the_client_with_its_group(window, qloop, tmp_path, monkeypatch):
    pid_file = tmp_path / "client.pid"
    monkeypatch.setenv("HANGING_CLIENT_PID_FILE", str(pid_file))
    dialog = bench_dialog(window, "hanging_client.py", "handshake")
    dialog.timeout.setValue(120)

    async def scenario():
        dialog.run_button.click()
        await until(pid_file.exists, 30, "the hanging client's handshake")

    qloop.run_until_complete(scenario())
    group = int(pid_file.read_text())
    window.close()  # outside the loop: the group gets SIGTERM as the window closes, with no loop coming round
    wait_until(lambda: _group(group) == [], 10, "the client's group to end")
