"""``mcp-inspector tap --url URL --rules FILE``: intercept rules on a real client's traffic through the HTTP tap.
The Python SDK's own client gets the rewritten answer; an error rule's request is answered by the tap and never
reaches the server (its log says what it received); a drop leaves a message out (a request's POST is held open
as by a server that never answers); a delay holds its message only; the capture keeps what each rule did, as
every host records it. A rules file the tap cannot honour is one sentence and exit 2 before anything listens."""

from __future__ import annotations

import json
import socket
import sys
import time

import anyio
import httpx
import pytest
from helpers import cli, wait_until
from http_tap_support import SERVERS, http_support, running_tap

from inspector.core.exits import EXIT_BAD_INPUT
from inspector.core.wire.events import Direction, Kind

pytestmark = pytest.mark.integration

INTERCEPT_SERVER = [sys.executable, str(SERVERS / "intercept_server.py")]
#: Bound on one client session through the tap.
CLIENT_TIMEOUT = 30.0
HEADERS = {"Accept": "application/json, text/event-stream"}


def rules_file(tmp_path, *rules: dict):
    path = tmp_path / "rules.json"
    path.write_text(json.dumps({"rules": list(rules)}))
    return str(path)


def marked(capture) -> list[tuple[str, str | None, str]]:
    """(direction, method or kind, role) of every message a rule marked."""
    return [(e.dir, e.method or (e.rpc.kind if e.rpc else None), e.data["intercept"]["role"])
            for e in capture.events if e.kind == Kind.MESSAGE and "intercept" in e.data]


def recorded(tap) -> str:
    """The capture's text so far (nothing before the recorder wrote its first line)."""
    return tap.capture_path.read_text() if tap.capture_path.exists() else ""


def rpc(number: int, method: str, **params) -> dict:
    return {"jsonrpc": "2.0", "id": number, "method": method, "params": params}


def handshake(client: httpx.Client, url: str) -> None:
    assert client.post(url, json=rpc(1, "initialize"), headers=HEADERS).status_code == 200
    assert client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                       headers=HEADERS).status_code == 202


# -- the bar: the SDK's own client -----------------------------------------------------------------------


async def sdk_add(url: str) -> str:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    with anyio.fail_after(CLIENT_TIMEOUT):
        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            call = await session.call_tool("add", {"a": 2, "b": 3})
            return call.content[0].text


def test_the_sdk_client_through_the_http_tap_with_a_rewrite_rule_gets_the_rewritten_answer_and_the_capture_both(
        sdk_streamable, tmp_path):
    rules = rules_file(tmp_path, {"when": {"dir": "s2c", "method": "tools/call", "tool": "add"}, "do": "rewrite",
                                  "set": {"/result/content/0/text": "forty-two"}})
    with running_tap(sdk_streamable.url("/mcp"), tmp_path / "tap.jsonl", "--rules", rules) as tap:
        text = anyio.run(sdk_add, tap.url)
        assert tap.stop() == 0, tap.stderr
    assert text == "forty-two"
    capture = tap.capture
    assert capture.header["intercept_rules"][0]["do"] == "rewrite"
    assert marked(capture) == [(Direction.S2C, "response", "original"), (Direction.S2C, "response", "changed")]
    original, changed = [e for e in capture.events if "intercept" in e.data]
    assert json.loads(original.raw)["result"]["content"][0]["text"] == "5"
    assert json.loads(changed.raw)["result"]["content"][0]["text"] == "forty-two"
    assert changed.data["intercept"] == {"rule": 1, "action": "rewrite", "role": "changed"}
    assert changed.data["sse"]["event"] == "message"  # the SDK server answers on an event stream: its event changed
    call = next(e for e in capture.events if e.kind == Kind.MESSAGE and e.method == "tools/call")
    assert changed.data["reply_to"] == call.seq and "reply_to" not in original.data
    shown = cli("show", str(tap.capture_path))
    assert shown.returncode == 0 and "forty-two" in shown.stdout, shown.stderr


# -- error, drop, delay ---------------------------------------------------------------------------------------


