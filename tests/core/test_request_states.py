"""Where an unanswered request stands, worked out from a real session's events without Qt
(inspector/core/present/request_states.py; the timeline model only shows it).

Each test drives a real session against tests/core/servers/waits_on_client.py (its tools elicit and stall), then
reads the session's events row by row, paired as the timeline pairs them (``Columns``), into ``RequestStates``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from helpers import until
from test_waiting_and_cancelling import TIMEOUT, Person, ask, open_session, run, sent_request

from inspector.core.capture.columns import Columns
from inspector.core.present.request_states import CANCELLED, CONNECTION_CLOSED, TIMED_OUT, RequestStates
from inspector.core.session.outcomes import RequestCancelled, RequestTimeout
from inspector.core.session.session import Session
from inspector.core.wire.events import Event


def read(events: list[Event]) -> tuple[RequestStates, Columns, list[list[int]]]:
    """The events through RequestStates in order, as the timeline feeds them; with what each row changed."""
    states, columns, changed = RequestStates(), Columns(), []
    for row, event in enumerate(events):
        answers = columns.add_event(event)
        changed.append(states.observe(row, event, answers, columns.partner(row) is not None))
    return states, columns, changed


def row_of(events: list[Event], request: Event) -> int:
    return next(row for row, event in enumerate(events) if event is request)


def test_a_request_the_session_gave_up_on_says_timed_out() -> None:
    async def scenario() -> tuple[list[Event], Event]:
        session = await open_session()
        try:
            with pytest.raises(RequestTimeout):
                await session.request("tools/call", {"name": "stall", "arguments": {"answer_on_cancel": True}},
                                      timeout=TIMEOUT)
            return list(session.events), sent_request(session, "tools/call")
        finally:
            await session.close()

    events, call = run(scenario())
    states, _, changed = read(events)
    row = row_of(events, call)
    assert states.unanswered(row) == TIMED_OUT
    assert any(row in rows for rows in changed[row + 1:]), "the gave_up note did not change the request's row"


def test_a_cancelled_request_says_cancelled_and_its_late_answer_is_paired_with_after_cancel() -> None:
    async def scenario() -> tuple[list[Event], Event]:
        session = await open_session()
        try:
            call = asyncio.ensure_future(session.request("tools/call", {"name": "stall",
                                                                        "arguments": {"answer_on_cancel": True}}))
            await until_sent(session, "tools/call")
            request = sent_request(session, "tools/call")
            await session.cancel(request.rpc.id, "cancelled by the user")
            with pytest.raises(RequestCancelled):
                await call
            await until_answered(session, request)
            return list(session.events), request
        finally:
            await session.close()

    events, call = run(scenario())
    states, columns, _ = read(events)
    row = row_of(events, call)
    answer = columns.partner(row)
    assert answer is not None and row not in states.pending
    assert states.late(row, answer) == " after cancel"
    fresh = RequestStates()  # the same events up to the answer: the request says cancelled
    for position, event in enumerate(events[:answer]):
        fresh.observe(position, event, None, False)
    assert fresh.unanswered(row) == CANCELLED


def test_a_request_waiting_on_the_users_answer_says_so_until_the_user_answers() -> None:
    async def scenario() -> tuple[list[Event], list[Event], Event]:
        person = Person()
        session = await open_session(server_request_handler=person)
        try:
            call = await ask(session, person)
            while_asked = list(session.events)
            person.answer.set_result({"action": "decline"})
            await call
            return while_asked, list(session.events), sent_request(session, "tools/call")
        finally:
            await session.close()

    while_asked, after, call = run(scenario())
    states, _, _ = read(while_asked)
    row = row_of(while_asked, call)
    assert states.unanswered(row) == 'waiting for your answer to elicitation/create #"e1"'
    answered, _, _ = read(after)
    assert row not in answered.pending and answered.unanswered(row) is None


def test_when_the_connection_ends_every_pending_request_says_connection_closed_once() -> None:
    async def scenario() -> tuple[list[Event], Event]:
        session = await open_session()
        try:
            call = asyncio.ensure_future(session.request("tools/call", {"name": "stall"}))
            await until_sent(session, "tools/call")
            return list(session.events), sent_request(session, "tools/call")
        finally:
            await session.close()
            call.cancel()

    events, call = run(scenario())
    states, _, _ = read(events)
    row = row_of(events, call)
    before = states.unanswered(row)
    assert before in (None, CONNECTION_CLOSED)  # the server's exit may be among the events already
    assert states.connection_ended() == ([row] if before is None else [])
    assert states.unanswered(row) == CONNECTION_CLOSED
    assert states.connection_ended() == []


async def until_sent(session: Session, method: str) -> None:
    await until(lambda: any(e.method == method for e in session.events), 10, f"{method} sent")


async def until_answered(session: Session, request: Event) -> Any:
    await until(lambda: any(e.data.get("reply_to") == request.seq for e in session.events), 10, "the late answer")


def test_after_a_reload_the_request_sent_again_to_the_new_server_is_pending_and_the_old_one_says_connection_closed(
) -> None:
    from inspector.core.wire.events import Direction, Kind, Lifecycle
    from inspector.core.wire.framing import decode_line

    call = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow"}}'
    events = [decode_line(call, Direction.C2S),
              Event(Kind.LIFECYCLE, data={"what": Lifecycle.EXITED, "code": 0}),
              Event(Kind.LIFECYCLE, data={"what": Lifecycle.SPAWNED, "pid": 2}),  # the new server (reload on save)
              decode_line(call, Direction.C2S)]  # sent again to it
    events[3].put(resend_of=1)
    states, _, _ = read(events)
    assert states.unanswered(0) == CONNECTION_CLOSED
    assert states.unanswered(3) is None and 3 in states.pending  # "pending N s", not "connection closed"
