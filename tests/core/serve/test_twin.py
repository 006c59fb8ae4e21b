"""The twin of ``serve`` over capture files written here, without a process: the handshake as recorded, the
server's notifications around an answer, big answers, and what bad bytes of the client get."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from lines_capture import write_messages

from inspector.core.serve.index import ServeIndex
from inspector.core.serve.twin import Twin
from inspector.core.wire.events import Direction
from inspector.core.wire.framing import LineDecoder

C, S = Direction.C2S, Direction.S2C
LEGACY_INIT = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {"listChanged": True}},
               "serverInfo": {"name": "recorded", "version": "1.0"}, "instructions": "be kind"}
DISCOVER = {"supportedVersions": ["2026-07-28", "2025-11-25", "2025-06-18"], "capabilities": {"tools": {}},
            "instructions": "modern",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "2"}}}


def request(msg_id: int, method: str, params: Any = None) -> tuple[str, dict[str, Any]]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        message["params"] = params
    return C, message


def result(msg_id: int, value: Any) -> tuple[str, dict[str, Any]]:
    return S, {"jsonrpc": "2.0", "id": msg_id, "result": value}


def notification(direction: str, method: str, params: Any = None) -> tuple[str, dict[str, Any]]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return direction, message


def write_capture(path: Path, messages: list[tuple[str, dict[str, Any]]]) -> Path:
    """A capture of these messages as the session's pipeline writes one (numbered, paired, saved)."""
    return write_messages(path, messages, cwd=None, env={}, redacted=True)


_OPEN: list[ServeIndex] = []


def twin_of(path: Path, mode: str = "auto") -> Twin:
    index = ServeIndex(path)
    _OPEN.append(index)
    return Twin(index, mode)


@pytest.fixture(autouse=True)
def indexes_closed():
    yield
    while _OPEN:
        _OPEN.pop().close()


def send(twin: Twin, *lines: bytes | dict[str, Any]) -> list[dict[str, Any]]:
    """Feed the client's lines through the stdio decoder; the twin's answers, parsed."""
    decoder = LineDecoder(C)
    data = b"".join((line if isinstance(line, bytes) else json.dumps(line).encode()) + b"\n" for line in lines)
    out = []
    for event in decoder.feed(data):
        out += [json.loads(o.line) for o in twin.receive(event)]
    return out


@pytest.fixture
def legacy(tmp_path: Path) -> Path:
    return write_capture(tmp_path / "legacy.jsonl", [
        request(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c"}}),
        result(1, LEGACY_INIT),
        notification(C, "notifications/initialized"),
        notification(S, "notifications/tools/list_changed"),
        request(2, "tools/call", {"name": "count", "arguments": {"n": 2}, "_meta": {"progressToken": "rec-1"}}),
        notification(S, "notifications/progress", {"progressToken": "rec-1", "progress": 1}),
        notification(S, "notifications/progress", {"progressToken": "rec-1", "progress": 2}),
        result(2, {"content": [{"type": "text", "text": "counted"}]}),
        notification(S, "notifications/message", {"level": "info", "data": "done counting"}),
        request(3, "tools/list"),
        result(3, {"tools": [{"name": "count"}], "nextCursor": "page-2"}),
        request(4, "tools/list", {"cursor": "page-2"}),
        result(4, {"tools": [{"name": "second-page"}]}),
    ])


def test_initialize_gets_the_recorded_result_with_the_clients_id(legacy):
    twin = twin_of(legacy)
    answers = send(twin, {"jsonrpc": "2.0", "id": "init-x", "method": "initialize",
                          "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "y"}}})
    assert answers == [{"jsonrpc": "2.0", "id": "init-x", "result": LEGACY_INIT}]
    assert not twin.handshake.missing


def test_a_client_revision_the_recorded_server_did_not_show_gets_the_recorded_one(legacy):
    answers = send(twin_of(legacy), {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                     "params": {"protocolVersion": "2025-11-25", "capabilities": {}}})
    assert answers[0]["result"]["protocolVersion"] == "2025-06-18"  # as the real server answered


def test_server_discover_on_a_capture_of_the_initialize_era_is_method_not_found(legacy):
    answers = send(twin_of(legacy), {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}})
    assert answers[0]["error"]["code"] == -32601


def test_a_modern_capture_answers_discover_as_recorded_and_initialize_from_it(tmp_path):
    capture = write_capture(tmp_path / "modern.jsonl", [request(1, "server/discover", {}), result(1, DISCOVER)])
    twin = twin_of(capture)
    assert send(twin, {"jsonrpc": "2.0", "id": 9, "method": "server/discover"}) == [
        {"jsonrpc": "2.0", "id": 9, "result": DISCOVER}]
    init = send(twin, {"jsonrpc": "2.0", "id": 10, "method": "initialize",
                       "params": {"protocolVersion": "2025-06-18", "capabilities": {}}})[0]["result"]
    assert init == {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "modern", "version": "2"}, "instructions": "modern"}
    newest = send(twin, {"jsonrpc": "2.0", "id": 11, "method": "initialize",
                         "params": {"protocolVersion": "2024-11-05", "capabilities": {}}})[0]["result"]
    assert newest["protocolVersion"] == "2025-11-25"  # not listed: the newest the server listed


def test_a_capture_without_a_handshake_still_answers_initialize_from_its_requests(tmp_path):
    capture = write_capture(tmp_path / "bare.jsonl", [request(5, "tools/list"), result(5, {"tools": []})])
    twin = twin_of(capture)
    assert twin.handshake.missing
    init = send(twin, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"protocolVersion": "2025-06-18", "capabilities": {}}})[0]["result"]
    assert init["capabilities"] == {"tools": {}} and init["protocolVersion"] == "2025-06-18"
    assert send(twin, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) == [
        {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}]


