"""The scenario server over Streamable HTTP, in this process, driven by httpx on 127.0.0.1: a request's answer
comes on its SSE stream, after the server's own question when the scenario asks one; notifications and
responses get 202; GET is 405; a crash aborts the connection."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from inspector.core.capture import read_capture
from inspector.core.clientbench.http_server import SESSION_ID, ScenarioHttp
from inspector.core.clientbench.scenarios import make

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def sse_messages(text: str) -> list[Any]:
    return [json.loads(line[len("data: "):]) for line in text.splitlines() if line.startswith("data: ")]


async def _ping_dialogue(tmp_path: Path) -> tuple[list[Any], list[Any]]:
    server = ScenarioHttp(make("ping"), tmp_path / "ping.jsonl", "ping")
    url = await server.start()
    try:
        async with httpx.AsyncClient(trust_env=False, timeout=10) as client:
            init = await client.post(url, json=INITIALIZE, headers=HEADERS)
            assert init.headers["mcp-session-id"] == SESSION_ID
            assert sse_messages(init.text)[0]["result"]["protocolVersion"] == "2025-11-25"
            assert (await client.post(url, json=INITIALIZED, headers=HEADERS)).status_code == 202
            assert (await client.get(url, headers=HEADERS)).status_code == 405
            junk = await client.post(url, content=b"{not json", headers=HEADERS)
            assert junk.status_code == 400 and junk.json()["error"]["code"] == -32700
            seen: list[Any] = []
            async with client.stream("POST", url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                                     headers=HEADERS) as stream:
                async for line in stream.aiter_lines():
                    if not line.startswith("data: "):
                        continue
                    message = json.loads(line[len("data: "):])
                    seen.append(message)
                    if message.get("method") == "ping":
                        answer = {"jsonrpc": "2.0", "id": message["id"], "result": {}}
                        assert (await client.post(url, json=answer, headers=HEADERS)).status_code == 202
    finally:
        await server.close()
        server.record.close()
    return seen, [e for e in read_capture(tmp_path / "ping.jsonl").events if e.rpc is not None]


def test_the_ping_scenario_over_http_asks_on_the_requests_stream_and_answers_once_the_ping_is_answered(
        tmp_path: Path) -> None:
    seen, recorded = asyncio.run(_ping_dialogue(tmp_path))
    assert [m.get("method", "answer") for m in seen] == ["ping", "answer"]
    assert seen[1]["id"] == 2 and seen[1]["result"]["tools"][0]["name"] == "echo"
    assert [(e.dir, e.rpc.method if e.rpc else None) for e in recorded][-3:] == [
        ("s2c", "ping"), ("c2s", None), ("s2c", None)]


async def _crash(tmp_path: Path) -> None:
    server = ScenarioHttp(make("crash"), tmp_path / "crash.jsonl", "crash")
    url = await server.start()
    try:
        async with httpx.AsyncClient(trust_env=False, timeout=10) as client:
            await client.post(url, json=INITIALIZE, headers=HEADERS)
            await client.post(url, json=INITIALIZED, headers=HEADERS)
            with pytest.raises(httpx.TransportError):
                await client.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=HEADERS)
            with pytest.raises(httpx.ConnectError):
                await client.post(url, json={"jsonrpc": "2.0", "id": 3, "method": "ping"}, headers=HEADERS)
    finally:
        await server.close()
        server.record.close()


def test_the_crash_scenario_over_http_aborts_the_request_and_stops_listening(tmp_path: Path) -> None:
    asyncio.run(_crash(tmp_path))
