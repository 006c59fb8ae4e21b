"""The host's state machine against a real session (the probe app server, on the mcp SDK's MCP Apps
extension): the app's messages are fed as the web view would pass them, what the host posts back is collected.

It answers ui/initialize with its context and the policy it enforces, sends nothing before the app's
initialized and then the tool's input before its result, passes the app's tool calls and reads to the server
(refusing a tool whose visibility lacks "app", before anything is sent), answers what it does not handle with
-32601, and records every message both ways in the session, each answer paired with its request."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from app_servers.support import Origins, probe_argv
from helpers import until

from inspector.core.apps.host import AppHost, HostContext, HostPorts
from inspector.core.apps.loader import find_tool, load_app
from inspector.core.apps.meta import client_extension
from inspector.core.connect.target import Target, make_transport
from inspector.core.session.session import Session
from inspector.core.wire.events import Event, Kind

pytestmark = [pytest.mark.integration]
#: the Python server starts and answers in well under this on a loaded machine
BOUND = 30
ORIGINS = Origins("http://127.0.0.1:9", "http://127.0.0.1:10")  # the host never reaches them: no browser here


class Harness:
    """A host of the probe app on the live session, and everything it posted to the app."""

    def __init__(self, session: Session, host: AppHost, posted: list[dict[str, Any]], modes: list[str]) -> None:
        self.session, self.host, self.posted, self.modes = session, host, posted, modes
        self.next_id = 1
        self.first_seq = session.last_seq

    def send(self, method: str, params: Any = None, *, notify: bool = False) -> Any:
        obj: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            obj["params"] = params
        if not notify:
            obj["id"] = self.next_id
            self.next_id += 1
        self.host.receive(json.dumps(obj))
        return obj.get("id")

    async def answer(self, msg_id: Any) -> dict[str, Any]:
        await until(lambda: any(p.get("id") == msg_id and "method" not in p for p in self.posted), BOUND,
                    f"the answer to #{msg_id}")
        return next(p for p in self.posted if p.get("id") == msg_id and "method" not in p)

    def events(self) -> list[Event]:
        """The session's events since this harness was made."""
        return [e for e in self.session.events if e.seq > self.first_seq]

    def app_events(self) -> list[Event]:
        return [e for e in self.events() if e.kind == Kind.APP]


class LiveProbe:
    """One session with the probe app server for the whole module (the SDK server takes seconds to start), on
    an event loop of its own thread; each test runs its scenario on it with a fresh host."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.session, self.tool, self.tools, self.spec = self.call(self._connect(), BOUND)

    def call(self, coro: Any, timeout: float) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def _connect(self) -> tuple[Session, dict[str, Any], list[dict[str, Any]], Any]:
        session = Session(make_transport(Target(name="probe", argv=probe_argv(ORIGINS))))
        session.extensions = client_extension()
        await session.start()
        await session.handshake()
        tool, tools = await find_tool(session, "probe", BOUND)
        return session, tool, tools, await load_app(session, tool, tools, BOUND)

    def harness(self, **context: Any) -> Harness:
        posted: list[dict[str, Any]] = []
        modes: list[str] = []

        async def request(method: str, params: Any, app_seq: int) -> Event:
            return await self.session.request(method, params, timeout=BOUND)

        ports = HostPorts(post=posted.append, record=self.session.record, request=request, display_mode=modes.append)
        host = AppHost(1, self.tool, {"note": "hi"}, self.spec.policy, ports, tools=self.tools,
                       context=HostContext(**context), call_id=41)
        return Harness(self.session, host, posted, modes)

    def close(self) -> None:
        self.call(self.session.close(), BOUND)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(BOUND)
        self.loop.close()


@pytest.fixture(scope="module")
def probe() -> Iterator[LiveProbe]:
    live = LiveProbe()
    try:
        yield live
    finally:
        live.close()


@pytest.fixture
def run(probe: LiveProbe) -> Callable[[Any], None]:
    """Run ``scenario(harness)`` on the module's session with a fresh host."""

    def runner(scenario: Any) -> None:
        async def wrapped() -> None:
            harness = probe.harness()
            try:
                await scenario(harness)
            finally:
                await harness.host.tasks.wait(5)

        probe.call(wrapped(), BOUND * 2)

    return runner


