"""The collection file (inspector.core.collections.format): it round-trips, every mistake in it is one sentence
naming the request and member, and history entries append to it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.core.collections.format import Collection, CollectionError, Expect, SavedRequest, add_to, from_call, load


def write(path: Path, requests: list[object], **extra: object) -> Path:
    path.write_text(json.dumps({"format": "mcp-inspector-collection", "version": 1, "requests": requests, **extra}))
    return path


def test_a_collection_round_trips_with_every_expectation(tmp_path: Path) -> None:
    expect = Expect(status="result", is_error=False, text_contains=["5"], equals={"/structuredContent/result": 5},
                    output_schema=True, latency_under_ms=250)
    original = Collection("smoke", [SavedRequest("add", "tools/call", {"name": "add", "arguments": {"a": 2}}, expect),
                                    SavedRequest("ping", "ping")])
    original.save(tmp_path / "c.json")
    assert load(tmp_path / "c.json") == original


def test_text_contains_may_be_one_string_and_a_nameless_request_is_named_by_its_place(tmp_path: Path) -> None:
    collection = load(write(tmp_path / "c.json", [{"method": "ping", "expect": {"textContains": "x"}}]))
    assert collection.name == "c"
    assert (collection.requests[0].name, collection.requests[0].expect.text_contains) == ("1. ping", ["x"])


@pytest.mark.parametrize(("requests", "says"), [
    ([{"params": {}}], "request 1 needs a \"method\""),
    ([{"method": "ping"}, {"method": "ping", "expect": {"isEror": True}}], "request 2: \"expect\" has 'isEror'"),
    ([{"method": "ping", "expect": {"status": "ok"}}], "expect.status must be \"result\" or \"error\""),
    ([{"method": "ping", "expect": {"equals": {"structuredContent": 1}}}], "JSON pointers"),
    ([{"method": "ping", "expect": {"latencyUnderMs": -1}}], "above 0"),
    ([{"method": "ping", "params": "x"}], "\"params\" must be an object"),
])
def test_each_mistake_is_one_sentence_naming_where(tmp_path: Path, requests: list[object], says: str) -> None:
    with pytest.raises(CollectionError) as caught:
        load(write(tmp_path / "c.json", requests))
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_a_file_of_another_kind_is_refused_and_never_overwritten(tmp_path: Path) -> None:
    other = tmp_path / "profiles.json"
    other.write_text('{"profiles": []}')
    with pytest.raises(CollectionError, match="is not a collection"):
        add_to(other, [from_call("echo", {})])
    assert other.read_text() == '{"profiles": []}'


def test_history_calls_append_to_a_new_then_an_existing_collection(tmp_path: Path) -> None:
    path = tmp_path / "saved.json"
    add_to(path, [from_call("echo", {"message": "hi"}, is_error=False, text="hi")])
    add_to(path, [from_call("fail", {}, is_error=True)])
    collection = load(path)
    assert collection.name == "saved"
    assert [(r.tool, r.expect.is_error, r.expect.text_contains) for r in collection.requests] == [
        ("echo", False, ["hi"]), ("fail", True, [])]


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000])
def test_json_nested_too_deep_to_read_is_one_sentence_not_a_recursion_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "deep.json"
    path.write_text(text)
    with pytest.raises(CollectionError, match=r"deep\.json is JSON nested too deep to read$"):
        load(path)
