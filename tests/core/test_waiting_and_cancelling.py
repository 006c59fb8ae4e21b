"""The request lifecycle a person drives: waiting on their answer stops the clock, and a cancel is sent once.

Driven against a real subprocess, tests/core/servers/waits_on_client.py, whose tools elicit and stall.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import until

from inspector.core.session.outcomes import RequestCancelled, RequestTimeout, result_of
from inspector.core.session.server_requests import ServerRequestHandler
from inspector.core.session.session import Session
from inspector.core.transports.stdio import StdioTransport
from inspector.core.wire.events import Direction, Event, Kind

SERVER = [sys.executable, str(Path(__file__).parent / "servers" / "waits_on_client.py")]
TIMEOUT = 0.5


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


class Person(ServerRequestHandler):
    """A server request handler that asks a person: it answers when the test says so."""

    waits_for_user = True

    def __init__(self) -> None:
        self.asked = asyncio.Event()
        self.answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    async def __call__(self, method: str, params: Any) -> Any:
        self.asked.set()
        return await self.answer

    def capabilities(self) -> dict[str, Any]:
        return {"elicitation": {}}


async def open_session(**kwargs: Any) -> Session:
    session = Session(StdioTransport(SERVER), **kwargs)
    await session.start()
    await session.handshake("legacy")
    return session


def notes(session: Session) -> list[Event]:
    return [e for e in session.events if e.kind == Kind.NOTE]


def sent_request(session: Session, method: str) -> Event:
    return next(e for e in session.events if e.dir == Direction.C2S and e.kind == Kind.MESSAGE and e.method == method)


async def past(seconds: float) -> None:
    """Let the loop run until its clock has certainly passed ``seconds`` from now."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    await until(lambda: loop.time() > end, seconds + 10, f"{seconds:g} s to pass")


async def ask(session: Session, person: Person, **arguments: Any) -> asyncio.Future[Event]:
    """Call the ``ask`` tool (timeout TIMEOUT) and wait until the person is asked, then a while longer than
    the timeout (the user takes their time); returns the call, still waiting."""
    call = asyncio.ensure_future(session.request("tools/call", {"name": "ask", "arguments": arguments},
                                                 timeout=TIMEOUT))
    await asyncio.wait_for(person.asked.wait(), 10)
    await past(TIMEOUT * 3)
    assert not call.done()
    return call


def test_a_tool_call_waits_for_the_users_answer_longer_than_the_timeout_and_still_gets_its_result():
    async def scenario():
        person = Person()
        session = await open_session(server_request_handler=person)
        try:
            call = await ask(session, person)
            person.answer.set_result({"action": "accept", "content": {"name": "Ada"}})
            response = await call
            return result_of(response), notes(session), sent_request(session, "tools/call")
        finally:
            await session.close()

    (result, error), said, call = run(scenario())
    assert error is None and "Ada" in result["content"][0]["text"]
    [paused] = [n for n in said if "paused" in n.data]
    assert paused.data["paused"] == [call.rpc.id]
    assert (paused.data["waiting_on"], paused.data["waiting_method"]) == ("e1", "elicitation/create")
    assert paused.data["text"] == (f'tools/call #{call.rpc.id} waits for your answer to elicitation/create #"e1": '
                                   "its timeout is paused until you answer")
    assert not [n for n in said if "no response" in n.data["text"]]


def test_after_the_users_answer_the_timeout_runs_again_in_full():
    async def scenario():
        person = Person()
        session = await open_session(server_request_handler=person)
        loop = asyncio.get_running_loop()
        try:
            call = await ask(session, person, ignore_answer=True)  # the server never answers the call
            person.answer.set_result({"action": "decline"})
            answered = loop.time()
            with pytest.raises(RequestTimeout, match="no response to tools/call within 0.5 s"):
                await call
            return loop.time() - answered
        finally:
            await session.close()

    assert run(scenario()) >= TIMEOUT


def test_when_the_server_withdraws_its_question_the_user_is_no_longer_asked_and_the_clock_runs_again():
    async def scenario():
        person = Person()
        session = await open_session(server_request_handler=person)
        try:
            with pytest.raises(RequestTimeout, match="no response to tools/call within 0.5 s"):
                await session.request("tools/call", {"name": "ask", "arguments": {"withdraw": True}}, timeout=TIMEOUT)
            return person, session.events
        finally:
            await session.close()

    person, events = run(scenario())
    # the question and its cancel come in one read or two: never asked, or asked and then no longer
    assert not person.asked.is_set() or person.answer.cancelled()  # (the Server requests panel drops it)
    assert not [e for e in events if e.dir == Direction.C2S and e.rpc is not None and e.rpc.id == "e1"]


def test_a_cancelled_request_is_cancelled_once_and_stops_waiting_even_after_its_timeout_would_have_fired():
    async def scenario():
        session = await open_session()
        try:
            call = asyncio.ensure_future(session.request("tools/call", {"name": "stall"}, timeout=TIMEOUT))
            await until(lambda: any(e.method == "tools/call" for e in session.events), 10, "the call sent")
            request = sent_request(session, "tools/call")
            await session.cancel(request.rpc.id, "cancelled by the user")
            with pytest.raises(RequestCancelled):
                await call
            await past(TIMEOUT * 3)  # the timeout would have fired by now
            await session.cancel(request.rpc.id, "asked again")  # nothing more is sent
            report = await session.request("report")
            return result_of(report)[0], notes(session)
        finally:
            await session.close()

    report, said = run(scenario())
    assert report["cancellations"] == [{"requestId": 2, "reason": "cancelled by the user"}]
    assert not [n for n in said if "no response" in n.data["text"]]


def test_the_late_answer_to_a_cancelled_request_is_recorded_and_paired_with_it():
    async def scenario():
        session = await open_session()
        try:
            call = asyncio.ensure_future(session.request("tools/call", {"name": "stall",
                                                                        "arguments": {"answer_on_cancel": True}}))
            await until(lambda: any(e.method == "tools/call" for e in session.events), 10, "the call sent")
            request = sent_request(session, "tools/call")
            await session.cancel(request.rpc.id, "cancelled by the user")
            with pytest.raises(RequestCancelled):
                await call
            await until(lambda: any(e.data.get("reply_to") == request.seq for e in session.events), 10,
                        "the late answer")
            return request, [e for e in session.events if e.data.get("reply_to") == request.seq]
        finally:
            await session.close()

    request, [late] = run(scenario())
    assert late.rpc.id == request.rpc.id and result_of(late)[0]["content"][0]["text"] == "finished anyway"


def test_the_no_response_sentence_names_what_raises_the_timeout():
    async def scenario():
        session = await open_session()
        session.timeout_hint = "to wait longer, raise Session > Request timeout"
        try:
            with pytest.raises(RequestTimeout) as caught:
                await session.request("tools/call", {"name": "stall"}, timeout=TIMEOUT)
            return str(caught.value), notes(session)
        finally:
            await session.close()

    text, said = run(scenario())
    assert text == "no response to tools/call within 0.5 s; to wait longer, raise Session > Request timeout"
    assert [n.data["text"] for n in said if n.data.get("gave_up")] == [text]
