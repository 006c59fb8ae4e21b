"""record's sentence for JSON-RPC error answers says which came from --rules rather than the server."""

from __future__ import annotations

from pathlib import Path

from inspector.core.connect.target import Target
from inspector.core.record.run import RecordOptions, _Outcome
from inspector.core.wire.events import Direction
from inspector.core.wire.framing import decode_line
from inspector.core.wire.intercepted import MARK, mark

OPTIONS = RecordOptions(target=Target(argv=["server"]), out=Path("c.jsonl"))


def error(by_rule: bool):
    event = decode_line(b'{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}', Direction.S2C)
    if by_rule:
        event.put(**{MARK: mark(2, "error", "answer")})
    return event


def sentence(*by_rules: bool) -> str | None:
    outcome = _Outcome()
    for by_rule in by_rules:
        outcome.answered("tools/call", error(by_rule))
    return outcome.sentence(OPTIONS)


def test_no_error_answer_is_no_sentence():
    assert sentence() is None


def test_the_servers_own_error_answers_are_the_servers():
    assert sentence(False, False) == ("the server answered 2 requests with a JSON-RPC error (the first: tools/call: "
                                      "no (code -1))")


def test_error_answers_a_rule_made_are_said_to_be_the_rules():
    assert sentence(True) == ("--rules answered 1 request with a JSON-RPC error in the server's place (the first: "
                              "tools/call: no (code -1), by rule 2 (error))")


def test_a_mix_says_how_many_came_from_the_rules():
    assert sentence(False, True) == ("2 requests got a JSON-RPC error answer, 1 of them from --rules (the first: "
                                     "tools/call: no (code -1))")
