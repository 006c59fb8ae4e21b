"""What a host records for each verdict (inspector/core/intercept/records.py), and the marks' sentences
(inspector/core/wire/intercepted.py)."""

from __future__ import annotations

import pytest

from inspector.core.intercept.engine import Interceptor, Verdict
from inspector.core.intercept.records import Record, records
from inspector.core.intercept.rules import parse_rules
from inspector.core.wire import intercepted
from inspector.core.wire.intercepted import delivered, describe, short

CALL = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}'
RESULT = b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"3"}]}}'
NOTE = b'{"jsonrpc":"2.0","method":"notifications/message","params":{}}'


def decided(rule: dict, direction: str, raw: bytes) -> tuple[Interceptor, Verdict]:
    interceptor = Interceptor(parse_rules([rule]))
    if direction == "s2c":
        interceptor.decide("c2s", CALL)
    return interceptor, interceptor.decide(direction, raw)


def test_a_message_no_rule_matched_is_recorded_as_it_came():
    assert records("c2s", CALL, Verdict("pass", out=CALL)) == [Record("c2s", CALL, None)]


def test_a_rewrite_records_the_original_then_the_changed():
    _, verdict = decided({"do": "rewrite", "set": {"/result/content/0/text": "x"}, "name": "n"}, "s2c", RESULT)
    assert records("s2c", RESULT, verdict) == [
        Record("s2c", RESULT, {"rule": 1, "action": "rewrite", "role": "original", "name": "n"}),
        Record("s2c", verdict.out, {"rule": 1, "action": "rewrite", "role": "changed", "name": "n"})]


def test_a_drop_records_the_message_dropped():
    _, verdict = decided({"do": "drop"}, "c2s", CALL)
    assert records("c2s", CALL, verdict) == [Record("c2s", CALL, {"rule": 1, "action": "drop", "role": "dropped"})]


def test_an_error_on_a_request_records_it_held_and_the_answer_the_other_way():
    _, verdict = decided({"do": "error", "code": 1, "message": "m"}, "c2s", CALL)
    assert records("c2s", CALL, verdict) == [
        Record("c2s", CALL, {"rule": 1, "action": "error", "role": "held"}),
        Record("s2c", verdict.answer, {"rule": 1, "action": "error", "role": "answer"})]


def test_an_error_on_a_response_records_the_original_and_the_error_in_its_place():
    _, verdict = decided({"when": {"dir": "s2c"}, "do": "error", "code": 1, "message": "m"}, "s2c", RESULT)
    assert [(r.dir, r.mark["role"]) for r in records("s2c", RESULT, verdict)] == [("s2c", "original"),
                                                                                  ("s2c", "changed")]


def test_a_delay_records_its_milliseconds_and_when_the_message_came():
    _, verdict = decided({"do": "delay", "ms": 250}, "c2s", CALL)
    assert records("c2s", CALL, verdict, arrived=1.5) == [
        Record("c2s", CALL, {"rule": 1, "action": "delay", "role": "delayed", "ms": 250, "arrived": 1.5})]


def test_a_rule_that_could_not_act_records_its_note():
    _, verdict = decided({"do": "rewrite", "set": {"/nope/x": 1}}, "c2s", CALL)
    [record] = records("c2s", CALL, verdict)
    assert record.mark == {"rule": 1, "action": "rewrite", "role": "unchanged",
                           "note": "/nope/x is not in this message (it has no /nope); it went on unchanged"}


def test_a_rewrite_to_the_same_bytes_is_recorded_once_as_unchanged():
    _, verdict = decided({"do": "rewrite", "set": {"/id": 1}}, "c2s", CALL)
    assert not verdict.changed
    assert records("c2s", CALL, verdict) == [Record("c2s", CALL, {"rule": 1, "action": "rewrite", "role": "unchanged",
                                                                  "note": "the message already said that"})]


def test_a_paused_message_forwarded_as_it_came_records_how_long_it_waited():
    interceptor, verdict = decided({"do": "pause"}, "c2s", CALL)
    resolved = interceptor.resolve("c2s", CALL, "forward", rule=verdict.rule)
    [record] = records("c2s", CALL, resolved, arrived=2.0, paused=1.2345)
    assert record.mark == {"rule": 1, "action": "pause", "role": "delayed", "ms": 1234, "arrived": 2.0,
                           "paused": 1.234}
    assert describe(record.mark) == "delayed 1234 ms by rule 1 (pause), after a pause of 1.2 s"


def test_a_paused_message_edited_records_the_original_and_the_edit():
    interceptor, verdict = decided({"do": "pause"}, "c2s", CALL)
    edited = CALL.replace(b"add", b"echo")
    resolved = interceptor.resolve("c2s", CALL, "forward", edited=edited, rule=verdict.rule)
    assert [(r.raw, r.mark["role"], r.mark["action"]) for r in records("c2s", CALL, resolved, paused=3.0)] == [
        (CALL, "original", "pause"), (edited, "changed", "pause")]


@pytest.mark.parametrize(("mark", "sentence", "word"), [
    ({"rule": 1, "action": "rewrite", "role": "original"},
     "original, never delivered: rule 1 (rewrite) changed it (the next message went instead)", "original"),
    ({"rule": 1, "action": "rewrite", "role": "changed", "name": "sum"}, 'changed by rule 1 "sum" (rewrite)',
     "changed"),
    ({"rule": 3, "action": "drop", "role": "dropped"}, "dropped by rule 3 (drop): never delivered", "dropped"),
    ({"rule": 2, "action": "error", "role": "held"},
     "held by rule 2 (error): never reached its peer, the inspector answered it", "held"),
    ({"rule": 2, "action": "error", "role": "answer"}, "the inspector's answer, by rule 2 (error)", "injected"),
    ({"rule": 2, "action": "delay", "role": "delayed", "ms": 800}, "delayed 800 ms by rule 2 (delay)", "delayed"),
    ({"rule": 1, "action": "rewrite", "role": "unchanged", "note": "why"},
     "rule 1 (rewrite) matched and changed nothing: why", "matched"),
    ({"rule": 0, "action": "pause", "role": "dropped", "paused": 2}, "dropped by a breakpoint: never delivered, "
     "after a pause of 2.0 s", "dropped"),
    ({"rule": "x", "role": "?"}, "marked by rule x (?)", "?"),
])
def test_each_mark_reads_as_a_sentence_and_a_word(mark, sentence, word):
    assert describe(mark) == sentence
    assert short(mark) == word


def test_only_the_original_and_the_dropped_were_not_delivered():
    for role in intercepted.ROLES:
        assert delivered({"intercept": {"role": role}}) == (role not in ("original", "dropped")), role
    assert delivered({}) and delivered({"intercept": "not a mark"})