def test_a_rewritten_request_reaches_the_server_changed_with_its_length_set_right(http_server, tmp_path):
    server = http_server(INTERCEPT_SERVER, "intercept server")
    rules = rules_file(tmp_path, {"when": {"dir": "c2s", "method": "tools/call", "tool": "add"}, "do": "rewrite",
                                  "set": {"/params/arguments/a": 4000, "/params/arguments/note": "added by a rule"}})
    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl", "--rules", rules) as tap:
        with httpx.Client(trust_env=False, timeout=CLIENT_TIMEOUT) as client:
            handshake(client, tap.url)
            answer = client.post(tap.url, json=rpc(2, "tools/call", name="add", arguments={"a": 2, "b": 3}),
                                 headers=HEADERS)
        assert tap.stop() == 0, tap.stderr
    assert answer.json()["result"]["content"][0]["text"] == "4003"  # the server added what the rule made
    assert marked(tap.capture) == [(Direction.C2S, "tools/call", "original"), (Direction.C2S, "tools/call", "changed")]
    changed = [e for e in tap.capture.events if e.data.get("intercept", {}).get("role") == "changed"][0]
    reply = [e for e in tap.capture.events if e.dir == Direction.S2C and e.kind == Kind.MESSAGE][-1]
    assert reply.data["reply_to"] == changed.seq


