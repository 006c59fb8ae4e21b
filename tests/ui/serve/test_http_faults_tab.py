"""An HTTP twin started from the window (Session > Serve this capture…, Start) has a Faults tab in its serve tab,
as a stdio twin has: a fault turned on there is in force for every session of the twin at once, and turned off
the twin answers as recorded again."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers import until
from listening_window_support import listening_window

from inspector.ui.session.tab import SessionTab

pytestmark = pytest.mark.integration

ACCEPT = {"Accept": "application/json, text/event-stream"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
ADD = {"method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}


def body(answer: Any) -> dict[str, Any]:
    """The JSON-RPC message of a POST's answer (JSON, or the last event of an event stream)."""
    text = answer.text
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        text = [line[5:].strip() for line in text.splitlines() if line.startswith("data:") and line[5:].strip()][-1]
    return json.loads(text)


@pytest.mark.report("faults", "error-rate turned on and off in an HTTP twin's serve tab, for all its sessions",
                    surface="GUI", group="window")
def test_error_rate_turned_on_in_an_http_twins_faults_tab_faults_every_sessions_next_call(
        qapp, qloop, settings, tmp_path, demo_capture, report):
    import httpx

    window, _socket = listening_window(settings, tmp_path)

    async def scenario():
        await until(lambda: window.tap_watcher.listener is not None, 10, "the listener")
        window.open_capture(demo_capture)
        window.menu_actions["serve_capture"].trigger()
        dialog = next(iter(window.serves.dialogs.values()))
        dialog.start_button.click()
        await until(lambda: dialog.http.state != "starting", 30, "the twin's URL")
        assert dialog.http.state == "serving", dialog.http_state.text()
        url = dialog.url.text()
        await until(lambda: window.taps.count() == 1, 20, "the served session in the sidebar")
        tab = window.taps.item(0).data(256)  # Qt.ItemDataRole.UserRole
        assert isinstance(tab, SessionTab)
        await until(lambda: tab.serve_faults is not None and tab.serve_faults.control.seed is not None, 20,
                    "the HTTP twin's fault link and what it has in force")
        panel = tab.serve_faults
        control = panel.control
        async with httpx.AsyncClient(trust_env=False, timeout=20) as client:

            async def session() -> dict[str, str]:
                init = await client.post(url, json=INITIALIZE, headers=ACCEPT)
                return {**ACCEPT, "Mcp-Session-Id": init.headers["mcp-session-id"]}

            async def call(headers: dict[str, str], msg_id: int) -> dict[str, Any]:
                return body(await client.post(url, json={"jsonrpc": "2.0", "id": msg_id, **ADD}, headers=headers))

            first = await session()
            recorded = await call(first, 2)
            panel.fields["error-rate"].setText("1")
            panel.boxes["error-rate"].click()
            await until(lambda: control.in_force == {"error-rate": "1"}, 20, "the twin to put error-rate=1 in force")
            faulted = [await call(first, 3), await call(await session(), 4)]  # an old session and a new one
            panel.boxes["error-rate"].click()
            await until(lambda: control.in_force == {}, 20, "the twin to clear error-rate")
            again = await call(first, 5)
        dialog.stop_button.click()
        await until(lambda: dialog.http.state == "stopped", 20, "the twin to stop")
        await until(lambda: control.ended, 10, "the end of the link")
        return tab, recorded, faulted, again

    try:
        tab, recorded, faulted, again = qloop.run_until_complete(scenario())
    finally:
        window.serves.stop()
    assert recorded["id"] == 2 and "result" in recorded
    assert [(f["id"], f["error"]["code"]) for f in faulted] == [(3, -32603), (4, -32603)]
    assert again == {**recorded, "id": 5}
    assert tab.side.widget(0) is tab.serve_faults and tab.side.tabText(0) == "Faults"
    assert not tab.serve_faults.boxes["error-rate"].isEnabled()  # the twin has ended: nothing to toggle
    report.saw(f"over HTTP the call got the recorded answer, then error {faulted[0]['error']['code']} in the old and "
               "a new session with error-rate=1 turned on in the Faults tab, then the recorded answer again")
    window.close()
