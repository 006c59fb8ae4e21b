"""A real client drives a server through `mcp-inspector tap`; the window shows the session live, read-only."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import stat
import sys

import pytest
from helpers import DEMO, ROOT, until
from PySide6.QtGui import QGuiApplication

from inspector.core.clients.profiles import ProfileStore
from inspector.core.wire.events import Direction, Kind
from inspector.ui.app import build_window
from inspector.ui.session.tab import SessionTab

pytestmark = pytest.mark.integration

CLIENT_SCRIPT = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "fake-client", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def listening_window(settings, tmp_path):
    """The main window, shown, listening for taps on a socket of the test's own: (window, socket path)."""
    socket_path = tmp_path / "run" / "tap.sock"
    window = build_window(settings=settings, store=ProfileStore(tmp_path / "profiles.json"), captures=tmp_path,
                          tap_socket=socket_path, listen_for_taps=True)
    window.show()
    return window, socket_path


def test_a_tap_appears_in_the_window_and_its_session_streams_live(qapp, qloop, settings, tmp_path):
    window, socket_path = listening_window(settings, tmp_path)
    capture = tmp_path / "tap.jsonl"

    async def scenario():
        await until(lambda: window.tap_watcher.listener is not None or window.tap_watcher.problem is not None, 10,
                    "the listener")
        assert window.tap_watcher.problem is None
        assert stat.S_IMODE(os.stat(socket_path).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(socket_path.parent).st_mode) == 0o700
        client = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "inspector", "tap", "--name", "fake-client/demo", "--socket", str(socket_path),
            "--capture", str(capture), "--", *DEMO, cwd=ROOT,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        assert client.stdin is not None and client.stdout is not None
        await until(lambda: window.taps.count() == 1, 20, "the tap in the sidebar")
        tab = window.tabs.currentWidget()
        assert isinstance(tab, SessionTab) and tab.read_only
        for message in CLIENT_SCRIPT:
            client.stdin.write(json.dumps(message).encode() + b"\n")
        await client.stdin.drain()
        replies = [json.loads(await asyncio.wait_for(client.stdout.readline(), 20)) for _ in range(2)]
        await until(lambda: any(e.data.get("request_method") == "tools/list"
                                for e in tab.timeline.visible_events()), 10, "the live tools/list answer")
        client.stdin.close()
        code = await asyncio.wait_for(client.wait(), 20)
        await until(lambda: "(ended)" in window.taps.item(0).text(), 10, "the end of the tap")
        return tab, replies, code

    tab, replies, code = qloop.run_until_complete(scenario())
    assert code == 0
    assert [r["id"] for r in replies] == [1, 2]
    events = tab.timeline.visible_events()
    assert {e.dir for e in events if e.kind == Kind.MESSAGE} == {Direction.C2S, Direction.S2C}
    assert "ended: the server exited with 0" in tab.status.text()
    assert not tab.composer.can_send()
    window.close()