def test_an_error_rule_on_a_request_is_answered_by_the_tap_and_the_server_never_sees_the_request(
        http_server, tmp_path):
    server = http_server(INTERCEPT_SERVER, "intercept server")
    rules = rules_file(tmp_path, {"when": {"dir": "c2s", "method": "tools/call", "tool": "add"}, "do": "error",
                                  "code": -32000, "message": "injected"})
    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl", "--rules", rules) as tap:
        with httpx.Client(trust_env=False, timeout=CLIENT_TIMEOUT) as client:
            handshake(client, tap.url)
            answer = client.post(tap.url, json=rpc(2, "tools/call", name="add", arguments={"a": 2, "b": 3}),
                                 headers=HEADERS)
            listed = client.post(tap.url, json=rpc(3, "tools/list"), headers=HEADERS)  # the connection goes on
        assert tap.stop() == 0, tap.stderr
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
    assert answer.json() == {"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "injected"}}
    assert listed.json()["result"]["tools"]
    log = server.log_text()
    assert "received tools/list 3" in log and "received tools/call" not in log
    assert marked(tap.capture) == [(Direction.C2S, "tools/call", "held"), (Direction.S2C, "error", "answer")]
    http = next(e for e in tap.capture.events if e.kind == Kind.HTTP and e.data.get("purpose") == "tools/call")
    assert "answered by the tap, by rule 1 (error)" in http.data["note"] and http.data["status"] == 200


def test_a_dropped_notification_gets_202_from_the_tap_and_a_dropped_request_is_held_open_without_reaching_the_server(
        http_server, tmp_path):
    server = http_server(INTERCEPT_SERVER, "intercept server")
    rules = rules_file(tmp_path, {"when": {"dir": "c2s", "method": "notifications/initialized"}, "do": "drop"},
                       {"when": {"dir": "c2s", "method": "tools/call", "tool": "add"}, "do": "drop"})
    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl", "--rules", rules) as tap:
        with httpx.Client(trust_env=False, timeout=CLIENT_TIMEOUT) as client:
            handshake(client, tap.url)
            # a server that never answers: the client gives up (its own timeout), the tap held its POST meanwhile
            with pytest.raises(httpx.ReadTimeout):
                client.post(tap.url, json=rpc(2, "tools/call", name="add", arguments={"a": 1, "b": 1}),
                            headers=HEADERS, timeout=httpx.Timeout(CLIENT_TIMEOUT, read=1.0))
        wait_until(lambda: "the client left" in recorded(tap), CLIENT_TIMEOUT,
                   "the tap to see the client leave")
        assert tap.stop() == 0, tap.stderr
    log = server.log_text()
    assert "received initialize 1" in log and "notifications/initialized" not in log and "tools/call" not in log
    assert marked(tap.capture) == [(Direction.C2S, "notifications/initialized", "dropped"),
                                   (Direction.C2S, "tools/call", "dropped")]
    ends = [e.data for e in tap.capture.events if e.kind == Kind.HTTP and e.data.get("purpose") == "tools/call"]
    assert "rule 2 (drop) dropped the request" in ends[0]["error"] and "the client left" in ends[0]["error"]


def test_an_event_streams_messages_are_dropped_or_rewritten_one_by_one(http_server, tmp_path):
    server = http_server(INTERCEPT_SERVER, "intercept server")
    rules = rules_file(tmp_path, {"when": {"dir": "s2c", "method": "notifications/message"}, "do": "drop"},
                       {"when": {"dir": "s2c", "method": "tools/call", "tool": "stream"}, "do": "rewrite",
                        "set": {"/result/content/0/text": "rewritten in its event"}})
    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl", "--rules", rules) as tap:
        with httpx.Client(trust_env=False, timeout=CLIENT_TIMEOUT) as client:
            handshake(client, tap.url)
            answer = client.post(tap.url, json=rpc(2, "tools/call", name="stream"), headers=HEADERS)
        assert tap.stop() == 0, tap.stderr
    assert answer.headers["content-type"] == "text/event-stream"
    events = [block for block in answer.text.replace("\r\n", "\n").split("\n\n") if block.strip()]
    assert len(events) == 1, answer.text  # the log notification left out
    assert json.loads(events[0].split("data: ", 1)[1])["result"]["content"][0]["text"] == "rewritten in its event"
    assert marked(tap.capture) == [(Direction.S2C, "notifications/message", "dropped"),
                                   (Direction.S2C, "response", "original"), (Direction.S2C, "response", "changed")]


def test_a_held_post_ends_when_the_tap_stops_and_the_capture_says_the_stop_cut_it(http_server, tmp_path):
    server = http_server(INTERCEPT_SERVER, "intercept server")
    rules = rules_file(tmp_path, {"when": {"dir": "c2s", "method": "tools/call"}, "do": "drop"})
    body = json.dumps(rpc(2, "tools/call", name="add", arguments={"a": 1, "b": 1})).encode()
    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl", "--rules", rules) as tap, \
            socket.create_connection(("127.0.0.1", tap.port), timeout=CLIENT_TIMEOUT) as client:
        client.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                       b"Content-Length: %d\r\n\r\n%s" % (tap.port, len(body), body))
        wait_until(lambda: '"dropped"' in recorded(tap), CLIENT_TIMEOUT, "the drop to be recorded")
        assert tap.stop() == 0, tap.stderr
        assert client.recv(1024) == b""  # closed by the stop, never answered
    assert "tools/call" not in server.log_text()
    end = [e.data for e in tap.capture.events if e.kind == Kind.HTTP and e.data.get("purpose") == "tools/call"]
    assert end[0]["error"].startswith("the tap was stopped (SIGINT) while this exchange was under way")


def test_a_dropped_json_answer_never_reaches_the_client_as_from_a_server_that_does_not_answer(http_server, tmp_path):
    server = http_server(INTERCEPT_SERVER, "intercept server")
    rules = rules_file(tmp_path, {"when": {"dir": "s2c", "method": "tools/call"}, "do": "drop"})
    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl", "--rules", rules) as tap:
        with httpx.Client(trust_env=False, timeout=CLIENT_TIMEOUT) as client:
            handshake(client, tap.url)
            with pytest.raises(httpx.ReadTimeout):
                client.post(tap.url, json=rpc(2, "tools/call", name="add", arguments={"a": 1, "b": 1}),
                            headers=HEADERS, timeout=httpx.Timeout(CLIENT_TIMEOUT, read=1.0))
        assert tap.stop() == 0, tap.stderr
    assert "received tools/call 2" in server.log_text()  # the server answered; the tap kept the answer
    assert marked(tap.capture) == [(Direction.S2C, "response", "dropped")]
    dropped = next(e for e in tap.capture.events if "intercept" in e.data)
    assert json.loads(dropped.raw)["result"]["content"][0]["text"] == "2" and "reply_to" not in dropped.data


