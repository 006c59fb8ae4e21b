"""The session's intercepting transport (inspector/core/intercept/transport.py) on an in-memory transport: what
reaches the peer, what the session is given, and the marks on each; no process."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from helpers import until

from inspector.core.intercept.engine import Interceptor, Verdict
from inspector.core.intercept.rules import parse_rules
from inspector.core.intercept.transport import HELD_AT_END, InterceptingTransport
from inspector.core.transports.base import Transport
from inspector.core.wire.events import Direction, Event
from inspector.core.wire.framing import decode_line
from inspector.core.wire.intercepted import describe, mark_of

CALL = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}'
RESULT = b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}'
SAMPLING = b'{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}'


class Loopback(Transport):
    """A peer in memory: what is sent is kept (and recorded as a stdio transport records it); ``arrive`` is the
    server writing a line."""

    name = "stdio"

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[bytes] = []
        self._closed = False

    def describe(self) -> dict[str, Any]:
        return {"transport": "stdio"}

    async def start(self) -> None:
        return None

    async def send(self, data: bytes, *, raw: bool = False) -> None:
        self.sent.append(data)
        for line in data.splitlines():
            event = decode_line(line, Direction.C2S)
            event.eol = b"\n"
            self.emit_many([event])

    def arrive(self, raw: bytes) -> None:
        event = decode_line(raw, Direction.S2C)
        event.eol = b"\n"
        self.emit_many([event])

    async def close(self) -> None:
        self._closed = True

    @property
    def closed(self) -> bool:
        return self._closed

    async def wait_closed(self) -> None:
        return None


def wrapped(*rules: dict[str, Any], pauser=None, clock=None) -> tuple[InterceptingTransport, Loopback, list[Event]]:
    inner = Loopback()
    wrapper = InterceptingTransport(inner, Interceptor(parse_rules(list(rules))), pauser=pauser, clock=clock)
    got: list[Event] = []
    wrapper.emit_many = got.extend
    return wrapper, inner, got


def seen(events: list[Event]) -> list[tuple[str | None, str | None, str | None]]:
    """Each event's direction, method (or id for a response) and role."""
    return [(e.dir, e.method or str(e.rpc.id if e.rpc else None), (mark_of(e.data) or {}).get("role"))
            for e in events]


def run(coro):
    return asyncio.run(coro)


def test_without_a_matching_rule_messages_go_through_unmarked():
    async def go():
        wrapper, inner, got = wrapped({"when": {"method": "ping"}, "do": "drop"})
        await wrapper.start()
        await wrapper.send(CALL)
        inner.arrive(RESULT)
        assert inner.sent == [CALL]
        assert seen(got) == [("c2s", "tools/call", None), ("s2c", "1", None)]
    run(go())


def test_a_rewritten_request_reaches_the_peer_changed_and_both_are_recorded():
    async def go():
        wrapper, inner, got = wrapped({"when": {"dir": "c2s"}, "do": "rewrite",
                                       "set": {"/params/arguments/text": "bye"}})
        await wrapper.start()
        await wrapper.send(CALL)
        assert [json.loads(s)["params"]["arguments"] for s in inner.sent] == [{"text": "bye"}]
        assert seen(got) == [("c2s", "tools/call", "original"), ("c2s", "tools/call", "changed")]
        assert got[0].raw == CALL and got[0].eol == b"\n" and got[1].raw == inner.sent[0]
    run(go())


def test_a_request_an_error_rule_holds_never_reaches_the_peer_and_is_answered():
    async def go():
        wrapper, inner, got = wrapped({"when": {"dir": "c2s"}, "do": "error", "code": -32000, "message": "no"})
        await wrapper.start()
        await wrapper.send(CALL)
        assert inner.sent == []
        assert seen(got) == [("c2s", "tools/call", "held"), ("s2c", "1", "answer")]
        assert json.loads(got[1].raw)["error"] == {"code": -32000, "message": "no"}
    run(go())


def test_a_dropped_request_is_recorded_and_never_sent():
    async def go():
        wrapper, inner, got = wrapped({"when": {"dir": "c2s"}, "do": "drop"})
        await wrapper.start()
        await wrapper.send(CALL)
        assert inner.sent == [] and seen(got) == [("c2s", "tools/call", "dropped")]
    run(go())


def test_a_delayed_request_goes_on_later_with_when_it_came():
    async def go():
        now = [1.0]
        wrapper, inner, got = wrapped({"when": {"dir": "c2s"}, "do": "delay", "ms": 30}, clock=lambda: now[0])
        await wrapper.start()
        sending = asyncio.ensure_future(wrapper.send(CALL))
        await asyncio.sleep(0)
        assert inner.sent == [], "sent before its delay"
        now[0] = 2.0
        await sending
        assert inner.sent == [CALL]
        assert [mark_of(e.data) for e in got] == [{"rule": 1, "action": "delay", "role": "delayed", "ms": 30,
                                                    "arrived": 1.0}]
    run(go())


