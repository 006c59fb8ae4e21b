"""Message diffs on plain values: what changed, appeared or disappeared, with ignored paths, and how it reads."""

from __future__ import annotations

from collections import Counter

from inspector.core.replay.diff import (
    ADDED,
    CHANGED,
    REMOVED,
    MessageDiff,
    WindowDelta,
    clip_pair,
    clip_value,
    compare_windows,
    diff_messages,
    diff_values,
    parse_paths,
    same_value,
)


def test_equal_values_have_no_differences():
    value = {"a": [1, {"b": None}], "c": "x"}
    assert diff_values(value, {"c": "x", "a": [1, {"b": None}]}) == []


def test_a_changed_leaf_is_reported_with_its_path_and_both_values():
    old = {"result": {"content": [{"type": "text", "text": "10:00"}]}}
    new = {"result": {"content": [{"type": "text", "text": "11:00"}]}}
    assert diff_values(old, new) == [MessageDiff("result.content[0].text", CHANGED, "10:00", "11:00",
                                                 ("result", "content", 0, "text"))]


def test_members_only_on_one_side_are_added_or_removed():
    diffs = diff_values({"a": 1, "gone": {"x": 1}}, {"a": 1, "new": True})
    assert [(d.path, d.kind, d.old, d.new) for d in diffs] == [("gone", REMOVED, {"x": 1}, None),
                                                               ("new", ADDED, None, True)]


def test_arrays_are_compared_by_index_and_extra_elements_are_added_or_removed():
    assert [(d.path, d.kind) for d in diff_values([1, 2, 3], [1, 5])] == [("[1]", CHANGED), ("[2]", REMOVED)]
    assert [(d.path, d.kind, d.new) for d in diff_values([1], [1, {"k": 2}])] == [("[1]", ADDED, {"k": 2})]


def test_a_change_of_type_is_one_change_at_that_place():
    assert [(d.path, d.old, d.new) for d in diff_values({"a": {"b": 1}}, {"a": [1]})] == [("a", {"b": 1}, [1])]


def test_numbers_compare_as_json_numbers_but_booleans_are_not_numbers():
    assert same_value(1, 1.0)
    assert not same_value(True, 1)
    assert not same_value(0, False)
    assert not same_value("1", 1)
    assert diff_values({"n": 2}, {"n": 2.0}) == []
    assert [d.kind for d in diff_values({"n": 1}, {"n": True})] == [CHANGED]


def test_ignored_paths_drop_differences_at_and_below_them():
    old = {"result": {"content": [{"type": "text", "text": "a"}], "structuredContent": {"t": 1}}}
    new = {"result": {"content": [{"type": "text", "text": "b"}], "structuredContent": {"t": 2, "u": 3}}}
    ignore = parse_paths(["$.result.content[*].text", "$.result.structuredContent"])
    assert diff_values(old, new, ignore) == []


def test_an_ignored_text_still_reports_a_content_block_that_appeared():
    old = {"result": {"content": [{"type": "text", "text": "a"}]}}
    new = {"result": {"content": [{"type": "text", "text": "b"}, {"type": "text", "text": "c"}]}}
    diffs = diff_values(old, new, parse_paths(["$.result.content[*].text"]))
    assert [(d.path, d.kind) for d in diffs] == [("result.content[1]", ADDED)]


def test_an_ignored_member_that_disappeared_is_not_reported():
    diffs = diff_values({"a": 1, "b": 2}, {"a": 1}, parse_paths(["$.b"]))
    assert diffs == []


def test_messages_are_compared_with_the_replayed_id_mapped_to_the_recorded_one():
    recorded = {"jsonrpc": "2.0", "id": 3, "result": {"x": 1}}
    replayed = {"jsonrpc": "2.0", "id": 7, "result": {"x": 2}}
    assert [(d.path, d.old, d.new) for d in diff_messages(recorded, replayed)] == [("result.x", 1, 2)]


def test_a_result_that_became_an_error_shows_both_sides():
    diffs = diff_messages({"id": 1, "result": {}}, {"id": 1, "error": {"code": -1, "message": "no"}})
    assert [d.describe() for d in diffs] == ["result: removed {}", 'error: added {"code":-1,"message":"no"}']


def test_a_difference_reads_as_one_line():
    assert MessageDiff("result.content[0].text", CHANGED, "10:00", "11:00").describe() == \
        'result.content[0].text: "10:00" -> "11:00"'
    assert MessageDiff("result.isError", ADDED, new=True).describe() == "result.isError: added true"
    assert MessageDiff("result.structuredContent", REMOVED, old={"sum": 3}).describe() == \
        'result.structuredContent: removed {"sum":3}'


def test_long_values_are_cut_and_control_characters_escaped():
    text = clip_value("x" * 500, width=20)
    assert len(text) == 20 and text.endswith("…")
    assert clip_value("a\x1b[31mb") == '"a\\u001b[31mb"'  # JSON escapes it before it reaches a terminal
    assert "\x1b" not in MessageDiff("k\x1bk", CHANGED, 1, 2).describe()


def test_two_long_strings_that_share_a_start_are_shown_from_where_they_part():
    old, new = clip_pair("A" * 200 + "old tail", "A" * 200 + "new tail", width=40)
    assert "old tail" in old and "new tail" in new
    assert old.startswith("…")


def test_equal_windows_have_no_deltas():
    window = Counter({"notifications/message": 2})
    assert compare_windows([window, Counter()], [Counter(window), Counter()]) == [[], []]


def test_missing_and_extra_server_messages_are_counted_per_window():
    recorded = [Counter({"notifications/progress": 5}), Counter()]
    replayed = [Counter({"notifications/progress": 3, "notifications/message": 1}), Counter()]
    assert compare_windows(recorded, replayed) == [[WindowDelta("notifications/message", "extra", 1),
                                                    WindowDelta("notifications/progress", "missing", 2)], []]


def test_a_message_that_moved_to_the_next_window_is_timing_not_a_difference():
    recorded = [Counter({"notifications/message": 1}), Counter(), Counter()]
    replayed = [Counter(), Counter({"notifications/message": 1}), Counter()]
    assert compare_windows(recorded, replayed) == [[], [], []]


def test_a_message_two_windows_away_is_a_difference():
    recorded = [Counter({"notifications/message": 1}), Counter(), Counter()]
    replayed = [Counter(), Counter(), Counter({"notifications/message": 1})]
    assert compare_windows(recorded, replayed) == [[WindowDelta("notifications/message", "missing", 1)], [],
                                                   [WindowDelta("notifications/message", "extra", 1)]]


def test_a_window_delta_reads_as_label_count_and_kind():
    assert WindowDelta("notifications/message", "extra", 1).describe() == "notifications/message: 1 extra"


def test_the_request_state_of_an_input_required_answer_is_mapped_like_an_id():
    recorded = {"id": 2, "result": {"resultType": "input_required", "requestState": "a1", "inputRequests": {}}}
    replayed = {"id": 2, "result": {"resultType": "input_required", "requestState": "b2", "inputRequests": {}}}
    assert diff_messages(recorded, replayed) == []
    finished = {"id": 2, "result": {"resultType": "complete", "requestState": "b2"}}
    assert [d.path for d in diff_messages(recorded, finished)] == ["result.resultType", "result.requestState",
                                                                   "result.inputRequests"]