def test_progress_comes_before_the_answer_with_the_clients_token_and_the_log_line_after_it(legacy):
    answers = send(twin_of(legacy), {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "count", "arguments": {"n": 2}, "_meta": {"progressToken": "mine"}}})
    assert [a.get("method") or a.get("id") for a in answers] == [
        "notifications/progress", "notifications/progress", 7, "notifications/message"]
    assert [a["params"]["progressToken"] for a in answers[:2]] == ["mine", "mine"]


def test_a_client_that_asked_for_no_progress_gets_none(legacy):
    answers = send(twin_of(legacy), {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                                     "params": {"name": "count", "arguments": {"n": 2}}})
    assert [a.get("method") or a.get("id") for a in answers] == [7, "notifications/message"]


def test_the_servers_notification_after_initialized_follows_the_clients_initialized(legacy):
    twin = twin_of(legacy)
    assert send(twin, {"jsonrpc": "2.0", "method": "notifications/initialized"}) == [
        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}]
    assert send(twin, {"jsonrpc": "2.0", "method": "notifications/initialized"}) == []  # recorded once


def test_the_next_page_of_a_listing_follows_the_cursor_the_twin_handed_out(legacy):
    twin = twin_of(legacy)
    first = send(twin, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})[0]["result"]
    second = send(twin, {"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                         "params": {"cursor": first["nextCursor"]}})[0]["result"]
    assert second == {"tools": [{"name": "second-page"}]}


def test_an_unmatched_request_gets_an_error_naming_the_closest_and_is_kept_for_the_summary(legacy):
    twin = twin_of(legacy)
    answer = send(twin, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                         "params": {"name": "count", "arguments": {"n": 3}}})[0]
    assert answer["error"] == {"code": -32000, "message": "no recorded answer to this tools/call: the closest recorded "
                                                          "request, tools/call #5, differs in params.arguments.n "
                                                          "(recorded 2, here 3)",
                               "data": {"closest": "tools/call #5"}}
    assert twin.summary() == [f"tools/call (id 3): {answer['error']['message']}"]


def test_ping_is_answered_with_an_empty_result_even_when_never_recorded(legacy):
    assert send(twin_of(legacy), {"jsonrpc": "2.0", "id": 1, "method": "ping"}) == [
        {"jsonrpc": "2.0", "id": 1, "result": {}}]


def test_bad_bytes_of_the_client_get_the_json_rpc_errors_and_a_blank_line_nothing(legacy):
    twin = twin_of(legacy)
    answers = send(twin, b"this is not json", b"", b'"a string"', {"jsonrpc": "2.0", "id": 4})
    assert [(a["id"], a["error"]["code"]) for a in answers] == [(None, -32700), (None, -32700), (4, -32600)]
    decoder = LineDecoder(C, max_line_bytes=100)
    big = decoder.feed(b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"' + b"y" * 200 + b'"}}\n')
    over = [json.loads(o.line) for event in big for o in twin.receive(event)]
    assert over[0]["error"]["code"] == -32600 and "100" in over[0]["error"]["message"]