def test_ui_initialize_is_answered_with_the_host_its_context_and_the_policy_it_enforces(run):
    async def scenario(h: Harness) -> None:
        msg_id = h.send("ui/initialize", {"protocolVersion": "2026-01-26", "appInfo": {"name": "probe"},
                                          "appCapabilities": {}})
        result = (await h.answer(msg_id))["result"]
        assert result["protocolVersion"] == "2026-01-26"
        assert result["hostInfo"]["name"] == "mcp-inspector"
        assert result["hostCapabilities"]["sandbox"]["csp"]["connectDomains"] == [ORIGINS.allowed]
        assert {"openLinks", "serverTools", "serverResources", "logging"} <= set(result["hostCapabilities"])
        context = result["hostContext"]
        assert context["toolInfo"] == {"id": 41, "tool": h.host.tool}
        assert context["displayMode"] == "inline" and context["availableDisplayModes"] == ["inline", "fullscreen"]
        assert context["theme"] == "light" and context["containerDimensions"]["width"] == 800
        assert h.host.state.phase == "initializing" and h.host.state.app_info == {"name": "probe"}

    run(scenario)


def test_an_older_app_protocol_version_is_answered_in_kind_and_an_unknown_one_with_ours(run):
    async def scenario(h: Harness) -> None:
        assert (await h.answer(h.send("ui/initialize", {"protocolVersion": "2025-11-21"})))["result"][
            "protocolVersion"] == "2025-11-21"
        assert (await h.answer(h.send("ui/initialize", {"protocolVersion": "1999-01-01"})))["result"][
            "protocolVersion"] == "2026-01-26"

    run(scenario)


def test_nothing_is_sent_to_the_app_before_its_initialized_then_the_input_before_the_result(run):
    async def scenario(h: Harness) -> None:
        h.host.tool_result({"content": [{"type": "text", "text": "42"}]})
        h.send("ui/initialize", {"protocolVersion": "2026-01-26"})
        await h.answer(1)
        assert [p.get("method") for p in h.posted] == [None], "only the answer to ui/initialize went out"
        h.send("ui/notifications/initialized", {}, notify=True)
        assert [p.get("method") for p in h.posted[1:]] == ["ui/notifications/tool-input",
                                                          "ui/notifications/tool-result"]
        assert h.posted[1]["params"] == {"arguments": {"note": "hi"}}
        assert h.posted[2]["params"]["content"][0]["text"] == "42"
        h.host.tool_result({"content": []})  # a second result is not sent again
        assert len(h.posted) == 3

    run(scenario)


def test_a_result_that_comes_after_initialized_goes_out_when_it_comes(run):
    async def scenario(h: Harness) -> None:
        h.send("ui/notifications/initialized", {}, notify=True)
        assert [p["method"] for p in h.posted] == ["ui/notifications/tool-input"]
        h.host.tool_failed({"code": -32000, "message": "the tool blew up"})
        assert h.posted[-1]["params"] == {"content": [{"type": "text", "text": "the tool blew up"}], "isError": True}
        assert h.host.settled

    run(scenario)


def test_the_apps_tool_calls_reach_the_server_but_not_a_tool_the_app_may_not_call(run):
    async def scenario(h: Harness) -> None:
        sent_before = [e for e in h.events() if e.kind == Kind.MESSAGE and e.method == "tools/call"]
        step = await h.answer(h.send("tools/call", {"name": "app-only-step", "arguments": {}}))
        assert step["result"]["content"][0]["text"] == "step done"
        refused = await h.answer(h.send("tools/call", {"name": "model-only", "arguments": {}}))
        assert refused["error"]["code"] == -32602 and "not callable by apps" in refused["error"]["message"]
        calls = [e.json()["params"]["name"] for e in h.events()
                 if e.kind == Kind.MESSAGE and e.dir == "c2s" and e.method == "tools/call"]
        assert not sent_before and calls == ["app-only-step"], "the refused call never reached the server"
        assert h.host.state.refused_calls == ["model-only"]
        read = await h.answer(h.send("resources/read", {"uri": "ui://probe/blank.html"}))
        assert read["result"]["contents"][0]["uri"] == "ui://probe/blank.html"

    run(scenario)


def test_what_the_host_does_not_handle_is_method_not_found_and_a_bad_message_a_finding(run):
    async def scenario(h: Harness) -> None:
        answer = await h.answer(h.send("sampling/createMessage", {"messages": []}))
        assert answer["error"]["code"] == -32601
        h.host.receive('"just a string"')
        event = h.app_events()[-1]
        assert event.dir == "a2h" and [f.code for f in event.findings] == ["app-not-jsonrpc"]

    run(scenario)


