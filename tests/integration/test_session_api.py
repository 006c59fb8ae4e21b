"""The in-process API the GUI uses, against a real server: StdioTransport + Session, no CLI in between."""

from __future__ import annotations

import asyncio
import sys

import pytest
from integration_support import SERVERS, is_gone, live_group_members

from inspector.core.session.outcomes import RequestTimeout, result_of
from inspector.core.session.session import Session
from inspector.core.transports.stdio import StdioTransport
from inspector.core.wire.events import Direction, Event, Kind

pytestmark = [pytest.mark.integration]

#: The whole conversation, startup and shutdown included, must fit in this.
BOUND = 30.0


def test_a_session_does_the_legacy_handshake_lists_tools_and_closes_the_sdk_server(sdk_server: list[str]) -> None:
    seen: list[Event] = []

    def listen(delivered: Event | list[Event]) -> None:
        # one event per call, or a batch of them (both exist across versions of the listener API)
        seen.extend(delivered if isinstance(delivered, list) else [delivered])

    async def conversation() -> tuple[Session, Event, Event]:
        transport = StdioTransport(sdk_server)
        session = Session(transport)
        session.listeners.append(listen)
        await session.start()
        try:
            info = await session.handshake("legacy")
            assert info.era == "legacy" and info.protocol_version == "2025-11-25"
            assert info.name == "inspector-test-sdk-server" and info.version == "1.0.0"
            assert "tools" in info.capabilities
            tools = await session.request("tools/list")
            missing = await session.request("no/such/method")
        finally:
            await session.close()
        return session, tools, missing

    session, tools, missing = asyncio.run(asyncio.wait_for(conversation(), BOUND))

    assert seen == session.events, "listeners see every event, in order"
    assert [e.seq for e in session.events] == list(range(1, len(session.events) + 1))
    result, error = result_of(tools)
    assert error is None
    assert {tool["name"] for tool in result["tools"]} == {"add", "echo"}
    assert tools.dir == Direction.S2C and tools.data["request_method"] == "tools/list"
    assert tools.data["latency"] >= 0
    request = next(e for e in session.events if e.seq == tools.data["reply_to"])
    assert request.dir == Direction.C2S and request.method == "tools/list"
    assert "answered_by" not in request.data, "a saved event never changes"
    result, error = result_of(missing)
    assert result is None and error["code"] == -32601, error

    sent = [e.method for e in session.events if e.kind == Kind.MESSAGE and e.dir == Direction.C2S]
    assert sent == ["initialize", "notifications/initialized", "tools/list", "no/such/method"]
    initialize = next(e for e in session.events if e.data.get("request_method") == "initialize")
    assert result_of(initialize)[0]["serverInfo"]["name"] == "inspector-test-sdk-server"
    assert session.counts["c2s"] == 4 and session.counts["s2c"] == 3 and session.counts["framing_errors"] == 0

    whats = [e.data["what"] for e in session.events if e.kind == Kind.LIFECYCLE]
    assert whats[0] == "spawned" and whats[-2:] == ["stdin_closed", "exited"], whats
    assert session.events[-1].data["code"] == 0 and session.ending() == "server exited with code 0"
    pid = session.events[0].data["pid"]
    assert is_gone(pid) and live_group_members(pid) == []


def test_a_request_to_a_server_that_never_answers_raises_request_timeout_and_notes_it() -> None:
    async def conversation() -> Session:
        session = Session(StdioTransport([sys.executable, str(SERVERS / "silent_server.py")]))
        await session.start()
        try:
            with pytest.raises(RequestTimeout,
                               match=r"^no response to initialize within 0\.5 s; raise --timeout to wait longer$"):
                await session.handshake("legacy", timeout=0.5)
        finally:
            await session.close()
        return session

    session = asyncio.run(asyncio.wait_for(conversation(), BOUND))
    notes = [e.data["text"] for e in session.events if e.kind == Kind.NOTE]
    assert notes == ["no response to initialize within 0.5 s; raise --timeout to wait longer"]
    assert session.server is None
    assert [e.method for e in session.pending_requests()] == ["initialize"], "the unanswered initialize stays pending"
