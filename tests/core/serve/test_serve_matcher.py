"""The matcher of ``serve`` without a capture file or a process: which recorded answer a request gets in each
``--match`` mode, and the sentence of a miss."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.serve.matcher import (
    METHOD_NOT_RECORDED,
    NO_RECORDED_ANSWER,
    CursorMap,
    Hit,
    Matcher,
    Miss,
    request_key,
)


class Book:
    """Recorded requests as a list of (method, params); a request's label is its position plus 1."""

    def __init__(self, *requests: tuple[str, Any]) -> None:
        self.requests = list(requests)

    def __len__(self) -> int:
        return len(self.requests)

    def method(self, position: int) -> str:
        return self.requests[position][0]

    def params(self, position: int) -> Any:
        return self.requests[position][1]

    def label(self, position: int) -> str:
        return f"{self.method(position)} #{position + 1}"

    def positions(self, method: str) -> Sequence[int]:
        return [i for i, (m, _) in enumerate(self.requests) if m == method]

    def methods(self) -> Sequence[str]:
        return list(dict.fromkeys(m for m, _ in self.requests))


def add(a: int, b: int, **meta: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "add", "arguments": {"a": a, "b": b}}
    if meta:
        params["_meta"] = meta
    return params


BOOK = Book(("tools/list", None), ("tools/call", add(2, 3)), ("tools/call", add(2, 3)), ("tools/call", add(1, 1)))


def test_auto_gives_identical_requests_the_recorded_answers_in_order_then_the_last_again():
    matcher = Matcher(BOOK)
    assert [matcher.match("tools/call", add(2, 3)) for _ in range(4)] == [Hit(1), Hit(2), Hit(2), Hit(2)]
    assert matcher.match("tools/call", add(1, 1)) == Hit(3)


