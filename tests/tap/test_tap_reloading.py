"""How the tap cuts each direction into lines with ``--watch`` (inspector/core/tap/reloading.py): no process."""

from __future__ import annotations

from inspector.core.tap.reloading import Lines


def test_complete_lines_come_out_with_their_newlines_and_a_cut_line_waits_for_its_end():
    lines = Lines(limit=100)
    assert lines.feed(b'{"a":1}\n{"b"') == (b"", [b'{"a":1}\n'], b"")
    assert lines.feed(b':2}\r\n{"c":3}\n') == (b"", [b'{"b":2}\r\n', b'{"c":3}\n'], b"")
    assert lines.end() == b""


def test_what_is_left_without_a_newline_at_the_end_is_given_back():
    lines = Lines(limit=100)
    assert lines.feed(b'{"a":1}') == (b"", [], b"")
    assert lines.end() == b'{"a":1}'


def test_a_line_longer_than_the_limit_goes_on_as_it_comes_and_framing_resumes_after_its_newline():
    lines = Lines(limit=8)
    assert lines.feed(b"0123456789") == (b"", [], b"0123456789")
    assert lines.feed(b"abc") == (b"abc", [], b"")
    assert lines.feed(b'def\n{"a":1}\n{"b"') == (b"def\n", [b'{"a":1}\n'], b"")
    assert lines.feed(b":2}\n") == (b"", [b'{"b":2}\n'], b"")


def test_a_cut_line_that_grows_past_the_limit_over_several_chunks_goes_on_whole_and_then_passes_through():
    lines = Lines(limit=8)
    assert lines.feed(b'{"a":1}\n01234') == (b"", [b'{"a":1}\n'], b"")
    assert lines.feed(b"567") == (b"", [], b"")
    assert lines.feed(b"89") == (b"", [], b"0123456789")
    assert lines.feed(b"ab\n{}\n") == (b"ab\n", [b"{}\n"], b"")
    assert lines.end() == b""
