"""Tool calls that run as tasks (inspector/core/explore/tasks.py), in both forms: the 2025-11-25 ``tasks``
capability against npm server-everything (its simulate-research-query requires a task) and tests/core/servers/
task_server.py with --legacy, and the io.modelcontextprotocol/tasks extension (SEP-2663) against the same script
speaking 2026-07-28. Real subprocesses; what the tests read is the capture or the session's events."""

from __future__ import annotations

import asyncio
import json
import sys
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from helpers import until
from npm_servers import install_everything

from inspector.core.capture import read_capture
from inspector.core.connect.target import Target, make_transport
from inspector.core.exits import EXIT_BAD_INPUT, EXIT_OK, EXIT_SERVER_FAILED
from inspector.core.explore.catalog import Catalog
from inspector.core.explore.oneshot import OneShot, run_oneshot
from inspector.core.explore.tasks import (
    CANCELLED,
    COMPLETED,
    EXTENSION,
    LEGACY,
    MIN_POLL,
    TaskError,
    TaskRun,
    outcome_of,
    plan,
)
from inspector.core.session.outcomes import RequestCancelled, RequestTimeout, ServerInfo
from inspector.core.session.session import Session
from inspector.core.wire.events import Event, Kind

pytestmark = [pytest.mark.integration]
TASK_SERVER = Path(__file__).parent / "servers" / "task_server.py"
#: a server starts, answers the handshake, and a task of a few seconds ends, on a loaded machine
BOUND = 60


def task_server(*args: str) -> list[str]:
    return [sys.executable, str(TASK_SERVER), *args]


def oneshot(argv: list[str], tool: str, words: list[str], tmp_path: Path, **job: Any):
    out = tmp_path / "call.jsonl"
    outcome = asyncio.run(asyncio.wait_for(run_oneshot(OneShot(
        "call", Target(name="t", argv=argv), name=tool, words=words, out=out, **job)), BOUND))
    return outcome, read_capture(out).events


def sent(events: list[Event], method: str) -> list[Event]:
    return [e for e in events if e.kind == Kind.MESSAGE and e.dir == "c2s" and e.rpc and e.rpc.method == method]


def params(event: Event) -> dict:
    return event.json().get("params") or {}


def text(result: Any) -> str:
    return " ".join(b.get("text", "") for b in result["content"] if b.get("type") == "text")


def span_notes(events: list[Event]) -> list[Event]:
    return [e for e in events if e.kind == Kind.NOTE and "span" in e.data and "members" in e.data]


def test_server_everythings_required_task_runs_to_its_research_result_through_the_task_methods(tmp_path):
    node, entry = install_everything()
    outcome, events = oneshot([node, str(entry), "stdio"], "simulate-research-query", ["topic=tides"], tmp_path)
    assert outcome.exit_code == EXIT_OK, outcome.error
    assert "Research Report: tides" in text(outcome.result)
    call = sent(events, "tools/call")[-1]
    assert "task" in params(call)  # asked as a task: the tool's taskSupport is required
    assert sent(events, "tasks/get") and len(sent(events, "tasks/result")) == 1
    # the task's requests, their answers and its status notifications are one span, opened by a note that
    # names the call and the answer that created the task
    opening = span_notes(events)[-1]
    span = opening.data["span"]
    assert call.seq in opening.data["members"]
    in_span = [e for e in events if e.data.get("span") == span and e.kind == Kind.MESSAGE]
    assert {e.rpc.method for e in in_span if e.dir == "c2s"} == {"tasks/get", "tasks/result"}
    assert all(any(e.data.get("span") == span and e.rpc.kind == "response" for e in events
                   if e.data.get("reply_to") == r.seq) for r in in_span if r.dir == "c2s")
    # every status notification of the task, the one sent before the answer that created it too (named by the
    # note that opened the span)
    statuses = [e for e in events if e.rpc and e.rpc.method == "notifications/tasks/status"]
    assert statuses and all(e in in_span or e.seq in opening.data["members"] for e in statuses)


