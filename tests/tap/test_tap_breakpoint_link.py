"""The breakpoint link between a tap's relay and a window's tap tab, over the real private Unix socket: the
window's breakpoints reach the relay's interceptor, a paused message reaches the window, and the window's decision
comes back as the verdict; when the window goes away, what waits goes on unchanged."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from inspector.core.intercept.engine import Interceptor
from inspector.core.intercept.rules import Rules, parse_rules
from inspector.core.tap.breakpoint_link import BreakpointLink, WindowSide, decoded
from inspector.core.tap.channel import listen
from inspector.core.waiting import wait_for

BOUND = 30.0  #: every await on the link is bounded by this
CALL = b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}'
PAUSE_CALLS = [{"when": {"dir": "c2s", "method": "tools/call"}, "do": "pause"}]


class Window:
    """The window's handler for breakpoint links: sends its breakpoints, keeps the paused messages it is shown."""

    def __init__(self, rules: list[dict[str, Any]]) -> None:
        self.rules = parse_rules(rules).rules
        self.sides: list[WindowSide] = []
        self.paused: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.leave = asyncio.Event()

    async def __call__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, hello: dict[str, Any]) -> None:
        side = WindowSide(reader, writer, hello)
        self.sides.append(side)
        side.send_rules(list(self.rules))
        reading = asyncio.ensure_future(self._read(side))
        await self.leave.wait()
        reading.cancel()

    async def _read(self, side: WindowSide) -> None:
        async for paused in side.paused():
            await self.paused.put(paused)


async def no_tap(connection: Any) -> None:
    raise AssertionError("no tap connects in these tests")


async def linked(short_dir, window: Window, own: Rules | None = None) -> tuple[Any, BreakpointLink, Interceptor]:
    own = own or Rules()
    listener = await listen(short_dir / "tap.sock", no_tap, others={"breakpoints": window})
    interceptor = Interceptor(own)
    link = await BreakpointLink.connect(short_dir / "tap.sock", {"name": "demo", "pid": 4242}, interceptor, own)
    assert link is not None
    return listener, link, interceptor


def test_the_windows_breakpoints_reach_the_relay_before_its_server_starts(short_dir):
    async def scenario():
        window = Window(PAUSE_CALLS)
        listener, link, interceptor = await linked(short_dir, window)
        verdict = interceptor.decide("c2s", CALL)  # no wait: the first rules came with the link
        hello = window.sides[0].hello
        window.leave.set()
        await link.close()
        listener.close()
        return verdict, hello

    verdict, hello = asyncio.run(scenario())
    assert verdict.action == "pause" and verdict.rule is not None and verdict.rule.number == 1
    assert hello == {"type": "breakpoints", "protocol": 1, "name": "demo", "pid": 4242}


def test_a_paused_message_is_shown_to_the_window_and_its_edited_forward_comes_back_as_the_verdict(short_dir):
    async def scenario():
        window = Window(PAUSE_CALLS)
        listener, link, interceptor = await linked(short_dir, window)
        verdict = interceptor.decide("c2s", CALL)
        asked = asyncio.ensure_future(link.pause("c2s", CALL, verdict))
        shown = await wait_for(window.paused.get(), BOUND)
        assert window.sides[0].acknowledged == 1  # the relay said it acts on the rules before it paused by them
        edited = CALL.replace(b'"hi"', b'"edited"').decode()
        window.sides[0].decide(shown["id"], "forward", edited=edited)
        resolved = await wait_for(asked, BOUND)
        window.leave.set()
        await link.close()
        listener.close()
        return shown, resolved

    shown, resolved = asyncio.run(scenario())
    assert shown["dir"] == "c2s" and decoded(shown) == CALL and shown["rule"] == 1
    assert resolved.action == "rewrite" and resolved.changed
    assert json.loads(resolved.out)["params"]["arguments"] == {"message": "edited"}


def test_when_the_window_goes_away_a_paused_message_goes_on_unchanged_and_its_breakpoints_are_gone(short_dir):
    async def scenario():
        window = Window(PAUSE_CALLS)
        own = parse_rules([{"when": {"method": "ping"}, "do": "drop"}])
        listener, link, interceptor = await linked(short_dir, window, own)
        rules_while_linked = [rule.number for rule in interceptor.rules.rules]
        asked = asyncio.ensure_future(link.pause("c2s", CALL, interceptor.decide("c2s", CALL)))
        await wait_for(window.paused.get(), BOUND)
        window.leave.set()  # the tab closes: the window ends its side of the link
        resolved = await wait_for(asked, BOUND)
        after = interceptor.decide("c2s", CALL)
        listener.close()
        return rules_while_linked, resolved, after, [rule.number for rule in interceptor.rules.rules]

    rules_while_linked, resolved, after, rules_after = asyncio.run(scenario())
    assert rules_while_linked == [1, 2]  # the tap's own rule first, the window's numbered after it
    assert resolved.action == "pass" and resolved.out == CALL
    assert after.passes and rules_after == [1]


def test_without_a_window_there_is_no_link(short_dir):
    async def scenario():
        return await BreakpointLink.connect(short_dir / "tap.sock", {"name": "demo", "pid": 1}, Interceptor(), Rules())

    assert asyncio.run(scenario()) is None


def test_a_listener_that_closes_the_link_at_once_is_no_link(short_dir):
    """A window without breakpoints for taps (or a listener that knows only the feed) closes the connection: the
    relay then keeps its zero-copy path, as without a window."""
    async def scenario():
        listener = await listen(short_dir / "tap.sock", no_tap)  # no "breakpoints" handler: the hello is refused
        try:
            return await BreakpointLink.connect(short_dir / "tap.sock", {"name": "demo", "pid": 1}, Interceptor(),
                                                Rules())
        finally:
            listener.close()

    assert asyncio.run(scenario()) is None
