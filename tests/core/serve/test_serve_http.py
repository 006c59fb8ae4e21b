"""The twin over HTTP (:mod:`inspector.core.serve.http`) in this process, on a real loopback port, driven with
httpx: Streamable HTTP's sessions, 202s, event-stream answers, GET stream and DELETE; HTTP+SSE's endpoint and
stream; a foreign Host or Origin refused as the HTTP tap refuses it; a body over --max-message, a client that
leaves a stream or never reads it."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers import until
from test_twin import LEGACY_INIT, notification, request, result, write_capture

from inspector.core.serve import http as serve_http_module
from inspector.core.serve.http import HttpTwin, serve_http, served_url
from inspector.core.serve.index import ServeIndex
from inspector.core.serve.twin import Twin
from inspector.core.tap.http_proxy import bind
from inspector.core.wire.events import Direction

C, S = Direction.C2S, Direction.S2C
TIMEOUT = 10.0
INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
ACCEPT = {"Accept": "application/json, text/event-stream"}


def session_capture(path: Path) -> Path:
    """initialize; list_changed after notifications/initialized; a call with progress before its answer and a
    resource update after it."""
    return write_capture(path, [
        request(0, "initialize", INIT), result(0, LEGACY_INIT),
        notification(C, "notifications/initialized"), notification(S, "notifications/tools/list_changed"),
        request(1, "tools/call", {"name": "work", "arguments": {}, "_meta": {"progressToken": 7}}),
        notification(S, "notifications/progress", {"progressToken": 7, "progress": 1}),
        result(1, {"content": [{"type": "text", "text": "done"}]}),
        notification(S, "notifications/resources/updated", {"uri": "x://a"}),
        request(2, "tools/list"), result(2, {"tools": [{"name": "work", "inputSchema": {"type": "object"}}]}),
    ])


@asynccontextmanager
async def served(capture: Path, transport: str = "streamable-http", **options: Any
                 ) -> AsyncIterator[tuple[HttpTwin, str]]:
    index = ServeIndex(capture)
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    server = HttpTwin(lambda: Twin(index), port=port, transport=transport,
                      max_message=options.pop("max_message", 1 << 20),
                      offers_stream=index.unprompted_notifications > 0, **options)
    stop = asyncio.Event()
    task = asyncio.ensure_future(serve_http(server, sock, stop))
    try:
        yield server, served_url("127.0.0.1", port, transport)
    finally:
        stop.set()
        await asyncio.wait_for(task, TIMEOUT)
        sock.close()
        index.close()


def run(test: Callable[[], Any]) -> None:
    asyncio.run(asyncio.wait_for(test(), 30))


def rpc(msg_id: int | None, method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if msg_id is not None:
        message["id"] = msg_id
    if params is not None:
        message["params"] = params
    return message


def events(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ") and line[6:].strip()]


# -- Streamable HTTP -----------------------------------------------------------------------------------------


def test_initialize_opens_a_session_whose_requests_notifications_and_delete_are_answered_as_the_spec_says(tmp_path):
    capture = session_capture(tmp_path / "c.jsonl")

    async def test() -> None:
        async with served(capture) as (server, url), httpx.AsyncClient(timeout=TIMEOUT) as client:
            init = await client.post(url, json=rpc(0, "initialize", INIT), headers=ACCEPT)
            assert init.status_code == 200 and init.headers["content-type"] == "application/json"
            assert init.json()["result"]["serverInfo"] == {"name": "recorded", "version": "1.0"}
            session = {**ACCEPT, "Mcp-Session-Id": init.headers["mcp-session-id"]}
            note = await client.post(url, json=rpc(None, "notifications/initialized"), headers=session)
            assert (note.status_code, note.content) == (202, b"")
            # progress recorded before the answer: an event stream, the client's own token in it
            call = await client.post(url, json=rpc(5, "tools/call", {"name": "work", "arguments": {},
                                                                    "_meta": {"progressToken": "mine"}}),
                                     headers=session)
            assert call.headers["content-type"] == "text/event-stream"
            sent = events(call.text)
            assert [m.get("method") for m in sent] == ["notifications/progress", None]
            assert sent[0]["params"]["progressToken"] == "mine" and sent[1]["id"] == 5
            # a client that accepts only JSON gets the answer alone
            listed = await client.post(url, json=rpc(6, "tools/list"), headers={
                "Accept": "application/json", "Mcp-Session-Id": session["Mcp-Session-Id"]})
            assert listed.json()["result"]["tools"][0]["name"] == "work"
            assert server.unsent() == 2  # list_changed and the update after the call: no GET stream took them
            assert (await client.delete(url, headers=session)).status_code == 200
            assert server.unsent() == 2
            gone = await client.post(url, json=rpc(7, "tools/list"), headers=session)
            assert gone.status_code == 404 and "no such session" in gone.json()["error"]["message"]

    run(test)


def test_the_get_stream_carries_what_the_server_sent_outside_requests(tmp_path):
    capture = session_capture(tmp_path / "c.jsonl")

    async def test() -> None:
        async with served(capture) as (_, url), httpx.AsyncClient(timeout=TIMEOUT) as client:
            init = await client.post(url, json=rpc(0, "initialize", INIT), headers=ACCEPT)
            session = {**ACCEPT, "Mcp-Session-Id": init.headers["mcp-session-id"]}
            async with client.stream("GET", url, headers=session) as stream:
                assert stream.status_code == 200 and stream.headers["content-type"] == "text/event-stream"
                second = await client.get(url, headers=session)
                assert second.status_code == 409  # one GET stream a session
                await client.post(url, json=rpc(None, "notifications/initialized"), headers=session)
                await client.post(url, json=rpc(1, "tools/call", {"name": "work", "arguments": {}}), headers=session)
                got: list[str] = []
                async for line in stream.aiter_lines():
                    if line.startswith("data: "):
                        got.append(json.loads(line[6:])["method"])
                    if len(got) == 2:
                        break
            assert got == ["notifications/tools/list_changed", "notifications/resources/updated"]

    run(test)


def test_a_capture_without_notifications_outside_requests_and_a_2026_client_get_405_for_get(tmp_path):
    plain = write_capture(tmp_path / "plain.jsonl", [request(0, "initialize", INIT), result(0, LEGACY_INIT),
                                                    request(1, "tools/list"), result(1, {"tools": []})])

    async def test() -> None:
        async with served(plain) as (_, url), httpx.AsyncClient(timeout=TIMEOUT) as client:
            init = await client.post(url, json=rpc(0, "initialize", INIT), headers=ACCEPT)
            got = await client.get(url, headers={"Mcp-Session-Id": init.headers["mcp-session-id"]})
            assert got.status_code == 405
            # a 2026-07-28 request: no session minted, its Mcp-Session-Id ignored
            modern = await client.post(url, json=rpc(1, "tools/list"), headers={
                **ACCEPT, "MCP-Protocol-Version": "2026-07-28", "Mcp-Session-Id": "whatever"})
            assert modern.status_code == 200 and "mcp-session-id" not in modern.headers
            assert modern.json()["result"] == {"tools": []}

    run(test)


# -- HTTP+SSE ------------------------------------------------------------------------------------------------


def test_http_sse_names_its_endpoint_first_and_answers_posts_on_the_stream(tmp_path):
    capture = session_capture(tmp_path / "c.jsonl")

    async def test() -> None:
        async with served(capture, "sse") as (server, url), httpx.AsyncClient(timeout=TIMEOUT) as client:
            async with client.stream("GET", url) as stream:
                lines = stream.aiter_lines()
                assert await anext(lines) == "event: endpoint"
                endpoint = (await anext(lines))[6:]
                assert endpoint.startswith("/messages/?session_id=")
                base = url.rsplit("/", 1)[0]
                posted = await client.post(base + endpoint, json=rpc(3, "tools/list"))
                assert posted.status_code == 202
                junk = await client.post(base + endpoint, content=b"not json")
                assert junk.status_code == 400 and junk.json()["error"]["code"] == -32700
                async for line in lines:
                    if line.startswith("data: "):
                        assert json.loads(line[6:])["id"] == 3
                        break
            unknown = await client.post(base + "/messages/?session_id=nope", json=rpc(4, "tools/list"))
            assert unknown.status_code == 404

    run(test)


# -- who may come in, and limits -----------------------------------------------------------------------------


@pytest.mark.report("faults", "a web page's request reaches a served capture (a foreign Host or Origin: DNS "
                    "rebinding)", surface="CLI", group="network",
                    advice="Nothing to do: serve answers 403 and the twin never sees it; a local web client uses "
                           "http://127.0.0.1:PORT or localhost.")
@pytest.mark.parametrize("headers", [{"Host": "evil.example:80"}, {"Origin": "https://evil.example"}],
                         ids=["host", "origin"])
def test_a_foreign_host_or_origin_is_refused_with_403_and_reaches_no_twin(headers, tmp_path, report):
    capture = session_capture(tmp_path / "c.jsonl")

    async def test() -> None:
        async with served(capture) as (server, url), httpx.AsyncClient(timeout=TIMEOUT) as client:
            refused = await client.post(url, json=rpc(0, "initialize", INIT), headers={**ACCEPT, **headers})
            assert refused.status_code == 403
            report.saw(refused.json()["error"]["message"])
            assert "refused: its " in refused.json()["error"]["message"]
            assert server.refused == 1 and not server.sessions and server.stateless is None
            local = await client.post(url, json=rpc(0, "initialize", INIT),
                                      headers={**ACCEPT, "Origin": "http://localhost:3000"})
            assert local.status_code == 200

    run(test)


def test_a_body_over_max_message_is_refused_unread_an_empty_one_is_a_400_and_the_server_goes_on(tmp_path):
    capture = session_capture(tmp_path / "c.jsonl")

    async def test() -> None:
        async with served(capture, max_message=1000) as (server, url), httpx.AsyncClient(timeout=TIMEOUT) as client:
            big = await client.post(url, json=rpc(1, "tools/list", {"pad": "x" * 5000}), headers=ACCEPT)
            assert big.status_code == 413 and "--max-message" in big.json()["error"]["message"]
            again = await client.post(url, json=rpc(2, "tools/list"), headers=ACCEPT)
            assert again.status_code == 200 and again.json()["id"] == 2
            empty = await client.post(url, content=b"", headers=ACCEPT)
            assert empty.status_code == 400 and empty.json()["error"]["code"] == -32600

    run(test)


def test_a_client_that_leaves_its_stream_ends_its_session_and_the_stop_ends_a_stream_never_read(tmp_path):
    capture = session_capture(tmp_path / "c.jsonl")

    async def test() -> None:
        async with served(capture, "sse") as (server, url):
            async with httpx.AsyncClient(timeout=TIMEOUT) as client, client.stream("GET", url) as stream:
                await anext(stream.aiter_lines())
                assert len(server.sessions) == 1
            await until(lambda: not server.sessions, TIMEOUT, "the session to end with its stream")
            # a client that opens a stream and never reads it: the stop still ends it
            raw = socket.create_connection(("127.0.0.1", server.port))
            raw.sendall(f"GET /sse HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
            await until(lambda: bool(server.sessions), TIMEOUT, "the unread stream's session")
        raw.close()
        assert server.totals().answered == 0

    run(test)


def test_an_http_sse_post_waiting_for_a_stream_never_read_ends_when_the_stream_closes(tmp_path, monkeypatch):
    big = "x" * (1 << 20)  # answers that fill the socket's buffers at once
    capture = write_capture(tmp_path / "big.jsonl", [request(1, "tools/list"), result(1, {"tools": [], "pad": big})])
    monkeypatch.setattr(serve_http_module, "STREAM_QUEUE", 1)

    async def test() -> None:
        async with served(capture, "sse") as (server, url), httpx.AsyncClient(timeout=TIMEOUT) as client:
            raw = socket.create_connection(("127.0.0.1", server.port))
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            raw.sendall(f"GET /sse HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
            await until(lambda: bool(server.sessions), TIMEOUT, "the stream's session")
            session = next(iter(server.sessions.values()))
            endpoint = f"{url.rsplit('/', 1)[0]}/messages/?session_id={session.id}"
            posts = [asyncio.ensure_future(client.post(endpoint, json=rpc(n, "tools/list"))) for n in range(16)]
            await until(lambda: session.queue.full() and sum(p.done() for p in posts) < 16, TIMEOUT,
                        "POSTs waiting for room in a stream nobody reads")
            raw.close()  # the client leaves its stream: the POSTs still waiting are answered, none hangs
            done = await asyncio.wait_for(asyncio.gather(*posts), TIMEOUT)
            assert {r.status_code for r in done} <= {202, 404} and 404 in {r.status_code for r in done}
            assert not server.sessions

    run(test)


# -- WebSocket -----------------------------------------------------------------------------------------------


def test_websocket_answers_a_text_frame_each_and_the_mcp_subprotocol(tmp_path):
    from httpx_ws import aconnect_ws

    capture = session_capture(tmp_path / "c.jsonl")

    async def test() -> None:
        async with served(capture, "websocket") as (server, url), httpx.AsyncClient(timeout=TIMEOUT) as client:
            assert url.startswith("ws://127.0.0.1:") and url.endswith("/mcp")
            plain = await client.post(url.replace("ws://", "http://"), json=rpc(0, "tools/list"))
            assert plain.status_code == 426
            async with aconnect_ws(url.replace("ws://", "http://"), client, subprotocols=["mcp"]) as ws:
                assert ws.subprotocol == "mcp"
                await ws.send_text(json.dumps(rpc(0, "initialize", INIT)))
                assert json.loads(await ws.receive_text())["result"]["serverInfo"]["name"] == "recorded"
                await ws.send_text(json.dumps(rpc(None, "notifications/initialized")))
                assert json.loads(await ws.receive_text())["method"] == "notifications/tools/list_changed"
                await ws.send_text("not json")
                assert json.loads(await ws.receive_text())["error"]["code"] == -32700
            await until(lambda: not server.websockets, TIMEOUT, "the connection's twin to end")
            assert server.totals().answered == 1

    run(test)


def test_a_websocket_message_over_max_message_closes_with_1009_and_a_foreign_origin_gets_403(tmp_path):
    from httpx_ws import WebSocketDisconnect, WebSocketUpgradeError, aconnect_ws

    capture = session_capture(tmp_path / "c.jsonl")

    async def test() -> None:
        async with served(capture, "websocket", max_message=1000) as (_, url), \
                httpx.AsyncClient(timeout=TIMEOUT) as client:
            http_url = url.replace("ws://", "http://")
            async with aconnect_ws(http_url, client) as ws:
                await ws.send_text(json.dumps(rpc(1, "tools/list", {"pad": "x" * 5000})))
                with pytest.raises(WebSocketDisconnect) as closed:
                    await ws.receive_text()
                assert closed.value.code == 1009
            with pytest.raises(WebSocketUpgradeError) as refused:
                async with aconnect_ws(http_url, client, headers={"Origin": "https://evil.example"}):
                    pass
            assert refused.value.response.status_code == 403

    run(test)


# -- clients that hold or flood the server -------------------------------------------------------------------


def test_a_head_cut_short_gets_408_a_huge_head_431_and_endless_sessions_end_the_oldest(tmp_path, monkeypatch):
    capture = session_capture(tmp_path / "c.jsonl")
    monkeypatch.setattr(serve_http_module, "REQUEST_HEAD_TIMEOUT", 0.3)
    monkeypatch.setattr(serve_http_module, "MAX_SESSIONS", 3)

    async def test() -> None:
        async with served(capture) as (server, url), httpx.AsyncClient(timeout=TIMEOUT) as client:
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1")  # and never the rest
            answer = await asyncio.wait_for(reader.read(), TIMEOUT)
            assert answer.startswith(b"HTTP/1.1 408 ")
            writer.close()
            huge = await client.post(url, json=rpc(1, "tools/list"), headers={**ACCEPT, "X-Pad": "x" * (200 << 10)})
            assert huge.status_code == 431
            opened = [(await client.post(url, json=rpc(0, "initialize", INIT), headers=ACCEPT)).headers[
                "mcp-session-id"] for _ in range(4)]
            assert list(server.sessions) == opened[1:]
            first = await client.post(url, json=rpc(2, "tools/list"), headers={**ACCEPT, "Mcp-Session-Id": opened[0]})
            assert first.status_code == 404
            assert server.totals().answered == 4  # the ended session's initialize is still counted

    run(test)