def test_server_everythings_task_asks_its_question_on_tasks_result_and_the_answer_policy_answers_it(tmp_path):
    node, entry = install_everything()
    outcome, events = oneshot([node, str(entry), "stdio"], "simulate-research-query",
                              ["topic=python", "ambiguous=true"], tmp_path,
                              answers={"elicitation": "accept-defaults"})
    assert outcome.exit_code == EXIT_OK, outcome.error
    assert "Clarification" in text(outcome.result)
    ask = next(e for e in events if e.dir == "s2c" and e.rpc and e.rpc.method == "elicitation/create")
    task_id = params(ask)["_meta"]["io.modelcontextprotocol/related-task"]["taskId"]
    statuses = [params(e).get("status") for e in events if e.rpc and e.rpc.method == "notifications/tasks/status"
                and params(e).get("taskId") == task_id]
    assert "input_required" in statuses and statuses[-1] == COMPLETED
    assert ask.data.get("span")  # the server's question is drawn with its task


def test_polls_keep_to_the_interval_the_server_suggests(tmp_path):
    outcome, events = oneshot(task_server("--poll-ms", "300"), "slow-sum", ["a=2", "b=3"], tmp_path)
    assert outcome.exit_code == EXIT_OK and text(outcome.result) == "5"
    times = [e.t for e in sent(events, "tasks/get")]
    assert times, "the extension task was never polled"
    created = next(e.t for e in events if e.rpc and e.rpc.kind == "response" and
                   e.data.get("request_method") == "tools/call")
    gaps = [b - a for a, b in pairwise([created, *times])]
    assert min(gaps) >= 0.29, gaps  # 300 ms asked; a poll never comes sooner


def test_an_optional_tool_runs_as_a_task_only_when_asked(tmp_path):
    plain, plain_events = oneshot(task_server("--legacy"), "slow-sum", ["a=1", "b=2"], tmp_path)
    assert plain.exit_code == EXIT_OK and text(plain.result) == "3"
    assert "task" not in params(sent(plain_events, "tools/call")[-1]) and not sent(plain_events, "tasks/get")
    asked, events = oneshot(task_server("--legacy"), "slow-sum", ["a=1", "b=2"], tmp_path, as_task=True)
    assert asked.exit_code == EXIT_OK and text(asked.result) == "3"
    assert "task" in params(sent(events, "tools/call")[-1]) and sent(events, "tasks/result")


def test_a_forbidden_tool_asked_to_run_as_a_task_is_refused_before_it_is_called(tmp_path):
    outcome, events = oneshot(task_server("--legacy"), "quick", [], tmp_path, as_task=True)
    assert outcome.exit_code == EXIT_BAD_INPUT
    assert "cannot run as a task" in outcome.error and not sent(events, "tools/call")


