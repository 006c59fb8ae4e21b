"""The judges of the checks added for the conformance suite's generic checks that had no match (issue 39), over
messages made here, without a server: a tool without a description, a log message nobody asked for, a request
from the server, a subscription notification without its id or outside its filter. The probes that feed them run
against real servers in test_check_beside_the_conformance_suite.py."""

from __future__ import annotations

import json
from typing import Any

from inspector.core.capture.pipeline import EventPipeline
from inspector.core.check.catalog_probes import listing_problems
from inspector.core.check.checks import FAILED, INCOMPLETE, MODERN, NOT_APPLICABLE, PASSED
from inspector.core.check.context import Context
from inspector.core.check.modern_probes import judge_filter, judge_session_messages, judge_tags
from inspector.core.connect.target import Target, make_transport
from inspector.core.explore.subscriptions import Subscription
from inspector.core.session.outcomes import ServerInfo
from inspector.core.session.session import Session
from inspector.core.wire.events import Direction, Event
from inspector.core.wire.framing import decode_line

SUB = "io.modelcontextprotocol/subscriptionId"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}


def context(http: bool = True) -> Context:
    """A check context over a session that is never started: the judges read only the events they are given."""
    session = Session(make_transport(Target(name="unstarted", url="http://127.0.0.1:9/mcp")))
    return Context(session, ServerInfo("modern", MODERN), timeout=1.0, http=http, url="http://127.0.0.1:9/mcp")


def events_of(messages: list[tuple[str, dict[str, Any]]]) -> list[Event]:
    kept: list[Event] = []
    pipeline = EventPipeline(keep=kept)
    for number, (direction, message) in enumerate(messages):
        pipeline.push([decode_line(json.dumps(message).encode(), direction)], number * 0.01, number * 0.01)
    return kept


def verdict(ctx: Context, check_id: str) -> tuple[str, str]:
    found = next(r for r in ctx.results if r.check.id == check_id)
    return found.status, found.sentence


