"""Over Streamable HTTP, against the real server-everything: the refused server/discover probe is negotiation, not
a fault, and its row is resolved by its HTTP answer; an elicitation on a tools/call's stream stops that call's
clock only (the spec's related request), so it is answered after the timeout, and after the HTTP layer's own
bound, and the call still completes.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from helpers import until
from http_support import ServerProcess, record_url
from integration.integration_support import load_capture
from qt_loop import accept_elicitation, open_test_window, qloop  # noqa: F401 - the shared fixture
from qt_loop import call_tool as send
from qt_loop import latency_cell as latency

from inspector.core.capture.columns import PROBLEM, is_problem
from inspector.core.connect.target import HTTP_BACKSTOP, Target
from inspector.core.wire.events import Direction, Event, Kind

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

pytestmark = [pytest.mark.integration, pytest.mark.npm]
#: The window's request timeout in the HTTP test (the HTTP layer's own bound is HTTP_BACKSTOP more).
TIMEOUT = 2.0


def probe_answers(events: list[Event]) -> tuple[Event, Event, Event]:
    """The server/discover probe, the HTTP answer to its POST and the JSON-RPC error in that answer's body."""
    probe = next(e for e in events if e.dir == Direction.C2S and e.method == "server/discover")
    exchange = probe.data["exchange"]
    http = next(e for e in events if e.kind == Kind.HTTP and e.data.get("exchange") == exchange and "status" in e.data)
    error = next(e for e in events if e.kind == Kind.MESSAGE and e.dir == Direction.S2C
                 and e.data.get("exchange") == exchange)
    return probe, http, error


def test_the_servers_400_to_our_probe_is_explained_as_negotiation_not_flagged_as_its_fault(
        everything_streamable: ServerProcess, tmp_path: Path) -> None:
    run = record_url(tmp_path, "probe", everything_streamable.url("/mcp"), "--timeout", "20")
    assert run.returncode == 0, run.stderr
    assert "protocol finding" not in run.stdout  # nothing the server did wrong
    _, http, error = probe_answers(load_capture(run.out).events)
    assert http.data["status"] == 400 and error.rpc.id is None
    for event in (http, error):
        assert not is_problem(event)
        [finding] = event.findings
        assert (finding.code, finding.severity) == ("probe-refused", "info")
        assert finding.text.startswith("the server refused our server/discover probe with HTTP 400: expected")


def test_in_the_window_the_probe_row_says_its_http_answer_and_an_elicitation_stops_only_its_own_calls_clock(
        everything_streamable: ServerProcess, qapp, qloop, tmp_path: Path) -> None:  # noqa: F811 - the fixture
    from inspector.ui.session.live import READY

    with open_test_window(qloop, tmp_path) as window:
        async def scenario():
            window.session_settings.set_request_timeout(TIMEOUT)
            tab = window.open_live(window.session_settings.with_request_timeout(Target(name="everything",
                                                                      url=everything_streamable.url("/mcp"))))
            await until(lambda: tab.live.state == READY, 60, "the handshake")
            loop = asyncio.get_running_loop()
            started = loop.time()
            slow = await send(tab, "trigger-long-running-operation", {"duration": 30, "steps": 1})
            asking = await send(tab, "trigger-elicitation-request", {})
            await until(lambda: tab.requests.count() == 1, 15, "the elicitation in the Server requests panel")
            # the user answers after the timeout, and after the HTTP layer's bound on a quiet stream would have
            await until(lambda: loop.time() > started + TIMEOUT + HTTP_BACKSTOP + 1.0, 30, "the bounds to pass")
            tab.feed.flush_now()
            waiting = latency(tab, asking)
            response = await accept_elicitation(tab, asking, {"name": "Ada Lovelace"})
            return tab, slow, asking, waiting, response

        tab, slow, asking, waiting, response = qloop.run_until_complete(scenario())
        probe, _, error = probe_answers(tab.events)
        assert latency(tab, probe) == "HTTP 400"
        assert not tab.model.columns.categories[tab.model.row_of_seq(error.seq)] & PROBLEM  # not a red row
        [paused] = [e for e in tab.events if e.kind == Kind.NOTE and "paused" in e.data]
        assert paused.data["paused"] == [asking.rpc.id]  # it came on that call's stream: only that one waits
        assert waiting.startswith("waiting for your answer to elicitation/create #")
        assert latency(tab, slow) == "no answer (timed out)"  # its clock ran on
        assert "Ada Lovelace" in json.dumps(response.json())
        # on the call's own stream, which stayed open while the user took their time (not a resumed one)
        assert response.data["exchange"] == asking.data["exchange"]
