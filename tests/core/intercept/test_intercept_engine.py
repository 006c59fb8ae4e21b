"""The sans-io intercept engine (inspector/core/intercept/engine.py): which rule acts on which message, and the
verdict each action gives; no process, no loop."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import pytest

from inspector.core.intercept import engine
from inspector.core.intercept.engine import Interceptor, RewriteFailed, error_answer, rewritten
from inspector.core.intercept.records import records
from inspector.core.intercept.rules import parse_rules
from inspector.core.wire.intercepted import describe


def line(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def call(msg_id: Any = 1, tool: str = "add", **arguments: Any) -> bytes:
    return line({"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": {"name": tool,
                                                                                   "arguments": arguments}})


def result(msg_id: Any = 1, text: str = "3") -> bytes:
    return line({"jsonrpc": "2.0", "id": msg_id, "result": {"content": [{"type": "text", "text": text}]}})


def interceptor(*rules: dict[str, Any]) -> Interceptor:
    return Interceptor(parse_rules(list(rules)))


def test_without_rules_every_message_passes_unread():
    none = Interceptor()
    assert not none.active
    verdict = none.decide("c2s", b"not json at all")
    assert verdict.passes and verdict.rule is None and verdict.out == b"not json at all"


def test_a_disabled_rule_is_kept_and_never_matches():
    rules = interceptor({"do": "drop", "enabled": False})
    assert not rules.active
    assert rules.decide("c2s", call()).passes


def test_the_first_matching_rule_acts():
    rules = interceptor({"when": {"dir": "s2c"}, "do": "drop"}, {"when": {"dir": "c2s"}, "do": "delay", "ms": 250},
                        {"do": "drop"})
    verdict = rules.decide("c2s", call())
    assert (verdict.action, verdict.rule.number, verdict.delay, verdict.out) == ("delay", 2, 0.25, call())


def test_every_condition_given_must_hold():
    rules = interceptor({"when": {"dir": "c2s", "method": "tools/call", "tool": "add", "match": '"a":1'},
                         "do": "drop"})
    assert rules.decide("c2s", call(1, "add", a=1)).action == "drop"
    assert rules.decide("s2c", call(2, "add", a=1)).passes  # the wrong way
    assert rules.decide("c2s", call(3, "echo", a=1)).passes  # another tool
    assert rules.decide("c2s", call(4, "add", a=2)).passes  # the pattern does not match
    assert rules.decide("c2s", line({"jsonrpc": "2.0", "id": 5, "method": "tools/list"})).passes


def test_a_response_matches_by_the_method_and_tool_of_the_request_it_answers():
    rules = interceptor({"when": {"dir": "s2c", "method": "tools/call", "tool": "add"}, "do": "drop"})
    assert rules.decide("c2s", call(7, "add")).passes
    assert rules.decide("c2s", call(8, "echo")).passes
    assert rules.decide("s2c", result(8)).passes
    assert rules.decide("s2c", result(7)).action == "drop"
    assert rules.decide("s2c", result(7)).passes, "a second answer to the same id answers no request"


def test_a_server_request_and_its_answer_match_the_other_way():
    rules = interceptor({"when": {"dir": "c2s", "method": "sampling/createMessage"}, "do": "drop"})
    assert rules.decide("s2c", line({"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage"})).passes
    assert rules.decide("c2s", line({"jsonrpc": "2.0", "id": "s1", "result": {}})).action == "drop"


def test_a_request_the_inspector_held_or_dropped_is_answered_by_nothing_that_comes_later():
    """Held by an error rule, the request never reached the server: a response with its id that comes anyway
    answers no request through here, so rules on the request's method do not apply to it."""
    rules = interceptor({"when": {"dir": "c2s", "method": "tools/call", "tool": "echo"}, "do": "error", "code": 1,
                         "message": "no"},
                        {"when": {"dir": "c2s", "method": "tools/call", "tool": "slow"}, "do": "drop"},
                        {"when": {"dir": "s2c", "method": "tools/call"}, "do": "delay", "ms": 5})
    assert rules.decide("c2s", call(7, "echo")).action == "error"
    assert rules.decide("c2s", call(8, "slow")).action == "drop"
    assert rules.decide("s2c", result(7)).passes
    assert rules.decide("s2c", result(8)).passes


