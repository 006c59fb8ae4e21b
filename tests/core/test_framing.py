"""LineDecoder: every way a stdio stream can break the one-message-per-line framing, and the byte-exact contract.

The contract (inspector/core/wire/framing.py): for lines under ``max_line_bytes``, ``raw + eol`` of every event
from all ``feed`` calls plus ``close``, in order, reproduces the input exactly, however it was chunked; a line
over the limit becomes one framing error keeping its byte count, head and tail; and the decoder never raises
on any input (a server can write anything to stdout).
"""

from __future__ import annotations

import json
import time
from itertools import pairwise
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.core.wire import framing
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import BOM, OVERSIZE_KEEP_BYTES, LineDecoder

REQUEST = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'
RESPONSE = b'{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}'
NOTIFICATION = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


def decode(*chunks: bytes, max_line_bytes: int = framing.DEFAULT_MAX_LINE_BYTES,
           direction: str = Direction.S2C) -> list[Event]:
    """Feed the chunks in order, then close; every event, in order."""
    decoder = LineDecoder(direction, max_line_bytes=max_line_bytes)
    events: list[Event] = []
    for chunk in chunks:
        events.extend(decoder.feed(chunk))
    events.extend(decoder.close())
    return events


def decode_one(*chunks: bytes, **kwargs: int) -> Event:
    events = decode(*chunks, **kwargs)
    assert len(events) == 1, [(e.kind, e.raw, e.reason) for e in events]
    return events[0]


def reassemble(events: list[Event]) -> bytes:
    return b"".join(e.raw + e.eol for e in events)


# -- well-formed messages ---------------------------------------------------------------------------------


def test_a_valid_request_line_becomes_one_message_event_with_its_summary():
    event = decode_one(REQUEST + b"\n")
    assert event.kind == Kind.MESSAGE
    assert event.raw == REQUEST
    assert event.eol == b"\n"
    assert event.dir == Direction.S2C
    assert event.reason is None
    assert list(event.findings) == []
    assert event.rpc is not None
    assert (event.rpc.kind, event.rpc.method, event.rpc.id, event.rpc.has_id) == ("request", "tools/list", 1, True)


def test_each_line_of_a_stream_becomes_its_own_message_in_order():
    events = decode(REQUEST + b"\n" + NOTIFICATION + b"\n" + RESPONSE + b"\n")
    assert [e.kind for e in events] == [Kind.MESSAGE] * 3
    assert [e.rpc.kind for e in events if e.rpc] == ["request", "notification", "response"]
    assert [e.raw for e in events] == [REQUEST, NOTIFICATION, RESPONSE]


def test_a_message_split_across_many_chunks_is_decoded_once_the_newline_arrives():
    decoder = LineDecoder()
    data = RESPONSE + b"\n"
    for byte in data[:-1]:
        assert decoder.feed(bytes([byte])) == []
    [event] = decoder.feed(b"\n")
    assert event.kind == Kind.MESSAGE
    assert event.raw == RESPONSE
    assert decoder.close() == []


def test_the_decoder_direction_is_set_on_every_event():
    events = decode(REQUEST + b"\nnot json\n", direction=Direction.C2S)
    assert [e.dir for e in events] == [Direction.C2S, Direction.C2S]


def test_non_ascii_text_in_a_message_is_kept_byte_for_byte():
    line = '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"héllo ✓ 日本"}}'.encode()
    event = decode_one(line + b"\n")
    assert event.kind == Kind.MESSAGE
    assert event.raw == line


def test_a_line_separator_u2028_inside_a_string_parses_as_one_message():
    line = '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"a\u2028b\u2029c"}}'.encode()
    assert b"\xe2\x80\xa8" in line and b"\xe2\x80\xa9" in line
    event = decode_one(line + b"\n")
    assert event.kind == Kind.MESSAGE
    assert event.raw == line
    assert event.json()["params"]["data"] == "a\u2028b\u2029c"


def test_a_crlf_line_parses_but_carries_a_warning():
    event = decode_one(NOTIFICATION + b"\r\n")
    assert event.kind == Kind.MESSAGE
    assert event.raw == NOTIFICATION
    assert event.eol == b"\r\n"
    [finding] = event.findings
    assert finding.code == "crlf"
    assert finding.severity == "warning"
    assert "CR LF" in finding.text


