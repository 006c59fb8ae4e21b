"""A call that never gets an answer, against wave three's hostile server (tests/data/hostile/mrtr.py, issue 39
section 6): a server that asks for input in every round ends the call with a sentence and a failure status, its
``input_required`` never printed as the answer; a task that stays ``working`` is polled until the time allowed
runs out, never printed as the answer. The shape of a created task is read without a server."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from helpers import ROOT, cli

from inspector.core.capture import read_capture
from inspector.core.connect.target import Target, make_transport
from inspector.core.exits import EXIT_SERVER_FAILED
from inspector.core.explore.oneshot import OneShot, run_oneshot
from inspector.core.explore.tasks import EXTENSION, TaskBook, created_task
from inspector.core.session.outcomes import RequestTimeout
from inspector.core.session.rounds import MAX_INPUT_ROUNDS
from inspector.core.session.session import Session
from inspector.core.wire.events import Kind

MRTR = [sys.executable, str(ROOT / "tests" / "data" / "hostile" / "mrtr.py")]
BOUND = 60


def test_a_result_that_says_it_is_a_task_is_a_task_whatever_its_shape():
    extension = {"resultType": "task", "taskId": "T1", "status": "working"}
    assert created_task(extension) is extension
    nested = {"resultType": "task", "task": {"taskId": "T1", "status": "working"}}  # mrtr.py's shape
    assert created_task(nested) == {"taskId": "T1", "status": "working"}
    assert created_task({"task": {"taskId": "T2", "status": "working"}}) == {"taskId": "T2", "status": "working"}
    assert created_task({"resultType": "task", "task": {"taskId": 7}}) is None
    assert created_task({"content": [], "resultType": "complete"}) is None


@pytest.mark.integration
def test_a_task_that_stays_working_is_polled_until_the_time_allowed_and_never_taken_as_the_answer():
    async def scenario() -> None:
        session = Session(make_transport(Target(name="mrtr", argv=[*MRTR, "task"])))
        await session.start()
        try:
            await session.handshake("auto")
            session.max_request_time = 1.5
            book = TaskBook(session, timeout=5)
            with pytest.raises(RequestTimeout, match=r"task T1 \(t\) did not end within 1.5 s \(its status: working\)"):
                await book.call_tool({"name": "t", "arguments": {}}, EXTENSION)
            polls = [e for e in session.events if e.kind == Kind.MESSAGE and e.dir == "c2s" and e.rpc
                     and e.rpc.method == "tasks/get"]
            assert len(polls) >= 3, len(polls)  # pollInterval 1 (ms) is held to MIN_POLL: about ten a second
        finally:
            await session.close()

    asyncio.run(asyncio.wait_for(scenario(), BOUND))


@pytest.mark.integration
def test_a_server_that_asks_for_input_in_every_round_ends_the_call_with_a_sentence_and_no_result(tmp_path: Path):
    out = tmp_path / "call.jsonl"
    outcome = asyncio.run(asyncio.wait_for(run_oneshot(OneShot(
        "call", Target(name="mrtr", argv=[*MRTR, "rounds"]), name="t", out=out,
        answers={"elicitation": "accept-defaults"})), BOUND))
    assert outcome.exit_code == EXIT_SERVER_FAILED and outcome.result is None, outcome
    assert outcome.error == (f"the server still asked for input after {MAX_INPUT_ROUNDS} rounds of answers "
                             "(elicitation/create (q)), so tools/call has no result; mcp-inspector stopped answering "
                             "there")
    calls = [e for e in read_capture(out).events if e.kind == Kind.MESSAGE and e.dir == "c2s" and e.rpc
             and e.rpc.method == "tools/call"]
    assert len(calls) == MAX_INPUT_ROUNDS + 1


@pytest.mark.integration
@pytest.mark.report("faults", "call: a server that asks for input in every round (mrtr.py rounds)", surface="CLI",
                    group="hostile", advice="The server never takes the answers it asks for: fix the server.")
def test_call_prints_no_input_required_result_as_the_answer_and_exits_1(report):  # type: ignore[no-untyped-def]
    answered = cli("call", "t", "--answer", "elicitation=decline", "--", *MRTR, "rounds", timeout=BOUND)
    assert answered.returncode == EXIT_SERVER_FAILED and answered.stdout == "", answered.stdout[:200]
    assert answered.stderr.count("\n") == 1 and "after 5 rounds of answers" in answered.stderr, answered.stderr
    unanswered = cli("call", "t", "--", *MRTR, "rounds", timeout=BOUND)
    assert unanswered.returncode == EXIT_SERVER_FAILED and unanswered.stdout == ""
    assert "nothing here can answer it (give --answer" in unanswered.stderr, unanswered.stderr
    report.saw(answered.stderr.strip())
