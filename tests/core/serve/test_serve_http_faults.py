"""Faults, intercept rules and the capture's server requests over HTTP (:mod:`inspector.core.serve.http` with a
:class:`~inspector.core.serve.conduct.Conductor` a session), in this process on a real loopback port, driven with
httpx: each fault on Streamable HTTP (junk, latency and list-changed on HTTP+SSE and WebSocket too), a rules
rewrite and an error rule, and a sampling request sent on the request's stream before its answer."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers import until
from test_conduct import CALL, SAMPLING, write_recorded
from test_serve_http import ACCEPT, TIMEOUT, events, rpc, run, served

from inspector.core.capture import read_capture
from inspector.core.intercept.rules import parse_rules
from inspector.core.serve.fault_link import FaultToggles
from inspector.core.serve.faults import JUNK_LINE, JUNK_SSE_FRAME, PADDING_KEY, Faults
from inspector.core.serve.stdio import ServedCapture
from inspector.core.wire.events import Direction, Kind

C, S = Direction.C2S, Direction.S2C
CLIENT_INIT = {"protocolVersion": "2025-06-18", "capabilities": {"sampling": {}},
               "clientInfo": {"name": "t", "version": "1"}}
ANSWER = {"role": "assistant", "content": {"type": "text", "text": "the client's model"}}


@pytest.fixture
def capture(tmp_path: Path) -> Path:
    return write_recorded(tmp_path / "recorded.jsonl")


async def session(client: httpx.AsyncClient, url: str) -> dict[str, str]:
    """Initialize a session: the headers of its requests."""
    init = await client.post(url, json=rpc(0, "initialize", CLIENT_INIT), headers=ACCEPT)
    assert init.status_code == 200, init.text
    return {**ACCEPT, "Mcp-Session-Id": init.headers["mcp-session-id"]}


def recorded(out: Path) -> list[Any]:
    return [e for e in read_capture(out).events if e.kind == Kind.MESSAGE]


def record_to(out: Path, capture: Path) -> ServedCapture:
    return ServedCapture(out, capture, read_capture(capture).header, "auto", ("streamable-http", "http://x/mcp"))


# -- each fault ------------------------------------------------------------------------------------------------


def test_latency_holds_each_answer_while_other_requests_go_on_as_out_records_it(capture, tmp_path):
    out = tmp_path / "served.jsonl"
    record = record_to(out, capture)

    async def test() -> None:
        async with served(capture, faults=Faults(["latency=400"]), record=record) as (_, url), \
                httpx.AsyncClient(timeout=TIMEOUT) as client:
            headers = await session(client, url)
            call, listed = await asyncio.gather(client.post(url, json=rpc(1, "tools/call", CALL), headers=headers),
                                                client.post(url, json=rpc(2, "tools/list"), headers=headers))
            assert call.json()["result"]["content"][0]["text"] == "5" and listed.json()["id"] == 2

    run(test)
    record.close()
    messages = recorded(out)
    asked = {e.json()["id"]: e.t for e in messages if e.dir == C}
    answered = {e.json()["id"]: e.t for e in messages if e.dir == S}
    assert all(answered[n] - asked[n] >= 0.4 for n in (0, 1, 2))  # each answer held 400 ms, on --out's clock
    assert abs(answered[2] - answered[1]) < 0.4  # held side by side, not one after the other


def test_error_rate_answers_with_an_internal_error_and_the_handshake_as_recorded(capture):
    async def test() -> None:
        async with served(capture, faults=Faults(["error-rate=1"])) as (server, url), \
                httpx.AsyncClient(timeout=TIMEOUT) as client:
            headers = await session(client, url)
            failed = await client.post(url, json=rpc(1, "tools/call", CALL), headers=headers)
            assert failed.status_code == 200 and failed.json()["error"]["code"] == -32603
            assert "--fault error-rate=1" in failed.json()["error"]["message"]
            assert server.totals().faulted["error-rate"] == 1

    run(test)


def test_junk_sends_a_broken_sse_frame_on_the_requests_stream_before_its_answer(capture):
    async def test() -> None:
        async with served(capture, faults=Faults(["junk"])) as (_, url), httpx.AsyncClient(timeout=TIMEOUT) as client:
            headers = await session(client, url)  # the handshake's answer too comes after junk
            call = await client.post(url, json=rpc(1, "tools/call", CALL), headers=headers)
            assert call.headers["content-type"] == "text/event-stream"
            junk, rest = call.text.split("\n\n", 1)
            assert junk + "\n\n" == JUNK_SSE_FRAME.decode()
            assert events(rest) == [{"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text",
                                                                                         "text": "5"}]}}]

    run(test)


def test_a_dropped_request_holds_its_post_until_the_client_leaves_or_the_server_stops(capture):
    async def test() -> None:
        async with served(capture, faults=Faults(["drop=tools/call"])) as (server, url):
            async with httpx.AsyncClient(timeout=TIMEOUT) as client:
                headers = await session(client, url)
                held = asyncio.ensure_future(client.post(url, json=rpc(1, "tools/call", CALL), headers=headers))
                await until(lambda: server.answering == 1, TIMEOUT, "the dropped request's POST to wait")
                listed = await client.post(url, json=rpc(2, "tools/list"), headers=headers)
                assert listed.json()["id"] == 2 and not held.done()  # the others are answered meanwhile
                held.cancel()  # the client leaves: its POST ends on the server's side
                await until(lambda: server.answering == 0, TIMEOUT, "the POST to end with its client")
            client = httpx.AsyncClient(timeout=TIMEOUT)
            held = asyncio.ensure_future(client.post(url, json=rpc(3, "tools/call", CALL), headers=headers))
            await until(lambda: server.answering == 1, TIMEOUT, "the second dropped request's POST to wait")
        with pytest.raises(httpx.TransportError):  # the stop ends it: no answer, no hang
            await asyncio.wait_for(held, TIMEOUT)
        await client.aclose()
        assert server.totals().faulted["drop"] == 2

    run(test)


def test_a_dropped_requests_post_gets_404_when_its_session_is_deleted(capture):
    async def test() -> None:
        async with served(capture, faults=Faults(["drop=tools/call"])) as (server, url), \
                httpx.AsyncClient(timeout=TIMEOUT) as client:
            headers = await session(client, url)
            held = asyncio.ensure_future(client.post(url, json=rpc(1, "tools/call", CALL), headers=headers))
            await until(lambda: server.answering == 1, TIMEOUT, "the dropped request's POST to wait")
            assert (await client.delete(url, headers=headers)).status_code == 200
            ended = await asyncio.wait_for(held, TIMEOUT)
            assert ended.status_code == 404 and "session ended" in ended.json()["error"]["message"]

    run(test)


def test_close_after_stops_the_server_once_the_nth_answer_went_out_with_the_sentence(capture):
    async def test() -> None:
        async with served(capture, faults=Faults(["close-after=2"])) as (server, url), \
                httpx.AsyncClient(timeout=TIMEOUT) as client:
            headers = await session(client, url)
            listed = await client.post(url, json=rpc(2, "tools/list"), headers=headers)
            assert listed.json()["result"] == {"tools": [{"name": "add"}]}
            assert server.stop_event is not None
            await until(server.stop_event.is_set, TIMEOUT, "close-after to stop the server")
            assert server.closing == "the twin ended after 2 requests, as --fault close-after=2 asked"
            assert server.totals().closing == server.closing

    run(test)


def test_oversize_pads_the_next_answer_past_the_size_once(capture):
    async def test() -> None:
        async with served(capture, faults=Faults(["oversize=20K"])) as (_, url), \
                httpx.AsyncClient(timeout=TIMEOUT) as client:
            headers = await session(client, url)
            padded = await client.post(url, json=rpc(1, "tools/call", CALL), headers=headers)
            plain = await client.post(url, json=rpc(2, "tools/call", CALL), headers=headers)
            assert len(padded.content) > 20 * 1024 and PADDING_KEY in padded.json()["result"]["_meta"]
            assert len(plain.content) < 1024

    run(test)


def test_list_changed_ticks_on_the_get_stream_and_without_one_is_counted_unsent(capture):
    async def test() -> None:
        async with served(capture, faults=Faults(["list-changed=0.05"])) as (server, url), \
                httpx.AsyncClient(timeout=TIMEOUT) as client:
            headers = await session(client, url)
            async with client.stream("GET", url, headers=headers) as stream:  # a GET stream though the capture
                assert stream.status_code == 200                                 # had nothing outside requests
                got = []
                async for line in stream.aiter_lines():
                    if line.startswith("data: "):
                        got.append(json.loads(line[6:]))
                    if len(got) == 2:
                        break
            assert got == [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}] * 2
            await session(client, url)  # a session that never opens a GET stream
            await until(lambda: server.unsent() >= 2, TIMEOUT, "ticks no GET stream took")

    run(test)


# -- rules -----------------------------------------------------------------------------------------------------


def test_rules_rewrite_what_the_twin_matches_and_what_it_sends_with_the_marks_in_out(capture, tmp_path):
    out = tmp_path / "served.jsonl"
    record = record_to(out, capture)
    rules = parse_rules({"rules": [
        {"when": {"dir": "c2s", "tool": "add"}, "do": "rewrite", "set": {"/params/arguments/b": 3}},
        {"when": {"dir": "s2c", "tool": "add"}, "do": "rewrite", "set": {"/result/content/0/text": "five"}}]})

    async def test() -> None:
        async with served(capture, rules=rules, record=record) as (_, url), \
                httpx.AsyncClient(timeout=TIMEOUT) as client:
            headers = await session(client, url)
            call = await client.post(url, json=rpc(1, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 40}}),
                                     headers=headers)
            assert call.json()["result"]["content"][0]["text"] == "five"  # b=40 matched as b=3, then rewritten

    run(test)
    record.close()
    roles = [(e.dir, e.data["intercept"]["role"]) for e in recorded(out) if "intercept" in e.data]
    assert roles == [(C, "original"), (C, "changed"), (S, "original"), (S, "changed")]


def test_an_error_rule_answers_in_the_twins_place(capture):
    rules = parse_rules({"rules": [{"when": {"dir": "c2s", "method": "tools/call"}, "do": "error", "code": -32050,
                                    "message": "refused by a rule"}]})

    async def test() -> None:
        async with served(capture, rules=rules) as (_, url), httpx.AsyncClient(timeout=TIMEOUT) as client:
            headers = await session(client, url)
            call = await client.post(url, json=rpc(1, "tools/call", CALL), headers=headers)
            assert call.json()["error"] == {"code": -32050, "message": "refused by a rule"}

    run(test)


# -- the capture's server requests -------------------------------------------------------------------------------


def test_a_sampling_request_comes_on_the_requests_stream_and_the_answer_after_the_clients_reply(capture, tmp_path):
    out = tmp_path / "served.jsonl"
    record = record_to(out, capture)

    async def test() -> None:
        async with served(capture, record=record) as (server, url), httpx.AsyncClient(timeout=TIMEOUT) as client:
            headers = await session(client, url)
            async with client.stream("POST", url, json=rpc(4, "tools/call", {"name": "ask", "arguments": {}}),
                                     headers=headers) as stream:
                assert stream.headers["content-type"] == "text/event-stream"
                lines = stream.aiter_lines()
                asked = None
                async for line in lines:
                    if line.startswith("data: "):
                        asked = json.loads(line[6:])
                        break
                assert asked is not None and asked["method"] == "sampling/createMessage"
                assert asked["params"] == SAMPLING
                reply = await client.post(url, json={"jsonrpc": "2.0", "id": asked["id"], "result": ANSWER},
                                          headers=headers)
                assert reply.status_code == 202
                answer = None
                async for line in lines:
                    if line.startswith("data: "):
                        answer = json.loads(line[6:])
                        break
            assert answer == {"jsonrpc": "2.0", "id": 4, "result": {"content": [
                {"type": "text", "text": "the model said: recorded model"}]}}
            assert server.totals().conducted() == ["1 request of the server's (sampling, elicitation, roots) sent "
                                                   "to the client, 1 answered"]

    run(test)
    record.close()
    messages = recorded(out)
    reply = next(e for e in messages if e.dir == C and e.data.get("request_method") == "sampling/createMessage")
    assert reply.json()["result"] == ANSWER  # the client's own reply, recorded and paired


# -- HTTP+SSE and WebSocket ----------------------------------------------------------------------------------------


def test_http_sse_carries_junk_and_a_held_answer_on_the_sessions_stream(capture):
    async def test() -> None:
        async with served(capture, "sse", faults=Faults(["junk", "latency=50"])) as (server, url), \
                httpx.AsyncClient(timeout=TIMEOUT) as client, client.stream("GET", url) as stream:
            lines = stream.aiter_lines()
            assert await anext(lines) == "event: endpoint"
            endpoint = url.rsplit("/", 1)[0] + (await anext(lines))[6:]
            assert (await client.post(endpoint, json=rpc(1, "tools/list"))).status_code == 202
            data = []
            async for line in lines:
                if line.startswith("data: "):
                    data.append(line[6:])
                if len(data) == 2:
                    break
            assert data[0] == JUNK_SSE_FRAME.decode().split("data: ")[1].strip()
            assert json.loads(data[1])["result"] == {"tools": [{"name": "add"}]}
            assert server.totals().faulted == {"junk": 1, "latency": 1}

    run(test)


def test_websocket_sends_a_sampling_request_then_junk_as_a_text_frame_before_the_answer(capture):
    from httpx_ws import aconnect_ws

    async def test() -> None:
        async with served(capture, "websocket", faults=Faults(["junk"])) as (_, url), \
                httpx.AsyncClient(timeout=TIMEOUT) as client, \
                aconnect_ws(url.replace("ws://", "http://"), client, subprotocols=["mcp"]) as ws:
            await ws.send_text(json.dumps(rpc(4, "tools/call", {"name": "ask", "arguments": {}})))
            asked = json.loads(await ws.receive_text())
            assert asked["method"] == "sampling/createMessage"
            await ws.send_text(json.dumps({"jsonrpc": "2.0", "id": asked["id"], "result": ANSWER}))
            assert (await ws.receive_text()).encode() == JUNK_LINE  # junk comes right before the answer
            assert json.loads(await ws.receive_text())["id"] == 4

    run(test)


def test_an_oversize_the_window_turned_on_is_said_cleared_once_it_padded_an_answer(capture):
    faults = Faults([])
    toggles = FaultToggles(faults)
    said: list[dict[str, Any]] = []
    toggles.answer = said.append

    async def test() -> None:
        async with served(capture, faults=faults) as (server, url), httpx.AsyncClient(timeout=TIMEOUT) as client:
            server.after_flush = toggles.apply  # as serve --listen links it to a window
            headers = await session(client, url)
            toggles.request({"type": "set", "spec": "oversize=20K"})
            toggles.apply()
            assert [f["name"] for f in said[-1]["faults"]] == ["oversize"]
            padded = await client.post(url, json=rpc(1, "tools/call", CALL), headers=headers)
            assert PADDING_KEY in padded.json()["result"]["_meta"]
            assert said[-1]["faults"] == [] and len(said) == 2

    run(test)