def test_a_crlf_split_between_two_chunks_is_still_one_crlf_line():
    events = decode(NOTIFICATION + b"\r", b"\n" + REQUEST + b"\n")
    assert [(e.kind, e.raw, e.eol) for e in events] == [
        (Kind.MESSAGE, NOTIFICATION, b"\r\n"),
        (Kind.MESSAGE, REQUEST, b"\n"),
    ]


def test_max_line_bytes_must_be_positive():
    with pytest.raises(ValueError, match="positive"):
        LineDecoder(max_line_bytes=0)


# -- lines that are not messages --------------------------------------------------------------------------


def test_a_plain_text_banner_is_a_framing_error_that_calls_it_plain_text():
    event = decode_one(b"Weather MCP server running on stdio\n")
    assert event.kind == Kind.FRAMING_ERROR
    assert event.raw == b"Weather MCP server running on stdio"
    assert event.eol == b"\n"
    assert event.rpc is None
    assert "plain text, not JSON" in (event.reason or "")
    assert "stderr" in (event.reason or "")


def test_a_windows_cmd_banner_is_plain_text():
    event = decode_one(b"Microsoft Windows [Version 10.0.19045.3570]\r\n")
    assert event.kind == Kind.FRAMING_ERROR
    assert "plain text" in (event.reason or "")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b'{"jsonrpc" "2.0"}', "not JSON: Expecting ':' delimiter at column 12"),
        (b"[1,,2]", "not JSON: Expecting value at column 4"),
        (b"nope", "not JSON: Expecting value at column 1"),
    ],
)
def test_json_ish_garbage_names_the_parser_error_and_its_column(line, expected):
    event = decode_one(line + b"\n")
    assert event.kind == Kind.FRAMING_ERROR
    assert event.reason == expected
    assert event.raw == line


def test_a_blank_line_is_a_framing_error():
    events = decode(REQUEST + b"\n\n" + RESPONSE + b"\n")
    assert [e.kind for e in events] == [Kind.MESSAGE, Kind.FRAMING_ERROR, Kind.MESSAGE]
    blank = events[1]
    assert blank.raw == b""
    assert blank.eol == b"\n"
    assert "blank line" in (blank.reason or "")


def test_a_blank_crlf_line_is_a_blank_line():
    event = decode_one(b"\r\n")
    assert event.kind == Kind.FRAMING_ERROR
    assert (event.raw, event.eol) == (b"", b"\r\n")
    assert "blank line" in (event.reason or "")


def test_a_whitespace_only_line_is_a_framing_error():
    event = decode_one(b"  \t  \n")
    assert event.kind == Kind.FRAMING_ERROR
    assert event.raw == b"  \t  "
    assert "only whitespace" in (event.reason or "")


def test_a_utf8_bom_before_a_message_is_a_framing_error_keeping_the_bom():
    event = decode_one(BOM + REQUEST + b"\n")
    assert event.kind == Kind.FRAMING_ERROR
    assert event.raw == BOM + REQUEST
    assert event.rpc is None
    assert "byte order mark" in (event.reason or "")
    assert "EF BB BF" in (event.reason or "")


@pytest.mark.parametrize(
    ("line", "byte", "offset"),
    [
        (b'{"jsonrpc":"2.0","method":"x\xff"}', "FF", 28),
        (b'{"a":"\xe2\x82"}', "E2 82", 6),  # a truncated 3-byte sequence
        (b'{"a":"\xed\xa0\x80"}', "ED", 6),  # an encoded surrogate, which UTF-8 forbids
        (b"\xc3(", "C3", 0),
    ],
)
def test_invalid_utf8_names_the_byte_and_its_offset(line, byte, offset):
    event = decode_one(line + b"\n")
    assert event.kind == Kind.FRAMING_ERROR
    assert event.raw == line
    assert f"not valid UTF-8: byte {byte} at offset {offset}" in (event.reason or "")


@pytest.mark.parametrize(
    ("line", "json_type"),
    [(b"42", "a number"), (b"-1.5e3", "a number"), (b'"hello"', "a string"), (b"null", "a null"),
     (b"true", "a boolean")],
)
def test_json_that_is_not_an_object_or_array_is_a_framing_error(line, json_type):
    event = decode_one(line + b"\n")
    assert event.kind == Kind.FRAMING_ERROR
    assert event.rpc is None
    assert f"valid JSON, but {json_type} rather than a JSON-RPC object or batch array" == event.reason


