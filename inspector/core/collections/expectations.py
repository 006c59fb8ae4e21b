"""A saved request's expectations judged against the answer it got: one :class:`Outcome` per expectation, each
passed or failed with one sentence saying what was expected and what came.

Judged in this order, each on its own (one failing does not hide another): the answer came (always), ``status``,
``isError`` (an absent ``isError`` is false, as the spec says:
https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling), ``textContains`` (the text
of the content items, resource contents or prompt messages, as ``call --text`` prints it), ``equals`` (RFC 6901
pointers into the result; numbers compare by value, ``true`` is not ``1``), ``outputSchema`` (the result's
``structuredContent`` against the tool's ``outputSchema``, with the inspector's JSON Schema validator), and
``latencyUnderMs``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jsonpointer

from inspector.core.collections.format import Expect
from inspector.core.explore.oneshot import text_of
from inspector.core.replay.diff import clip_value, same_value

ANSWERED = "answered"


@dataclass(frozen=True)
class Outcome:
    """One expectation of one request: which (``answered``, ``status``, ``isError``, ``textContains``,
    ``equals /a/b``, ``outputSchema``, ``latencyUnderMs``), whether it held, and why in one sentence."""

    expectation: str
    passed: bool
    sentence: str


def judge(expect: Expect, response: dict[str, Any] | None, latency: float | None, *,
          no_answer: str = "no answer", output_schema: Any = None, schema_known: bool = True) -> list[Outcome]:
    """Every expectation of ``expect`` against ``response`` (the whole answer; None when none came, ``no_answer``
    then says why) and its ``latency`` in seconds. ``output_schema``: the tool's, for ``outputSchema``
    (``schema_known`` False: the tool could not be found in the server's list)."""
    if response is None:
        return [Outcome(ANSWERED, False, no_answer)]
    error = response.get("error")
    result = response.get("result")
    outcomes = [Outcome(ANSWERED, True, "answered" if latency is None else f"answered in {latency * 1000:.1f} ms")]
    status = "error" if "error" in response else "result"
    if expect.status is not None:
        said = _error_words(error) if status == "error" else "a result"
        wanted = "a result" if expect.status == "result" else "a JSON-RPC error"
        held = status == expect.status
        outcomes.append(Outcome("status", held, f"got {said}, as expected" if held else
                                f"expected {wanted}, got {said}"))
    if expect.is_error is not None:
        outcomes.append(_is_error(expect.is_error, result, status, error))
    for text in expect.text_contains:
        outcomes.append(_contains(text, result, status))
    for pointer, value in expect.equals.items():
        outcomes.append(_equals(pointer, value, result, status))
    if expect.output_schema:
        outcomes.append(_schema(result, status, output_schema, schema_known))
    if expect.latency_under_ms is not None:
        bound = expect.latency_under_ms
        took = None if latency is None else latency * 1000
        outcomes.append(Outcome("latencyUnderMs", took is not None and took < bound,
                                f"took {took:.1f} ms, expected under {bound:g} ms" if took is not None else
                                "the latency was not measured"))
    return outcomes


def _error_words(error: Any) -> str:
    if isinstance(error, dict):
        return f"a JSON-RPC error ({error.get('message', '(no message)')}, code {error.get('code')})"
    return "a JSON-RPC error"


def _is_error(expected: bool, result: Any, status: str, error: Any) -> Outcome:
    if status == "error":
        return Outcome("isError", False, f"expected a result with isError {str(expected).lower()}, got "
                                         f"{_error_words(error)}")
    actual = isinstance(result, dict) and result.get("isError") is True
    return Outcome("isError", actual == expected, f"isError is {str(actual).lower()}, expected "
                                                  f"{str(expected).lower()}")


def _contains(text: str, result: Any, status: str) -> Outcome:
    label = "textContains"
    if status == "error":
        return Outcome(label, False, f"expected text containing {clip_value(text, 60)}, got a JSON-RPC error")
    texts = text_of(result) or []
    whole = "\n".join(texts)
    if text in whole:
        return Outcome(label, True, f"the text contains {clip_value(text, 60)}")
    shown = clip_value(whole, 80) if texts else "no text at all"
    return Outcome(label, False, f"the text does not contain {clip_value(text, 60)}; it is {shown}")


def _equals(pointer: str, value: Any, result: Any, status: str) -> Outcome:
    label = f"equals {pointer}"
    if status == "error":
        return Outcome(label, False, f"expected {pointer} of the result to be {clip_value(value)}, got a JSON-RPC "
                                     "error")
    try:
        found = jsonpointer.resolve_pointer(result, pointer)
    except (jsonpointer.JsonPointerException, TypeError):
        return Outcome(label, False, f"the result has nothing at {pointer}; expected {clip_value(value)}")
    if same_value(found, value):
        return Outcome(label, True, f"{pointer} is {clip_value(value)}")
    return Outcome(label, False, f"{pointer} is {clip_value(found)}, expected {clip_value(value)}")


def _schema(result: Any, status: str, schema: Any, known: bool) -> Outcome:
    label = "outputSchema"
    if status == "error":
        return Outcome(label, False, "expected structuredContent matching the outputSchema, got a JSON-RPC error")
    if not known:
        return Outcome(label, False, "the tool is not in the server's tools/list, so its outputSchema is unknown")
    if schema is None:
        return Outcome(label, False, "the tool declares no outputSchema")
    if not isinstance(result, dict) or "structuredContent" not in result:
        return Outcome(label, False, "the result has no structuredContent to match the outputSchema")
    from inspector.core.schemas.validate import violations

    problems = violations(schema, result["structuredContent"], root="structuredContent", limit=3)
    if not problems:
        return Outcome(label, True, "structuredContent matches the outputSchema")
    return Outcome(label, False, "; ".join(p.sentence for p in problems))
