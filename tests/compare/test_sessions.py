"""What a capture says about its server (inspector.core.compare.sessions): the last complete listing of each
kind, every page of it; the server's name from initialize; the exchanges with their answers."""

from __future__ import annotations

from pathlib import Path

import pytest
from compare_support import write_capture

from inspector.core.compare.sessions import CompareError, read_server


def tool(name: str) -> dict[str, object]:
    return {"name": name, "inputSchema": {"type": "object"}}


def test_a_paged_listing_is_the_interface_once_its_last_page_came(tmp_path: Path) -> None:
    capture = write_capture(tmp_path / "c.jsonl", [
        ({"method": "tools/list"}, {"result": {"tools": [tool("a")], "nextCursor": "2"}}, 0.01),
        ({"method": "tools/list", "params": {"cursor": "2"}}, {"result": {"tools": [tool("b")]}}, 0.01),
    ], server="paged", version="3")
    record = read_server(capture)
    assert sorted(record.interface["tools"]) == ["a", "b"]
    assert (record.name, record.version, record.protocol_version) == ("paged", "3", "2025-11-25")
    assert record.exchanges == []  # lists are the interface, not behaviour


def test_a_listing_cut_short_leaves_the_kind_unknown(tmp_path: Path) -> None:
    capture = write_capture(tmp_path / "c.jsonl", [
        ({"method": "tools/list"}, {"result": {"tools": [tool("a")], "nextCursor": "2"}}, 0.01),
    ])
    assert "tools" not in read_server(capture).interface


def test_a_later_complete_listing_replaces_an_earlier_one(tmp_path: Path) -> None:
    capture = write_capture(tmp_path / "c.jsonl", [
        ({"method": "tools/list"}, {"result": {"tools": [tool("a"), tool("b")]}}, 0.01),
        ({"method": "tools/list"}, {"result": {"tools": [tool("b")]}}, 0.01),  # after a list_changed
    ])
    assert list(read_server(capture).interface["tools"]) == ["b"]


def test_exchanges_keep_the_answer_its_latency_and_the_unanswered(tmp_path: Path) -> None:
    capture = write_capture(tmp_path / "c.jsonl", [
        ({"method": "tools/call", "params": {"name": "x", "arguments": {}}}, {"result": {"content": []}}, 0.25),
        ({"method": "ping"}, None, 0.0),
    ])
    calls = read_server(capture).exchanges
    assert [(c.label(), c.status, c.latency) for c in calls] == [("tools/call x", "result", 0.25),
                                                                ("ping", "no answer", None)]


def test_a_file_that_is_no_capture_is_one_sentence(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_text("hello\n")
    with pytest.raises(CompareError) as caught:
        read_server(junk)
    assert "\n" not in str(caught.value)
