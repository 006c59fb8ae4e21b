"""A listing read back from recorded answers: every page joined, a new listing starting over."""

from __future__ import annotations

from inspector.core.explore.listing import listed_in


def tool(name: str) -> dict[str, object]:
    return {"name": name, "inputSchema": {"type": "object"}}


def test_the_pages_of_a_listing_are_joined_not_the_last_page_kept() -> None:
    answers = [("tools/list", {"tools": [tool("a"), tool("b")], "nextCursor": "2"}),
               ("tools/list", {"tools": [tool("c")], "nextCursor": "3"}),
               ("tools/list", {"tools": [tool("d")]})]
    assert [t["name"] for t in listed_in(answers)["tools"]] == ["a", "b", "c", "d"]


def test_a_listing_after_a_last_page_starts_over_and_kinds_stay_apart() -> None:
    answers = [("tools/list", {"tools": [tool("old")]}),
               ("prompts/list", {"prompts": [{"name": "p"}], "nextCursor": "x"}),
               ("tools/list", {"tools": [tool("new")]}),
               ("resources/templates/list", {"resourceTemplates": [{"uriTemplate": "file:///{x}"}]})]
    found = listed_in(answers)
    assert [t["name"] for t in found["tools"]] == ["new"]
    assert found["prompts"] == [{"name": "p"}] and found["templates"] == [{"uriTemplate": "file:///{x}"}]
    assert "resources" not in found


def test_answers_that_list_nothing_readable_are_passed_over() -> None:
    answers = [("tools/list", None), ("tools/list", {"tools": "many"}), ("ping", {}),
               ("tools/list", {"tools": [tool("a"), "junk"]})]
    assert listed_in(answers) == {"tools": [tool("a")]}