def test_the_extensions_input_is_answered_with_one_tasks_update_per_question(tmp_path):
    outcome, events = oneshot(task_server(), "ask-name", [], tmp_path, answers={"elicitation": "accept-defaults"})
    assert outcome.exit_code == EXIT_OK, outcome.error
    assert text(outcome.result) == "Hello, Ada!"
    call = sent(events, "tools/call")[-1]
    capabilities = params(call)["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    assert "io.modelcontextprotocol/tasks" in capabilities["extensions"]
    updates = sent(events, "tasks/update")
    assert len(updates) == 1  # the question came on several polls; it was answered once
    assert params(updates[0])["inputResponses"] == {"name": {"action": "accept", "content": {"name": "Ada"}}}
    assert all("io.modelcontextprotocol/tasks" in params(e)["_meta"]["io.modelcontextprotocol/clientCapabilities"]
               ["extensions"] for e in sent(events, "tasks/get"))


def test_the_legacy_forms_question_comes_on_tasks_result_and_is_answered_there(tmp_path):
    outcome, events = oneshot(task_server("--legacy"), "ask-name", [], tmp_path,
                              answers={"elicitation": "accept-defaults"})
    assert outcome.exit_code == EXIT_OK, outcome.error
    assert text(outcome.result) == "Hello, Ada!"
    ask = next(e for e in events if e.dir == "s2c" and e.rpc and e.rpc.method == "elicitation/create")
    answer = next(e for e in events if e.dir == "c2s" and e.rpc and e.rpc.kind == "response"
                  and e.rpc.id == ask.rpc.id)
    assert answer.json()["result"]["action"] == "accept"
    assert ask.data.get("span") and ask.data["span"] == sent(events, "tasks/result")[0].data.get("span")


def test_headless_without_an_answer_policy_an_extension_task_waiting_for_input_ends_the_call_with_a_sentence(
        tmp_path):
    outcome, events = oneshot(task_server(), "ask-name", [], tmp_path)
    assert outcome.exit_code == EXIT_SERVER_FAILED
    assert "needs input" in outcome.error and "--answer" in outcome.error
    assert not sent(events, "tasks/update")


async def started(argv: list[str]) -> tuple[Session, Catalog]:
    session = Session(make_transport(Target(name="t", argv=argv)))
    catalog = Catalog(session)
    catalog.attach()
    await session.start()
    await session.handshake("auto")
    await catalog.load()
    return session, catalog


@pytest.mark.parametrize("form", [LEGACY, EXTENSION])
def test_cancelling_a_task_stops_the_call_and_the_task_is_cancelled_on_the_server(form):
    async def scenario() -> None:
        session, catalog = await started(task_server("--legacy") if form == LEGACY else task_server())
        try:
            call = asyncio.ensure_future(catalog.call_tool("forever", {}))
            await until(lambda: any(r.tool == "forever" for r in catalog.tasks.runs.values()), BOUND, "the task")
            run = next(iter(catalog.tasks.runs.values()))
            assert run.form == form
            await catalog.tasks.cancel(run.task_id)
            with pytest.raises(RequestCancelled):
                await asyncio.wait_for(call, BOUND)
            answer = [e for e in session.events if e.data.get("request_method") == "tasks/cancel"][-1]
            if form == LEGACY:  # the 2025-11-25 form answers with the task, now cancelled
                assert run.status == CANCELLED and answer.json()["result"]["status"] == CANCELLED
            else:  # the extension acknowledges only; a tasks/get then learns the task's end (issue 39: the Tasks
                # page stayed at "working (cancel requested)")
                assert run.cancel_requested and answer.json()["result"] == {"resultType": "complete"}
                assert run.status == CANCELLED and run.message == "cancelled by request", run.line()
        finally:
            await session.close()

    asyncio.run(asyncio.wait_for(scenario(), BOUND))


@pytest.mark.report("faults", "a task that reports progress and asks a question, as one span",
                    surface="core", group="window")
def test_a_tasks_span_holds_its_progress_rows_and_the_answer_to_its_question(report):
    """Issue 39: the timeline's task span left out the call's progress notifications and the elicitation answer
    the client sent back (only the server's question was marked)."""
    async def scenario() -> None:
        from inspector.core.session.answers import AnswerPolicy

        session = Session(make_transport(Target(name="t", argv=task_server("--legacy"))),
                          server_request_handler=AnswerPolicy(elicitation="accept-defaults"))
        catalog = Catalog(session)
        catalog.attach()
        await session.start()
        await session.handshake("auto")
        await catalog.load()
        try:
            await catalog.call_tool("slow-sum", {"a": 1, "b": 2}, as_task=True, progress="p-1")
            response = await catalog.call_tool("ask-name", {})
            assert "Hello, Ada!" in text(outcome_of(response)[0])
        finally:
            await session.close()
        progress = [e for e in session.events if e.kind == Kind.MESSAGE and e.rpc
                    and e.rpc.method == "notifications/progress"]
        assert progress and all(e.data.get("span") for e in progress), [e.data for e in progress]
        answer = [e for e in session.events if e.kind == Kind.MESSAGE and e.dir == "c2s" and e.rpc
                  and e.rpc.kind == "response" and e.rpc.id == next(
                      q.rpc.id for q in session.events if q.kind == Kind.MESSAGE and q.rpc
                      and q.rpc.method == "elicitation/create")]
        assert len(answer) == 1 and answer[0].data.get("span"), answer

    asyncio.run(asyncio.wait_for(scenario(), BOUND))
    report.saw("the task's progress rows and the answer to its question belong to its span in the timeline")


@pytest.mark.report("faults", "a completed task after a working status with a message", surface="core", group="window")
def test_a_completed_task_does_not_keep_the_message_of_its_working_status(report):
    run = TaskRun("abc", LEGACY)
    run.learn({"status": "working", "statusMessage": "Generating report..."})
    run.learn({"status": "completed"})
    assert run.line() == "task abc: completed"
    run = TaskRun("abd", LEGACY)
    run.learn({"status": "working", "statusMessage": "step 1"})
    run.learn({"status": "working"})  # no news on the message: it stands
    assert run.message == "step 1"
    report.saw("task abc: completed")


def test_a_task_that_outlives_the_bound_ends_the_call_with_a_sentence_that_says_it_may_still_run():
    async def scenario() -> None:
        session, catalog = await started(task_server("--legacy"))
        session.max_request_time = 1.0
        try:
            with pytest.raises(RequestTimeout, match="did not end within 1 s.*may still run"):
                await catalog.call_tool("forever", {})
        finally:
            await session.close()

    asyncio.run(asyncio.wait_for(scenario(), BOUND))


def test_the_calls_progress_notifications_reach_the_task_while_it_runs():
    async def scenario() -> None:
        session, catalog = await started(task_server("--legacy"))
        seen: list[Any] = []
        catalog.tasks.listeners.append(lambda run: seen.append(run.progress))
        try:
            response = await catalog.call_tool("slow-sum", {"a": 4, "b": 5}, as_task=True)
            result, error = outcome_of(response)
            assert error is None and text(result) == "9"
            assert any(p and p.get("message") == "summing" for p in seen)
            run = next(iter(catalog.tasks.runs.values()))
            assert run.status == COMPLETED and run.progress_token is not None
        finally:
            await session.close()

    asyncio.run(asyncio.wait_for(scenario(), BOUND))


# -- the rules, without a server -------------------------------------------------------------------------

LEGACY_SERVER = ServerInfo("legacy", "2025-11-25", capabilities={"tasks": {"requests": {"tools": {"call": {}}}}})
MODERN_SERVER = ServerInfo("modern", "2026-07-28",
                           capabilities={"extensions": {"io.modelcontextprotocol/tasks": {}}})


def tool(support: str | None) -> dict:
    return {"name": "t", **({"execution": {"taskSupport": support}} if support else {})}


def test_plan_runs_required_tools_as_tasks_and_optional_ones_when_asked():
    assert plan(LEGACY_SERVER, tool("required"), asked=False) == LEGACY
    assert plan(LEGACY_SERVER, tool("optional"), asked=False) is None
    assert plan(LEGACY_SERVER, tool("optional"), asked=True) == LEGACY
    assert plan(LEGACY_SERVER, tool(None), asked=False) is None
    assert plan(MODERN_SERVER, tool(None), asked=False) == EXTENSION  # the server decides
    with pytest.raises(TaskError, match="forbidden"):
        plan(LEGACY_SERVER, tool("forbidden"), asked=True)
    with pytest.raises(TaskError, match="does not run tools as tasks"):
        plan(ServerInfo("legacy", "2025-11-25"), tool("optional"), asked=True)


def test_a_terminal_status_stays_terminal_and_the_poll_interval_is_bounded():
    run = TaskRun("abc", LEGACY)
    run.learn({"status": "completed", "pollInterval": 0})
    run.learn({"status": "working"})  # a late or reordered status cannot revive it
    assert run.status == COMPLETED and run.ended is not None
    assert run.interval() == MIN_POLL
    assert TaskRun("x", EXTENSION, poll_ms=None).interval() == 1.0


def test_the_outcome_of_an_extension_task_is_its_inline_result_or_error():
    def answer(result: dict) -> Event:
        obj = {"jsonrpc": "2.0", "id": 3, "result": result}
        from inspector.core.wire import jsonrpc

        info, _ = jsonrpc.classify(obj)
        return Event(Kind.MESSAGE, json.dumps(obj).encode(), "s2c", rpc=info, data={"request_method": "tasks/get"})

    done = {"content": [{"type": "text", "text": "ok"}]}
    assert outcome_of(answer({"taskId": "a", "status": "completed", "result": done})) == (done, None)
    failed = {"code": -32603, "message": "rate limit"}
    assert outcome_of(answer({"taskId": "a", "status": "failed", "error": failed})) == (None, failed)
    _result, error = outcome_of(answer({"taskId": "a", "status": "cancelled"}))
    assert "cancelled" in error["message"]