def _http_support():
    """tests/http/http_support.py by path (``http`` is the standard library's name), as tests/faults loads it."""
    import importlib.util

    module = sys.modules.get("http_support")
    if module is None:
        spec = importlib.util.spec_from_file_location("http_support", ROOT / "tests" / "http" / "http_support.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["http_support"] = module
        spec.loader.exec_module(module)
    return module


@pytest.fixture
def http_server(tmp_path):
    """tests/http's minimal well-behaved Streamable HTTP server, on 127.0.0.1; killed at teardown."""
    http_support = _http_support()
    server = http_support.start_misbehaving("good", tmp_path / "server")
    try:
        yield server
    finally:
        http_support.stop(server)


def test_an_http_tap_appears_in_the_window_and_its_exchanges_stream_live(qapp, qloop, settings, tmp_path,
                                                                         http_server):
    import signal

    import httpx

    window, socket_path = listening_window(settings, tmp_path)
    capture = tmp_path / "tap.jsonl"
    accept = {"Accept": "application/json, text/event-stream"}

    async def scenario():
        await until(lambda: window.tap_watcher.listener is not None or window.tap_watcher.problem is not None, 10,
                    "the listener")
        assert window.tap_watcher.problem is None
        tap = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "inspector", "tap", "--url", http_server.url("/mcp"), "--name", "remote",
            "--socket", str(socket_path), "--capture", str(capture), cwd=ROOT,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        try:
            assert tap.stdout is not None
            url = (await asyncio.wait_for(tap.stdout.readline(), 20)).decode().strip()
            await until(lambda: window.taps.count() == 1, 20, "the HTTP tap in the sidebar")
            tab = window.tabs.currentWidget()
            assert isinstance(tab, SessionTab) and tab.read_only
            async with httpx.AsyncClient(trust_env=False, timeout=20) as client:  # the client, given the tap's URL
                init = await client.post(url, json=CLIENT_SCRIPT[0], headers=accept)
                session = {"Mcp-Session-Id": init.headers["mcp-session-id"], **accept}
                await client.post(url, json=CLIENT_SCRIPT[1], headers=session)
                listed = await client.post(url, json=CLIENT_SCRIPT[2], headers=session)
            await until(lambda: any(e.data.get("request_method") == "tools/list"
                                    for e in tab.timeline.visible_events()), 10, "the live tools/list answer")
            live_status = tab.status.text()
            tap.send_signal(signal.SIGINT)
            code = await asyncio.wait_for(tap.wait(), 20)
            await until(lambda: "(ended)" in window.taps.item(0).text(), 10, "the end of the tap")
        finally:  # a failed step above must not leave the tap (and its recorder) running
            if tap.returncode is None:
                tap.kill()
                await tap.wait()
        return tab, listed.json(), code, live_status

    tab, listed, code, live_status = qloop.run_until_complete(scenario())
    assert code == 0
    assert [tool["name"] for tool in listed["result"]["tools"]] == ["echo"]
    assert window.taps.item(0).text() == "remote (ended)"
    assert f"tap remote (live) · read-only: the client drives · {http_server.url('/mcp')}" in live_status
    events = tab.timeline.visible_events()
    assert {e.dir for e in events if e.kind == Kind.MESSAGE} == {Direction.C2S, Direction.S2C}
    posts = [e for e in events if e.kind == Kind.HTTP and e.data.get("method") == "POST"]
    assert [e.data["purpose"] for e in posts] == ["initialize", "notifications/initialized", "tools/list"]
    assert [e.data["status"] for e in posts] == [200, 202, 200]
    assert "ended: the tap was stopped" in tab.status.text()
    assert not tab.composer.can_send()
    # the tab's server is the tap's upstream (issue 39: curl said "over stdio", the command "names no server",
    # Export offered no HAR)
    row = next(r for r in range(tab.model.rowCount()) if tab.model.event(r).kind == Kind.MESSAGE
               and tab.model.event(r).dir == Direction.C2S and tab.model.event(r).method == "tools/list")
    assert tab.timeline.select_row(row)
    assert tab.copier.refusal("curl") is None and tab.copier.copy("curl"), tab.status.text()
    curl = QGuiApplication.clipboard().text()
    assert curl.startswith("curl") and http_server.url("/mcp") in curl and "tools/list" in curl
    assert tab.copier.copy("command"), tab.status.text()
    words = shlex.split(QGuiApplication.clipboard().text())
    assert words[:5] == ["mcp-inspector", "request", "tools/list", "--url", http_server.url("/mcp")], words
    assert "har" in window.files.export_formats().values()
    assert window.files.export_current(tmp_path / "tap.har", "har") is None
    har = json.loads((tmp_path / "tap.har").read_text(encoding="utf-8"))
    assert [e["request"]["method"] for e in har["log"]["entries"]][:3] == ["POST"] * 3
    window.close()


BROKEN = ROOT / "tests" / "integration" / "servers" / "broken_protocol_server.py"
SCHEMA_TEXT = 'result.tools[0] is missing the required field "inputSchema"'


def start_tap(window, socket_path, capture, name, server):
    return asyncio.create_subprocess_exec(
        sys.executable, "-m", "inspector", "tap", "--name", name, "--socket", str(socket_path),
        "--capture", str(capture), "--", *server, cwd=ROOT,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)


def tap_window(settings, tmp_path):
    window, socket_path = listening_window(settings, tmp_path)
    return window, socket_path


def test_a_tap_on_a_server_whose_tools_list_breaks_the_schema_shows_the_finding_in_problems(
        qapp, qloop, settings, tmp_path):
    """A tap's events take the live session's path (issue 27): judged, so the schema finding reaches the Problems
    panel and colours the row, as it does for a session the window runs itself."""
    window, socket_path = tap_window(settings, tmp_path)

    async def scenario():
        await until(lambda: window.tap_watcher.listener is not None, 10, "the listener")
        client = await start_tap(window, socket_path, tmp_path / "tap.jsonl", "fake-client/broken",
                                 [sys.executable, str(BROKEN)])
        await until(lambda: window.taps.count() == 1, 20, "the tap in the sidebar")
        tab = window.tabs.currentWidget()
        for message in CLIENT_SCRIPT:
            client.stdin.write(json.dumps(message).encode() + b"\n")
        await client.stdin.drain()
        await until(lambda: "schema" in tab.problems.counts, 20, "the schema finding in the tap's Problems panel")
        client.stdin.close()
        await asyncio.wait_for(client.wait(), 20)
        return tab

    tab = qloop.run_until_complete(scenario())
    texts = [tab.problems.tree.topLevelItem(i).child(j).text(0)
             for i in range(tab.problems.tree.topLevelItemCount())
             for j in range(tab.problems.tree.topLevelItem(i).childCount())]
    assert any(SCHEMA_TEXT in text for text in texts), texts
    window.close()


def test_closing_a_live_taps_tab_raises_nothing_and_stops_its_feed_while_the_tap_records_on(
        qapp, qloop, settings, tmp_path):
    window, socket_path = tap_window(settings, tmp_path)
    capture = tmp_path / "tap.jsonl"
    raised = []
    loop = asyncio.get_event_loop()
    loop.set_exception_handler(lambda _loop, context: raised.append(context))

    async def scenario():
        await until(lambda: window.tap_watcher.listener is not None, 10, "the listener")
        client = await start_tap(window, socket_path, capture, "fake-client/demo", DEMO)
        await until(lambda: window.taps.count() == 1, 20, "the tap in the sidebar")
        tab = window.tabs.currentWidget()
        client.stdin.write(json.dumps(CLIENT_SCRIPT[0]).encode() + b"\n")
        await client.stdin.drain()
        await asyncio.wait_for(client.stdout.readline(), 20)
        await until(lambda: tab.model.rowCount() > 0, 10, "the first rows")
        window.close_tab(window.tabs.indexOf(tab))
        await until(lambda: tab.feed.detached, 10, "the feed detached")
        rows = tab.model.rowCount()
        for message in CLIENT_SCRIPT[1:]:  # the client goes on; the tap records on
            client.stdin.write(json.dumps(message).encode() + b"\n")
        await client.stdin.drain()
        await asyncio.wait_for(client.stdout.readline(), 20)
        client.stdin.close()
        code = await asyncio.wait_for(client.wait(), 20)
        await until(lambda: window.taps.count() == 0, 10, "the ended tap's entry gone with its tab")
        return tab, rows, code

    try:
        tab, rows, code = qloop.run_until_complete(scenario())
    finally:
        loop.set_exception_handler(None)
    assert code == 0
    assert raised == []
    assert tab.feed.index is not None and len(tab.feed.index) == rows, "events reached the closed tab"
    recorded = [json.loads(line) for line in capture.read_text().splitlines()[1:]]
    assert any(e.get("kind") == "message" and '"tools/list"' in e.get("raw", "") for e in recorded)
    window.close()


ECHO_CALL = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
             "params": {"name": "echo", "arguments": {"text": "as the client typed"}}}


