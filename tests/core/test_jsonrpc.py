"""jsonrpc.classify: the kind of one parsed message and the structural problems it carries on its own."""

from __future__ import annotations

from typing import Any

import pytest

from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Finding


def codes(findings: list[Finding]) -> list[str]:
    return [f.code for f in findings]


def classify(obj: Any) -> tuple[Any, list[str]]:
    info, findings = jsonrpc.classify(obj)
    assert all(f.severity in ("error", "warning") and f.text for f in findings)
    return info, codes(findings)


# -- kinds ------------------------------------------------------------------------------------------------


def test_a_request_has_a_method_and_an_id():
    info, found = classify({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    assert (info.kind, info.method, info.id, info.has_id) == (jsonrpc.REQUEST, "tools/list", 1, True)
    assert found == []


def test_a_request_with_a_string_id_keeps_the_string():
    info, found = classify({"jsonrpc": "2.0", "id": "abc-1", "method": "ping"})
    assert (info.kind, info.id) == (jsonrpc.REQUEST, "abc-1")
    assert found == []


def test_a_notification_has_a_method_and_no_id():
    info, found = classify({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert (info.kind, info.method, info.id, info.has_id) == (jsonrpc.NOTIFICATION, "notifications/initialized",
                                                              None, False)
    assert found == []


def test_a_response_has_a_result_and_an_id():
    info, found = classify({"jsonrpc": "2.0", "id": 1, "result": {}})
    assert (info.kind, info.method, info.id, info.has_id) == (jsonrpc.RESPONSE, None, 1, True)
    assert found == []


def test_an_error_response_has_an_error_object():
    info, found = classify({"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "Method not found"}})
    assert (info.kind, info.id) == (jsonrpc.ERROR, 4)
    assert found == []


def test_an_error_response_may_carry_data():
    _, found = classify({"jsonrpc": "2.0", "id": 4, "error": {"code": -32000, "message": "x", "data": [1]}})
    assert found == []


def test_a_batch_is_classified_with_its_size():
    info, found = classify([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ])
    assert (info.kind, info.size, info.method, info.id, info.has_id) == (jsonrpc.BATCH, 2, None, None, False)
    assert found == []


def test_an_object_with_neither_method_nor_result_is_invalid():
    info, found = classify({"jsonrpc": "2.0", "id": 1})
    assert info.kind == jsonrpc.INVALID
    assert (info.id, info.has_id) == (1, True)
    assert found == ["not-jsonrpc"]


def test_an_empty_object_is_invalid_and_lacks_jsonrpc():
    info, found = classify({})
    assert info.kind == jsonrpc.INVALID
    assert found == ["jsonrpc-missing", "not-jsonrpc"]


def test_a_method_that_is_not_a_string_makes_the_message_invalid():
    info, found = classify({"jsonrpc": "2.0", "id": 1, "method": 42})
    assert info.kind == jsonrpc.INVALID
    assert found == ["method-type"]


# -- findings ---------------------------------------------------------------------------------------------


def test_a_missing_jsonrpc_member_is_flagged():
    info, found = classify({"id": 1, "method": "ping"})
    assert info.kind == jsonrpc.REQUEST
    assert found == ["jsonrpc-missing"]


@pytest.mark.parametrize("version", ["1.0", "2", 2.0, None, ""])
def test_a_wrong_jsonrpc_version_is_flagged_and_quoted(version):
    _, findings = jsonrpc.classify({"jsonrpc": version, "id": 1, "method": "ping"})
    assert codes(findings) == ["jsonrpc-wrong"]
    assert repr(version) in findings[0].text


def test_a_null_id_on_a_response_is_flagged():
    info, found = classify({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
    assert (info.kind, info.id, info.has_id) == (jsonrpc.ERROR, None, True)
    assert found == ["id-null"]


def test_a_null_id_on_a_request_is_flagged():
    info, found = classify({"jsonrpc": "2.0", "id": None, "method": "ping"})
    assert (info.kind, info.has_id) == (jsonrpc.REQUEST, True)
    assert found == ["id-null"]


def test_result_and_error_both_present_is_flagged_and_counts_as_an_error():
    info, found = classify({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}})
    assert info.kind == jsonrpc.ERROR
    assert found == ["result-and-error"]


def test_a_response_without_an_id_is_flagged():
    info, found = classify({"jsonrpc": "2.0", "result": {}})
    assert (info.kind, info.has_id) == (jsonrpc.RESPONSE, False)
    assert found == ["response-without-id"]


def test_a_notification_method_with_an_id_is_a_request_nobody_will_answer():
    info, findings = jsonrpc.classify({"jsonrpc": "2.0", "id": 9, "method": "notifications/progress"})
    assert info.kind == jsonrpc.REQUEST
    assert codes(findings) == ["notification-with-id"]
    assert "notifications/progress" in findings[0].text
    assert "nobody will answer" in findings[0].text


@pytest.mark.parametrize("key", ["result", "error"])
def test_a_message_with_a_method_must_not_carry_result_or_error(key):
    info, found = classify({"jsonrpc": "2.0", "id": 1, "method": "ping", key: {}})
    assert info.kind == jsonrpc.REQUEST
    assert found == [f"method-and-{key}"]


@pytest.mark.parametrize(
    ("msg_id", "type_name"),
    [(True, "boolean"), (False, "boolean"), ({"n": 1}, "object"), ([1], "array")],
)
def test_an_id_of_the_wrong_type_is_flagged_with_its_type(msg_id, type_name):
    for message in ({"jsonrpc": "2.0", "id": msg_id, "method": "ping"}, {"jsonrpc": "2.0", "id": msg_id, "result": {}}):
        info, findings = jsonrpc.classify(message)
        assert codes(findings) == ["id-type"]
        assert f'"id" is a {type_name}' in findings[0].text
        assert info.id == msg_id


@pytest.mark.parametrize("msg_id", [0, -1, 2**53, "", "0"])
def test_string_and_integer_ids_are_fine(msg_id):
    _, found = classify({"jsonrpc": "2.0", "id": msg_id, "method": "ping"})
    assert found == []


def test_a_fractional_id_is_flagged():
    # JSON-RPC: "Numbers SHOULD NOT contain fractional parts"; every MCP schema.json: RequestId is
    # {"type": ["string", "integer"]}. classify() accepts any float.
    _, found = classify({"jsonrpc": "2.0", "id": 1.5, "method": "ping"})
    assert "id-type" in found


def test_an_empty_batch_is_flagged():
    info, found = classify([])
    assert (info.kind, info.size) == (jsonrpc.BATCH, 0)
    assert found == ["empty-batch"]


def test_batch_elements_that_are_not_objects_are_flagged_with_their_index():
    _, findings = jsonrpc.classify([{"jsonrpc": "2.0", "method": "a"}, 1, [2]])
    assert codes(findings) == ["batch-item", "batch-item"]
    assert findings[0].text == "batch element 1 is a number, not an object"
    assert findings[1].text.startswith("batch element 2 is a")  # ("a array": the article is not the point)
    assert findings[1].text.endswith("array, not an object")


def test_findings_inside_a_batch_keep_their_code_and_name_the_element():
    _, findings = jsonrpc.classify([{"jsonrpc": "2.0", "method": "a"}, {"id": 1, "method": "b"}])
    assert codes(findings) == ["jsonrpc-missing"]
    assert findings[0].text.startswith("batch element 1: ")


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        ("boom", ["error-shape"]),
        (None, ["error-shape"]),
        ([], ["error-shape"]),
        ({}, ["error-code", "error-message"]),
        ({"code": "x", "message": "m"}, ["error-code"]),
        ({"code": 1.5, "message": "m"}, ["error-code"]),
        ({"code": True, "message": "m"}, ["error-code"]),
        ({"code": -32603, "message": 5}, ["error-message"]),
        ({"code": -32603}, ["error-message"]),
    ],
)
def test_the_error_object_shape_is_checked(error, expected):
    info, found = classify({"jsonrpc": "2.0", "id": 1, "error": error})
    assert info.kind == jsonrpc.ERROR
    assert found == expected


def test_the_shape_error_names_the_json_type():
    _, findings = jsonrpc.classify({"jsonrpc": "2.0", "id": 1, "error": "boom"})
    assert findings[0].text == '"error" is a string, not an object'


@pytest.mark.parametrize(
    ("value", "name"),
    [(None, "null"), (True, "boolean"), (1, "number"), (1.5, "number"), ("s", "string"), ([], "array"),
     ({}, "object")],
)
def test_json_type_names_each_json_type(value, name):
    assert jsonrpc.json_type(value) == name


class _Plain(dict[str, Any]):
    """A dict the fast paths of classify do not take (they take exact dicts): the general path's verdict."""


FAST_PATH_CASES = [
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add"}},
    {"jsonrpc": "2.0", "id": "a", "method": "ping"},
    {"jsonrpc": "2.0", "id": 1, "method": "notifications/progress"},
    {"jsonrpc": "2.0", "id": True, "method": "ping"},
    {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
    {"jsonrpc": "2.0", "id": None, "method": "ping"},
    {"jsonrpc": "2.0", "id": [1], "method": "ping"},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "method": 3},
    {"jsonrpc": "2.0", "id": 7, "result": {"content": []}},
    {"jsonrpc": "2.0", "id": "7", "result": None},
    {"jsonrpc": "2.0", "id": None, "result": {}},
    {"jsonrpc": "2.0", "result": {}},
    {"jsonrpc": "2.0", "id": False, "result": {}},
    {"jsonrpc": "2.0", "id": 7, "result": {}, "error": {"code": 1, "message": "x"}},
    {"jsonrpc": "2.0", "id": 7, "result": {}, "method": "ping"},
    {"jsonrpc": "2.0", "id": 7, "error": {"code": 1, "message": "x"}},
    {"jsonrpc": "1.0", "id": 7, "result": {}},
    {"id": 7, "result": {}},
    {"jsonrpc": "2.0", "id": 7},
]


@pytest.mark.parametrize("obj", FAST_PATH_CASES)
def test_the_fast_paths_for_well_formed_messages_agree_with_the_general_path(obj):
    fast_info, fast_findings = jsonrpc.classify(obj)
    general_info, general_findings = jsonrpc.classify(_Plain(obj))
    assert fast_info == general_info
    assert fast_findings == general_findings
