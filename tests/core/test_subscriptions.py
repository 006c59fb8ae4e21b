"""Hearing changes (inspector/core/explore/subscriptions.py, listen.py): against the Python SDK's 2026-07-28 server
(tests/core/servers/sdk_modern_server.py) the Explorer's catalog opens a subscriptions/listen stream, hears a
tools list_changed and a resource update on it, and changes its filter by opening a new stream and cancelling the
old; against server-everything (2025-11-25) a resource is subscribed with resources/subscribe. The judge's
subscription rules on streams built here, and the headless ``listen``."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
import warm_python
from helpers import cli, until
from npm_servers import install_everything

from inspector.core.connect.target import Target, make_transport
from inspector.core.explore.catalog import Catalog, Notice
from inspector.core.explore.subscriptions import LISTEN, filter_for, wait_for_acknowledgement
from inspector.core.protocol.judge import judge_events
from inspector.core.session.session import Session
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind

pytestmark = [pytest.mark.integration]
SDK_SERVER = Path(__file__).parent / "servers" / "sdk_modern_server.py"
BOUND = 60


async def connected(argv: list[str]) -> tuple[Session, Catalog, list[Notice]]:
    session = Session(make_transport(Target(name="t", argv=argv)))
    catalog = Catalog(session)
    notices: list[Notice] = []
    catalog.listeners.append(notices.append)
    catalog.attach()
    await session.start()
    await session.handshake("auto")
    await catalog.load()
    return session, catalog, notices


def sent(session: Session, method: str) -> list[dict]:
    return [e.json() for e in session.events if e.kind == Kind.MESSAGE and e.dir == "c2s" and e.rpc
            and e.rpc.method == method]


def test_the_explorer_hears_list_changes_and_resource_updates_on_a_subscription_of_a_2026_server():
    async def scenario() -> None:
        session, catalog, notices = await connected(warm_python.command(SDK_SERVER))
        try:
            assert session.modern
            first = catalog.subscriptions.current
            assert first is not None and await wait_for_acknowledgement(catalog.subscriptions, first, BOUND)
            [listen] = sent(session, LISTEN)
            assert listen["params"]["notifications"] == {"toolsListChanged": True, "promptsListChanged": True,
                                                         "resourcesListChanged": True}
            assert "subscription " + json.dumps(listen["id"]) in first.line()
            await catalog.call_tool("add_tool", {"name": "zap"})
            await until(lambda: any(t["name"] == "zap" for t in catalog.items["tools"]), BOUND, "the new tool listed")
            assert first.notifications == 1 and first.outside == []

            await catalog.subscribe("test://greeting")
            second = catalog.subscriptions.current
            assert second is not None and second is not first and first.ended is not None
            assert sent(session, LISTEN)[-1]["params"]["notifications"]["resourceSubscriptions"] == ["test://greeting"]
            cancels = sent(session, "notifications/cancelled")
            assert [c["params"]["requestId"] for c in cancels] == [listen["id"]]  # the old stream, once
            assert await wait_for_acknowledgement(catalog.subscriptions, second, BOUND)
            await catalog.call_tool("touch", {"uri": "test://greeting"})
            await until(lambda: any(n.what == "updated" and n.uri == "test://greeting" for n in notices), BOUND,
                        "the update heard")
            judge = judge_events(session.events)
            assert not judge.findings, judge.findings
        finally:
            await session.close()

    asyncio.run(asyncio.wait_for(scenario(), BOUND))


@pytest.mark.npm
def test_a_2025_server_gets_resources_subscribe_and_no_stream():
    node, entry = install_everything()

    async def scenario() -> None:
        session, catalog, _notices = await connected([node, str(entry), "stdio"])
        try:
            assert not session.modern and catalog.subscriptions.current is None
            await catalog.subscribe("demo://resource/static/document/architecture.md")
            assert [m["params"]["uri"] for m in sent(session, "resources/subscribe")] == [
                "demo://resource/static/document/architecture.md"]
            assert sent(session, LISTEN) == []
        finally:
            await session.close()

    asyncio.run(asyncio.wait_for(scenario(), BOUND))


def test_the_filter_asks_for_what_the_server_declares():
    caps = {"tools": {"listChanged": True}, "resources": {"subscribe": True}}
    assert filter_for(caps, ["a://x"]) == {"toolsListChanged": True, "resourcesListChanged": True,
                                           "resourceSubscriptions": ["a://x"]}
    assert filter_for({"resources": {}}, ["a://x"]) == {"resourcesListChanged": True}  # no subscribe: no URIs


def test_listen_prints_each_notification_as_a_json_line_and_stops_after_for(tmp_path):
    started = time.monotonic()
    done = cli("listen", "--for", "1.5", "--resource", "test://greeting", "--out", str(tmp_path / "l.jsonl"),
               "--", *warm_python.command(SDK_SERVER))
    assert done.returncode == 0, done.stderr
    assert 1.5 <= time.monotonic() - started < 30  # ends by itself, neither sooner nor much later
    [line] = done.stdout.splitlines()  # nothing changed meanwhile: the acknowledgement only
    ack = json.loads(line)
    assert ack["method"] == "notifications/subscriptions/acknowledged"
    assert ack["params"]["notifications"]["resourceSubscriptions"] == ["test://greeting"]


# -- the judge's rules, on streams built here ------------------------------------------------------------

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def message(seq: int, direction: str, obj: dict, **data) -> Event:
    info, findings = jsonrpc.classify(obj)
    return Event(Kind.MESSAGE, json.dumps(obj).encode(), direction, rpc=info, findings=findings, seq=seq,
                 data=data)


def stream(*notifications: dict) -> list[Event]:
    caps = {"tools": {"listChanged": True}, "resources": {"subscribe": True, "listChanged": True}}
    events = [
        message(1, Direction.C2S, {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": META}}),
        message(2, Direction.S2C, {"jsonrpc": "2.0", "id": 1, "result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": caps,
            "ttlMs": 0, "cacheScope": "private"}}, request_method="server/discover", reply_to=1),
        message(3, Direction.C2S, {"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen", "params": {
            "_meta": META, "notifications": {"toolsListChanged": True, "resourceSubscriptions": ["a://x"]}}}),
    ]
    for n, params in enumerate(notifications, start=4):
        method = params.pop("method")
        events.append(message(n, Direction.S2C, {"jsonrpc": "2.0", "method": method, "params": params}))
    return events


def on(subscription: int = 2, **params) -> dict:
    return {"_meta": {"io.modelcontextprotocol/subscriptionId": subscription}, **params}


def rules(events: list[Event]) -> list[tuple[int, str]]:
    judge = judge_events(events)
    return [(f.seq, f.rule) for found in judge.findings.values() for f in found]


def test_a_subscription_that_keeps_to_its_filter_raises_nothing():
    assert rules(stream({"method": "notifications/subscriptions/acknowledged", **on(notifications={})},
                        {"method": "notifications/tools/list_changed", **on()},
                        {"method": "notifications/resources/updated", **on(uri="a://x")})) == []


def test_a_notification_the_filter_did_not_ask_for_is_subscription_filter():
    assert rules(stream({"method": "notifications/subscriptions/acknowledged", **on(notifications={})},
                        {"method": "notifications/resources/list_changed", **on()},
                        {"method": "notifications/resources/updated", **on(uri="a://other")},
                        {"method": "notifications/tools/list_changed"})) == [
        (5, "subscription-filter"), (6, "subscription-filter"), (7, "subscription-filter")]


def test_a_notification_before_the_acknowledgement_is_subscription_before_ack():
    assert rules(stream({"method": "notifications/tools/list_changed", **on()},
                        {"method": "notifications/subscriptions/acknowledged", **on(notifications={})})) == [
        (4, "subscription-before-ack")]
