"""Each expectation judged on its own against an answer (inspector.core.collections.expectations), with a
sentence saying what was expected and what came."""

from __future__ import annotations

from typing import Any

from inspector.core.collections.expectations import judge
from inspector.core.collections.format import Expect


def answer(**result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "result": result}


def verdicts(expect: Expect, response: dict[str, Any] | None, latency: float | None = 0.01,
             **options: Any) -> dict[str, tuple[bool, str]]:
    return {o.expectation: (o.passed, o.sentence) for o in judge(expect, response, latency, **options)}


TEXT = answer(content=[{"type": "text", "text": "it is 5 o'clock"}], structuredContent={"hour": 5})


def test_every_expectation_that_holds_passes() -> None:
    expect = Expect(status="result", is_error=False, text_contains=["5 o'clock"], equals={"/structuredContent/hour": 5},
                    output_schema=True, latency_under_ms=100)
    schema = {"type": "object", "properties": {"hour": {"type": "integer"}}, "required": ["hour"]}
    found = verdicts(expect, TEXT, output_schema=schema)
    assert all(passed for passed, _ in found.values()), found
    assert list(found) == ["answered", "status", "isError", "textContains", "equals /structuredContent/hour",
                           "outputSchema", "latencyUnderMs"]


def test_each_failure_says_what_came_instead() -> None:
    expect = Expect(is_error=True, text_contains=["six"], equals={"/structuredContent/hour": 6.0},
                    latency_under_ms=5)
    found = verdicts(expect, TEXT, latency=0.02)
    assert found["isError"] == (False, "isError is false, expected true")
    assert found["textContains"] == (False, "the text does not contain \"six\"; it is \"it is 5 o'clock\"")
    assert found["equals /structuredContent/hour"] == (False, "/structuredContent/hour is 5, expected 6.0")
    assert found["latencyUnderMs"] == (False, "took 20.0 ms, expected under 5 ms")


def test_numbers_compare_by_value_but_true_is_not_1() -> None:
    assert verdicts(Expect(equals={"/n": 1.0}), answer(n=1))["equals /n"][0]
    assert not verdicts(Expect(equals={"/n": 1}), answer(n=True))["equals /n"][0]


def test_a_pointer_to_nothing_fails_with_a_sentence() -> None:
    assert verdicts(Expect(equals={"/a/0/b": 1}), answer(a=[]))["equals /a/0/b"] == (
        False, "the result has nothing at /a/0/b; expected 1")


def test_structured_content_breaking_the_output_schema_fails_naming_the_rule() -> None:
    schema = {"type": "object", "properties": {"hour": {"type": "string"}}}
    passed, sentence = verdicts(Expect(output_schema=True), TEXT, output_schema=schema)["outputSchema"]
    assert not passed and "structuredContent.hour" in sentence
    assert verdicts(Expect(output_schema=True), TEXT, output_schema=None)["outputSchema"] == (
        False, "the tool declares no outputSchema")


def test_an_error_answer_fails_result_expectations_and_passes_an_expected_error() -> None:
    error = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad"}}
    found = verdicts(Expect(status="error", is_error=False), error)
    assert found["status"] == (True, "got a JSON-RPC error (bad, code -32602), as expected")
    assert found["isError"][0] is False


def test_no_answer_is_the_one_failure() -> None:
    assert verdicts(Expect(is_error=False), None, no_answer="no response to tools/call within 1 s") == {
        "answered": (False, "no response to tools/call within 1 s")}
