"""Session > Serve this capture… in the window, end to end: the stdio command it gives answers our own client as
the capture's server did; the HTTP twin listens on loopback only from Start to Stop, or until its dialog or its
tab closes; a twin that cannot start says why in one sentence."""

from __future__ import annotations

import json
import shlex
import socket
import sys

import pytest
from helpers import cli, until

from inspector.core.capture import read_capture
from inspector.core.clients.profiles import ProfileStore
from inspector.core.wire.events import Direction, Kind
from inspector.ui.app import build_window

pytestmark = pytest.mark.integration

#: A stand-in for ``serve --listen 127.0.0.1:0`` until it is on this branch: a real loopback listener that prints
#: its URL as the first line of stdout, as serve does, and runs until it is stopped.
STAND_IN = ("import socket\n"
            "listener = socket.create_server(('127.0.0.1', 0))\n"
            "print(f'http://127.0.0.1:{listener.getsockname()[1]}/mcp', flush=True)\n"
            "while True:\n"
            "    listener.accept()[0].close()\n")


def listening(url: str) -> bool:
    host, port = url.removeprefix("http://").split("/")[0].split(":")
    try:
        socket.create_connection((host, int(port)), timeout=2).close()
    except OSError:
        return False
    return True


@pytest.fixture
def window(qapp, settings, tmp_path):
    window = build_window(settings=settings, store=ProfileStore(tmp_path / "profiles.json"), captures=tmp_path,
                          tap_socket=tmp_path / "run" / "tap.sock")
    window.show()
    yield window
    window.serves.stop()
    window.close()


def serve_dialog(window, capture):
    window.open_capture(capture)
    assert window.menu_actions["serve_capture"].isEnabled()
    window.menu_actions["serve_capture"].trigger()
    dialog = next(iter(window.serves.dialogs.values()))
    assert dialog.isVisible()
    return dialog


def test_the_stdio_command_of_the_dialog_answers_our_client_as_the_capture_did(window, demo_capture):
    dialog = serve_dialog(window, demo_capture)
    argv = shlex.split(dialog.command.text())
    assert argv == ["mcp-inspector", "serve", str(demo_capture.resolve())]
    tools = cli("tools", "--json", "--", *argv, timeout=60)  # the command exactly as a client's config runs it
    assert tools.returncode == 0, tools.stderr
    recorded = next(e.json()["result"] for e in read_capture(demo_capture).events if e.dir == Direction.S2C
                    and e.kind == Kind.MESSAGE and e.data.get("request_method") == "tools/list")
    assert json.loads(tools.stdout)["tools"] == recorded["tools"]


def test_the_http_twin_listens_from_start_to_stop_and_closing_its_tab_stops_it(window, qloop, demo_capture):
    window.serves.argv = lambda path, sock: [sys.executable, "-c", STAND_IN]
    dialog = serve_dialog(window, demo_capture)

    async def scenario():
        dialog.ways.setCurrentIndex(1)
        dialog.start_button.click()
        assert not dialog.start_button.isEnabled()
        await until(lambda: dialog.http.state == "serving", 20, "the twin's URL")
        url = dialog.url.text()
        assert url.startswith("http://127.0.0.1:") and listening(url) and dialog.copy_url.isEnabled()
        dialog.stop_button.click()
        await until(lambda: dialog.http.state == "stopped", 20, "the twin to stop")
        stopped = (dialog.url.text(), dialog.http_state.text(), listening(url))
        dialog.start_button.click()  # again, then the tab closes under it
        await until(lambda: dialog.http.state == "serving", 20, "the twin's URL again")
        process = dialog.http.twin.process
        window.close_tab(window.tabs.currentIndex())
        await until(lambda: process.returncode is not None, 20, "the twin to end with its tab")
        return stopped

    after_stop, text, listens = qloop.run_until_complete(scenario())
    assert after_stop == "" and text == "Stopped: the port no longer listens." and not listens
    assert not window.serves.dialogs  # the tab's dialog went with it


def test_a_twin_that_cannot_start_says_why_in_one_sentence(window, qloop, demo_capture, tmp_path):
    gone = tmp_path / "gone.jsonl"
    window.serves.argv = lambda path, sock: [sys.executable, "-m", "inspector", "serve", str(gone), "--listen",
                                             "127.0.0.1:0"]
    dialog = serve_dialog(window, demo_capture)

    async def scenario():
        dialog.start_button.click()
        await until(lambda: dialog.http.state == "stopped", 30, "the twin to give up")

    qloop.run_until_complete(scenario())
    said = dialog.http_state.text()
    assert said.startswith("Not serving: ") and "\n" not in said and "Traceback" not in said
    assert dialog.start_button.isEnabled() and dialog.url.text() == ""


def serve_listens() -> bool:
    """Whether this tree's serve has --listen (the HTTP helper's part of issue 41)."""
    import argparse

    from inspector.cli.main import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    return any("--listen" in action.option_strings for action in commands["serve"]._actions)


@pytest.mark.skipif(not serve_listens(), reason="serve --listen is not in this tree yet")
def test_the_real_http_twin_answers_a_client_at_its_url_until_stop(window, qloop, demo_capture):
    import httpx

    dialog = serve_dialog(window, demo_capture)
    accept = {"Accept": "application/json, text/event-stream"}
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}

    async def scenario():
        dialog.start_button.click()
        await until(lambda: dialog.http.state != "starting", 30, "the twin's URL")
        assert dialog.http.state == "serving", dialog.http_state.text()
        url = dialog.url.text()
        async with httpx.AsyncClient(trust_env=False, timeout=20) as client:
            answer = await client.post(url, json=initialize, headers=accept)
        dialog.stop_button.click()
        await until(lambda: dialog.http.state == "stopped", 20, "the twin to stop")
        return url, answer

    url, answer = qloop.run_until_complete(scenario())
    assert url.startswith("http://127.0.0.1:") and answer.status_code == 200
    body = answer.text
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        body = next(line.removeprefix("data:").strip() for line in body.splitlines() if line.startswith("data:"))
    assert json.loads(body)["result"]["serverInfo"]["name"] == "mcp-inspector-demo"
    assert not listening(url)