def test_two_objects_on_one_line_are_reported_with_the_column_of_the_second():
    line = NOTIFICATION + REQUEST
    event = decode_one(line + b"\n")
    assert event.kind == Kind.FRAMING_ERROR
    assert event.raw == line
    assert f"two JSON values on one line (the second starts at column {len(NOTIFICATION) + 1})" in (event.reason or "")


def test_two_objects_separated_by_a_space_point_at_the_second_one():
    event = decode_one(b'{"a":1} {"b":2}\n')
    assert "two JSON values on one line (the second starts at column 9)" in (event.reason or "")


def test_valid_json_followed_by_text_is_extra_text_not_two_values():
    event = decode_one(b'{"a":1} trailing\n')
    assert event.kind == Kind.FRAMING_ERROR
    assert event.reason == "starts with valid JSON but has extra text from column 9"


# -- pretty-printed JSON ----------------------------------------------------------------------------------


def test_pretty_printed_json_is_one_framing_error_whose_raw_holds_every_line():
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "echo", "arguments": {}}}
    pretty = json.dumps(message, indent=2).encode()
    lines = pretty.count(b"\n") + 1
    event = decode_one(pretty + b"\n")
    assert event.kind == Kind.FRAMING_ERROR
    assert event.raw == pretty
    assert event.eol == b"\n"
    assert f"one JSON object pretty-printed over {lines} lines" in (event.reason or "")
    assert "single line" in (event.reason or "")
    assert event.rpc is not None
    assert (event.rpc.kind, event.rpc.method, event.rpc.id) == ("request", "tools/call", 7)


def test_pretty_printed_json_with_crlf_keeps_every_byte():
    pretty = json.dumps({"jsonrpc": "2.0", "method": "x"}, indent=1).replace("\n", "\r\n").encode()
    event = decode_one(pretty + b"\r\n")
    assert event.kind == Kind.FRAMING_ERROR
    assert event.raw + event.eol == pretty + b"\r\n"
    assert "pretty-printed over 4 lines" in (event.reason or "")


def test_a_message_after_a_pretty_printed_one_is_parsed_normally():
    pretty = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {}}, indent=2).encode()
    events = decode(pretty + b"\n" + REQUEST + b"\n")
    assert [e.kind for e in events] == [Kind.FRAMING_ERROR, Kind.MESSAGE]
    assert events[0].raw == pretty
    assert events[1].raw == REQUEST


def test_a_pretty_print_candidate_that_turns_out_invalid_is_reported_line_by_line():
    first = b'{"jsonrpc":"2.0","id":1,'  # looks like the start of a pretty-printed object...
    events = decode(first + b"\n" + RESPONSE + b"\n")  # ...but the next line is a message of its own
    assert [(e.kind, e.raw) for e in events] == [(Kind.FRAMING_ERROR, first), (Kind.MESSAGE, RESPONSE)]
    assert "incomplete JSON" in (events[0].reason or "")
    assert "incomplete_json" not in events[0].data  # an internal marker, never shown


def test_an_open_brace_then_a_log_line_then_a_message_are_three_events():
    events = decode(b"{\n", b"starting up...\n", REQUEST + b"\n")
    assert [(e.kind, e.raw) for e in events] == [
        (Kind.FRAMING_ERROR, b"{"),
        (Kind.FRAMING_ERROR, b"starting up..."),
        (Kind.MESSAGE, REQUEST),
    ]
    assert "incomplete JSON" in (events[0].reason or "")
    assert "plain text" in (events[1].reason or "")


def test_a_pretty_print_candidate_cut_by_the_end_of_the_stream_is_reported_line_by_line():
    events = decode(b'{\n  "jsonrpc": "2.0",\n')
    assert [(e.kind, e.raw, e.eol) for e in events] == [
        (Kind.FRAMING_ERROR, b"{", b"\n"),
        (Kind.FRAMING_ERROR, b'  "jsonrpc": "2.0",', b"\n"),
    ]
    assert all("incomplete_json" not in e.data for e in events)


def test_an_incomplete_array_that_swallows_messages_still_releases_them():
    # "[1," keeps gathering while following lines could continue the array; once they cannot, every
    # gathered line is reported on its own, and the messages among them are messages.
    events = decode(b"[1,\n" + REQUEST + b"\n" + RESPONSE + b"\n")
    assert [(e.kind, e.raw) for e in events] == [
        (Kind.FRAMING_ERROR, b"[1,"),
        (Kind.MESSAGE, REQUEST),
        (Kind.MESSAGE, RESPONSE),
    ]


