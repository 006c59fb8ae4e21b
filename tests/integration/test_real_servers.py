"""``mcp-inspector record`` and ``show`` against real third-party MCP servers, as a user runs them.

Three servers: a small server built on the official Python SDK (mcp 2.x ``MCPServer``), the reference
``mcp-server-time`` (Python, PyPI) and the reference ``server-everything`` (TypeScript, npm). Each is
recorded once with ``--handshake legacy`` (module-scoped, shared by several tests) and once in ``auto`` mode,
where what happens depends on the server's era and is asserted per server.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from integration_support import (
    Recorded,
    exchange,
    is_gone,
    load_capture,
    messages,
    record_server,
    spawned_pid,
)

from inspector.core.exits import EXIT_RPC_ERROR
from inspector.core.wire.events import Kind

pytestmark = [pytest.mark.integration]

LEGACY_REVISION = "2025-11-25"
MODERN_REVISION = "2026-07-28"
SUMMARY = re.compile(r": (\d+) sent, (\d+) received, (\d+) framing errors?, (\d+) stderr lines?"
                     r"(, \d+ protocol findings?)?; "
                     r"server exited with code 0$")
LATENCY_IN_SHOW = re.compile(r"\d+\.\d ms")


def tool_text(result: dict[str, Any]) -> str:
    """The text of a tools/call result (its text content blocks, joined)."""
    assert result.get("isError") is not True, result
    return "".join(block["text"] for block in result["content"] if block.get("type") == "text")


# What each server is asked to do after the handshake, and how to check its answer.
TOOL_CALLS: dict[str, tuple[dict[str, Any], Callable[[dict[str, Any]], None]]] = {
    "sdk_server": (
        {"method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 40}}},
        lambda result: _check(tool_text(result) == "42", result),
    ),
    "time_server": (
        {"method": "tools/call", "params": {"name": "get_current_time", "arguments": {"timezone": "UTC"}}},
        lambda result: _check(json.loads(tool_text(result))["timezone"] == "UTC", result),
    ),
    "everything_server": (
        {"method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hello from the inspector"}}},
        lambda result: _check(tool_text(result) == "Echo: hello from the inspector", result),
    ),
}
EXPECTED_TOOLS = {
    "sdk_server": {"add", "echo"},
    "time_server": {"get_current_time", "convert_time"},
    "everything_server": {"echo", "get-sum", "get-env"},
}
SERVERS = [
    pytest.param("sdk_server", id="sdk-server"),
    pytest.param("time_server", id="mcp-server-time"),
    pytest.param("everything_server", id="server-everything", marks=pytest.mark.npm),
]


def _check(condition: bool, result: Any) -> None:
    assert condition, f"unexpected tool result: {result}"


def script_for(server_name: str) -> list[dict[str, Any]]:
    return [{"method": "tools/list"}, TOOL_CALLS[server_name][0]]


@pytest.fixture(scope="module", params=SERVERS)
def legacy_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Recorded]:
    """Each real server recorded once with ``--handshake legacy``: tools/list, then one tool call."""
    name = request.param
    server = request.getfixturevalue(name)
    directory = tmp_path_factory.mktemp(f"legacy-{name}")
    run = record_server(directory, "legacy", server, "--handshake", "legacy", "--timeout", "20",
                        send=script_for(name))
    return name, run


# -- legacy handshake, shared run ---------------------------------------------------------------------------


def test_record_in_legacy_mode_exits_0_and_prints_a_one_line_summary(legacy_run: tuple[str, Recorded]) -> None:
    _, run = legacy_run
    assert run.returncode == 0, run.explain()
    assert run.stderr == "", run.explain()
    lines = run.stdout.splitlines()
    assert len(lines) == 1, run.explain()
    assert lines[0].startswith(str(run.out)), run.explain()
    match = SUMMARY.search(lines[0])
    assert match, run.explain()
    sent, received, framing_errors = int(match[1]), int(match[2]), int(match[3])
    # initialize, notifications/initialized, tools/list, tools/call; the server may add notifications
    assert sent == 4 and received >= 3 and framing_errors == 0, run.explain()


def test_legacy_handshake_pairs_initialize_with_its_response_and_then_sends_initialized(
        legacy_run: tuple[str, Recorded]) -> None:
    _, run = legacy_run
    capture = load_capture(run.out)
    sent = messages(capture, "c2s")
    request, response = exchange(capture, "initialize")
    assert sent[0] is request, "initialize must be the first message sent"
    params = request.json()["params"]
    assert params["protocolVersion"] == LEGACY_REVISION
    assert params["clientInfo"]["name"] == "mcp-inspector"
    assert response.rpc is not None and response.rpc.kind == "response"
    assert response.seq > request.seq
    latency = response.data["latency"]
    assert isinstance(latency, float) and 0 <= latency < 20
    assert latency == pytest.approx(response.t - request.t, abs=1e-5)
    result = response.json()["result"]
    assert result["protocolVersion"] == LEGACY_REVISION
    assert isinstance(result["serverInfo"]["name"], str)
    # notifications/initialized is the next thing sent, after the response and before any other request
    assert sent[1].rpc is not None and sent[1].rpc.kind == "notification"
    assert sent[1].method == "notifications/initialized"
    assert sent[1].seq > response.seq
    assert [e.method for e in sent[2:]] == ["tools/list", "tools/call"]
    assert not any(e.method == "server/discover" for e in sent), "legacy mode must not probe"


def test_tools_list_from_the_send_file_is_paired_with_its_response(legacy_run: tuple[str, Recorded]) -> None:
    name, run = legacy_run
    capture = load_capture(run.out)
    request, response = exchange(capture, "tools/list")
    assert request.json()["id"] == 2, "ids continue after initialize's 1"
    assert "_meta" not in request.json().get("params", {}), "no 2026-07-28 _meta in the legacy era"
    assert response.json()["id"] == 2
    assert response.data["request_method"] == "tools/list"
    assert response.data["latency"] >= 0
    names = {tool["name"] for tool in response.json()["result"]["tools"]}
    assert EXPECTED_TOOLS[name] <= names, names


def test_a_tool_call_from_the_send_file_gets_the_tools_result(legacy_run: tuple[str, Recorded]) -> None:
    name, run = legacy_run
    capture = load_capture(run.out)
    request, response = exchange(capture, "tools/call")
    assert request.json()["params"] == TOOL_CALLS[name][0]["params"]
    TOOL_CALLS[name][1](response.json()["result"])


def test_the_capture_starts_with_spawned_and_ends_with_a_clean_exit(legacy_run: tuple[str, Recorded]) -> None:
    _, run = legacy_run
    capture = load_capture(run.out)
    assert capture.target["transport"] == "stdio"
    events = capture.events
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert all(b.t >= a.t for a, b in pairwise(events)), "times must not go backwards"
    assert events[0].kind == Kind.LIFECYCLE and events[0].data["what"] == "spawned"
    exits = [e for e in events if e.kind == Kind.LIFECYCLE and e.data.get("what") == "exited"]
    assert len(exits) == 1 and exits[0].data.get("code") == 0, exits
    assert not any(e.kind == Kind.FRAMING_ERROR for e in events)
    assert not any(f.severity == "error" for e in events for f in e.findings), \
        [(e.seq, e.findings) for e in events if e.findings]
    assert is_gone(spawned_pid(capture))


def test_show_prints_the_methods_in_order_with_latencies(legacy_run: tuple[str, Recorded],
                                                         show: Callable[..., Any]) -> None:
    _, run = legacy_run
    done = show(run.out)
    assert done.returncode == 0 and done.stderr == "", done
    lines = done.stdout.splitlines()
    assert lines[0].startswith("capture of stdio "), lines[0]
    positions = []
    for method in ("initialize", "notifications/initialized", "tools/list", "tools/call"):
        found = [i for i, line in enumerate(lines) if method in line]
        assert found, f"{method} not in show output:\n{done.stdout}"
        positions.append(found[0])
    assert positions == sorted(positions), done.stdout
    for method in ("initialize #1", "tools/list #2", "tools/call #3"):
        response_lines = [line for line in lines if "response" in line and method in line]
        assert len(response_lines) == 1, f"no response line for {method}:\n{done.stdout}"
        assert LATENCY_IN_SHOW.search(response_lines[0]), response_lines[0]


def test_show_json_gives_one_object_per_event_with_the_latency_of_each_response(
        legacy_run: tuple[str, Recorded], show: Callable[..., Any]) -> None:
    _, run = legacy_run
    done = show(run.out, "--json")
    assert done.returncode == 0 and done.stderr == "", done
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(records) == len(load_capture(run.out).events)
    responses = {r["rpc"]["method"]: r for r in records if r["label"] == "response"}
    for method in ("initialize", "tools/list", "tools/call"):
        assert isinstance(responses[method]["latency"], float), responses.get(method)


# -- auto handshake: what actually happens depends on the server ----------------------------------------------


def test_auto_mode_finds_the_sdk_server_modern_and_skips_initialize(
        record: Callable[..., Recorded], sdk_server: list[str]) -> None:
    run = record(sdk_server, "--timeout", "20", send=script_for("sdk_server"))
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    discover, answer = exchange(capture, "server/discover")
    assert messages(capture, "c2s")[0] is discover
    assert MODERN_REVISION in answer.json()["result"]["supportedVersions"]
    assert answer.data["latency"] >= 0
    assert not messages(capture, "c2s", "initialize"), "a modern server gets no initialize"
    assert not messages(capture, "c2s", "notifications/initialized")
    assert any(MODERN_REVISION in str(e.data.get("text")) for e in capture.events if e.kind == Kind.NOTE)
    _assert_every_request_carries_modern_meta(capture)
    _, response = exchange(capture, "tools/call")
    TOOL_CALLS["sdk_server"][1](response.json()["result"])


def test_auto_mode_finds_mcp_server_time_modern_and_skips_initialize(
        record: Callable[..., Recorded], time_server: list[str]) -> None:
    run = record(time_server, "--timeout", "20", send=script_for("time_server"))
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    _, answer = exchange(capture, "server/discover")
    assert MODERN_REVISION in answer.json()["result"]["supportedVersions"]
    assert not messages(capture, "c2s", "initialize")
    _assert_every_request_carries_modern_meta(capture)
    _, tools = exchange(capture, "tools/list")
    assert EXPECTED_TOOLS["time_server"] <= {t["name"] for t in tools.json()["result"]["tools"]}
    _, response = exchange(capture, "tools/call")
    TOOL_CALLS["time_server"][1](response.json()["result"])


@pytest.mark.npm
def test_auto_mode_falls_back_to_initialize_when_server_everything_rejects_server_discover(
        record: Callable[..., Recorded], everything_server: list[str]) -> None:
    run = record(everything_server, "--timeout", "20", send=script_for("everything_server"))
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    sent = messages(capture, "c2s")
    assert [e.method for e in sent] == ["server/discover", "initialize", "notifications/initialized",
                                        "tools/list", "tools/call"]
    _, rejection = exchange(capture, "server/discover")
    assert rejection.rpc is not None and rejection.rpc.kind == "error"
    assert rejection.json()["error"]["code"] == -32601
    notes = [str(e.data.get("text")) for e in capture.events if e.kind == Kind.NOTE]
    assert any("-32601" in text and "initialize" in text for text in notes), notes
    initialize, response = exchange(capture, "initialize")
    assert initialize.seq > rejection.seq
    assert response.json()["result"]["protocolVersion"] == LEGACY_REVISION
    assert sent[2].seq > response.seq
    assert "_meta" not in sent[3].json().get("params", {}), "after falling back, no modern _meta"
    _, echoed = exchange(capture, "tools/call")
    TOOL_CALLS["everything_server"][1](echoed.json()["result"])


def _assert_every_request_carries_modern_meta(capture: Any) -> None:
    for event in messages(capture, "c2s"):
        if event.rpc is not None and event.rpc.kind == "request":
            meta = event.json()["params"]["_meta"]
            assert meta["io.modelcontextprotocol/protocolVersion"] == MODERN_REVISION, event.raw
            assert meta["io.modelcontextprotocol/clientInfo"]["name"] == "mcp-inspector", event.raw


# -- server-everything specifics ----------------------------------------------------------------------------


@pytest.mark.npm
def test_server_everything_sees_the_env_overrides_and_its_stderr_is_recorded(
        record: Callable[..., Recorded], everything_server: list[str], tmp_path: Path) -> None:
    run = record(everything_server, "--handshake", "legacy", "--timeout", "20",
                 "--env", "INSPECTOR_TEST_MARKER=marker-7f3a", "--cwd", str(tmp_path),
                 send=[{"method": "tools/call", "params": {"name": "get-env", "arguments": {}}},
                       {"method": "tools/call", "params": {"name": "get-sum", "arguments": {"a": 19, "b": 23}}}])
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    calls = [e for e in messages(capture, "s2c") if e.data.get("request_method") == "tools/call"]
    assert len(calls) == 2, capture.events
    env = json.loads(tool_text(calls[0].json()["result"]))
    assert env["INSPECTOR_TEST_MARKER"] == "marker-7f3a"
    assert "42" in tool_text(calls[1].json()["result"])
    stderr_lines = [e.text() for e in capture.events if e.kind == Kind.STDERR]
    assert any("Starting" in line for line in stderr_lines), stderr_lines
    spawned = capture.events[0]
    assert spawned.data["cwd"] == str(tmp_path)
    assert spawned.data["env"] == {"INSPECTOR_TEST_MARKER": "marker-7f3a"}
    assert capture.target["env"] == {"INSPECTOR_TEST_MARKER": "marker-7f3a"}


@pytest.mark.npm
def test_server_everything_asks_for_roots_and_gets_the_roots_given_with_the_root_option(
        record: Callable[..., Recorded], everything_server: list[str]) -> None:
    run = record(everything_server, "--handshake", "legacy", "--timeout", "20", "--root", "file:///tmp/project-a",
                 send=[{"method": "tools/call", "params": {"name": "get-roots-list", "arguments": {}}}])
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    initialize, _ = exchange(capture, "initialize")
    assert initialize.json()["params"]["capabilities"] == {"roots": {}}
    asked = [e for e in messages(capture, "s2c", "roots/list") if e.rpc is not None and e.rpc.kind == "request"]
    assert len(asked) == 1, capture.events
    answers = [e for e in messages(capture, "c2s") if e.data.get("reply_to") == asked[0].seq]
    assert len(answers) == 1, "the inspector answers the server's request, and the answer is paired with it"
    assert answers[0].json() == {"jsonrpc": "2.0", "id": asked[0].rpc.id,
                                 "result": {"roots": [{"uri": "file:///tmp/project-a", "name": "project-a"}]}}
    _, listed = exchange(capture, "tools/call")
    assert "file:///tmp/project-a" in tool_text(listed.json()["result"])


@pytest.mark.npm
def test_modern_mode_on_server_everything_fails_with_the_servers_error_in_one_sentence(
        record: Callable[..., Recorded], everything_server: list[str]) -> None:
    run = record(everything_server, "--handshake", "modern", "--timeout", "20", send=[{"method": "tools/list"}])
    assert run.returncode == EXIT_RPC_ERROR, run.explain()
    assert run.stderr == ("mcp-inspector: the server answered server/discover with an error: "
                          "Method not found (code -32601)\n"), run.explain()
    capture = load_capture(run.out)
    assert [e.method for e in messages(capture, "c2s")] == ["server/discover"], "nothing is sent after the failure"


@pytest.mark.npm
def test_the_protocol_version_option_is_what_initialize_asks_for_and_server_everything_agrees(
        record: Callable[..., Recorded], everything_server: list[str]) -> None:
    run = record(everything_server, "--handshake", "legacy", "--protocol-version", "2024-11-05", "--timeout", "20")
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    request, response = exchange(capture, "initialize")
    assert request.json()["params"]["protocolVersion"] == "2024-11-05"
    assert response.json()["result"]["protocolVersion"] == "2024-11-05"
    assert not [e for e in capture.events if e.kind == Kind.NOTE]


def test_asking_the_sdk_server_for_an_unknown_protocol_version_notes_the_version_it_chose(
        record: Callable[..., Recorded], sdk_server: list[str]) -> None:
    run = record(sdk_server, "--handshake", "legacy", "--protocol-version", "1999-01-01", "--timeout", "20",
                 send=[{"method": "tools/list"}])
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    _, response = exchange(capture, "initialize")
    chosen = response.json()["result"]["protocolVersion"]
    assert chosen == LEGACY_REVISION
    notes = [e.data["text"] for e in capture.events if e.kind == Kind.NOTE]
    assert notes == [f"asked for protocol 1999-01-01, the server chose {chosen}"]
    exchange(capture, "tools/list")


def test_modern_mode_on_the_sdk_server_sends_server_discover_without_probing(
        record: Callable[..., Recorded], sdk_server: list[str]) -> None:
    run = record(sdk_server, "--handshake", "modern", "--timeout", "20", send=[{"method": "tools/list"}])
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    assert [e.method for e in messages(capture, "c2s")] == ["server/discover", "tools/list"]
    notes = [str(e.data.get("text")) for e in capture.events if e.kind == Kind.NOTE]
    assert not any("probing" in text for text in notes), notes
    _assert_every_request_carries_modern_meta(capture)
    exchange(capture, "tools/list")


def test_secrets_in_the_server_env_and_argv_are_redacted_in_the_capture_unless_no_redact(
        record: Callable[..., Recorded], sdk_server: list[str]) -> None:
    secret = "s3cr3t-4d8e"
    server = [*sdk_server, f"--api-key={secret}"]
    redacted = record(server, "--handshake", "legacy", "--env", f"API_TOKEN={secret}", "--timeout", "20")
    assert redacted.returncode == 0, redacted.explain()
    assert secret.encode() not in redacted.out.read_bytes()
    capture = load_capture(redacted.out)
    assert capture.target["env"] == {"API_TOKEN": "[redacted]"} and capture.target["redacted"] is True
    assert capture.target["argv"][-1] == "--api-key=[redacted]"
    assert capture.events[0].data["env"] == {"API_TOKEN": "[redacted]"}
    kept = record(server, "--handshake", "legacy", "--env", f"API_TOKEN={secret}", "--timeout", "20", "--no-redact")
    assert kept.returncode == 0, kept.explain()
    assert load_capture(kept.out).target["env"] == {"API_TOKEN": secret}