def request(msg_id: int, method: str, meta: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    return Direction.C2S, {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": {"_meta": meta or META}}


def result(msg_id: Any) -> tuple[str, dict[str, Any]]:
    return Direction.S2C, {"jsonrpc": "2.0", "id": msg_id, "result": {"resultType": "complete"}}


def notification(method: str, params: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    return Direction.S2C, {"jsonrpc": "2.0", "method": method, "params": params or {}}


# -- tools-listed -----------------------------------------------------------------------------------------


def test_a_tool_without_a_description_or_an_input_schema_is_named_with_what_it_lacks():
    tools: list[dict[str, Any]] = [
        {"name": "fine", "description": "Does things.", "inputSchema": {"type": "object"}},
        {"name": "quiet", "inputSchema": {"type": "object"}},
        {"name": "blank", "description": "  ", "inputSchema": {"type": "object"}},
        {"description": "No name.", "inputSchema": {"type": "object"}},
        {"name": "bare"}]
    assert listing_problems(tools) == ["quiet has no description", "blank has no description", "tool 4 has no name",
                                       "bare has no description and no inputSchema"]


def test_tools_with_a_name_a_description_and_an_input_schema_have_no_listing_problem():
    assert listing_problems([{"name": "a", "description": "A.", "inputSchema": {"type": "object"}}]) == []


# -- no-log-without-log-level, no-requests-on-response-streams ----------------------------------------------


def test_a_log_message_when_no_request_set_a_log_level_fails_and_so_does_a_request_from_the_server():
    ctx = context()
    judge_session_messages(ctx, events_of([
        request(1, "resources/read"),
        notification("notifications/message", {"level": "info", "data": "unasked"}),
        (Direction.S2C, {"jsonrpc": "2.0", "id": "s1", "method": "elicitation/create",
                         "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}}),
        result(1),
    ]))
    status, sentence = verdict(ctx, "no-log-without-log-level")
    assert status == FAILED and "1 notifications/message came, though none of the session's 1 requests" in sentence
    status, sentence = verdict(ctx, "no-requests-on-response-streams")
    assert status == FAILED and "1 request of its own (elicitation/create)" in sentence
    assert all(r.seqs for r in ctx.results)


def test_a_session_of_results_and_progress_passes_both_and_a_log_level_makes_the_log_rule_not_apply():
    quiet = context()
    judge_session_messages(quiet, events_of([request(1, "tools/list"),
                                             notification("notifications/progress", {"progressToken": 1,
                                                                                      "progress": 1}),
                                             result(1)]))
    assert verdict(quiet, "no-log-without-log-level")[0] == PASSED
    assert verdict(quiet, "no-requests-on-response-streams")[0] == PASSED
    leveled = context()
    judge_session_messages(leveled, events_of([
        request(1, "tools/call", {**META, "io.modelcontextprotocol/logLevel": "debug"}),
        notification("notifications/message", {"level": "debug", "data": "asked for"}), result(1)]))
    assert verdict(leveled, "no-log-without-log-level")[0] == NOT_APPLICABLE


def test_on_stdio_a_request_from_the_server_is_not_judged_by_the_http_rule():
    ctx = context(http=False)
    judge_session_messages(ctx, events_of([request(1, "tools/list"), result(1)]))
    assert not ctx.judged("no-requests-on-response-streams")


# -- subscription-notifications-tagged, subscription-filter-honored ------------------------------------------


def acknowledged(sub: Any, agreed: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return notification("notifications/subscriptions/acknowledged", {"_meta": {SUB: sub}, "notifications": agreed})


def test_an_untagged_list_change_on_an_open_subscription_fails_the_tag_check():
    ctx = context()
    subscription = Subscription(7, {"toolsListChanged": True}, acknowledged={"toolsListChanged": True})
    judge_tags(ctx, subscription, events_of([
        (Direction.C2S, {"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen",
                         "params": {"notifications": {"toolsListChanged": True}}}),
        acknowledged(7, {"toolsListChanged": True}),
        notification("notifications/tools/list_changed"),
    ]))
    status, sentence = verdict(ctx, "subscription-notifications-tagged")
    assert status == FAILED
    assert "1 of 2 notifications while subscription 7 was open did not carry its id" in sentence
    assert "notifications/tools/list_changed: null" in sentence


def test_a_subscription_whose_notifications_all_carry_its_id_passes_and_one_that_brought_nothing_is_incomplete():
    tagged = context()
    judge_tags(tagged, Subscription(7, {"toolsListChanged": True}), events_of([
        acknowledged(7, {"toolsListChanged": True}),
        notification("notifications/tools/list_changed", {"_meta": {SUB: 7}})]))
    assert verdict(tagged, "subscription-notifications-tagged") == (PASSED, "2 notifications on subscription 7, "
                                                                             "each tagged with its id")
    silent = context()
    judge_tags(silent, Subscription(7, {"toolsListChanged": True}), events_of([result(7)]))
    assert verdict(silent, "subscription-notifications-tagged")[0] == INCOMPLETE


def test_an_acknowledgement_that_agrees_to_more_than_asked_and_a_notification_outside_the_filter_fail_the_filter():
    ctx = context()
    subscription = Subscription(9, {"promptsListChanged": True},
                                acknowledged={"promptsListChanged": True, "toolsListChanged": True})
    judge_filter(ctx, subscription, events_of([
        acknowledged(9, {"promptsListChanged": True, "toolsListChanged": True}),
        notification("notifications/tools/list_changed", {"_meta": {SUB: 9}}),
        notification("notifications/prompts/list_changed", {"_meta": {SUB: 9}}),
    ]))
    status, sentence = verdict(ctx, "subscription-filter-honored")
    assert status == FAILED
    assert "the acknowledgement agrees to toolsListChanged, which was not asked for" in sentence
    assert "1 notification it did not ask for came (the first: notifications/tools/list_changed)" in sentence


def test_a_subscription_acknowledged_for_less_than_asked_that_brings_only_what_it_asked_for_passes_the_filter():
    ctx = context()
    subscription = Subscription(9, {"promptsListChanged": True, "toolsListChanged": True},
                                acknowledged={"promptsListChanged": True})
    judge_filter(ctx, subscription, events_of([
        acknowledged(9, {"promptsListChanged": True}),
        notification("notifications/prompts/list_changed", {"_meta": {SUB: 9}}),
    ]))
    assert verdict(ctx, "subscription-filter-honored")[0] == PASSED


def test_a_subscription_never_acknowledged_leaves_the_filter_check_incomplete():
    ctx = context()
    subscription = Subscription(9, {"promptsListChanged": True}, ended="the server refused it: Method not found")
    judge_filter(ctx, subscription, events_of([result(9)]))
    status, sentence = verdict(ctx, "subscription-filter-honored")
    assert status == INCOMPLETE and "the server refused it" in sentence