# -- the end of the stream --------------------------------------------------------------------------------


def test_an_unterminated_final_line_holding_complete_json_is_reported_at_close():
    decoder = LineDecoder()
    assert decoder.feed(RESPONSE) == []
    [event] = decoder.close()
    assert event.kind == Kind.FRAMING_ERROR
    assert event.raw == RESPONSE
    assert event.eol == b""
    assert f"the last {len(RESPONSE)} bytes have no newline" in (event.reason or "")
    assert "complete JSON message otherwise" in (event.reason or "")


def test_an_unterminated_final_line_of_text_says_both_problems():
    events = decode(REQUEST + b"\n", b"goodbye")
    assert [e.kind for e in events] == [Kind.MESSAGE, Kind.FRAMING_ERROR]
    last = events[1]
    assert (last.raw, last.eol) == (b"goodbye", b"")
    assert "ended in the middle of a line" in (last.reason or "")
    assert "plain text" in (last.reason or "")


def test_an_unterminated_incomplete_object_is_not_left_gathering():
    event = decode_one(b'{"jsonrpc":"2.0",')
    assert event.kind == Kind.FRAMING_ERROR
    assert event.eol == b""
    assert "ended in the middle of a line" in (event.reason or "")
    assert "incomplete_json" not in event.data


@pytest.mark.parametrize(("cut_by", "how"), [("SIGTERM", "ended it with SIGTERM"),
                                              (framing.READING_STOPPED, "stopped reading")])
def test_a_last_line_cut_by_our_own_stop_keeps_its_bytes_and_is_not_the_servers_framing_error(cut_by, how):
    decoder = LineDecoder()
    whole = decoder.feed(REQUEST + b"\n" + b'{"jsonrpc":"2.0","method":"notifi')
    [cut] = decoder.close(cut_by_stop=cut_by)
    assert b"".join(e.raw + e.eol for e in [*whole, cut]) == REQUEST + b"\n" + b'{"jsonrpc":"2.0","method":"notifi'
    assert cut.kind == Kind.FRAMING_ERROR and cut.eol == b"" and cut.data == {framing.CUT_BY_STOP: cut_by}
    assert cut.reason == (f"mcp-inspector's own stop cut this line short: the server was still writing when "
                          f"mcp-inspector {how}, so its last 33 bytes have no newline; they are kept as they came, "
                          "and the cut is not the server's violation")
    assert framing.cut_by_stop(cut) and not framing.server_broke_framing(cut)


def test_without_our_stop_an_unterminated_last_line_stays_the_servers_framing_error():
    decoder = LineDecoder()
    decoder.feed(b'{"jsonrpc":"2.0","method":"notifi')
    [event] = decoder.close()
    assert framing.server_broke_framing(event) and not framing.cut_by_stop(event)
    assert framing.CUT_BY_STOP not in event.data


def test_a_stop_that_cuts_nothing_adds_nothing():
    decoder = LineDecoder()
    decoder.feed(REQUEST + b"\n")
    assert decoder.close(cut_by_stop="SIGTERM") == []


def test_closing_an_empty_stream_yields_nothing():
    assert decode() == []
    assert decode(b"", b"") == []


def test_close_is_idempotent_and_feed_after_close_is_refused():
    decoder = LineDecoder()
    decoder.feed(b"tail")
    assert len(decoder.close()) == 1
    assert decoder.close() == []
    with pytest.raises(RuntimeError):
        decoder.feed(b"more")


# -- oversized lines --------------------------------------------------------------------------------------

KEEP = OVERSIZE_KEEP_BYTES
HEAD = b"H" * KEEP
TAIL = b"T" * KEEP
HUGE = HEAD + b"M" * 5000 + TAIL  # longer than head + tail, so the middle is dropped


def _assert_oversize(event: Event, total: int, head: bytes, tail: bytes, eol: bytes) -> None:
    assert event.kind == Kind.FRAMING_ERROR
    assert event.raw == head
    assert event.eol == eol
    assert event.data["oversize"] == {"total_bytes": total, "tail": tail}
    assert f"a line of {total:,} bytes is over the size limit" in (event.reason or "")


