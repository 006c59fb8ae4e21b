"""The app host's state machine over fake ports, without a server or a browser (the quick suite's; the same
behaviour against a real SDK server is tests/core/apps/test_host.py, an integration test).

:class:`AppHost` is sans-io: the web view hands it each message the app posted, and it reaches the app, the
session and a person only through :class:`HostPorts`, which these tests fill with lists and coroutines."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from helpers import until

from inspector.core.apps.host import INTERNAL_ERROR, AppHost, AppPhase, HostPorts
from inspector.core.apps.policy import policy_of
from inspector.core.transports.base import TransportError
from inspector.core.wire.events import Event, Kind

#: no step here waits on anything slower than the event loop
BOUND = 5
TOOL = {"name": "show", "inputSchema": {"type": "object"}, "_meta": {"ui": {"resourceUri": "ui://t/app.html"}}}
MODEL_ONLY = {"name": "secret", "inputSchema": {"type": "object"}, "_meta": {"ui": {"visibility": ["model"]}}}


class FakePorts:
    """The host's ports as lists: what it posted to the app, recorded, and asked the server."""

    def __init__(self, *, server: Callable[[str, Any], Any] | None = None, open_link: bool = False) -> None:
        self.posted: list[dict[str, Any]] = []
        self.recorded: list[Event] = []
        self.asked: list[tuple[str, Any, int]] = []
        self.modes: list[str] = []
        self.server = server or (lambda method, params: {"content": [{"type": "text", "text": "ok"}]})
        self.open_link = open_link

    def record(self, event: Event) -> Event:
        event.seq = len(self.recorded) + 1
        self.recorded.append(event)
        return event

    async def request(self, method: str, params: Any, app_seq: int) -> Event:
        self.asked.append((method, params, app_seq))
        result = self.server(method, params)  # may raise TransportError, as the session does
        raw = json.dumps({"jsonrpc": "2.0", "id": len(self.asked), "result": result}).encode()
        return Event(Kind.MESSAGE, raw=raw, dir="s2c")

    async def confirm(self, url: str) -> tuple[bool, str]:
        return self.open_link, "the person said yes" if self.open_link else "the person said no"

    def ports(self) -> HostPorts:
        return HostPorts(post=self.posted.append, record=self.record, request=self.request,
                         open_link=self.confirm, display_mode=self.modes.append)


def host_of(fake: FakePorts, *, clock: Callable[[], float] | None = None) -> AppHost:
    return AppHost(1, TOOL, {"note": "hi"}, policy_of({"csp": {"connectDomains": ["https://api.example"]}}),
                   fake.ports(), tools=[TOOL, MODEL_ONLY], call_id=41, **({"clock": clock} if clock else {}))


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(scenario(), BOUND))


def send(host: AppHost, method: str, params: Any = None, msg_id: Any = None) -> Event:
    obj: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        obj["params"] = params
    if msg_id is not None:
        obj["id"] = msg_id
    return host.receive(json.dumps(obj))


async def answered(host: AppHost, fake: FakePorts, msg_id: Any) -> dict[str, Any]:
    await host.tasks.wait(BOUND)
    return next(p for p in fake.posted if p.get("id") == msg_id and "method" not in p)


async def teardown_asked(host: AppHost, fake: FakePorts) -> tuple[asyncio.Future[bool], dict[str, Any]]:
    """A ready app asked to tear down: the teardown under way, and the request the app got."""
    send(host, "ui/notifications/initialized", {})
    teardown = asyncio.ensure_future(host.teardown("done", timeout=BOUND))
    await until(lambda: any(p.get("method") == "ui/resource-teardown" for p in fake.posted), BOUND, "the teardown")
    return teardown, next(p for p in fake.posted if p.get("method") == "ui/resource-teardown")


def test_ui_initialize_gets_the_host_its_context_and_policy_and_the_app_is_then_initializing() -> None:
    async def scenario() -> None:
        fake = FakePorts()
        host = host_of(fake)
        assert host.state.phase == AppPhase.LOADING
        send(host, "ui/initialize", {"protocolVersion": "1999-01-01", "appInfo": {"name": "a"}}, 1)
        result = (await answered(host, fake, 1))["result"]
        assert result["protocolVersion"] == "2026-01-26", "an unknown revision is answered with ours"
        assert result["hostInfo"]["name"] == "mcp-inspector"
        assert result["hostCapabilities"]["sandbox"]["csp"]["connectDomains"] == ["https://api.example"]
        assert result["hostContext"]["toolInfo"] == {"id": 41, "tool": TOOL}
        assert host.state.phase == AppPhase.INITIALIZING and host.state.app_info == {"name": "a"}

    run(scenario)


