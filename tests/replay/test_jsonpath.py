"""The --ignore JSONPath subset: $, .name, ["name"], [N], [*] (and .*), ..name; anything else is refused with a
sentence."""

from __future__ import annotations

import pytest

from inspector.core.replay.diff import JsonPath, PathError, format_path, parse_paths


def matches(path: str, *segments: str | int) -> bool:
    return JsonPath.parse(path).matches(segments)


def test_dollar_alone_names_the_whole_message():
    assert matches("$")
    assert not matches("$", "result")


def test_dotted_names_follow_object_members():
    assert matches("$.result.content", "result", "content")
    assert not matches("$.result.content", "result")
    assert not matches("$.result.content", "result", "content", 0)


def test_quoted_names_hold_dots_slashes_and_escaped_quotes():
    assert matches('$.result._meta["io.modelcontextprotocol/serverInfo"]', "result", "_meta",
                   "io.modelcontextprotocol/serverInfo")
    assert matches("$['a b']", "a b")
    assert matches('$["say \\"hi\\""]', 'say "hi"')


def test_an_index_matches_that_array_element_only():
    assert matches("$.result.content[0].text", "result", "content", 0, "text")
    assert not matches("$.result.content[0].text", "result", "content", 1, "text")


def test_an_index_does_not_match_a_member_named_like_it():
    assert not matches("$.a[0]", "a", "0")
    assert not matches("$.a.b", "a", 0)


def test_a_star_matches_any_element_or_member():
    path = JsonPath.parse("$.result.content[*].text")
    assert path.matches(("result", "content", 0, "text"))
    assert path.matches(("result", "content", 7, "text"))
    assert path.matches(("result", "content", "x", "text"))
    assert matches("$.result.*", "result", "anything")


def test_double_dot_finds_a_name_at_any_depth():
    assert matches("$..timestamp", "timestamp")
    assert matches("$..timestamp", "result", "items", 3, "timestamp")
    assert matches("$.result..text", "result", "content", 0, "text")
    assert not matches("$.result..text", "error", "text")
    assert not matches("$..timestamp", "result", "timestamp", "x")


@pytest.mark.parametrize("text, words", [
    ("result.x", "must start with $"),
    ("$.", "needs a member name after '.'"),
    ("$..", "needs a member name after '..'"),
    ("$[", "without ']'"),
    ("$[-1]", "use [N] (N 0 or more), [*]"),
    ("$[abc]", "use [N]"),
    ('$["open', "unclosed"),
    ("$x", "where '.' or '[' was expected"),
])
def test_paths_outside_the_subset_are_refused_with_a_sentence(text, words):
    with pytest.raises(PathError) as caught:
        JsonPath.parse(text)
    assert words in str(caught.value)
    assert text in str(caught.value)


def test_parse_paths_parses_every_path_given():
    assert [p.text for p in parse_paths(["$.a", "$[*]"])] == ["$.a", "$[*]"]


def test_places_are_shown_as_people_read_them():
    assert format_path(()) == "$"
    assert format_path(("result", "content", 0, "text")) == "result.content[0].text"
    assert format_path(("result", "_meta", "io.modelcontextprotocol/serverInfo")) == \
        'result._meta["io.modelcontextprotocol/serverInfo"]'
    assert format_path((0, "a")) == "[0].a"