def test_an_answer_over_a_megabyte_is_served_whole(tmp_path):
    text = "z" * (3 << 20)
    capture = write_capture(tmp_path / "big.jsonl", [request(1, "tools/call", {"name": "big"}),
                                                      result(1, {"content": [{"type": "text", "text": text}]})])
    answers = send(twin_of(capture), {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "big"}})
    assert answers[0]["result"]["content"][0]["text"] == text


def test_a_refused_then_retried_discover_serves_the_answer_that_succeeded_and_what_followed_it(tmp_path):
    refusal = {"code": -32022, "message": "Unsupported protocol version",
               "data": {"supported": ["2026-07-28"], "requested": "2099-01-01"}}
    capture = write_capture(tmp_path / "retried.jsonl", [
        request(1, "server/discover", {}), (S, {"jsonrpc": "2.0", "id": 1, "error": refusal}),
        request(2, "server/discover", {}), result(2, DISCOVER),
        notification(S, "notifications/message", {"level": "info", "data": "hello"})])
    answers = send(twin_of(capture), {"jsonrpc": "2.0", "id": 5, "method": "server/discover"})
    hello = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hello"}}
    assert answers == [{"jsonrpc": "2.0", "id": 5, "result": DISCOVER}, hello]


def test_set_level_and_subscribe_never_recorded_get_the_empty_result_and_a_recorded_refusal_is_served(tmp_path):
    refused = {"code": -32601, "message": "subscriptions are off"}
    capture = write_capture(tmp_path / "house.jsonl", [
        request(1, "resources/subscribe", {"uri": "file:///a"}), (S, {"jsonrpc": "2.0", "id": 1, "error": refused}),
        request(2, "tools/list"), result(2, {"tools": []})])
    twin = twin_of(capture, "strict")
    answers = send(twin, {"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "debug"}},
                   {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": "file:///a"}},
                   {"jsonrpc": "2.0", "id": 3, "method": "resources/subscribe", "params": {"uri": "file:///b"}},
                   {"jsonrpc": "2.0", "id": 4, "method": "tools/list"})
    assert answers == [{"jsonrpc": "2.0", "id": 1, "result": {}}, {"jsonrpc": "2.0", "id": 2, "error": refused},
                       {"jsonrpc": "2.0", "id": 3, "result": {}}, {"jsonrpc": "2.0", "id": 4, "result": {"tools": []}}]
    assert twin.unmatched == []  # and the strict order is the other requests'


def test_many_requests_in_one_read_with_big_answers_are_written_as_they_go(tmp_path):
    from inspector.core.serve.stdio import WRITE_BYTES, serve_stdio

    text = "w" * (400 << 10)
    capture = write_capture(tmp_path / "wide.jsonl", [request(1, "tools/call", {"name": "wide"}),
                                                       result(1, {"content": [{"type": "text", "text": text}]})])
    twin = twin_of(capture)
    lines = b"".join(json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                                 "params": {"name": "wide"}}).encode() + b"\n" for n in range(40))
    read_end, write_end = os.pipe()
    os.write(write_end, lines)  # 40 requests, one read: 16 MB of answers
    os.close(write_end)
    writes: list[int] = []
    try:
        serve_stdio(twin, max_message=1 << 20, stdin_fd=read_end, write=lambda data: writes.append(len(data)) or True)
    finally:
        os.close(read_end)
    assert sum(writes) > 40 * len(text)
    assert max(writes) < WRITE_BYTES + len(text) + 1000


def test_a_flood_of_unmatched_requests_is_counted_and_only_the_first_ones_listed(legacy):
    from inspector.core.serve.twin import LISTED_UNMATCHED

    twin = twin_of(legacy)
    send(twin, *({"jsonrpc": "2.0", "id": n, "method": "nothing/recorded"} for n in range(LISTED_UNMATCHED + 50)))
    assert twin.missed == LISTED_UNMATCHED + 50 and len(twin.unmatched) == LISTED_UNMATCHED
    assert twin.summary()[-1] == "... and 50 more"