def test_nothing_goes_to_the_app_before_its_initialized_then_its_input_before_its_result() -> None:
    async def scenario() -> None:
        fake = FakePorts()
        host = host_of(fake)
        host.tool_result({"content": [{"type": "text", "text": "42"}]})
        host.change_context(theme="dark")
        assert fake.posted == [], "not ready: neither the result nor the context change is sent"
        send(host, "ui/notifications/initialized", {})
        assert host.state.phase == AppPhase.READY
        assert [p["method"] for p in fake.posted] == ["ui/notifications/tool-input", "ui/notifications/tool-result"]
        assert fake.posted[0]["params"] == {"arguments": {"note": "hi"}}
        host.tool_result({"content": []})
        assert len(fake.posted) == 2, "a result goes out once"
        assert host.settled

    run(scenario)


def test_a_message_before_ui_initialize_is_flagged_but_answered() -> None:
    async def scenario() -> None:
        fake = FakePorts()
        host = host_of(fake)
        event = send(host, "ping", None, 1)
        assert [f.code for f in event.findings] == ["app-before-initialize"]
        assert (await answered(host, fake, 1))["result"] == {}

    run(scenario)


def test_the_apps_tool_calls_go_through_the_port_but_not_one_of_a_tool_it_may_not_call() -> None:
    async def scenario() -> None:
        fake = FakePorts()
        host = host_of(fake)
        call = send(host, "tools/call", {"name": "show", "arguments": {}}, 1)
        assert (await answered(host, fake, 1))["result"]["content"][0]["text"] == "ok"
        assert fake.asked == [("tools/call", {"name": "show", "arguments": {}}, call.seq)]
        send(host, "tools/call", {"name": "secret", "arguments": {}}, 2)
        refused = await answered(host, fake, 2)
        assert refused["error"]["code"] == -32602 and "not callable by apps" in refused["error"]["message"]
        assert len(fake.asked) == 1 and host.state.refused_calls == ["secret"]

    run(scenario)


def test_a_session_that_cannot_send_is_an_error_answer_not_a_lost_request() -> None:
    def broken(method: str, params: Any) -> Any:
        raise TransportError("the server is gone")

    async def scenario() -> None:
        fake = FakePorts(server=broken)
        host = host_of(fake)
        send(host, "resources/read", {"uri": "ui://t/x"}, 1)
        answer = await answered(host, fake, 1)
        assert answer["error"] == {"code": INTERNAL_ERROR, "message": "the server is gone"}
        assert len(host.tasks) == 0, "nothing is left in flight"

    run(scenario)


def test_what_the_host_does_not_handle_is_method_not_found_and_a_non_message_a_finding() -> None:
    async def scenario() -> None:
        fake = FakePorts()
        host = host_of(fake)
        send(host, "sampling/createMessage", {"messages": []}, 1)
        assert (await answered(host, fake, 1))["error"]["code"] == -32601
        assert [f.code for f in host.receive('"just a string"').findings] == ["app-not-jsonrpc"]

    run(scenario)


def test_a_link_is_opened_only_when_the_person_agrees_and_display_modes_only_as_declared() -> None:
    async def scenario() -> None:
        for agrees in (True, False):
            fake = FakePorts(open_link=agrees)
            host = host_of(fake)
            send(host, "ui/initialize", {"appCapabilities": {"availableDisplayModes": ["inline"]}}, 1)
            send(host, "ui/open-link", {"url": "https://example.com/"}, 2)
            send(host, "ui/request-display-mode", {"mode": "fullscreen"}, 3)
            link = await answered(host, fake, 2)
            assert ("result" in link) is agrees
            assert host.state.links[0]["opened"] is agrees
            assert (await answered(host, fake, 3))["result"] == {"mode": "inline"} and fake.modes == []

    run(scenario)


def test_a_teardown_is_paired_with_the_apps_answer_and_what_comes_after_is_not_acted_on() -> None:
    async def scenario() -> None:
        fake = FakePorts()
        host = host_of(fake)
        teardown, request = await teardown_asked(host, fake)
        answer = host.receive(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {}}))
        assert await teardown is True and host.state.phase == AppPhase.CLOSED
        asked = next(e for e in fake.recorded if e.rpc is not None and e.rpc.method == "ui/resource-teardown")
        assert answer.data["reply_to"] == asked.seq and answer.data["request_method"] == "ui/resource-teardown"
        late = send(host, "tools/call", {"name": "show", "arguments": {}}, 9)
        assert [f.code for f in late.findings] == ["app-after-teardown"]
        await host.tasks.wait(BOUND)
        assert fake.asked == [] and not any(p.get("id") == 9 for p in fake.posted)

    run(scenario)


def test_an_answer_whose_id_is_of_another_json_type_is_not_taken_for_the_hosts_request() -> None:
    async def scenario() -> None:
        fake = FakePorts()
        host = host_of(fake)
        teardown, request = await teardown_asked(host, fake)
        wrong = host.receive(json.dumps({"jsonrpc": "2.0", "id": [request["id"]], "result": {}}))
        assert "app-unknown-id" in [f.code for f in wrong.findings] and not teardown.done()
        host.receive(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {}}))
        assert await teardown is True

    run(scenario)
