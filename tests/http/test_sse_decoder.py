"""``inspector.core.wire.sse.SSEDecoder``: the HTML standard's event-stream parsing, plus what a debugger keeps.

Spec: https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream. No network.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core.wire.sse import RawSSE, SSEDecoder

PROPERTY_SETTINGS = settings(max_examples=300, deadline=None, database=None,
                             suppress_health_check=[HealthCheck.too_slow])


#: A keep-alive comment, fed after a stream that ends in CR: a CR at the end of what has arrived may be the
#: first half of a CRLF, so the decoder only knows the line ended when the next byte comes.
NEXT_LINE = b": next\n"


def decode(*chunks: bytes) -> tuple[list[RawSSE], SSEDecoder]:
    decoder = SSEDecoder()
    events: list[RawSSE] = []
    for chunk in chunks:
        events += decoder.feed(chunk)
    return events, decoder


def summary(event: RawSSE) -> dict[str, Any]:
    sse = event.sse
    return {"event": sse.event, "data": sse.data, "id": sse.id, "retry": sse.retry, "has_data": event.has_data,
            "comments": event.comments, "crlf": event.crlf, "raw": event.raw}


# -- line endings ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"], ids=["LF", "CRLF", "CR"])
def test_lf_crlf_and_cr_line_ends_give_the_same_events(eol: bytes) -> None:
    stream = eol.join([b"event: greeting", b"data: hello", b"", b"data: world", b"", b""])
    events, _ = decode(stream, NEXT_LINE)
    assert [(e.sse.event, e.sse.data) for e in events] == [("greeting", "hello"), ("message", "world")]


@pytest.mark.parametrize(("eol", "crlf"), [(b"\n", False), (b"\r\n", True), (b"\r", False)], ids=["LF", "CRLF", "CR"])
def test_each_event_says_whether_its_lines_ended_in_crlf_and_keeps_its_exact_bytes(eol: bytes, crlf: bool) -> None:
    events, _ = decode(b"event: e" + eol + b"data: x" + eol + eol, NEXT_LINE)
    assert events[0].crlf is crlf
    assert events[0].raw == b"event: e" + eol + b"data: x" + eol  # terminators kept, blank dispatch line not


def test_a_crlf_split_between_two_chunks_is_one_line_end_not_a_blank_line() -> None:
    events, _ = decode(b"data: a\r", b"\ndata: b\r\n\r\n")
    assert [e.sse.data for e in events] == ["a\nb"]
    assert events[0].crlf is True


def test_a_cr_at_the_end_of_a_chunk_followed_by_another_line_is_a_line_end_of_its_own() -> None:
    events, _ = decode(b"data: a\r", b"data: b\r\r", NEXT_LINE)
    assert [e.sse.data for e in events] == ["a\nb"]


def test_an_event_ended_by_cr_cr_is_dispatched_without_waiting_for_more_bytes() -> None:
    decoder = SSEDecoder()
    events = decoder.feed(b"data: last\r\r")
    events += decoder.close()
    assert [e.sse.data for e in events] == ["last"]


def test_mixed_line_ends_in_one_stream_are_all_honoured() -> None:
    events, _ = decode(b"data: 1\r\ndata: 2\rdata: 3\n\r\n")
    assert [e.sse.data for e in events] == ["1\n2\n3"]


# -- fields ------------------------------------------------------------------------------------------------


def test_comment_lines_are_counted_before_the_event_they_precede_and_in_total() -> None:
    events, decoder = decode(b": keep-alive\n\n: ping\n: ping\ndata: x\n\n: trailing\n")
    assert [(e.sse.data, e.comments) for e in events] == [("x", 3)]
    assert decoder.total_comments == 4
    assert b"keep-alive" not in events[0].raw  # comments are not part of the event's bytes


def test_a_block_of_comments_alone_dispatches_nothing() -> None:
    events, decoder = decode(b":a\n:b\n\n")
    assert events == []
    assert decoder.total_comments == 2


def test_several_data_lines_are_joined_with_newlines() -> None:
    events, _ = decode(b"data: first\ndata: second\ndata:\ndata: fourth\n\n")
    assert events[0].sse.data == "first\nsecond\n\nfourth"


def test_only_one_space_after_the_colon_is_removed() -> None:
    events, _ = decode(b"data:no space\n\ndata:  two spaces\n\n")
    assert [e.sse.data for e in events] == ["no space", " two spaces"]


def test_a_field_name_without_a_colon_has_an_empty_value() -> None:
    events, _ = decode(b"data\ndata\n\n")
    assert events[0].sse.data == "\n"
    assert events[0].has_data is True


def test_unknown_fields_are_ignored_but_kept_in_the_raw_bytes() -> None:
    events, _ = decode(b"colour: blue\ndata: x\n\n")
    assert events[0].sse.data == "x"
    assert events[0].raw == b"colour: blue\ndata: x\n"


def test_an_event_without_an_event_field_is_a_message() -> None:
    events, _ = decode(b"data: {}\n\n")
    assert events[0].sse.event == "message"


def test_id_sets_the_last_event_id_which_persists_over_events_without_one() -> None:
    events, decoder = decode(b"id: 7\ndata: a\n\ndata: b\n\n")
    assert [e.sse.id for e in events] == ["7", ""]
    assert decoder.last_event_id == "7"


def test_an_empty_id_resets_the_last_event_id() -> None:
    _, decoder = decode(b"id: 7\ndata: a\n\nid\ndata: b\n\n")
    assert decoder.last_event_id == ""


def test_an_id_containing_nul_is_ignored() -> None:
    events, decoder = decode(b"id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n")
    assert events[1].sse.id == ""
    assert decoder.last_event_id == "1"


def test_retry_is_taken_only_when_it_is_all_digits() -> None:
    events, _ = decode(b"retry: 1500\ndata: a\n\nretry: 15s\ndata: b\n\nretry: -1\ndata: c\n\n")
    assert [e.sse.retry for e in events] == [1500, None, None]


@pytest.mark.parametrize("value", ["²", "١٢", "１０"], ids=["superscript-two", "arabic-indic-12", "fullwidth-10"])
def test_retry_with_non_ascii_digits_is_ignored_and_does_not_break_the_stream(value: str) -> None:
    events, _ = decode(f"retry: {value}\ndata: a\n\n".encode())
    assert [(e.sse.data, e.sse.retry) for e in events] == [("a", None)]


def test_a_priming_event_has_an_id_and_empty_data() -> None:
    events, decoder = decode(b"id: prime-1\ndata:\n\n")
    assert [summary(e) | {"raw": None} for e in events] == [
        {"event": "message", "data": "", "id": "prime-1", "retry": None, "has_data": True, "comments": 0,
         "crlf": False, "raw": None}]
    assert decoder.last_event_id == "prime-1"


def test_an_event_with_an_id_and_no_data_line_is_dispatched_and_says_it_has_no_data() -> None:
    events, _ = decode(b"id: 9\nretry: 100\n\n")
    assert [(e.sse.id, e.sse.retry, e.has_data, e.sse.data) for e in events] == [("9", 100, False, "")]


# -- byte order mark and end of stream -------------------------------------------------------------------


def test_a_leading_utf8_bom_is_dropped_even_when_split_over_chunks() -> None:
    events, _ = decode(b"\xef", b"\xbb", b"\xbfdata: x\n\n")
    assert [e.sse.data for e in events] == ["x"]
    assert events[0].raw == b"data: x\n"


def test_a_bom_that_is_not_at_the_start_of_the_stream_is_kept_whatever_the_chunking() -> None:
    stream = b"a\n\xef\xbb\xbfdata: x\n\n"
    whole, _ = decode(stream)
    chunked, _ = decode(stream[:2], stream[2:])
    assert [summary(e) for e in chunked] == [summary(e) for e in whole]


def test_a_last_event_without_its_blank_line_is_not_dispatched_and_close_counts_its_bytes() -> None:
    events, decoder = decode(b"data: done\n\ndata: cut sh")
    assert [e.sse.data for e in events] == ["done"]
    assert decoder.close() == []
    assert decoder.incomplete_bytes == len(b"data: cut sh")


def test_a_complete_line_of_an_event_cut_before_its_blank_line_counts_as_incomplete() -> None:
    _, decoder = decode(b"event: x\ndata: half\n")
    decoder.close()
    assert decoder.incomplete_bytes == len(b"event: x\ndata: half\n")


def test_non_utf8_bytes_in_data_are_replaced_not_fatal() -> None:
    events, _ = decode(b"data: \xff\xfe ok\n\n")
    assert events[0].sse.data == "\ufffd\ufffd ok"
    assert events[0].raw == b"data: \xff\xfe ok\n"


# -- any chunking gives the same events ------------------------------------------------------------------

FIELD_TEXT = st.text(alphabet=st.characters(blacklist_characters="\r\n\x00", blacklist_categories=("Cs",)), max_size=12)


@st.composite
def event_streams(draw: st.DrawFn) -> bytes:
    """A stream of a few events built from every kind of line, each line with its own terminator."""
    lines: list[bytes] = []
    for _ in range(draw(st.integers(0, 5))):
        for _ in range(draw(st.integers(1, 5))):
            kind = draw(st.sampled_from(["data", "event", "id", "retry", "comment", "unknown", "bare-data"]))
            if kind == "comment":
                line = ":" + draw(FIELD_TEXT)
            elif kind == "retry":
                line = "retry: " + str(draw(st.integers(0, 10**6)))
            elif kind == "bare-data":
                line = "data"
            elif kind == "unknown":
                line = "x-field: " + draw(FIELD_TEXT)
            else:
                line = kind + draw(st.sampled_from([":", ": "])) + draw(FIELD_TEXT)
            lines.append(line.encode("utf-8") + draw(st.sampled_from([b"\n", b"\r\n", b"\r"])))
        lines.append(draw(st.sampled_from([b"\n", b"\r\n", b"\r"])))
    if draw(st.booleans()):
        lines.insert(0, b"\xef\xbb\xbf")
    return b"".join(lines)


@PROPERTY_SETTINGS
@given(stream=event_streams(), data=st.data())
def test_any_chunking_of_a_stream_gives_the_same_events_comments_and_last_id(stream: bytes, data: st.DataObject
                                                                             ) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=12), label="cuts"))
    chunks = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
    whole, whole_decoder = decode(stream)
    pieces, pieces_decoder = decode(*chunks)
    # a CR at the very end is held back as the possible first half of a CRLF; end both streams the same way
    whole += whole_decoder.feed(b"\n")
    pieces += pieces_decoder.feed(b"\n")
    assert [summary(e) for e in pieces] == [summary(e) for e in whole]
    assert pieces_decoder.total_comments == whole_decoder.total_comments
    assert pieces_decoder.last_event_id == whole_decoder.last_event_id


@PROPERTY_SETTINGS
@given(stream=event_streams())
def test_one_byte_at_a_time_gives_the_same_events_as_the_whole_stream(stream: bytes) -> None:
    whole, _ = decode(stream + b"\n")
    single, _ = decode(*[stream[i:i + 1] for i in range(len(stream))], b"\n")
    assert [summary(e) for e in single] == [summary(e) for e in whole]


@PROPERTY_SETTINGS
@given(payloads=st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30), max_size=6),
       eol=st.sampled_from([b"\n", b"\r\n", b"\r"]))
def test_data_split_on_any_line_end_comes_back_joined_with_newlines(payloads: list[str], eol: bytes) -> None:
    """What a server writes as ``data:`` lines (its text split at every line end) decodes to the text with
    each line end normalised to ``\\n``."""
    stream = b""
    expected = []
    for text in payloads:
        parts = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        stream += b"".join(b"data: " + p.encode("utf-8") + eol for p in parts) + eol
        expected.append("\n".join(parts))
    events, _ = decode(stream + b"\n")
    assert [e.sse.data for e in events] == expected
