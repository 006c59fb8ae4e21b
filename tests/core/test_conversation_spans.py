"""Spans (inspector/core/session/spans.py): the messages of one task or one multi-round call marked as one, on
the events as they are saved, and read back into the timeline's columns for a live session and an opened capture
alike (inspector/core/capture/columns.py, inspector/core/capture/index.py)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from inspector.core.capture import read_capture
from inspector.core.capture.columns import Columns
from inspector.core.capture.index import CaptureIndex
from inspector.core.connect.target import Target
from inspector.core.explore.oneshot import OneShot, run_oneshot
from inspector.core.session.spans import Spans
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Event, Kind

TASK_SERVER = Path(__file__).parent / "servers" / "task_server.py"


def message(obj: dict, direction: str) -> Event:
    info, _ = jsonrpc.classify(obj)
    return Event(Kind.MESSAGE, json.dumps(obj).encode(), direction, rpc=info)


def test_claimed_requests_their_answers_and_messages_naming_a_claimed_task_are_marked():
    spans = Spans()
    span = spans.new("task")
    spans.claim(span, 7)
    spans.claim_task(span, "t-1")
    events = [
        message({"jsonrpc": "2.0", "id": 7, "method": "tasks/get", "params": {"taskId": "t-1"}}, "c2s"),
        message({"jsonrpc": "2.0", "id": 7, "result": {"taskId": "t-1", "status": "working"}}, "s2c"),
        message({"jsonrpc": "2.0", "id": "7", "result": {}}, "s2c"),  # "7" is not 7
        message({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": {"taskId": "t-1"}}, "s2c"),
        message({"jsonrpc": "2.0", "id": "s1", "method": "elicitation/create", "params": {
            "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t-1"}}}}, "s2c"),
        message({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": {"taskId": "t-2"}}, "s2c"),
        message({"jsonrpc": "2.0", "id": 7, "method": "ping"}, "s2c"),  # the server's own id 7: not ours
    ]
    spans.annotate(events)
    assert [e.data.get("span") for e in events] == [span, span, None, span, span, None, None]


def test_the_answer_to_a_tasks_question_and_the_progress_of_its_token_are_marked_with_it():
    spans = Spans()
    span = spans.new("task")
    spans.claim_task(span, "t-1")
    spans.claim_progress(span, "p-1")
    events = [
        message({"jsonrpc": "2.0", "id": "s1", "method": "elicitation/create", "params": {
            "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t-1"}}}}, "s2c"),
        message({"jsonrpc": "2.0", "id": "s1", "result": {"action": "accept", "content": {"name": "Ada"}}}, "c2s"),
        message({"jsonrpc": "2.0", "id": "s1", "result": {}}, "c2s"),  # answered once: a second is not its
        message({"jsonrpc": "2.0", "method": "notifications/progress",
                 "params": {"progressToken": "p-1", "progress": 1}}, "s2c"),
        message({"jsonrpc": "2.0", "method": "notifications/progress",
                 "params": {"progressToken": "p-2", "progress": 1}}, "s2c"),
        message({"jsonrpc": "2.0", "id": "s2", "method": "ping"}, "s2c"),
        message({"jsonrpc": "2.0", "id": "s2", "result": {}}, "c2s"),
    ]
    spans.annotate(events)
    assert [e.data.get("span") for e in events] == [span, span, None, span, None, None, None]
    spans.release(span)
    later = [message({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p-1"}},
                     "s2c")]
    spans.annotate(later)
    assert later[0].data.get("span") is None


def test_a_tasks_rows_are_one_span_in_an_opened_capture_and_in_the_columns_of_the_live_events(tmp_path):
    out = tmp_path / "task.jsonl"
    job = OneShot("call", Target(name="t", argv=[sys.executable, str(TASK_SERVER), "--legacy"]), name="slow-sum",
                  words=["a=1", "b=2"], as_task=True, out=out)
    outcome = asyncio.run(asyncio.wait_for(run_oneshot(job), 60))
    assert outcome.exit_code == 0, outcome.error
    events = read_capture(out).events
    call = next(e for e in events if e.rpc and e.rpc.method == "tools/call")
    task_rows = {e.seq for e in events if e.rpc and (e.rpc.method or e.data.get("request_method") or "").startswith(
        ("tasks/", "notifications/tasks"))}
    assert task_rows

    live = Columns()
    for event in events:
        live.add_event(event)
    index = CaptureIndex(out)
    try:
        index.scan_all()
        check(live, call, events, task_rows)
        check(index.columns, call, events, task_rows)
    finally:
        index.close()


def check(columns: Columns, call: Event, events: list[Event], task_rows: set[int]) -> None:
    row = columns.row_of_seq(call.seq)
    assert row is not None
    span = columns.span(row)
    assert span is not None and "slow-sum" in span[1]
    seqs = {columns.seq_of_row(r) for r in columns.span_rows(span[0])}
    # the call and the answer that created the task (named by the opening note), every task request, answer
    # and status notification, and the note itself
    assert call.seq in seqs and task_rows <= seqs
    assert not any(columns.span_of_row.get(columns.row_of_seq(e.seq) or -1) is not None for e in events
                   if e.rpc and e.rpc.method in ("initialize", "tools/list"))
