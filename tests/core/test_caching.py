"""Caching hints (inspector/core/explore/caching.py, 2026-07-28 ttlMs and cacheScope): the Explorer's catalog
lists a kind again when its listing expires and never sooner, against the Python SDK's 2026-07-28 server
(tests/core/servers/sdk_modern_server.py with cache_hints: tools/list fresh for 1.5 s here); what the detail pane
says of a message's hints and trace context (inspector/core/present/annotations.py)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import warm_python
from helpers import until

from inspector.core.connect.target import Target, make_transport
from inspector.core.explore.caching import MIN_EXPIRY, CacheHints, describe, expiry_delay, hints_of
from inspector.core.explore.catalog import Catalog
from inspector.core.present.annotations import message_notes
from inspector.core.session.session import Session
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Event, Kind

SDK_SERVER = Path(__file__).parent / "servers" / "sdk_modern_server.py"
BOUND = 60


@pytest.mark.integration
def test_a_list_is_listed_again_when_it_expires_never_sooner_and_a_stale_one_is_not_polled():
    async def scenario() -> None:
        session = Session(make_transport(Target(name="t", argv=[*warm_python.command(SDK_SERVER), "--tools-ttl",
                                                                "1500"])))
        catalog = Catalog(session)
        catalog.attach()
        await session.start()
        await session.handshake("auto")
        await catalog.load()
        try:
            assert catalog.freshness["tools"] == CacheHints(1500, "public")
            assert catalog.freshness["resources"] == CacheHints(0, "private")

            def times(method: str, direction: str) -> list[float]:
                return [e.t for e in session.events if e.kind == Kind.MESSAGE and e.dir == direction and e.rpc
                        and (e.rpc.method or e.data.get("request_method")) == method]

            await until(lambda: len(times("tools/list", "c2s")) >= 3, BOUND, "two listings on expiry")
            answers, asks = times("tools/list", "s2c"), times("tools/list", "c2s")
            gaps = [ask - answer for answer, ask in zip(answers, asks[1:], strict=False)]
            assert all(gap >= 1.5 for gap in gaps), gaps  # listed again when it expired, not before
            assert len(times("resources/list", "c2s")) == 1  # ttlMs 0: stale at once, never polled
        finally:
            await session.close()

    asyncio.run(asyncio.wait_for(scenario(), BOUND))


def test_hints_are_read_said_and_turned_into_an_expiry():
    assert hints_of({"ttlMs": 60000, "cacheScope": "public"}) == CacheHints(60000, "public")
    assert hints_of({"tools": []}) is None
    assert hints_of({"ttlMs": -5, "cacheScope": 3}) == CacheHints(None, None)
    assert describe(CacheHints(60000, "public")).startswith("fresh for 60 s, public")
    assert describe(CacheHints(0, "private")).startswith("stale at once")
    assert expiry_delay(CacheHints(60000, "public")) == 60.0
    assert expiry_delay(CacheHints(0, "private")) is None and expiry_delay(None) is None
    assert expiry_delay(CacheHints(5, "private")) == MIN_EXPIRY  # a few ms: once a second at most


def message(obj: dict, direction: str = "s2c") -> Event:
    info, _ = jsonrpc.classify(obj)
    return Event(Kind.MESSAGE, json.dumps(obj).encode(), direction, rpc=info)


def test_the_detail_says_a_results_caching_hints_and_a_messages_trace_context():
    listed = message({"jsonrpc": "2.0", "id": 2, "result": {"tools": [], "ttlMs": 60000, "cacheScope": "public"}})
    assert message_notes(listed) == ["cache: fresh for 60 s, public (any cache may share it across authorization "
                                     "contexts)"]
    traced = message({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "x", "_meta": {
        "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "tracestate": "vendor=abc",
        "baggage": "userId=alice"}}}, "c2s")
    assert message_notes(traced) == [
        "trace: traceparent 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 (trace "
        "4bf92f3577b34da6a3ce929d0e0e4736, parent span 00f067aa0ba902b7, sampled, version 00)",
        "trace: tracestate vendor=abc", "trace: baggage userId=alice"]
    odd = message({"jsonrpc": "2.0", "method": "notifications/message", "params": {"_meta": {"traceparent": "xyz"}}})
    assert "is not version-traceid-parentid-flags" in message_notes(odd)[0]
    assert message_notes(message({"jsonrpc": "2.0", "id": 1, "result": {}})) == []