def test_a_server_message_held_by_a_delay_lets_the_next_ones_overtake_it():
    async def go():
        wrapper, inner, got = wrapped({"when": {"dir": "s2c", "match": "slow"}, "do": "delay", "ms": 50})
        await wrapper.start()
        inner.arrive(b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"slow"}}')
        inner.arrive(RESULT)
        assert seen(got) == [("s2c", "1", None)]
        await until(lambda: len(got) == 2, 5, "the delayed message")
        assert seen(got)[1] == ("s2c", "notifications/message", "delayed")
    run(go())


def test_a_rewritten_answer_is_given_to_the_session_after_its_original():
    async def go():
        wrapper, inner, got = wrapped({"when": {"dir": "s2c", "method": "tools/call"}, "do": "rewrite",
                                       "set": {"/result/content/0/text": "forty-two"}})
        await wrapper.start()
        await wrapper.send(CALL)
        inner.arrive(RESULT)
        assert seen(got) == [("c2s", "tools/call", None), ("s2c", "1", "original"), ("s2c", "1", "changed")]
        assert json.loads(got[2].raw)["result"]["content"][0]["text"] == "forty-two"
        assert got[2].eol == b"\n"
    run(go())


def test_a_server_request_held_by_an_error_rule_is_answered_to_the_server():
    async def go():
        wrapper, inner, got = wrapped({"when": {"dir": "s2c", "method": "sampling/createMessage"}, "do": "error",
                                       "code": -1, "message": "not here"})
        await wrapper.start()
        inner.arrive(SAMPLING)
        await until(lambda: len(got) == 2, 5, "the answer to the server")
        assert [json.loads(s)["error"]["message"] for s in inner.sent] == ["not here"]
        assert seen(got) == [("s2c", "sampling/createMessage", "held"), ("c2s", "s1", "answer")]
    run(go())


def test_a_pause_is_decided_by_the_pauser_and_recorded_with_how_long_it_waited():
    async def go():
        asked: list[tuple[str, bytes, str]] = []
        decide = asyncio.Event()

        async def pauser(direction: str, raw: bytes, verdict: Verdict) -> Verdict:
            asked.append((direction, raw, verdict.action))
            await decide.wait()
            return wrapper.interceptor.resolve(direction, raw, "forward", edited=raw.replace(b"hi", b"yo"),
                                               rule=verdict.rule)

        wrapper, inner, got = wrapped({"when": {"dir": "c2s"}, "do": "pause"}, pauser=pauser)
        await wrapper.start()
        sending = asyncio.ensure_future(wrapper.send(CALL))
        await until(lambda: bool(asked), 5, "the pauser to be asked")
        assert asked == [("c2s", CALL, "pause")] and inner.sent == []
        decide.set()
        await sending  # a paused send returns at once; the message goes when it is decided
        await until(lambda: bool(inner.sent), 5, "the decided message to be sent")
        assert inner.sent == [CALL.replace(b"hi", b"yo")]
        assert [(m["role"], m["action"], "paused" in m) for m in (mark_of(e.data) for e in got)] == [
            ("original", "pause", True), ("changed", "pause", True)]
    run(go())


def test_without_a_pauser_a_pause_passes_the_message_on():
    async def go():
        wrapper, inner, got = wrapped({"do": "pause"})
        await wrapper.start()
        await wrapper.send(CALL)
        assert inner.sent == [CALL] and seen(got) == [("c2s", "tools/call", None)]
    run(go())


def test_raw_lines_of_the_composer_are_sent_as_given():
    async def go():
        wrapper, inner, _ = wrapped({"do": "drop"})
        await wrapper.start()
        two = CALL + b"\n" + CALL + b"\n"
        await wrapper.send(two, raw=True)
        assert inner.sent == [two]
    run(go())


def test_a_server_message_still_delayed_when_the_session_closes_is_recorded_as_never_delivered():
    async def go():
        wrapper, inner, got = wrapped({"when": {"dir": "s2c"}, "do": "delay", "ms": 60_000})
        await wrapper.start()
        inner.arrive(b'{"jsonrpc":"2.0","method":"notifications/message","params":{}}')
        assert got == []
        await wrapper.close()
        assert [mark_of(e.data) for e in got] == [{"rule": 1, "action": "delay", "role": "dropped",
                                                    "note": HELD_AT_END}]
        assert describe(mark_of(got[0].data)) == ("dropped by rule 1 (delay): never delivered (it was still held when "
                                                  "the session ended or stopped waiting for it)")
    run(go())


def test_a_request_whose_sender_stops_waiting_during_its_delay_is_recorded_and_never_sent():
    async def go():
        wrapper, inner, got = wrapped({"when": {"dir": "c2s"}, "do": "delay", "ms": 60_000})
        await wrapper.start()
        sending = asyncio.ensure_future(wrapper.send(CALL))
        await asyncio.sleep(0)
        sending.cancel()
        await asyncio.gather(sending, return_exceptions=True)
        assert inner.sent == []
        assert seen(got) == [("c2s", "tools/call", "dropped")]
        assert got[0].raw == CALL and got[0].eol == b"\n"
    run(go())