def test_auto_matches_without_meta_and_progress_tokens_and_empty_params_are_no_params():
    matcher = Matcher(BOOK)
    assert matcher.match("tools/call", add(1, 1, progressToken=7, traceparent="00-x")) == Hit(3)
    assert matcher.match("tools/list", {}) == Hit(0)
    assert matcher.match("tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}) == Hit(0)
    assert request_key("tools/list", None) == request_key("tools/list", {"_meta": {"progressToken": "p"}})


def test_a_miss_names_the_closest_recorded_request_and_the_field_that_differs():
    found = Matcher(BOOK).match("tools/call", add(2, 4))
    assert found == Miss("no recorded answer to this tools/call: the closest recorded request, tools/call #2, differs "
                         "in params.arguments.b (recorded 3, here 4)", 1, NO_RECORDED_ANSWER)


def test_a_miss_counts_the_other_differing_fields_and_says_what_is_only_on_one_side():
    found = Matcher(BOOK).match("tools/call", {"name": "add", "arguments": {"a": 9, "b": 9, "c": 1}})
    assert isinstance(found, Miss)
    assert found.text.endswith("differs in params.arguments.a (recorded 2, here 9) and 2 more fields")
    extra = Matcher(Book(("tools/call", {"name": "add"}))).match("tools/call", {"name": "add", "arguments": {}})
    assert isinstance(extra, Miss) and extra.text.endswith("differs in params.arguments (here only: {})")


def test_a_method_never_recorded_is_method_not_found_naming_the_nearest_recorded_method():
    found = Matcher(BOOK).match("tools/cal", add(2, 3))
    assert found == Miss("no recorded answer to tools/cal: the capture has no tools/cal request; the closest recorded "
                         "request is tools/call #2", 1, METHOD_NOT_RECORDED)
    empty = Matcher(Book()).match("tools/list", None)
    assert isinstance(empty, Miss) and empty.code == METHOD_NOT_RECORDED and empty.closest is None


def test_sequential_answers_in_recorded_order_whatever_comes_then_misses():
    matcher = Matcher(BOOK, "sequential")
    assert [matcher.match("anything", None) for _ in range(4)] == [Hit(0), Hit(1), Hit(2), Hit(3)]
    found = matcher.match("tools/list", None)
    assert isinstance(found, Miss)
    assert found.text == ("no recorded answer to tools/list: all 4 recorded answers have been given in order "
                          "(--match sequential)")


def test_strict_wants_the_recorded_requests_in_the_recorded_order():
    matcher = Matcher(BOOK, "strict")
    assert matcher.match("tools/list", None) == Hit(0)
    found = matcher.match("tools/call", add(1, 1))  # recorded, but not next
    assert isinstance(found, Miss) and found.closest == 1
    assert found.text == ("no recorded answer to tools/call at this point: the next recorded request, tools/call #2, "
                          "differs in params.arguments.a (recorded 2, here 1) and 1 more field (--match strict)")
    assert [matcher.match("tools/call", add(2, 3)) for _ in range(2)] == [Hit(1), Hit(2)]
    wrong_method = matcher.match("tools/list", None)
    assert isinstance(wrong_method, Miss) and "differs in its method (tools/call, here tools/list)" in wrong_method.text
    assert matcher.match("tools/call", add(1, 1)) == Hit(3)
    assert isinstance(matcher.match("tools/call", add(1, 1)), Miss)  # all answered: no last-one-again in strict


def test_a_cursor_the_twin_handed_out_matches_the_recorded_request_of_that_page():
    book = Book(("tools/list", None), ("tools/list", {"cursor": "page-2"}))
    cursors = CursorMap()
    matcher = Matcher(book, cursors=cursors)
    cursors.learn("page-2")
    assert matcher.match("tools/list", {"cursor": "page-2"}) == Hit(1)
    cursors.handed("rewritten", "page-2")  # an answer whose cursor was rewritten still leads to the recorded page
    assert matcher.match("tools/list", {"cursor": "rewritten"}) == Hit(1)
    assert isinstance(matcher.match("tools/list", {"cursor": "never-minted"}), Miss)


def test_an_unknown_mode_is_refused_with_a_sentence():
    with pytest.raises(ValueError, match="choose one of auto, sequential, strict"):
        Matcher(BOOK, "fuzzy")


def test_a_whole_number_written_as_a_float_is_the_same_number_but_true_is_not_one():
    matcher = Matcher(BOOK)
    assert matcher.match("tools/call", {"name": "add", "arguments": {"a": 1.0, "b": 1}}) == Hit(3)
    found = matcher.match("tools/call", {"name": "add", "arguments": {"a": True, "b": 1}})
    assert isinstance(found, Miss) and found.text.endswith("differs in params.arguments.a (recorded 1, here true)")


class CountingBook(Book):
    """A book that counts the recorded params it was asked for (what reading a capture costs)."""

    def __init__(self, *requests: tuple[str, Any]) -> None:
        super().__init__(*requests)
        self.read: list[int] = []

    def params(self, position: int) -> Any:
        self.read.append(position)
        return super().params(position)


def test_a_request_answered_early_in_a_long_capture_reads_only_the_recorded_requests_up_to_its_answer():
    book = CountingBook(*[("tools/call", add(n, n)) for n in range(10_000)])
    matcher = Matcher(book)
    assert matcher.match("tools/call", add(2, 2)) == Hit(2)
    assert book.read == [0, 1, 2]
    assert matcher.match("tools/call", add(2, 2)) == Hit(2)  # once more than recorded: the last again, after all
    assert len(book.read) == 10_000
    assert matcher.match("tools/call", add(5, 5)) == Hit(5)  # each recorded request is keyed once
    assert len(book.read) == 10_000


def _keyed_at_once(book: Book, requests: list[tuple[str, Any]]) -> list[Hit | Miss]:
    """What auto answered when each method's recorded requests were all keyed at its first request."""
    keys: dict[str, dict[bytes, list[int]]] = {}
    served: dict[bytes, int] = {}
    out: list[Hit | Miss] = []
    for method, params in requests:
        if method not in keys:
            keys[method] = {}
            for position in book.positions(method):
                keys[method].setdefault(request_key(method, book.params(position)), []).append(position)
        key = request_key(method, params)
        found = keys[method].get(key)
        if not found:
            out.append(Matcher(book).miss(method, params))
            continue
        out.append(Hit(found[min(served.get(key, 0), len(found) - 1)]))
        served[key] = served.get(key, 0) + 1
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["tools/call", "prompts/get"]), st.integers(0, 3)), max_size=12),
       st.lists(st.tuples(st.sampled_from(["tools/call", "prompts/get", "resources/read"]), st.integers(0, 4)),
                max_size=16))
def test_keying_recorded_requests_as_far_as_needed_answers_as_keying_them_all_at_once(recorded, asked):
    book = Book(*[(method, add(n, n)) for method, n in recorded])
    requests = [(method, add(n, n)) for method, n in asked]
    matcher = Matcher(book)
    assert [matcher.match(method, params) for method, params in requests] == _keyed_at_once(book, requests)