def test_a_line_over_the_limit_keeps_its_byte_count_head_and_tail():
    events = decode(HUGE + b"\n" + REQUEST + b"\n", max_line_bytes=1000)
    assert len(events) == 2
    _assert_oversize(events[0], len(HUGE), HEAD, TAIL, b"\n")
    assert events[1].kind == Kind.MESSAGE
    assert events[1].raw == REQUEST


def test_a_line_over_the_limit_arriving_in_many_chunks_gives_the_same_event():
    data = HUGE + b"\n" + REQUEST + b"\n"
    chunks = [data[i : i + 997] for i in range(0, len(data), 997)]
    events = decode(*chunks, max_line_bytes=1000)
    assert events == decode(data, max_line_bytes=1000)
    _assert_oversize(events[0], len(HUGE), HEAD, TAIL, b"\n")
    assert events[1].raw == REQUEST


def test_a_line_over_the_limit_at_the_end_of_the_stream_is_reported_at_close():
    decoder = LineDecoder(max_line_bytes=1000)
    out = decoder.feed(REQUEST + b"\n")
    for i in range(0, len(HUGE), 4096):
        out += decoder.feed(HUGE[i : i + 4096])
    assert [e.raw for e in out] == [REQUEST]
    [event] = decoder.close()
    _assert_oversize(event, len(HUGE), HEAD, TAIL, b"")


def test_a_short_oversized_line_is_kept_whole_in_head_and_tail():
    line = b"x" * 100
    events = decode(line + b"\r\n" + NOTIFICATION + b"\n", max_line_bytes=len(NOTIFICATION))
    # the CR belongs to the oversized line: it is counted and kept in the tail
    _assert_oversize(events[0], 101, line + b"\r", line + b"\r", b"\n")
    assert events[1].kind == Kind.MESSAGE


def test_a_line_of_exactly_max_line_bytes_is_decoded_normally():
    events = decode(REQUEST + b"\n", max_line_bytes=len(REQUEST))
    assert [e.kind for e in events] == [Kind.MESSAGE]
    events = decode(REQUEST[:40], REQUEST[40:] + b"\n", max_line_bytes=len(REQUEST))
    assert [e.kind for e in events] == [Kind.MESSAGE]


def test_an_oversized_line_after_gathered_pretty_lines_keeps_stream_order():
    events = decode(b"{\n" + b"y" * 100 + b"\n", max_line_bytes=20)
    assert [e.raw[:1] for e in events] == [b"{", b"y"]
    assert "oversize" in events[1].data


# -- bugs: inputs that make the decoder raise, or pass broken JSON as a message ---------------------------


def test_two_values_on_one_line_where_the_second_is_deeply_nested_does_not_raise():
    line = b"{}" + b"[" * 100_000
    event = decode_one(line + b"\n")
    assert event.kind == Kind.FRAMING_ERROR
    assert event.raw == line


def test_a_deeply_nested_line_after_an_open_bracket_does_not_raise():
    deep = b"[" * 100_000
    events = decode(b"[\n" + deep + b"\n" + REQUEST + b"\n")
    assert reassemble(events) == b"[\n" + deep + b"\n" + REQUEST + b"\n"
    assert events[-1].kind == Kind.MESSAGE


def test_a_deeply_nested_line_on_its_own_is_a_framing_error():
    event = decode_one(b"[" * 100_000 + b"\n")
    assert event.kind == Kind.FRAMING_ERROR
    assert "nested too deeply" in (event.reason or "")


@pytest.mark.parametrize("literal", [b"NaN", b"Infinity", b"-Infinity"])
def test_a_nan_or_infinity_literal_is_not_passed_as_valid_json(literal):
    # Python's json.dumps writes these for float('nan') / float('inf'); JSON.parse in a TypeScript client
    # rejects the whole line, so the inspector must not show it as a well-formed message.
    line = b'{"jsonrpc":"2.0","id":1,"result":{"value":' + literal + b"}}"
    event = decode_one(line + b"\n")
    assert event.kind == Kind.FRAMING_ERROR or event.findings, "NaN/Infinity passed as a clean message"


def test_a_large_pretty_printed_response_is_gathered_in_linear_time():
    message = {"jsonrpc": "2.0", "id": 1, "result": {"items": [{"name": f"t{i}"} for i in range(2000)]}}
    pretty = json.dumps(message, indent=2).encode()
    started = time.perf_counter()
    event = decode_one(pretty + b"\n")
    elapsed = time.perf_counter() - started
    assert event.raw == pretty
    # parsing 79 KiB once takes milliseconds; one second leaves a 100x margin for a slow machine
    assert elapsed < 1.0, f"{elapsed:.2f} s to decode {len(pretty):,} bytes: the event loop is blocked that long"