def test_a_message_that_is_not_json_matches_by_direction_and_pattern_only():
    rules = interceptor({"when": {"method": "tools/call"}, "do": "drop"}, {"when": {"match": "oops"}, "do": "drop"})
    verdict = rules.decide("s2c", b"oops, not json")
    assert (verdict.action, verdict.rule.number) == ("drop", 2)


@pytest.mark.report("faults", "intercept: a rewrite of a request whose id is an integer past 64 bits", group="hostile",
                    advice="Nothing to do: the id goes on as the client wrote it.")
def test_integers_past_64_bits_are_read_and_kept(report):
    rules = interceptor({"when": {"method": "tools/call"}, "do": "rewrite", "set": {"/params/name": "echo"}})
    verdict = rules.decide("c2s", b'{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"tools/call",'
                                  b'"params":{"name":"add"}}')
    assert verdict.changed and b'"id":123456789012345678901234567890' in verdict.out
    assert json.loads(verdict.out)["params"]["name"] == "echo"
    report.saw(f"the rewritten request goes on with its id as written: {verdict.out.decode()}")


@pytest.mark.report("faults", "intercept: a rewrite of a server answer holding a lone surrogate (\\ud800)",
                    group="hostile", advice="Nothing to do: the answer goes on changed, the surrogate escaped.")
def test_a_rewrite_of_a_message_with_a_lone_surrogate_writes_it_escaped(report):
    """JSON's escapes can carry a lone surrogate, which UTF-8 cannot: the rewrite wrote it raw and raised."""
    rules = interceptor({"do": "rewrite", "set": {"/result/x": 1}})
    verdict = rules.decide("s2c", '{"jsonrpc":"2.0","id":1,"result":{"t":"\\ud800 é"}}'.encode())
    assert verdict.changed and verdict.out == b'{"jsonrpc":"2.0","id":1,"result":{"t":"\\ud800 \\u00e9","x":1}}'
    report.saw(f"the changed answer goes on: {verdict.out.decode()}")


def test_a_rewrite_keeps_what_only_json_reads_and_writes():
    rules = interceptor({"do": "rewrite", "set": {"/result/x": 1}})
    verdict = rules.decide("s2c", '{"jsonrpc":"2.0","id":1,"result":{"t":NaN,"u":"é","f":1e-7}}'.encode())
    assert verdict.out == '{"jsonrpc":"2.0","id":1,"result":{"t":NaN,"u":"é","f":1e-07,"x":1}}'.encode()


def test_a_rewrite_puts_each_value_at_its_pointer():
    rules = interceptor({"when": {"dir": "s2c"}, "do": "rewrite",
                         "set": {"/result/content/0/text": "forty-two", "/result/isError": True,
                                 "/result/content/-": {"type": "text", "text": "more"}, "/result/a~1b": 1}})
    verdict = rules.decide("s2c", result(1))
    assert verdict.action == "rewrite" and verdict.changed and verdict.note is None
    assert json.loads(verdict.out)["result"] == {
        "content": [{"type": "text", "text": "forty-two"}, {"type": "text", "text": "more"}], "isError": True,
        "a/b": 1}


def test_a_pointer_that_is_not_in_the_message_changes_nothing_and_says_why():
    rules = interceptor({"do": "rewrite", "set": {"/result/isError": True, "/result/structured/sum": 42}})
    verdict = rules.decide("s2c", result(1))
    assert verdict.out == result(1) and not verdict.changed
    assert verdict.note == ("/result/structured/sum is not in this message (it has no /result/structured); it went "
                            "on unchanged")