@pytest.mark.report("faults", "a real client's tools/call paused at a breakpoint in a tap tab, edited, forwarded",
                    surface="GUI", group="window")
def test_a_breakpoint_in_a_tap_tab_pauses_the_real_clients_call_and_its_edit_is_what_the_server_answers(
        qapp, qloop, settings, tmp_path, report):
    window, socket_path = listening_window(settings, tmp_path)
    capture = tmp_path / "tap.jsonl"

    async def scenario():
        await until(lambda: window.tap_watcher.listener is not None, 10, "the listener")
        client = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "inspector", "tap", "--name", "fake-client/demo", "--socket", str(socket_path),
            "--capture", str(capture), "--", *DEMO, cwd=ROOT,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        assert client.stdin is not None and client.stdout is not None
        await until(lambda: window.taps.count() == 1, 20, "the tap in the sidebar")
        tab = window.tabs.currentWidget()
        assert isinstance(tab, SessionTab)
        await until(lambda: tab.tap_breakpoints is not None, 10, "the relay's breakpoint link")
        link = tab.tap_breakpoints
        assert link.control.add({"when": {"dir": "c2s", "method": "tools/call"}, "do": "pause"})
        await until(lambda: link.side.acknowledged >= 2, 10, "the relay to act on the breakpoint")
        for message in [*CLIENT_SCRIPT[:2], ECHO_CALL]:
            client.stdin.write(json.dumps(message).encode() + b"\n")
        await client.stdin.drain()
        first = json.loads(await asyncio.wait_for(client.stdout.readline(), 20))
        await until(lambda: len(link.control.queue) == 1, 10, "the call to wait in the tap tab's Intercepted queue")
        paused_status = tab.status.text()
        queue = tab.intercepted
        assert tab.side.currentWidget() is queue and '"as the client typed"' in queue.editor.toPlainText()
        queue.editor.setPlainText(queue.editor.toPlainText().replace("as the client typed", "as edited in the tap"))
        assert queue.decide("forward", edited=True)
        answer = json.loads(await asyncio.wait_for(client.stdout.readline(), 20))
        client.stdin.close()
        code = await asyncio.wait_for(client.wait(), 20)
        return first, paused_status, answer, code

    first, paused_status, answer, code = qloop.run_until_complete(scenario())
    assert first["id"] == 1 and code == 0
    assert "1 message paused at a breakpoint" in paused_status
    assert answer["id"] == 3 and answer["result"]["content"][0]["text"] == "as edited in the tap"
    from inspector.core.capture import read_capture

    calls = [e for e in read_capture(capture).events if e.kind == Kind.MESSAGE and e.method == "tools/call"]
    assert [(e.data["intercept"]["role"], json.loads(e.raw)["params"]["arguments"]["text"]) for e in calls] == [
        ("original", "as the client typed"), ("changed", "as edited in the tap")]
    report.saw(f"the call waited in the tap tab ({paused_status.split(' · ')[2]}); the client got "
               f"{answer['result']['content'][0]['text']!r}, and the capture holds the original and the changed call")
    window.close()