def test_a_delayed_event_is_held_alone_the_next_overtakes_it_and_the_stream_ends_once_it_went_on(
        http_server, tmp_path):
    server = http_server(INTERCEPT_SERVER, "intercept server")
    rules = rules_file(tmp_path, {"when": {"dir": "s2c", "method": "notifications/message"}, "do": "delay",
                                  "ms": 400})
    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl", "--rules", rules) as tap:
        with httpx.Client(trust_env=False, timeout=CLIENT_TIMEOUT) as client:
            handshake(client, tap.url)
            began = time.monotonic()
            answer = client.post(tap.url, json=rpc(2, "tools/call", name="stream"), headers=HEADERS)
            took = time.monotonic() - began
        assert tap.stop() == 0, tap.stderr
    events = [json.loads(block.split("data: ", 1)[1]) for block in answer.text.replace("\r\n", "\n").split("\n\n")
              if block.strip()]
    # the server sent the notification first: the answer overtook it, and the stream ended once it went on
    assert [e.get("method", "answer") for e in events] == ["answer", "notifications/message"]
    assert took >= 0.4
    delayed = next(e for e in tap.capture.events if "intercept" in e.data)
    assert delayed.method == "notifications/message" and delayed.data["intercept"]["ms"] == 400
    assert delayed.data["sse"]["event"] == "message"


def test_a_delay_holds_its_request_only_and_the_capture_keeps_when_it_came_and_when_it_went_on(http_server, tmp_path):
    server = http_server(INTERCEPT_SERVER, "intercept server")
    rules = rules_file(tmp_path, {"when": {"dir": "c2s", "method": "tools/list"}, "do": "delay", "ms": 600})
    finished: list[str] = []

    async def both(url: str) -> float:
        async with httpx.AsyncClient(trust_env=False, timeout=CLIENT_TIMEOUT) as client:
            async def post(message: dict, name: str) -> float:
                began = time.monotonic()
                answer = await client.post(url, json=message, headers=HEADERS)
                assert answer.status_code == 200
                finished.append(name)
                return time.monotonic() - began

            async with anyio.create_task_group() as group:
                took: list[float] = []

                async def slow() -> None:
                    took.append(await post(rpc(2, "tools/list"), "list"))

                group.start_soon(slow)
                await post(rpc(3, "tools/call", name="add", arguments={"a": 1, "b": 2}), "add")
            return took[0]

    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl", "--rules", rules) as tap:
        with httpx.Client(trust_env=False, timeout=CLIENT_TIMEOUT) as client:
            handshake(client, tap.url)
        took = anyio.run(both, tap.url)
        assert tap.stop() == 0, tap.stderr
    assert took >= 0.6 and finished == ["add", "list"]  # the call overtook the held list
    delayed = [e for e in tap.capture.events if "intercept" in e.data]
    assert [e.method for e in delayed] == ["tools/list"]
    mark = delayed[0].data["intercept"]
    assert mark["role"] == "delayed" and mark["ms"] == 600 and delayed[0].t - mark["arrived"] >= 0.6


def test_an_error_rule_on_a_servers_request_answers_the_server_and_the_client_never_sees_it(http_server, tmp_path):
    server = http_server(INTERCEPT_SERVER, "intercept server")
    rules = rules_file(tmp_path, {"when": {"dir": "s2c", "method": "elicitation/create"}, "do": "error",
                                  "code": -32001, "message": "no elicitation through this tap"})
    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl", "--rules", rules) as tap:
        with httpx.Client(trust_env=False, timeout=CLIENT_TIMEOUT) as client:
            handshake(client, tap.url)
            answer = client.post(tap.url, json=rpc(2, "tools/call", name="ask"), headers=HEADERS)
        assert tap.stop() == 0, tap.stderr
    assert "elicitation/create" not in answer.text
    text = json.loads(answer.text.split("data: ", 1)[1].split("\r\n", 1)[0])["result"]["content"][0]["text"]
    assert json.loads(text.removeprefix("answer: "))["error"] == {"code": -32001,
                                                                   "message": "no elicitation through this tap"}
    assert "received response srv-1" in server.log_text()
    assert marked(tap.capture) == [(Direction.S2C, "elicitation/create", "held"), (Direction.C2S, "error", "answer")]