@pytest.mark.parametrize(("obj", "pointer", "clause"), [
    ({"a": [1, 2]}, "/a/5", "/a/5 points past the end of a list of 2"),
    ({"a": [1, 2]}, "/a/01", "/a/01 points past the end of a list of 2"),
    ({"a": [1, 2]}, "/a/x/y", "/a/x/y is not in this message (it has no /a/x)"),
    ({"a": "text"}, "/a/b", "/a/b goes into a string, which has no members"),
    ({"a": None}, "/a/b", "/a/b goes into null, which has no members"),
    (5, "/a", "/a goes into a number, which has no members"),
])
def test_a_pointer_that_cannot_apply_says_why(obj, pointer, clause):
    with pytest.raises(RewriteFailed) as caught:
        rewritten(obj, ((pointer, 0),))
    assert str(caught.value) == clause


def test_a_list_index_replaces_and_the_length_appends():
    assert rewritten({"a": [1, 2]}, (("/a/0", 9), ("/a/2", 3))) == {"a": [9, 2, 3]}


def test_a_rewrite_of_something_that_is_not_json_is_a_note():
    verdict = interceptor({"do": "rewrite", "set": {"/a": 1}}).decide("s2c", b"{broken")
    assert verdict.out == b"{broken"
    assert verdict.note == ("the message is not JSON (or is nested too deeply to read), so there is nothing to "
                            "point into")


def deep(depth: int, note: str) -> object:
    return pytest.param(depth, note, id=str(depth), marks=pytest.mark.report(
        "faults", f"intercept: a rewrite of a server answer nested {depth:,} deep", group="hostile",
        advice="The answer is nested deeper than the inspector reads or writes back; it went on unchanged."))


@pytest.mark.parametrize(("depth", "note"), [
    deep(1000, "the message is nested too deeply to write back; it went on unchanged"),
    deep(5000, "the message is not JSON (or is nested too deeply to read), so there is nothing to point into"),
])
@pytest.mark.parametrize("recursion_limit", [1000, 20000], ids=["default-limit", "raised-limit"])
def test_a_rewrite_of_a_message_nested_too_deep_is_a_note_not_a_crash(depth, note, recursion_limit, report):
    # json reads past orjson's bound under a raised recursion limit (a library may raise it): the verdict stays.
    raw = b'{"jsonrpc":"2.0","id":1,"result":{"deep":' + b"[" * depth + b"]" * depth + b"}}"
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(recursion_limit)
    try:
        verdict = interceptor({"do": "rewrite", "set": {"/result/x": 1}}).decide("s2c", raw)
    finally:
        sys.setrecursionlimit(limit)
    assert (verdict.out, verdict.changed, verdict.note) == (raw, False, note)
    [record] = records("s2c", raw, verdict)
    report.saw(describe(record.mark))


def test_a_rewrite_of_a_message_deeper_than_orjson_writes_is_written_back_by_json():
    raw = b'{"jsonrpc":"2.0","id":1,"result":{"deep":' + b"[" * 600 + b"]" * 600 + b"}}"
    verdict = interceptor({"do": "rewrite", "set": {"/result/x": 1}}).decide("s2c", raw)
    assert verdict.changed and verdict.note is None
    assert json.loads(verdict.out)["result"]["x"] == 1


def test_a_rewrite_of_a_batch_points_from_the_array():
    batch = line([{"jsonrpc": "2.0", "id": 1, "result": {"x": 1}}])
    verdict = interceptor({"when": {"dir": "s2c"}, "do": "rewrite", "set": {"/0/result/x": 2}}).decide("s2c", batch)
    assert json.loads(verdict.out) == [{"jsonrpc": "2.0", "id": 1, "result": {"x": 2}}]


def test_an_error_rule_holds_a_request_and_answers_its_sender():
    rules = interceptor({"do": "error", "code": -32000, "message": "injected", "data": {"why": "test"}})
    verdict = rules.decide("c2s", call("a-1"))
    assert verdict.out == b"" and not verdict.changed
    assert json.loads(verdict.answer) == {"jsonrpc": "2.0", "id": "a-1",
                                          "error": {"code": -32000, "message": "injected", "data": {"why": "test"}}}


def test_an_error_rule_replaces_a_response():
    verdict = interceptor({"when": {"dir": "s2c"}, "do": "error", "code": 7, "message": "m"}).decide("s2c", result(4))
    assert verdict.answer is None and verdict.changed
    assert verdict.out == error_answer(4, 7, "m") == b'{"jsonrpc":"2.0","id":4,"error":{"code":7,"message":"m"}}'


