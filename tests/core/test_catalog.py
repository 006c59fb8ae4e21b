"""The explorer's catalog against real servers: server-everything (npm) and two SDK MCPServers over stdio.

Everything the catalog sends must be a row of the session's timeline; list_changed must refresh the list."""

from __future__ import annotations

import asyncio
import json
import sys
from itertools import pairwise
from pathlib import Path

import pytest
import warm_python
from helpers import until
from npm_servers import install_everything

from inspector.core.connect.target import Target, make_transport
from inspector.core.explore.catalog import Catalog, Notice, roots_of
from inspector.core.session.outcomes import result_of
from inspector.core.session.session import Session

pytestmark = [pytest.mark.integration]
HERE = Path(__file__).parent
SDK_SERVER = HERE.parent / "integration" / "servers" / "sdk_server.py"
GROWS_TOOLS = HERE / "servers" / "grows_tools.py"
LIST_CHANGED_LOOP = HERE / "servers" / "list_changed_loop.py"
#: a Node or Python server starts, answers the handshake and lists in well under this on a loaded machine
BOUND = 60


async def connected(argv: list[str], handshake: str = "auto") -> tuple[Session, Catalog, list[Notice]]:
    session = Session(make_transport(Target(name="t", argv=argv)))
    catalog = Catalog(session)
    notices: list[Notice] = []
    catalog.listeners.append(notices.append)
    catalog.attach()
    await session.start()
    await session.handshake(handshake)
    await catalog.load()
    return session, catalog, notices


def sent(session: Session, method: str) -> list[dict]:
    return [e.json() for e in session.events if e.kind == "message" and e.dir == "c2s" and e.method == method]


def text_of(response) -> str:
    result, error = result_of(response)
    assert error is None, error
    return " ".join(b.get("text", "") for b in result["content"] if b.get("type") == "text")


def test_server_everything_is_listed_called_read_completed_and_prompted_through_the_session():
    node, entry = install_everything()

    async def scenario() -> None:
        session, catalog, notices = await connected([node, str(entry), "stdio"])
        try:
            names = [tool["name"] for tool in catalog.items["tools"]]
            assert "get-sum" in names and "get-tiny-image" in names
            assert catalog.items["resources"] and catalog.items["prompts"]
            templates = [t["uriTemplate"] for t in catalog.items["templates"]]
            assert "demo://resource/dynamic/text/{resourceId}" in templates
            assert {n.kind for n in notices if n.what == "listed"} == {"tools", "resources", "templates", "prompts"}

            response = await catalog.call_tool("get-sum", {"a": 2, "b": 3})
            assert "5" in text_of(response)
            call = sent(session, "tools/call")[-1]
            assert call["params"]["arguments"] == {"a": 2, "b": 3}
            assert call["params"]["_meta"]["progressToken"].startswith("explorer-")
            assert response in session.events, "the answer is a row of the timeline"

            suggestions = await catalog.complete({"type": "ref/resource",
                                                  "uri": "demo://resource/dynamic/text/{resourceId}"},
                                                 "resourceId", "1")
            assert suggestions == ["1"]
            read = await catalog.read_resource("demo://resource/dynamic/text/" + suggestions[0])
            result, _ = result_of(read)
            assert result["contents"][0]["uri"] == "demo://resource/dynamic/text/1"

            assert catalog.can_subscribe
            await catalog.subscribe("demo://resource/static/document/features.md")
            await catalog.unsubscribe("demo://resource/static/document/features.md")
            assert [m["params"]["uri"] for m in sent(session, "resources/subscribe")] == [
                "demo://resource/static/document/features.md"]

            prompt = await catalog.get_prompt("args-prompt", {"city": "Paris"})
            result, error = result_of(prompt)
            assert error is None and "Paris" in json.dumps(result["messages"])
        finally:
            await session.close()

    asyncio.run(asyncio.wait_for(scenario(), BOUND))


def test_an_sdk_server_without_completions_is_never_asked_for_them():
    async def scenario() -> None:
        session, catalog, _ = await connected(warm_python.command(SDK_SERVER))
        try:
            assert [t["name"] for t in catalog.items["tools"]] == ["add", "echo"]
            assert catalog.items["resources"][0]["uri"] == "test://greeting"
            assert not catalog.completions
            assert await catalog.complete({"type": "ref/prompt", "name": "review"}, "code", "x") == []
            assert sent(session, "completion/complete") == []
            assert "5" in text_of(await catalog.call_tool("add", {"a": 2, "b": 3}, progress=False))
            assert "progressToken" not in sent(session, "tools/call")[-1]["params"].get("_meta", {})
            assert session.modern, "the SDK server speaks 2026-07-28: both eras are covered"
            # 2026-07-28 has no resources/subscribe: the URI goes in the filter of a subscriptions/listen stream
            await catalog.subscribe("test://greeting")
            assert sent(session, "resources/subscribe") == []
            assert sent(session, "subscriptions/listen")[-1]["params"]["notifications"]["resourceSubscriptions"] == [
                "test://greeting"]
        finally:
            await session.close()

    asyncio.run(asyncio.wait_for(scenario(), BOUND))


