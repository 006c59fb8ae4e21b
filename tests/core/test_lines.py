"""TextLineSplitter: byte-exact splitting of stderr into lines, with long lines cut into pieces."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.core.wire.lines import TextLineSplitter


def split(*chunks: bytes, max_line_bytes: int = 64 * 1024) -> list[tuple[bytes, bytes]]:
    splitter = TextLineSplitter(max_line_bytes)
    out: list[tuple[bytes, bytes]] = []
    for chunk in chunks:
        out.extend(splitter.feed(chunk))
    out.extend(splitter.close())
    return out


def joined(pairs: list[tuple[bytes, bytes]]) -> bytes:
    return b"".join(line + eol for line, eol in pairs)


def test_lines_are_split_on_lf_with_their_terminator():
    assert split(b"one\ntwo\n") == [(b"one", b"\n"), (b"two", b"\n")]


def test_a_crlf_line_keeps_crlf_as_its_terminator():
    assert split(b"Traceback (most recent call last):\r\n  File x\r\n") == [
        (b"Traceback (most recent call last):", b"\r\n"),
        (b"  File x", b"\r\n"),
    ]


def test_a_crlf_split_between_chunks_is_still_crlf():
    assert split(b"warn\r", b"\nnext\n") == [(b"warn", b"\r\n"), (b"next", b"\n")]


def test_a_lone_cr_inside_a_line_is_kept_as_text():
    assert split(b"50%\r100%\n") == [(b"50%\r100%", b"\n")]


def test_an_unterminated_last_line_comes_out_at_close_with_an_empty_terminator():
    splitter = TextLineSplitter()
    assert splitter.feed(b"done\nbye") == [(b"done", b"\n")]
    assert splitter.close() == [(b"bye", b"")]
    assert splitter.close() == []


def test_blank_lines_and_invalid_utf8_are_plain_bytes():
    assert split(b"\n\xff\xfe\n\n") == [(b"", b"\n"), (b"\xff\xfe", b"\n"), (b"", b"\n")]


def test_a_long_line_is_cut_into_pieces_of_max_line_bytes():
    assert split(b"abcdefghij\n", max_line_bytes=4) == [(b"abcd", b""), (b"efgh", b""), (b"ij", b"\n")]


def test_a_long_line_without_newline_is_delivered_in_pieces_before_it_ends():
    splitter = TextLineSplitter(4)
    assert splitter.feed(b"abcdefghij") == [(b"abcd", b""), (b"efgh", b"")]
    assert splitter.feed(b"k\n") == [(b"ijk", b"\n")]


def test_a_long_crlf_line_keeps_its_crlf_on_the_last_piece():
    assert split(b"abcdefg\r\n", max_line_bytes=4) == [(b"abcd", b""), (b"efg", b"\r\n")]


def test_a_line_of_exactly_max_line_bytes_in_one_chunk_is_not_cut():
    assert split(b"abcd\n", max_line_bytes=4) == [(b"abcd", b"\n")]


def test_a_line_of_exactly_max_line_bytes_is_not_cut_when_its_newline_arrives_in_the_next_chunk():
    # "A line longer than max_line_bytes is cut into pieces": this one is not longer, yet it becomes
    # (b"abcd", b"") followed by a spurious empty line (b"", b"\n").
    assert split(b"abcd", b"\n", max_line_bytes=4) == [(b"abcd", b"\n")]


def test_max_line_bytes_must_be_positive():
    with pytest.raises(ValueError):
        TextLineSplitter(0)


@st.composite
def chunked(draw: st.DrawFn, data_strategy: st.SearchStrategy[bytes]) -> tuple[bytes, list[bytes]]:
    data = draw(data_strategy)
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=10)))
    bounds = [0, *cuts, len(data)]
    return data, [data[a:b] for a, b in pairwise(bounds)]


stderr_bytes = st.lists(
    st.one_of(st.sampled_from([b"\n", b"\r\n", b"\r", b"\xff", b"log line", b"x" * 20]), st.binary(max_size=15)),
    max_size=30,
).map(b"".join)


@given(chunked(st.binary(max_size=300)), st.integers(1, 40))
def test_arbitrary_bytes_in_arbitrary_chunks_reassemble_exactly(case, limit):
    data, chunks = case
    assert joined(split(*chunks, max_line_bytes=limit)) == data


@given(chunked(stderr_bytes), st.integers(1, 40))
def test_every_piece_respects_the_limit_and_every_terminator_is_known(case, limit):
    data, chunks = case
    pairs = split(*chunks, max_line_bytes=limit)
    assert joined(pairs) == data
    for line, eol in pairs:
        assert len(line) <= limit
        assert eol in (b"\n", b"\r\n", b"")
        assert b"\n" not in line
    # only the last piece of the stream, or a cut piece (exactly the limit), may lack a terminator
    for line, eol in pairs[:-1]:
        assert eol != b"" or len(line) == limit


@given(chunked(stderr_bytes), st.integers(1, 40))
def test_chunking_never_changes_the_pieces(case, limit):
    data, chunks = case
    assert split(*chunks, max_line_bytes=limit) == split(data, max_line_bytes=limit)
