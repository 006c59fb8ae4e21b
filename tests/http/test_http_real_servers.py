"""``record --url`` and ``show`` against real HTTP MCP servers, as a user runs them.

Two servers, each in both HTTP modes: a server built on the official Python SDK (mcp 2.x ``MCPServer``,
servers/sdk_http_server.py) and the reference TypeScript ``@modelcontextprotocol/server-everything`` (npm),
forced onto 127.0.0.1. Each is recorded once in the default ``auto`` mode (module-scoped runs shared by
several tests), where the inspector must detect the transport and say why, and the two Streamable HTTP
servers once more with ``--handshake legacy``, where sessions, the protocol version header, the standalone
GET stream, DELETE at close, notifications on response streams and server requests answered with
``--answer`` are checked on the wire.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from http_support import (
    LOOPBACK_HEX,
    ServerProcess,
    header,
    http_events,
    http_exchange,
    listening_addresses,
    notes,
    record_url,
    result_text,
    show,
    sse_events,
)
from integration.integration_support import (
    Recorded,
    exchange,
    lifecycle,
    load_capture,
    messages,
)

from inspector.core.capture import Capture
from inspector.core.wire.events import Event, Kind

pytestmark = [pytest.mark.integration]

LEGACY_REVISION = "2025-11-25"
MODERN_REVISION = "2026-07-28"


class Target:
    """One real server in one mode, and what the inspector should make of it."""

    def __init__(self, fixture: str, path: str, transport: str, *, fallback_status: int | None = None,
                 endpoint_path: str = "", tools: set[str], call: dict[str, Any], answer: str) -> None:
        self.fixture = fixture
        self.path = path
        self.transport = transport  #: what auto must choose
        self.fallback_status = fallback_status  #: the status that makes auto fall back to HTTP+SSE
        self.endpoint_path = endpoint_path  #: where an HTTP+SSE server tells us to POST
        self.tools = tools  #: some of the tools it lists
        self.call = call  #: one tools/call
        self.answer = answer  #: text its result must contain


SDK_ADD = {"method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 40}}}
EVERYTHING_SUM = {"method": "tools/call", "params": {"name": "get-sum", "arguments": {"a": 2, "b": 40}}}
TARGETS = {
    "sdk-streamable": Target("sdk_streamable", "/mcp", "streamable-http", tools={"add", "echo", "work", "ask"},
                             call=SDK_ADD, answer="42"),
    "sdk-sse": Target("sdk_sse", "/sse", "sse", fallback_status=405, endpoint_path="/messages/?session_id=",
                      tools={"add", "echo", "work", "ask"}, call=SDK_ADD, answer="42"),
    "everything-streamable": Target("everything_streamable", "/mcp", "streamable-http", tools={"echo", "get-sum"},
                                    call=EVERYTHING_SUM,
                                    answer="The sum of 2 and 40 is 42."),
    "everything-sse": Target("everything_sse", "/sse", "sse", fallback_status=404, endpoint_path="/message?sessionId=",
                             tools={"echo", "get-sum"}, call=EVERYTHING_SUM, answer="The sum of 2 and 40 is 42."),
}
NPM = pytest.mark.npm
SSE_PARAMS = [
    pytest.param("sdk-sse", id="sdk-sse"),
    pytest.param("everything-sse", id="everything-sse", marks=NPM),
]
AUTO_PARAMS = [
    pytest.param("sdk-streamable", id="sdk-streamable"),
    pytest.param("everything-streamable", id="everything-streamable", marks=NPM),
    *SSE_PARAMS,
]


def is_request(event: Event) -> bool:
    return event.rpc is not None and event.rpc.kind == "request"


def response_to(capture: Capture, request: Event) -> Event:
    found = [e for e in capture.events if e.kind == Kind.MESSAGE and e.data.get("reply_to") == request.seq]
    assert len(found) == 1, f"request #{request.seq} {request.rpc} has no paired response"
    return found[0]


def tools_call(capture: Capture, name: str) -> tuple[Event, Event]:
    """The tools/call request for tool ``name`` and its paired response."""
    requests = [e for e in messages(capture, "c2s", "tools/call")
                if is_request(e) and e.json()["params"]["name"] == name]
    assert len(requests) == 1, requests
    return requests[0], response_to(capture, requests[0])


# -- recorded once per server -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def recorded() -> dict[tuple[str, str], Any]:
    """Runs already recorded in this module, by (mode, server): each is recorded once, then shared."""
    return {}


@pytest.fixture(params=AUTO_PARAMS)
def auto_run(request: pytest.FixtureRequest, recorded: dict[tuple[str, str], Any],
             tmp_path_factory: pytest.TempPathFactory) -> tuple[Target, ServerProcess, Recorded]:
    """Each server recorded in the default mode (``--transport auto --handshake auto``): tools/list, one call."""
    key = ("auto", request.param)
    if key not in recorded:
        target = TARGETS[request.param]
        server: ServerProcess = request.getfixturevalue(target.fixture)
        run = record_url(tmp_path_factory.mktemp(f"auto-{request.param}"), "auto", server.url(target.path),
                         "--timeout", "20", send=[{"method": "tools/list"}, target.call])
        recorded[key] = (target, server, run)
    return recorded[key]


def test_record_in_auto_mode_exits_0_and_the_summary_names_the_transport_it_chose(
        auto_run: tuple[Target, ServerProcess, Recorded]) -> None:
    target, _, run = auto_run
    assert run.returncode == 0, run.explain()
    assert run.stderr == "", run.explain()
    assert run.stdout.rstrip().endswith(f"; transport {target.transport} (chosen automatically)"), run.explain()


def test_auto_mode_pairs_tools_list_and_the_tool_call_with_their_responses(
        auto_run: tuple[Target, ServerProcess, Recorded]) -> None:
    target, _, run = auto_run
    capture = run.capture
    _, tools = exchange(capture, "tools/list")
    assert target.tools <= {t["name"] for t in tools.json()["result"]["tools"]}
    _, answer = exchange(capture, "tools/call")
    assert target.answer in result_text(answer)


def test_auto_mode_notes_which_transport_it_chose_and_why(auto_run: tuple[Target, ServerProcess, Recorded]) -> None:
    target, server, run = auto_run
    said = notes(run.capture)
    assert any(text.startswith("transport auto: trying Streamable HTTP first") for text in said), said
    if target.transport == "sse":
        fallback = f"Streamable HTTP refused initialize with HTTP {target.fallback_status}: falling back to HTTP+SSE"
        assert any(text.startswith(fallback) for text in said), said
        endpoint = f"using HTTP+SSE (2024-11-05): the server's endpoint is {server.url(target.endpoint_path)}"
        assert any(text.startswith(endpoint) for text in said), said
        assert not any(text.startswith("using Streamable HTTP") for text in said), said
    else:
        assert any(text.startswith("using Streamable HTTP (") for text in said), said
        assert not any("falling back" in text for text in said), said


def test_auto_mode_falls_back_only_after_the_status_that_justifies_it(
        auto_run: tuple[Target, ServerProcess, Recorded]) -> None:
    """The initialize POST that was refused is in the capture with its status, before the SSE GET."""
    target, server, run = auto_run
    capture = run.capture
    posts = [e for e in http_events(capture, method="POST") if e.data.get("purpose") == "initialize"]
    gets = [e for e in http_events(capture, method="GET") if e.data.get("purpose") == "event stream"]
    if target.transport == "sse":
        assert [e.data["status"] for e in posts] == [target.fallback_status, 202]
        assert posts[0].data["url"] == server.url(target.path)
        assert len(gets) == 1 and posts[0].seq < gets[0].seq < posts[1].seq
        assert gets[0].data["status"] == 200
        assert header(gets[0].data["response_headers"], "content-type").startswith("text/event-stream")
    else:
        assert gets == []
        assert all(e.data["url"] == server.url(target.path) for e in http_events(capture, method="POST"))


def test_every_message_names_the_http_exchange_that_carried_it(auto_run: tuple[Target, ServerProcess, Recorded]
                                                               ) -> None:
    """A message sent is its own POST; a message received came in the POST's answer (Streamable HTTP) or on
    the GET event stream (HTTP+SSE), inside an SSE ``message`` event when it came in one."""
    target, _, run = auto_run
    capture = run.capture
    exchanges = {e.data["exchange"]: e for e in http_events(capture)}
    for message in messages(capture):
        number = message.data.get("exchange")
        assert number in exchanges, f"message #{message.seq} names no recorded exchange: {message.data}"
        carrier = exchanges[number]
        if message.dir == "c2s":
            assert carrier.data["method"] == "POST"
            assert carrier.seq > message.seq  # the exchange is recorded once answered
        elif target.transport == "sse":
            assert carrier.data["method"] == "GET" and carrier.data["purpose"] == "event stream"
            assert message.data["sse"]["event"] == "message"
        else:
            assert carrier.data["method"] == "POST"
            content_type = header(carrier.data["response_headers"], "content-type")
            assert ("sse" in message.data) == content_type.startswith("text/event-stream"), (message.data, carrier.data)


def test_every_http_exchange_records_its_request_and_response_headers_status_and_timing(
        auto_run: tuple[Target, ServerProcess, Recorded]) -> None:
    _, server, run = auto_run
    for event in http_events(run.capture):
        data = event.data
        assert data["url"].startswith(server.url("/")), data
        assert header(data["request_headers"], "user-agent") == "mcp-inspector"
        assert isinstance(data["status"], int) and data["reason"], data
        assert data["response_headers"], data
        assert data["timing"].get("first_byte", 0) > 0 or data["timing"].get("total", 0) > 0, data
        if data["method"] == "POST":
            assert header(data["request_headers"], "content-type") == "application/json"


@pytest.mark.parametrize("auto_run", SSE_PARAMS, indirect=True)
def test_http_sse_messages_arrive_on_one_event_stream_opened_by_an_endpoint_event(
        auto_run: tuple[Target, ServerProcess, Recorded]) -> None:
    target, server, run = auto_run
    capture = run.capture
    endpoints = [e for e in sse_events(capture) if e.data.get("event") == "endpoint"]
    assert len(endpoints) == 1
    assert endpoints[0].data["endpoint"].startswith(server.url(target.endpoint_path))
    posts = [e for e in http_events(capture, method="POST") if e.seq > endpoints[0].seq]
    assert posts and all(e.data["url"] == endpoints[0].data["endpoint"] for e in posts)
    assert all(e.data["status"] == 202 for e in posts)
    ends = http_events(capture, ended=True)
    assert [e.data["exchange"] for e in ends] == [endpoints[0].data["exchange"]]  # the stream ended at close


def test_show_displays_the_http_exchanges_beside_the_messages_and_the_notes(
        auto_run: tuple[Target, ServerProcess, Recorded]) -> None:
    target, server, run = auto_run
    done = show(run.out)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"capture of auto {server.url(target.path)}")
    request_line = next(i for i, line in enumerate(lines) if re.search(r"→\s+request\s+tools/list #\d+", line))
    status = 202 if target.transport == "sse" else 200
    http_line = next(i for i, line in enumerate(lines) if f"(tools/list) → {status} " in line)
    response_line = next(i for i, line in enumerate(lines)
                         if re.search(r"←\s+response\s+tools/list #\d+ +\d+\.\d ms", line))
    assert request_line < http_line <= request_line + 5, "\n".join(lines[request_line - 1:response_line + 2])
    assert re.search(rf"http {status} +\[exchange \d+\] POST http://127\.0\.0\.1:\d+/", lines[http_line])
    assert re.search(r"first byte \d+\.\d ms", lines[http_line])
    assert "using " in done.stdout and "transport auto: trying Streamable HTTP first" in done.stdout
    if target.transport == "sse":
        assert "falling back to HTTP+SSE" in done.stdout
        assert re.search(r"sse +\[exchange \d+\] event=endpoint: http://127\.0\.0\.1:\d+/", done.stdout)


def test_show_json_gives_the_http_events_with_their_data(auto_run: tuple[Target, ServerProcess, Recorded]) -> None:
    _, _, run = auto_run
    done = show(run.out, "--json")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    http = [r for r in records if r["kind"] == "http" and "status" in r["data"]]
    assert http and all(r["label"] == f"http {r['data']['status']}" for r in http)
    assert {"exchange", "method", "url", "request_headers", "response_headers", "timing"} <= set(http[0]["data"])
    assert any(r["kind"] == "note" for r in records)


@pytest.mark.parametrize("auto_run", ["sdk-streamable"], indirect=True)
def test_the_sdk_server_is_spoken_to_in_2026_07_28_without_session_get_stream_or_delete(
        auto_run: tuple[Target, ServerProcess, Recorded]) -> None:
    """Auto mode finds the SDK's Streamable HTTP server modern: every POST mirrors the method and name into
    headers and carries the protocol version; there is no session to echo or end."""
    _, _, run = auto_run
    capture = run.capture
    assert messages(capture, "c2s", "initialize") == []
    posts = http_events(capture, method="POST")
    assert [e.data["purpose"] for e in posts] == ["server/discover", "tools/list", "tools/call"]
    for event in posts:
        sent = event.data["request_headers"]
        assert header(sent, "mcp-protocol-version") == MODERN_REVISION
        assert header(sent, "mcp-method") == event.data["purpose"]
        assert header(sent, "mcp-session-id") is None
        assert header(event.data["response_headers"], "mcp-session-id") is None
    assert header(posts[2].data["request_headers"], "mcp-name") == "add"
    assert http_events(capture, method="GET") == [] and http_events(capture, method="DELETE") == []
    assert "using Streamable HTTP (2026-07-28, stateless)" in notes(capture)


# -- server-everything binds 127.0.0.1 only ---------------------------------------------------------------


@pytest.mark.npm
@pytest.mark.parametrize("fixture", ["everything_streamable", "everything_sse"])
def test_server_everything_listens_on_127_0_0_1_only(fixture: str, request: pytest.FixtureRequest) -> None:
    server: ServerProcess = request.getfixturevalue(fixture)
    assert listening_addresses(server.port) == [LOOPBACK_HEX], f"port {server.port}: {listening_addresses(server.port)}"


# -- Streamable HTTP with the legacy handshake ------------------------------------------------------------

SDK_SCRIPT = [
    {"method": "tools/list"},
    SDK_ADD,
    {"method": "tools/call", "params": {"name": "work", "arguments": {"steps": 3}, "_meta": {"progressToken": "w1"}}},
    {"method": "tools/call", "params": {"name": "ask", "arguments": {}}},
]
SAMPLED_TEXT = "sampled by the inspector"
EVERYTHING_SCRIPT = [
    {"method": "tools/list"},
    EVERYTHING_SUM,
    {"method": "tools/call", "params": {"name": "trigger-sampling-request",
                                        "arguments": {"prompt": "hi", "maxTokens": 5}}},
    {"method": "tools/call", "params": {"name": "trigger-elicitation-request", "arguments": {}}},
    {"method": "tools/call", "params": {"name": "trigger-long-running-operation",
                                        "arguments": {"duration": 0.3, "steps": 3}, "_meta": {"progressToken": "lro"}}},
    {"method": "tools/call", "params": {"name": "toggle-simulated-logging", "arguments": {}}},
]
SDK_LEGACY = pytest.param("sdk-streamable", id="sdk-streamable")
EVERYTHING_LEGACY = pytest.param("everything-streamable", id="everything-streamable", marks=NPM)
LEGACY_PARAMS = [SDK_LEGACY, EVERYTHING_LEGACY]


@pytest.fixture(params=LEGACY_PARAMS)
def legacy_run(request: pytest.FixtureRequest, recorded: dict[tuple[str, str], Any],
               tmp_path_factory: pytest.TempPathFactory) -> tuple[str, ServerProcess, Recorded]:
    """Each Streamable HTTP server recorded with ``--transport streamable-http --handshake legacy`` and answers
    for its server requests: listings, calls, progress and logging, elicitation and sampling."""
    name = request.param
    key = ("legacy", name)
    if key not in recorded:
        server: ServerProcess = request.getfixturevalue(TARGETS[name].fixture)
        script = SDK_SCRIPT if name.startswith("sdk") else EVERYTHING_SCRIPT
        run = record_url(tmp_path_factory.mktemp(f"legacy-{name}"), "legacy", server.url("/mcp"),
                         "--transport", "streamable-http", "--handshake", "legacy", "--timeout", "20",
                         "--answer", "elicitation=accept-defaults", "--answer", f"sampling=text:{SAMPLED_TEXT}",
                         send=script)
        recorded[key] = (name, server, run)
    return recorded[key]


def test_record_with_the_legacy_handshake_exits_0(legacy_run: tuple[str, ServerProcess, Recorded]) -> None:
    _, _, run = legacy_run
    assert run.returncode == 0, run.explain()
    assert run.stdout.rstrip().endswith("; transport streamable-http"), run.explain()


def test_the_session_id_from_initialize_is_echoed_on_every_later_request(
        legacy_run: tuple[str, ServerProcess, Recorded]) -> None:
    _, _, run = legacy_run
    events = http_events(run.capture)
    initialize = events[0]
    assert initialize.data["purpose"] == "initialize"
    assert header(initialize.data["request_headers"], "mcp-session-id") is None
    session = header(initialize.data["response_headers"], "mcp-session-id")
    assert session, initialize.data
    later = events[1:]
    assert {e.data["method"] for e in later} == {"POST", "GET", "DELETE"}
    for event in later:
        assert header(event.data["request_headers"], "mcp-session-id") == session, event.data


def test_the_protocol_version_header_is_sent_on_every_request_after_the_handshake(
        legacy_run: tuple[str, ServerProcess, Recorded]) -> None:
    _, _, run = legacy_run
    capture = run.capture
    _, init_response = exchange(capture, "initialize")
    assert init_response.json()["result"]["protocolVersion"] == LEGACY_REVISION
    events = http_events(capture)
    assert events[0].data["purpose"] == "initialize" and events[1].data["purpose"] == "notifications/initialized"
    assert header(events[0].data["request_headers"], "mcp-protocol-version") is None
    for event in events[2:]:
        assert header(event.data["request_headers"], "mcp-protocol-version") == LEGACY_REVISION, event.data
        assert header(event.data["request_headers"], "mcp-method") is None  # a 2026-07-28 header only


def test_the_initialized_notification_already_carries_the_negotiated_protocol_version(
        legacy_run: tuple[str, ServerProcess, Recorded]) -> None:
    _, _, run = legacy_run
    initialized = http_events(run.capture)[1]
    assert initialized.data["purpose"] == "notifications/initialized"
    assert header(initialized.data["request_headers"], "mcp-protocol-version") == LEGACY_REVISION


def test_a_standalone_get_stream_is_opened_after_the_handshake(legacy_run: tuple[str, ServerProcess, Recorded]
                                                               ) -> None:
    _, _, run = legacy_run
    capture = run.capture
    gets = http_events(capture, method="GET")
    assert len(gets) == 1, gets
    get = gets[0]
    assert get.data["purpose"] == "standalone stream"
    assert header(get.data["request_headers"], "accept") == "text/event-stream"
    assert get.data["status"] == 200
    assert header(get.data["response_headers"], "content-type").startswith("text/event-stream")
    initialized = messages(capture, "c2s", "notifications/initialized")[0]
    assert get.seq > initialized.seq


def test_the_session_is_ended_with_delete_after_the_last_request(legacy_run: tuple[str, ServerProcess, Recorded]
                                                                 ) -> None:
    _, _, run = legacy_run
    capture = run.capture
    deletes = http_events(capture, method="DELETE")
    assert len(deletes) == 1
    delete = deletes[0]
    assert delete.data["purpose"] == "end session"
    assert 200 <= delete.data["status"] < 300 or delete.data["status"] == 405
    assert all(e.seq < delete.seq for e in http_events(capture, method="POST"))
    closed = lifecycle(capture, "closed")
    assert len(closed) == 1 and closed[0].seq > delete.seq and closed[0] is capture.events[-1]


def test_posts_of_notifications_and_responses_are_answered_202(legacy_run: tuple[str, ServerProcess, Recorded]
                                                               ) -> None:
    _, _, run = legacy_run
    capture = run.capture
    sent = [m for m in messages(capture, "c2s") if not is_request(m)]
    assert {m.rpc.kind for m in sent} >= {"notification", "response"}
    for message in sent:
        assert http_exchange(capture, message.data["exchange"]).data["status"] == 202


def test_every_request_of_the_script_is_paired_with_its_response(legacy_run: tuple[str, ServerProcess, Recorded]
                                                                 ) -> None:
    name, _, run = legacy_run
    capture = run.capture
    requests = [m for m in messages(capture, "c2s") if is_request(m)]
    script = SDK_SCRIPT if name.startswith("sdk") else EVERYTHING_SCRIPT
    assert [m.rpc.method for m in requests] == ["initialize", *[m["method"] for m in script]]
    for request in requests:
        response = response_to(capture, request)
        assert response.rpc.kind == "response", response.json()
    _, tools = exchange(capture, "tools/list")
    assert tools.json()["result"]["tools"]


def progress_and_answer(capture: Capture, tool: str) -> tuple[Event, Event, list[Event]]:
    request, response = tools_call(capture, tool)
    number = response.data["exchange"]
    notifications = [m for m in messages(capture, "s2c")
                     if m.rpc.kind == "notification" and m.data.get("exchange") == number]
    return request, response, notifications


def test_progress_notifications_arrive_on_the_calls_sse_stream_before_its_response(
        legacy_run: tuple[str, ServerProcess, Recorded]) -> None:
    name, _, run = legacy_run
    capture = run.capture
    tool, token = ("work", "w1") if name.startswith("sdk") else ("trigger-long-running-operation", "lro")
    request, response, notifications = progress_and_answer(capture, tool)
    carrier = http_exchange(capture, response.data["exchange"])
    assert carrier.data["method"] == "POST" and carrier.seq > request.seq
    assert header(carrier.data["response_headers"], "content-type").startswith("text/event-stream")
    progress = [n for n in notifications if n.rpc.method == "notifications/progress"]
    assert [(n.json()["params"]["progressToken"], n.json()["params"]["progress"]) for n in progress] == \
        [(token, 1), (token, 2), (token, 3)]
    assert all(carrier.seq < n.seq < response.seq for n in progress)
    assert all(n.data["sse"]["event"] == "message" for n in progress)
    end = [e for e in http_events(capture, ended=True) if e.data["exchange"] == carrier.data["exchange"]]
    assert len(end) == 1 and end[0].seq > response.seq and "error" not in end[0].data


@pytest.mark.parametrize("legacy_run", [SDK_LEGACY], indirect=True)
def test_the_sdk_servers_log_notifications_arrive_on_the_calls_sse_stream_before_its_response(
        legacy_run: tuple[str, ServerProcess, Recorded]) -> None:
    _, _, run = legacy_run
    _, response, notifications = progress_and_answer(run.capture, "work")
    logs = [n.json()["params"] for n in notifications if n.rpc.method == "notifications/message"]
    assert logs == [{"level": "info", "data": f"step {i} of 3"} for i in (1, 2, 3)]
    assert result_text(response) == "done after 3 steps"


@pytest.mark.parametrize("legacy_run", [EVERYTHING_LEGACY], indirect=True)
def test_server_everything_logs_on_the_standalone_get_stream(legacy_run: tuple[str, ServerProcess, Recorded]) -> None:
    _, _, run = legacy_run
    capture = run.capture
    get = http_events(capture, method="GET")[0]
    logs = [m for m in messages(capture, "s2c", "notifications/message")]
    assert logs, "no log notification arrived"
    assert all(m.data["exchange"] == get.data["exchange"] for m in logs)
    _, toggled = tools_call(capture, "toggle-simulated-logging")
    assert "Started simulated, random-leveled logging" in result_text(toggled)


def server_request_and_answer(capture: Capture, method: str) -> tuple[Event, Event]:
    """The server's request ``method`` and the inspector's (c2s) answer paired with it."""
    asked = messages(capture, "s2c", method)
    assert len(asked) == 1, asked
    answers = [m for m in messages(capture, "c2s") if m.data.get("reply_to") == asked[0].seq]
    assert len(answers) == 1, f"{method} was not answered"
    return asked[0], answers[0]


def test_an_elicitation_is_answered_with_the_schema_defaults_and_the_tool_sees_them(
        legacy_run: tuple[str, ServerProcess, Recorded]) -> None:
    name, _, run = legacy_run
    capture = run.capture
    tool = "ask" if name.startswith("sdk") else "trigger-elicitation-request"
    _, tool_response = tools_call(capture, tool)
    asked, answer = server_request_and_answer(capture, "elicitation/create")
    assert asked.data["exchange"] == tool_response.data["exchange"]  # asked on the call's own stream
    assert asked.seq < answer.seq < tool_response.seq
    result = answer.json()["result"]
    assert result["action"] == "accept"
    if name.startswith("sdk"):
        assert result["content"] == {"colour": "teal"}
        assert result_text(tool_response) == "accepted: teal"
    else:
        assert result["content"]["firstLine"] == "It was a dark and stormy night."
        assert result["content"]["integer"] == 42
        assert "User provided the requested information" in result_text(tool_response)
    assert http_exchange(capture, answer.data["exchange"]).data["status"] == 202


@pytest.mark.parametrize("legacy_run", [EVERYTHING_LEGACY], indirect=True)
def test_a_sampling_request_is_answered_with_the_given_text_and_the_tool_returns_it(
        legacy_run: tuple[str, ServerProcess, Recorded]) -> None:
    _, _, run = legacy_run
    capture = run.capture
    _, tool_response = tools_call(capture, "trigger-sampling-request")
    asked, answer = server_request_and_answer(capture, "sampling/createMessage")
    assert asked.data["exchange"] == tool_response.data["exchange"]
    assert asked.json()["params"]["maxTokens"] == 5
    assert answer.json()["result"] == {"role": "assistant", "content": {"type": "text", "text": SAMPLED_TEXT},
                                       "model": "mcp-inspector", "stopReason": "endTurn"}
    assert SAMPLED_TEXT in result_text(tool_response)


# -- HTTP+SSE with answers --------------------------------------------------------------------------------


@pytest.mark.npm
def test_over_http_sse_server_requests_arrive_on_the_event_stream_and_the_answers_are_posted(
        everything_sse: ServerProcess, tmp_path: Path) -> None:
    """server-everything in sse mode asks for sampling and elicitation on the GET stream; the inspector
    POSTs its answers (a declined sampling as an error, a declined elicitation as a result) to the endpoint."""
    run = record_url(tmp_path, "answers", everything_sse.url("/sse"), "--transport", "sse", "--handshake", "legacy",
                     "--answer", "sampling=error", "--answer", "elicitation=decline", "--idle", "0",
                     send=[EVERYTHING_SCRIPT[2], EVERYTHING_SCRIPT[3]])
    assert run.returncode == 0, run.explain()
    capture = run.capture
    stream = http_events(capture, method="GET")[0]
    _, sampled = server_request_and_answer(capture, "sampling/createMessage")
    assert sampled.json()["error"]["code"] == -1
    asked, declined = server_request_and_answer(capture, "elicitation/create")
    assert declined.json()["result"] == {"action": "decline"}
    assert asked.data["exchange"] == stream.data["exchange"] and asked.data["sse"]["event"] == "message"
    endpoint = next(e for e in sse_events(capture) if e.data.get("event") == "endpoint").data["endpoint"]
    for answer in (sampled, declined):
        posted = http_exchange(capture, answer.data["exchange"])
        assert posted.data["url"] == endpoint and posted.data["status"] == 202
    _, tool_response = tools_call(capture, "trigger-elicitation-request")
    assert "declined" in result_text(tool_response)


# -- a redirect from the real SDK server ------------------------------------------------------------------


def test_a_trailing_slash_on_the_sdk_servers_url_is_followed_with_a_warning_naming_the_url_to_use(
        sdk_streamable: ServerProcess, tmp_path: Path) -> None:
    run = record_url(tmp_path, "slash", sdk_streamable.url("/mcp/"), "--idle", "0", send=[{"method": "tools/list"}])
    assert run.returncode == 0, run.explain()
    capture = run.capture
    first = http_events(capture)[0]
    assert first.data["status"] == 307 and first.data["url"] == sdk_streamable.url("/mcp/")
    [finding] = first.findings
    assert finding.code == "redirect" and finding.severity == "warning"
    assert f"the server wants the URL {sdk_streamable.url('/mcp')}; use it directly" in finding.text
    assert all(e.data["url"] == sdk_streamable.url("/mcp") for e in http_events(capture)[1:])
    assert load_capture(run.out).events


def test_a_2026_notification_carries_the_protocol_version_header_and_the_sdk_server_takes_it(
        record, sdk_streamable: ServerProcess) -> None:
    """"Every POST request to the MCP endpoint MUST include an MCP-Protocol-Version header" (2026-07-28): a
    notification's _meta has no protocolVersion to mirror, and without the header the SDK server took the POST
    for 2025-03-26's and refused it, 400 "Missing session ID" (which left check's notification checks
    incomplete)."""
    note = {"jsonrpc": "2.0", "method": "notifications/mcp-inspector/check", "params": {"note": "no answer"}}
    run = record(sdk_streamable.url("/mcp"), "--handshake", "modern", send=[note, {"method": "tools/list"}])
    assert run.returncode == 0, run.explain()
    [post] = [e for e in http_events(run.capture, method="POST")
              if e.data["purpose"] == "notifications/mcp-inspector/check"]
    assert header(post.data["request_headers"], "mcp-protocol-version") == MODERN_REVISION
    assert post.data["status"] == 202, post.data