def test_a_tools_list_changed_notification_lists_the_tools_again_and_progress_is_told():
    async def scenario() -> None:
        # legacy: a 2026-07-28 server sends list_changed only on a subscriptions/listen stream
        session, catalog, notices = await connected(warm_python.command(GROWS_TOOLS), "legacy")
        try:
            assert "grown" not in [t["name"] for t in catalog.items["tools"]]
            before = len(sent(session, "tools/list"))
            await catalog.call_tool("grow", {})
            await until(lambda: "grown" in [t["name"] for t in catalog.items["tools"]], BOUND,
                        "the tools listed again after list_changed")
            assert len(sent(session, "tools/list")) == before + 1

            response = await catalog.call_tool("slow", {})
            assert "slow done" in text_of(response)
            progress = [n.data for n in notices if n.what == "progress"]
            assert [(p["progress"], p.get("total"), p.get("message")) for p in progress] == [
                (1, 2, "half way"), (2, 2, "done")]
        finally:
            await session.close()

    asyncio.run(asyncio.wait_for(scenario(), BOUND))


def flood_over(session: Session) -> bool:
    """The loop server's last word: its flood of list_changed notifications is over."""
    return any(e.kind == "message" and e.dir == "s2c" and e.method == "notifications/message" for e in session.events)


def tools_lists(session: Session) -> list[float]:
    """When each tools/list request went out (seconds into the session)."""
    return [e.t for e in session.events if e.kind == "message" and e.dir == "c2s" and e.method == "tools/list"]


def test_a_list_changed_the_server_did_not_declare_lists_nothing_again_and_is_said_once():
    # issue 25: a server that answers every tools/list with an undeclared list_changed was listed 1,538 times in 12 s
    async def scenario() -> None:
        session, catalog, notices = await connected([sys.executable, str(LIST_CHANGED_LOOP)], "legacy")
        try:
            await until(lambda: flood_over(session), BOUND, "the server's 2.5 s flood of list_changed to end")
            assert len(tools_lists(session)) == 1, tools_lists(session)
            ignored = [n for n in notices if n.what == "change_ignored"]
            assert [(n.kind, n.sentence) for n in ignored] == [("tools", (
                "the server sent notifications/tools/list_changed but does not declare tools.listChanged, so its "
                "tools are not listed again (a protocol finding; reconnect to see the new list)"))]
            assert catalog.settled
        finally:
            await session.close()

    asyncio.run(asyncio.wait_for(scenario(), BOUND))


def test_a_declared_list_changed_flood_lists_the_tools_again_but_never_more_than_once_a_second():
    async def scenario() -> None:
        session, catalog, _ = await connected([sys.executable, str(LIST_CHANGED_LOOP), "--declare"], "legacy")
        try:
            await until(lambda: flood_over(session), BOUND, "the server's 2.5 s flood of list_changed to end")
            starts = tools_lists(session)
            assert len(starts) >= 2, "a declared list_changed is acted on"
            gaps = [round(b - a, 3) for a, b in pairwise(starts)]
            assert min(gaps) >= 0.95, gaps  # the policy's 1 s, less the jitter between deciding and sending
            assert len(starts) <= (starts[-1] - starts[0]) + 1, starts
        finally:
            await session.close()

    asyncio.run(asyncio.wait_for(scenario(), BOUND))


def test_edited_roots_are_answered_as_file_uris_and_announced(tmp_path):
    async def scenario() -> None:
        session = Session(make_transport(Target(name="t", argv=warm_python.command(SDK_SERVER))))
        session.roots_list_changed = True
        await session.start()
        await session.handshake("legacy")
        try:
            initialize = sent(session, "initialize")[0]
            assert initialize["params"]["capabilities"]["roots"] == {"listChanged": True}
            catalog = Catalog(session)
            await catalog.set_roots([str(tmp_path)])
            assert session.roots == [{"uri": tmp_path.as_uri(), "name": tmp_path.name}]
            assert len(sent(session, "notifications/roots/list_changed")) == 1
        finally:
            await session.close()

    asyncio.run(asyncio.wait_for(scenario(), BOUND))


def test_roots_are_file_uris_named_after_their_folder(tmp_path):
    assert roots_of([str(tmp_path), "file:///srv/data"]) == [
        {"uri": tmp_path.as_uri(), "name": tmp_path.name}, {"uri": "file:///srv/data", "name": "data"}]
