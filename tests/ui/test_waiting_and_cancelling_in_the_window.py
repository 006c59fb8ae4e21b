"""The window's request lifecycle against real servers: an elicitation answered after the request timeout still
completes its tools/call; a cancel is sent once and its row says so; a closed session's requests say they got no
answer; the window's timeout comes from --timeout or Session > Request timeout…, where "no timeout" is a choice.
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
from pathlib import Path

import pytest
from helpers import until
from npm_servers import install_everything
from qt_loop import accept_elicitation, open_test_window
from qt_loop import call_tool as call
from qt_loop import latency_cell as latency

from inspector.cli.main import build_parser
from inspector.core.connect.target import Target
from inspector.core.wire.events import Direction, Event, Kind
from inspector.ui.session.live import READY
from inspector.ui.session.tab import SessionTab
from inspector.ui.timeout_dialog import NO_TIMEOUT_TEXT, TimeoutDialog

pytestmark = pytest.mark.integration
WAITS_ON_CLIENT = [sys.executable, str(Path(__file__).resolve().parents[1] / "core" / "servers" / "waits_on_client.py")]
#: The request timeout these tests set once the session is ready (the handshake keeps the default).
TIMEOUT = 2.0


@pytest.fixture
def window(qapp, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        yield win


def sent(tab: SessionTab, method: str) -> list[Event]:
    return [e for e in tab.events if e.kind == Kind.MESSAGE and e.dir == Direction.C2S and e.method == method]


def notes(tab: SessionTab) -> list[str]:
    return [str(e.data.get("text")) for e in tab.events if e.kind == Kind.NOTE]


async def ready_session(window, argv: list[str], name: str) -> SessionTab:
    tab = window.open_live(window.session_settings.with_request_timeout(Target(name=name, argv=argv)))
    await until(lambda: tab.live.state == READY, 60, f"the {name} handshake")
    window.session_settings.set_request_timeout(TIMEOUT)  # from now on: the open session's next requests wait TIMEOUT
    return tab


async def past(seconds: float, since: float) -> None:
    """Let the loop run until its clock has certainly passed ``since + seconds``."""
    loop = asyncio.get_running_loop()
    await until(lambda: loop.time() > since + seconds, seconds + 30, f"{seconds:g} s to pass")


def test_an_elicitation_answered_after_the_timeout_still_completes_its_tool_call(window, qloop):
    node, entry = install_everything()

    async def scenario():
        tab = await ready_session(window, [node, str(entry), "stdio"], "everything")
        loop = asyncio.get_running_loop()
        started = loop.time()
        request = await call(tab, "trigger-elicitation-request")
        await until(lambda: tab.requests.count() == 1, 15, "the elicitation in the Server requests panel")
        asked = tab.requests.current()
        await past(TIMEOUT + 1.0, started)  # the user answers well after the timeout
        tab.feed.flush_now()
        waiting = latency(tab, request)
        response = await accept_elicitation(tab, request, {"name": "Ada Lovelace"})
        return tab, request, asked, waiting, response

    tab, request, asked, waiting, response = qloop.run_until_complete(scenario())
    question = next(e for e in tab.events if e.dir == Direction.S2C and e.method == "elicitation/create")
    assert asked.method == "elicitation/create"
    assert waiting == f"waiting for your answer to elicitation/create #{json.dumps(question.rpc.id)}"
    assert "Ada Lovelace" in json.dumps(response.json()["result"])
    assert latency(tab, request).endswith((" ms", " s")) and "after" not in latency(tab, request)
    assert not [n for n in notes(tab) if "no response" in n]
    assert sent(tab, "notifications/cancelled") == []


def test_cancel_sends_one_notification_and_the_row_says_cancelled_even_after_the_timeout(window, qloop):
    async def scenario():
        tab = await ready_session(window, WAITS_ON_CLIENT, "waits")
        loop = asyncio.get_running_loop()
        started = loop.time()
        request = await call(tab, "stall")
        assert tab.timeline.select_seq(request.seq)
        assert tab.cancel_selected()
        await until(lambda: sent(tab, "notifications/cancelled"), 10, "the cancellation")
        tab.feed.flush_now()
        cancelled = latency(tab, request)
        await past(TIMEOUT + 1.0, started)  # the timeout would have fired by now
        assert not tab.cancel_selected(), "asked twice: nothing more is sent, and the tab says so"
        assert "already cancelled" in tab.status.text()
        await asyncio.sleep(0)
        tab.feed.flush_now()
        return tab, request, cancelled

    tab, request, cancelled = qloop.run_until_complete(scenario())
    assert cancelled == "cancelled" and latency(tab, request) == "cancelled"
    [notification] = sent(tab, "notifications/cancelled")
    assert notification.json()["params"]["requestId"] == request.rpc.id
    assert not [n for n in notes(tab) if "no response" in n]
    assert tab.live.sentence == ""  # a cancel is not a failure


def test_the_late_answer_to_a_cancelled_request_is_paired_and_marked_after_cancel(window, qloop):
    async def scenario():
        tab = await ready_session(window, WAITS_ON_CLIENT, "waits")
        request = await call(tab, "stall", {"answer_on_cancel": True})
        assert tab.timeline.select_seq(request.seq)
        assert tab.cancel_selected()
        await until(lambda: any(e.data.get("reply_to") == request.seq for e in tab.events), 10, "the late answer")
        tab.feed.flush_now()
        return tab, request, next(e for e in tab.events if e.data.get("reply_to") == request.seq)

    tab, request, late = qloop.run_until_complete(scenario())
    assert latency(tab, request).endswith(" ms after cancel")
    assert latency(tab, late).endswith(" ms after cancel")
    assert tab.model.pair_row(tab.model.row_of_seq(late.seq)) == tab.model.row_of_seq(request.seq)


def test_a_timed_out_request_names_the_setting_that_raises_it_once_and_says_timed_out(window, qloop):
    async def scenario():
        tab = await ready_session(window, WAITS_ON_CLIENT, "waits")
        request = await call(tab, "stall")
        await until(lambda: any("no response" in n for n in notes(tab)), TIMEOUT + 10, "the timeout")
        await until(lambda: sent(tab, "notifications/cancelled"), 10, "the cancellation")
        tab.feed.flush_now()
        return tab, request

    tab, request = qloop.run_until_complete(scenario())
    [said] = [n for n in notes(tab) if "no response" in n]
    assert said == ("no response to tools/call within 2 s; to wait longer, raise Session > Request timeout…")
    assert said in tab.status.text()
    assert latency(tab, request) == "no answer (timed out)"
    assert len(sent(tab, "notifications/cancelled")) == 1


def test_requests_pending_when_the_session_ends_say_they_got_no_answer(window, qloop):
    async def scenario():
        tab = await ready_session(window, WAITS_ON_CLIENT, "waits")
        window.session_settings.set_request_timeout(math.inf)
        request = await call(tab, "stall")
        window.stop_current()
        await until(lambda: tab.live.state == "closed", 15, "the session to close")
        return tab, request

    tab, request = qloop.run_until_complete(scenario())
    assert latency(tab, request) == "no answer (connection closed)"


def test_the_window_timeout_comes_from_the_command_line_or_the_setting_and_none_is_a_choice(qapp, qloop, tmp_path):
    args = build_parser().parse_args(["--timeout", "none", "--url", "http://127.0.0.1:9/mcp"])
    assert args.gui_timeout == math.inf and Target.from_window_args(args, []).timeout == math.inf
    assert build_parser().parse_args(["--timeout", "7.5"]).gui_timeout == 7.5
    with open_test_window(qloop, tmp_path) as win:
        assert win.session_settings.request_timeout() == 30.0
        win.session_settings.set_request_timeout(math.inf)
        assert win.settings.value("session/timeout") in (0, 0.0, "0", "0.0")
        assert win.session_settings.request_timeout() == math.inf
        assert win.session_settings.with_request_timeout(Target(name="x", argv=["x"])).timeout == math.inf
        dialog = TimeoutDialog(win.session_settings.request_timeout(), win)
        assert dialog.spin.text() == NO_TIMEOUT_TEXT and dialog.seconds() == math.inf
        dialog.spin.setValue(12)
        assert dialog.seconds() == 12
        win.session_settings.timeout_override = 5.0  # what --timeout 5 gives the window
        assert win.session_settings.request_timeout() == 5.0
