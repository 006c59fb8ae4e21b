"""The window's breakpoints without Qt: the rule list that feeds the session's interceptor, and the queue of paused
messages that is its pauser (decisions, the maximum wait, release at close, the request's clock held)."""

from __future__ import annotations

import asyncio
import json

import pytest

from inspector.core.intercept.breakpoints import Breakpoints, DecisionError, PausedQueue, when_like
from inspector.core.intercept.engine import Interceptor
from inspector.core.intercept.rules import RulesError

CALL = b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}'
NOTE = b'{"jsonrpc":"2.0","method":"notifications/progress","params":{}}'


def test_breakpoints_give_the_interceptor_every_change_numbered_in_order():
    interceptor = Interceptor()
    points = Breakpoints(interceptor)
    seen = []
    points.listeners.append(lambda: seen.append(len(points)))
    points.add({"when": {"dir": "c2s", "method": "tools/list"}, "do": "delay", "ms": 5})
    points.add({"when": {"dir": "c2s", "method": "tools/call", "tool": "echo"}, "do": "pause"})
    assert interceptor.active
    assert interceptor.decide("c2s", CALL).action == "pause"
    points.set_enabled(1, False)
    assert interceptor.decide("c2s", CALL).passes
    points.remove(0)
    assert [rule.number for rule in interceptor.rules.rules] == [1]
    assert not interceptor.active  # the one left is disabled
    assert seen == [1, 2, 2, 1]
    assert points.describe() == "breakpoints now: rule 1 (pause) c2s tools/call tool echo, off"


def test_a_breakpoint_that_cannot_be_used_is_refused_in_one_sentence_and_changes_nothing():
    points = Breakpoints(Interceptor())
    with pytest.raises(RulesError) as refused:
        points.add({"when": {"match": "("}, "do": "pause"})
    assert "\n" not in str(refused.value) and "cannot be read" in str(refused.value)
    assert len(points) == 0


def test_breakpoints_export_as_a_rules_file_and_import_it_back(tmp_path):
    points = Breakpoints(Interceptor())
    points.add({"when": {"dir": "s2c", "method": "tools/call"}, "do": "error", "code": -32000, "message": "no"})
    points.add({"when": {"dir": "c2s"}, "do": "pause"})
    points.set_enabled(1, False)
    path = tmp_path / "rules.json"
    points.save(path)
    other = Breakpoints(Interceptor())
    assert other.load(path) == 2
    assert other.export() == points.export()
    assert json.loads(path.read_text())["rules"][1] == {"when": {"dir": "c2s"}, "do": "pause", "enabled": False}


def test_an_import_that_fails_says_why_and_keeps_the_breakpoints(tmp_path):
    points = Breakpoints(Interceptor())
    points.add({"when": {}, "do": "drop"})
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(RulesError, match="not JSON"):
        points.load(bad)
    assert len(points) == 1


def test_messages_like_this_one_are_matched_by_direction_method_and_tool():
    assert when_like("c2s", CALL) == {"dir": "c2s", "method": "tools/call", "tool": "echo"}
    answer = b'{"jsonrpc":"2.0","id":3,"result":{}}'
    assert when_like("s2c", answer, request_method="tools/call", request_tool="echo") == \
        {"dir": "s2c", "method": "tools/call", "tool": "echo"}
    assert when_like("s2c", b"not json") == {"dir": "s2c"}


def paused(queue: PausedQueue, raw: bytes = CALL, direction: str = "c2s"):
    """The pause of ``raw`` as a task, and the verdict that asked for it."""
    interceptor = queue.interceptor
    verdict = interceptor.decide(direction, raw)
    assert verdict.action == "pause"
    return asyncio.ensure_future(queue(direction, raw, verdict))


def pausing_queue(**options) -> PausedQueue:
    interceptor = Interceptor()
    Breakpoints(interceptor).add({"when": {}, "do": "pause"})
    return PausedQueue(interceptor, **options)


def test_a_paused_message_waits_for_the_decision_and_an_edit_goes_on_in_its_place():
    async def scenario():
        queue = pausing_queue()
        task = paused(queue)
        await asyncio.sleep(0)
        assert [item.title() for item in queue.items] == ['→ request tools/call echo #3']
        edited = json.dumps({**json.loads(CALL), "params": {"name": "echo", "arguments": {"text": "bye"}}}, indent=2)
        queue.decide(queue.items[0], "forward", edited=edited.encode())
        return await task, queue

    verdict, queue = asyncio.run(scenario())
    assert verdict.changed and json.loads(verdict.out)["params"]["arguments"] == {"text": "bye"}
    assert b"\n" not in verdict.out  # one line, whatever the editor's indentation
    assert len(queue) == 0


