"""JSON-RPC ids as keys (inspector/core/wire/ids.py): any JSON value gives a key, never an error, and the JSON
type of an id counts."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from inspector.core.wire.framing import decode_line
from inspector.core.wire.ids import describe_id, id_key, same_id

#: one of each JSON type, the invalid ones (array, object) included
EVERY_KIND: list[Any] = ["2", 2, 2.5, True, False, None, [2], {"id": 2}, [], {}, [[{"a": [1, {"b": None}]}]]]


def test_id_keys_keep_json_types_apart():
    assert id_key(2) != id_key("2")
    assert id_key(True) != id_key(1)
    assert id_key(None) != id_key("None")
    assert id_key([2]) != id_key("[2]") and id_key([2]) != id_key(2)


def test_every_kind_of_json_value_gives_a_hashable_key_that_only_its_equal_finds():
    keys = [id_key(value) for value in EVERY_KIND]
    table = {key: index for index, key in enumerate(keys)}  # hashable, or this raises
    assert len(table) == len(EVERY_KIND), "two different ids share a key"
    for index, value in enumerate(EVERY_KIND):
        again = json.loads(json.dumps(value))  # the same id, parsed again from another message
        assert table[id_key(again)] == index, value


def test_an_object_id_is_the_same_whatever_the_order_of_its_members():
    assert same_id({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert not same_id({"a": 1}, {"a": "1"})


def test_same_id_compares_value_and_json_type():
    assert same_id(7, 7) and same_id("x", "x") and same_id([7], [7])
    assert not same_id(1, True) and not same_id(0, False) and not same_id(7, "7") and not same_id(None, "null")


def test_an_id_nested_deeper_than_python_can_write_again_still_gives_a_key():
    # the framing decoder reads up to ~1000 levels; from a deep stack json.dumps cannot write them back
    line = b'{"jsonrpc":"2.0","id":' + b"[" * 900 + b"]" * 900 + b',"result":{}}'
    event = decode_line(line, "s2c")
    assert event.rpc is not None and isinstance(event.rpc.id, list)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(400)
    try:
        key = id_key(event.rpc.id)
        assert {key: 1}[id_key(event.rpc.id)] == 1, "the same id finds its own key"
        assert "nested too deeply" in describe_id(event.rpc.id)
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.parametrize(("value", "shown"), [
    ("2", '"2" (a string)'), (2, "2 (a number)"), (None, "null (a null)"), (True, "true (a boolean)"),
    ([1], "[1] (an array)"), ({"id": 1}, '{"id": 1} (an object)'),
])
def test_describe_id_writes_the_id_as_json_with_its_type(value, shown):
    assert describe_id(value) == shown