async def sdk_sse_echo(url: str) -> str:
    from mcp.client.session import ClientSession
    from mcp.client.sse import sse_client

    with anyio.fail_after(CLIENT_TIMEOUT):
        async with sse_client(url) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            call = await session.call_tool("echo", {"message": "as sent"})
            return call.content[0].text


def test_the_sdk_client_over_http_sse_gets_a_rewritten_answer_from_the_event_stream(tmp_path):
    server = http_support.launch_on_free_port(
        "SDK server (sse)", lambda port: [sys.executable, str(http_support.SERVERS / "sdk_http_server.py"), "sse",
                                          str(port)], tmp_path / "sdk-sse.log")
    rules = rules_file(tmp_path, {"when": {"dir": "s2c", "method": "tools/call", "tool": "echo"}, "do": "rewrite",
                                  "set": {"/result/content/0/text": "rewritten on the stream"}})
    try:
        with running_tap(server.url("/sse"), tmp_path / "tap.jsonl", "--transport", "sse", "--rules", rules) as tap:
            text = anyio.run(sdk_sse_echo, tap.url)
            assert tap.stop() == 0, tap.stderr
    finally:
        http_support.stop(server)
    assert text == "rewritten on the stream"
    assert marked(tap.capture) == [(Direction.S2C, "response", "original"), (Direction.S2C, "response", "changed")]
    assert any(e.kind == Kind.SSE and e.data.get("event") == "endpoint" for e in tap.capture.events)


# -- rules the tap cannot honour ------------------------------------------------------------------------------


def refused_rules(tmp_path, content: str, *options: str) -> str:
    """Run the tap with a rules file holding ``content``: it must refuse with one sentence and exit 2, having
    printed no URL and written no capture; returns the sentence."""
    path = tmp_path / "rules.json"
    path.write_text(content)
    port = http_support.free_port()
    result = cli("tap", "--url", "http://127.0.0.1:9/mcp", "--listen", f"127.0.0.1:{port}", "--rules", str(path),
                 "--capture", str(tmp_path / "tap.jsonl"), "--no-live", *options, timeout=30)
    assert result.returncode == EXIT_BAD_INPUT, result.stderr
    assert result.stderr.startswith("mcp-inspector tap: ") and result.stderr.count("\n") == 1, result.stderr
    assert result.stdout == ""  # no URL printed: it never listened
    assert not (tmp_path / "tap.jsonl").exists()
    return result.stderr.removeprefix("mcp-inspector tap: ").strip()


@pytest.mark.parametrize("content, options, says", [
    ("{not json", [], "rules.json"),
    (json.dumps({"rules": [{"when": {"dir": "c2s"}, "do": "explode"}]}), [], "explode"),
    (json.dumps({"rules": [{"when": {"dir": "c2s"}, "do": "drop"}]}), ["--transport", "websocket"],
     "--rules does not reach a WebSocket's frames"),
])
def test_a_rules_file_the_tap_cannot_honour_is_one_sentence_and_exit_2_before_anything_listens(
        tmp_path, content, options, says):
    assert says in refused_rules(tmp_path, content, *options)


@pytest.mark.report("faults", "a pause rule given to the HTTP tap, which has nobody to decide", surface="CLI",
                    group="hostile", advice="Pause messages in the window's Breakpoints panel; headless, use a "
                                            "delay, drop, error or rewrite rule.")
def test_a_pause_rule_is_refused_by_the_http_tap_with_one_sentence_before_it_listens(tmp_path, report):
    sentence = refused_rules(tmp_path, json.dumps({"rules": [{"when": {"dir": "c2s", "method": "tools/call"},
                                                               "do": "pause"}]}))
    assert "rule 1 pauses messages" in sentence and "the tap runs without one" in sentence
    report.saw(sentence)