def test_an_edit_that_changes_nothing_forwards_the_message_byte_for_byte():
    async def scenario():
        queue = pausing_queue()
        task = paused(queue)
        await asyncio.sleep(0)
        queue.decide(queue.items[0], "forward", edited=json.dumps(json.loads(CALL), indent=2).encode())
        return await task

    verdict = asyncio.run(scenario())
    assert not verdict.changed and verdict.out == CALL


def test_a_decision_that_cannot_be_carried_out_is_one_sentence_and_the_message_keeps_waiting():
    async def scenario():
        queue = pausing_queue()
        call, note = paused(queue), paused(queue, NOTE, "s2c")
        await asyncio.sleep(0)
        with pytest.raises(DecisionError, match="not JSON"):
            queue.decide(queue.items[0], "forward", edited=b'{"jsonrpc": ')
        with pytest.raises(DecisionError, match="only a request or a response"):
            queue.decide(queue.items[1], "error", code=-1, message="x")
        waiting = len(queue)
        queue.release_all()
        return waiting, await call, await note

    waiting, call, note = asyncio.run(scenario())
    assert waiting == 2
    assert call.out == CALL and note.out == NOTE


def test_a_paused_message_goes_on_unchanged_after_the_longest_wait():
    async def scenario():
        queue = pausing_queue(max_wait=0.05)
        verdict = await paused(queue)
        return verdict, queue

    verdict, queue = asyncio.run(scenario())
    assert verdict.passes and verdict.out == CALL and len(queue) == 0


def test_a_paused_request_holds_its_clock_until_it_goes_on():
    held = []

    def hold(msg_id, why):
        held.append((msg_id, why))
        return lambda: held.append("released")

    async def scenario():
        queue = pausing_queue(hold=hold)
        task = paused(queue)
        answer = paused(queue, b'{"jsonrpc":"2.0","id":3,"result":{}}', "s2c")
        server_asks = paused(queue, b'{"jsonrpc":"2.0","id":9,"method":"ping"}', "s2c")  # the server's: no clock
        await asyncio.sleep(0)
        before = list(held)
        queue.decide(queue.items[0], "drop")
        queue.release_all()
        await asyncio.gather(task, answer, server_asks)
        return before

    before = asyncio.run(scenario())
    assert before == [(3, "paused at rule 1 (pause)"), (3, "paused at rule 1 (pause)")]
    assert held.count("released") == 2


def test_a_pause_whose_source_went_away_leaves_the_queue():
    async def scenario():
        queue = pausing_queue()
        task = paused(queue)
        await asyncio.sleep(0)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return queue

    assert len(asyncio.run(scenario())) == 0


def test_a_sessions_paused_request_outlasts_its_timeout_and_is_answered_once_forwarded():
    """The session's own send of a paused request returns at once (its send is bounded by the timeout) and the
    request's clock stops while it waits (the demo server, a real subprocess)."""
    import functools
    import sys

    from helpers import until

    from inspector.core.connect.opened import session_on
    from inspector.core.session.outcomes import result_of
    from inspector.core.session.server_requests import hold_clock
    from inspector.core.transports.stdio import StdioTransport

    async def scenario():
        interceptor = Interceptor()
        queue = PausedQueue(interceptor)
        session, _ = session_on(StdioTransport([sys.executable, "-m", "inspector.demo"]), None, keep_events=True,
                                interceptor=interceptor, pauser=queue)
        queue.hold = functools.partial(hold_clock, session)
        await session.start()
        try:
            await session.handshake("legacy")
            Breakpoints(interceptor).add({"when": {"dir": "c2s", "method": "tools/call"}, "do": "pause"})
            call = asyncio.ensure_future(session.request("tools/call", {"name": "echo", "arguments": {"text": "x"}},
                                                         timeout=0.3))
            await until(lambda: len(queue) == 1, 10, "the call to pause")
            loop = asyncio.get_running_loop()
            end = loop.time() + 1.0
            await until(lambda: loop.time() > end, 10, "three timeouts to pass")
            assert not call.done()
            queue.decide(queue.items[0], "forward")
            return result_of(await call)[0]
        finally:
            await session.close()

    result = asyncio.run(asyncio.wait_for(scenario(), 60))
    assert result["content"][0]["text"] == "x"