def test_a_breakpoint_in_an_http_tap_tab_pauses_the_servers_answer_and_the_client_gets_the_edit(
        qapp, qloop, settings, tmp_path, http_server):
    import signal

    import httpx

    window, socket_path = listening_window(settings, tmp_path)
    capture = tmp_path / "tap.jsonl"
    accept = {"Accept": "application/json, text/event-stream"}
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"message": "as the server said"}}}

    async def scenario():
        await until(lambda: window.tap_watcher.listener is not None, 10, "the listener")
        tap = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "inspector", "tap", "--url", http_server.url("/mcp"), "--name", "remote",
            "--socket", str(socket_path), "--capture", str(capture), cwd=ROOT,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        try:
            assert tap.stdout is not None
            url = (await asyncio.wait_for(tap.stdout.readline(), 20)).decode().strip()
            await until(lambda: window.taps.count() == 1, 20, "the HTTP tap in the sidebar")
            tab = window.tabs.currentWidget()
            await until(lambda: tab.tap_breakpoints is not None, 10, "the tap's breakpoint link")
            link = tab.tap_breakpoints
            assert link.control.add({"when": {"dir": "s2c", "method": "tools/call"}, "do": "pause"})
            await until(lambda: link.side.acknowledged >= 2, 10, "the tap to act on the breakpoint")
            async with httpx.AsyncClient(trust_env=False, timeout=20) as client:
                init = await client.post(url, json=CLIENT_SCRIPT[0], headers=accept)
                session = {"Mcp-Session-Id": init.headers["mcp-session-id"], **accept}
                await client.post(url, json=CLIENT_SCRIPT[1], headers=session)
                answering = asyncio.ensure_future(client.post(url, json=call, headers=session))
                await until(lambda: len(link.control.queue) == 1, 10, "the answer to wait in the tap tab")
                queue = tab.intercepted
                assert '"as the server said"' in queue.editor.toPlainText()
                queue.editor.setPlainText(queue.editor.toPlainText().replace("as the server said",
                                                                             "as edited in the tap"))
                assert queue.decide("forward", edited=True)
                answer = (await asyncio.wait_for(answering, 20)).json()
            tap.send_signal(signal.SIGINT)
            code = await asyncio.wait_for(tap.wait(), 20)
        finally:
            if tap.returncode is None:
                tap.kill()
                await tap.wait()
        return answer, code

    answer, code = qloop.run_until_complete(scenario())
    assert code == 0
    assert answer["result"]["content"][0]["text"] == "as edited in the tap"
    from inspector.core.capture import read_capture

    answers = [e for e in read_capture(capture).events if e.kind == Kind.MESSAGE and e.dir == Direction.S2C
               and e.data.get("intercept")]
    assert [(e.data["intercept"]["role"], json.loads(e.raw)["result"]["content"][0]["text"]) for e in answers] == [
        ("original", "as the server said"), ("changed", "as edited in the tap")]
    assert all("paused" in e.data["intercept"] for e in answers)
    window.close()