def test_an_error_answer_to_an_id_nested_too_deep_answers_id_null():
    raw = b'{"jsonrpc":"2.0","id":' + b"[" * 1000 + b"]" * 1000 + b',"method":"x"}'
    verdict = interceptor({"do": "error", "code": 7, "message": "m"}).decide("c2s", raw)
    assert verdict.answer == b'{"jsonrpc":"2.0","id":null,"error":{"code":7,"message":"m"}}'


def test_an_error_rule_on_a_notification_lets_it_go_on_with_a_note():
    note = line({"jsonrpc": "2.0", "method": "notifications/progress"})
    verdict = interceptor({"do": "error", "code": 7, "message": "m"}).decide("s2c", note)
    assert verdict.out == note and verdict.answer is None
    assert verdict.note == "it matched a notification, which has no answer to replace; it went on unchanged"


def test_drop_and_pause_verdicts():
    assert interceptor({"do": "drop"}).decide("c2s", call()).out == b""
    paused = interceptor({"do": "pause"}).decide("c2s", call())
    assert (paused.action, paused.out) == ("pause", call())


def test_a_pattern_that_takes_too_long_does_not_match_and_does_not_hang():
    rules = interceptor({"when": {"match": "(a+)+$"}, "do": "drop"})
    started = time.monotonic()
    verdict = rules.decide("s2c", line({"text": "a" * 40 + "!"}))
    assert verdict.passes
    assert time.monotonic() - started < 2


def test_new_rules_apply_from_the_next_message():
    rules = interceptor({"do": "drop"})
    assert rules.decide("c2s", call(1)).action == "drop"
    rules.rules = parse_rules([{"when": {"method": "tools/call"}, "do": "delay", "ms": 1}])
    assert rules.decide("c2s", call(2)).action == "delay"


def test_the_requests_remembered_are_bounded(monkeypatch):
    monkeypatch.setattr(engine, "MAX_PENDING", 3)
    rules = interceptor({"when": {"dir": "s2c", "method": "tools/call"}, "do": "drop"})
    for msg_id in range(5):
        rules.decide("c2s", call(msg_id))
    assert [rules.decide("s2c", result(msg_id)).action for msg_id in range(5)] == ["pass", "pass", "drop", "drop",
                                                                                   "drop"]


def test_a_persons_decisions_become_verdicts():
    rules = interceptor({"do": "pause"})
    rule = rules.rules.rules[0]
    assert rules.resolve("c2s", call(), "forward", rule=rule).out == call()
    assert rules.resolve("c2s", call(), "forward", edited=call(), rule=rule).passes
    edited = rules.resolve("c2s", call(), "forward", edited=call(1, "echo"), rule=rule)
    assert (edited.action, edited.out, edited.changed) == ("rewrite", call(1, "echo"), True)
    assert rules.resolve("c2s", call(), "drop", rule=rule).out == b""
    assert rules.resolve("c2s", call(), "delay", ms=1500).delay == 1.5
    held = rules.resolve("c2s", call(9), "error", code=-1, message="no")
    assert held.out == b"" and held.answer == error_answer(9, -1, "no")
    replaced = rules.resolve("s2c", result(9), "error", code=-1, message="no")
    assert replaced.out == error_answer(9, -1, "no") and replaced.changed
    notified = rules.resolve("s2c", line({"jsonrpc": "2.0", "method": "x"}), "error")
    assert notified.passes and notified.note.startswith("only a request or a response")
    with pytest.raises(ValueError, match="unknown decision 'later'"):
        rules.resolve("c2s", call(), "later")


def test_a_request_a_person_dropped_is_answered_by_nothing_that_comes_later():
    rules = interceptor({"when": {"dir": "c2s"}, "do": "pause"}, {"when": {"dir": "s2c", "method": "tools/call"},
                                                                  "do": "drop"})
    assert rules.decide("c2s", call(3)).action == "pause"
    rules.resolve("c2s", call(3), "drop")
    assert rules.decide("s2c", result(3)).passes