def test_the_app_gets_fullscreen_only_when_it_declared_it_and_never_pip(run):
    async def scenario(h: Harness) -> None:
        h.send("ui/initialize", {"protocolVersion": "2026-01-26",
                                 "appCapabilities": {"availableDisplayModes": ["inline", "fullscreen"]}})
        assert (await h.answer(h.send("ui/request-display-mode", {"mode": "pip"})))["result"] == {"mode": "inline"}
        assert (await h.answer(h.send("ui/request-display-mode", {"mode": "fullscreen"})))["result"] == {
            "mode": "fullscreen"}
        assert h.modes == ["fullscreen"]

    run(scenario)


def test_an_app_that_did_not_declare_fullscreen_stays_inline(run):
    async def scenario(h: Harness) -> None:
        h.send("ui/initialize", {"protocolVersion": "2026-01-26", "appCapabilities": {"availableDisplayModes":
                                                                                      ["inline"]}})
        assert (await h.answer(h.send("ui/request-display-mode", {"mode": "fullscreen"})))["result"] == {
            "mode": "inline"}
        assert h.modes == []

    run(scenario)


def test_messages_context_and_links_are_kept_and_a_link_is_never_opened_headless(run):
    async def scenario(h: Harness) -> None:
        await h.answer(h.send("ui/message", {"role": "user", "content": [{"type": "text", "text": "hi"}]}))
        await h.answer(h.send("ui/update-model-context", {"content": [{"type": "text", "text": "one"}]}))
        await h.answer(h.send("ui/update-model-context", {"structuredContent": {"n": 2}}))
        link = await h.answer(h.send("ui/open-link", {"url": "https://example.com/"}))
        assert link["error"]["code"] == -32000 and "denied" in link["error"]["message"]
        state = h.host.state
        assert state.messages == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
        assert state.model_context == {"structuredContent": {"n": 2}}, "each update replaces the last"
        assert state.links == [{"url": "https://example.com/", "opened": False, "reason": "this host opens no links"}]
        assert any(e.data.get("what") == "link" and e.data.get("opened") is False for e in h.app_events())

    run(scenario)


def test_every_message_is_an_app_event_and_each_answer_is_paired_with_its_request(run):
    async def scenario(h: Harness) -> None:
        msg_id = h.send("ping")
        await h.answer(msg_id)
        h.send("ui/notifications/initialized", {}, notify=True)
        teardown = asyncio.ensure_future(h.host.teardown("done"))
        await until(lambda: any(p.get("method") == "ui/resource-teardown" for p in h.posted), BOUND, "the teardown")
        request = next(p for p in h.posted if p.get("method") == "ui/resource-teardown")
        h.host.receive(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {}}))
        assert await teardown is True
        events = h.app_events()
        by_method = {(e.dir, e.rpc.method or e.data.get("request_method")): e for e in events if e.rpc is not None}
        ping, pong = by_method[("a2h", "ping")], by_method[("h2a", "ping")]
        assert pong.data["reply_to"] == ping.seq and pong.rpc.kind == "response"
        asked, answered = by_method[("h2a", "ui/resource-teardown")], by_method[("a2h", "ui/resource-teardown")]
        assert answered.data["reply_to"] == asked.seq and answered.data["latency"] >= 0
        assert all(e.data["app"] == 1 for e in events)
        assert h.host.state.phase == "closed"

    run(scenario)


def test_the_host_is_settled_only_when_everything_is_answered_and_the_tool_data_delivered(run):
    async def scenario(h: Harness) -> None:
        h.send("ui/notifications/initialized", {}, notify=True)
        assert not h.host.settled, "the result is not there yet"
        h.host.tool_result({"content": []})
        assert h.host.settled
        msg_id = h.send("tools/call", {"name": "app-only-step", "arguments": {}})
        assert not h.host.settled, "a call of the app is under way"
        await h.answer(msg_id)
        assert h.host.settled and h.host.quiet_for() < BOUND

    run(scenario)


def test_what_the_app_sends_after_its_teardown_is_recorded_but_not_acted_on(run):
    async def scenario(h: Harness) -> None:
        h.send("ui/notifications/initialized", {}, notify=True)
        teardown = asyncio.ensure_future(h.host.teardown("done", timeout=0.01))
        assert await teardown is False, "it did not answer in time"
        before = len(h.posted)
        h.send("tools/call", {"name": "app-only-step", "arguments": {}})
        late = h.app_events()[-1]
        assert [f.code for f in late.findings] == ["app-after-teardown"]
        assert h.host.settled is False and len(h.posted) == before, "no answer, no call to the server"
        assert not any(e.kind == Kind.MESSAGE and e.method == "tools/call" for e in h.events())

    run(scenario)