# -- properties -------------------------------------------------------------------------------------------


@st.composite
def chunked(draw: st.DrawFn, data_strategy: st.SearchStrategy[bytes]) -> tuple[bytes, list[bytes]]:
    """Some bytes and an arbitrary split of them into chunks (empty chunks included)."""
    data = draw(data_strategy)
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=10)))
    bounds = [0, *cuts, len(data)]
    return data, [data[a:b] for a, b in pairwise(bounds)]


PRETTY = json.dumps({"jsonrpc": "2.0", "id": 3, "result": {"content": []}}, indent=2).encode()
PIECES = [
    REQUEST, RESPONSE, NOTIFICATION, b'[{"jsonrpc":"2.0","id":2,"method":"ping"}]',
    b'{"jsonrpc":"2.0","id":"2","error":{"code":-32601,"message":"no"}}', PRETTY, PRETTY.replace(b"\n", b"\r\n"),
    b"\n", b"\r\n", b"\r", b"\n\n", BOM, b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\x00",
    "\u2028".encode(), b"{", b"}", b"[", b"]", b'"', b",", b":", b" ", b"\t", b'"jsonrpc": "2.0",',
    b"Server started on stdio", b"42", b"null", b"true", b"NaN",
]
wire_bytes = st.lists(st.one_of(st.sampled_from(PIECES), st.binary(max_size=12)), max_size=40).map(b"".join)


@given(chunked(st.binary(max_size=300)))
def test_arbitrary_bytes_in_arbitrary_chunks_reassemble_exactly(case):
    data, chunks = case
    events = decode(*chunks, max_line_bytes=len(data) + 1)
    assert reassemble(events) == data


@given(chunked(wire_bytes))
def test_a_messy_wire_in_arbitrary_chunks_reassembles_exactly(case):
    data, chunks = case
    events = decode(*chunks, max_line_bytes=len(data) + 1)
    assert reassemble(events) == data
    for event in events:
        assert event.kind in (Kind.MESSAGE, Kind.FRAMING_ERROR)
        assert event.eol in (b"\n", b"\r\n", b"")
        assert (event.reason is None) == (event.kind == Kind.MESSAGE)
        assert "incomplete_json" not in event.data


@given(chunked(wire_bytes))
def test_chunking_never_changes_the_events(case):
    data, chunks = case
    assert decode(*chunks) == decode(data)


@given(chunked(wire_bytes))
def test_with_a_small_line_limit_nothing_raises_and_no_long_line_is_kept_whole(case):
    data, chunks = case
    limit = 16
    events = decode(*chunks, max_line_bytes=limit)
    # the oversize head is 64 KiB, far more than these inputs, so even cut lines reassemble exactly
    assert reassemble(events) == data
    for event in events:
        oversize = event.data.get("oversize")
        if oversize is not None:
            assert oversize["total_bytes"] > limit
            assert oversize["total_bytes"] == len(event.raw)
            assert oversize["tail"] == event.raw
        else:
            assert all(len(line) <= limit for line in event.raw.split(b"\n"))


@given(chunked(wire_bytes), st.integers(1, 8))
def test_with_a_tiny_keep_size_oversized_lines_keep_exactly_their_head_tail_and_size(case, keep):
    data, chunks = case
    limit = 16
    with mock.patch.object(framing, "OVERSIZE_KEEP_BYTES", keep):
        events = decode(*chunks, max_line_bytes=limit)
        assert events == decode(data, max_line_bytes=limit)
    pos = 0  # where each event's line starts in the input
    for event in events:
        oversize = event.data.get("oversize")
        if oversize is not None:
            total = oversize["total_bytes"]
            assert total > limit
            assert event.raw == data[pos : pos + keep]  # the head, and only the head
            assert oversize["tail"] == data[pos + total - keep : pos + total]  # the tail, and only the tail
            pos += total
        else:
            assert all(len(line) <= limit for line in event.raw.split(b"\n"))
            assert event.raw == data[pos : pos + len(event.raw)]
            pos += len(event.raw)
        assert data[pos : pos + len(event.eol)] == event.eol
        pos += len(event.eol)
    assert pos == len(data)
