"""The capture index agrees with the reader: the same events, in the same rows, with the same filter columns
and the same warnings, however the file is shaped and however it is scanned (in slices, across chunks)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core.capture import index as index_module
from inspector.core.capture import read_capture
from inspector.core.capture.columns import BINARY, Columns, category_table
from inspector.core.capture.format import CaptureError
from inspector.core.capture.index import CaptureIndex, IndexedEvents
from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import decode_line

SAMPLE = ROOT / "tests" / "data" / "sample-v1.jsonl"


def expected_columns(events: list[Event]) -> Columns:
    columns = Columns()
    for event in events:
        columns.add_event(event)
    return columns


def assert_agrees_with_reader(path: Path, *, budget: float | None = None) -> CaptureIndex:
    capture = read_capture(path)
    index = CaptureIndex(path)
    if budget is None:
        index.scan_all()
    else:
        while not index.done:
            index.scan(budget)
    assert index.header == capture.header
    assert index.warnings == capture.warnings
    assert len(index) == len(capture.events)
    assert [index.event(row) for row in range(len(index))] == capture.events
    want = expected_columns(capture.events)
    got = [(c & ~BINARY, index.columns.method(row)) for row, c in enumerate(index.columns.categories)]
    assert got == [(c, want.method(row)) for row, c in enumerate(want.categories)]
    index.close()
    return index


def write_capture(path: Path, events: list[Event]) -> None:
    with CaptureWriter(path, make_header({"transport": "stdio", "argv": ["x"]})) as writer:
        for seq, event in enumerate(events, start=1):
            event.seq, event.t, event.wall = seq, seq / 1000, 1.8e9 + seq / 1000
            writer.write(event)


def message(obj: object, direction: str = Direction.S2C, **data: object) -> Event:
    event = decode_line(json.dumps(obj).encode() if not isinstance(obj, bytes) else obj, direction)
    if data:
        event.put(**data)
    return event


ODD_MESSAGES = [
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}},
    {"method": "initialize", "params": {"a": [1, {"method": "nested"}]}, "jsonrpc": "2.0", "id": 0},
    {"params": {"method": "inner"}, "method": "outer", "jsonrpc": "2.0"},
    {"jsonrpc": "2.0", "id": "a\"b", "method": "quoted/id"},
    {"jsonrpc": "2.0", "method": "with \"quote\" and \\ backslash"},
    {"jsonrpc": "2.0", "method": "unicodé/método"},
    {"jsonrpc": "2.0", "id": 2.5, "method": "fractional/id"},
    {"jsonrpc": "2.0", "id": 3, "result": {"method": "not the top level"}},
    {"jsonrpc": "2.0", "id": 4, "error": {"code": -1, "message": "no"}},
    {"jsonrpc": "2.0", "method": 5},
    {"id": 6, "method": "no/jsonrpc"},
    [{"jsonrpc": "2.0", "id": 7, "method": "batched"}],
    {"jsonrpc": "2.0", "id": None, "method": "null/id"},
    {"jsonrpc": "2.0", "method": "notifications/x", "id": 8},
]


def test_the_sample_capture_indexes_exactly_as_it_reads():
    assert_agrees_with_reader(SAMPLE)


def test_odd_messages_framing_errors_and_every_kind_index_as_they_read(tmp_path):
    events = [message(obj) for obj in ODD_MESSAGES]
    events += [
        message({"jsonrpc": "2.0", "id": 9, "result": {}}, reply_to=1, latency=0.1, request_method="tools/call"),
        message({"jsonrpc": "2.0", "id": 10, "result": {}}, request_method="we\"ird"),
        message(b'{"jsonrpc": "2.0", "method": "spaced/out"}'),
        message(b'  {"jsonrpc":"2.0","method":"leading/space"}'),
        decode_line(b'{"jsonrpc":"2.0","method":"crlf"}', Direction.S2C, eol=b"\r\n"),
        decode_line(b"not json at all", Direction.S2C),
        decode_line(b"\xff\xfe invalid utf-8", Direction.S2C),
        decode_line(b"", Direction.S2C),
        decode_line(b'{"jsonrpc":"2.0","method":"unterminated"', Direction.S2C, eol=b""),
        Event(Kind.STDERR, raw=b"[server] a log line with {\"method\":\"x\"} in it", dir=Direction.S2C, eol=b"\n"),
        Event(Kind.STDERR, raw=b"\x1b[31mcolour\x1b[0m and \xff bytes", dir=Direction.S2C, eol=b"\n"),
        Event(Kind.LIFECYCLE, data={"what": "spawned", "pid": 1, "argv": ["x"]}),
        Event(Kind.NOTE, data={"text": "a note"}),
        Event(Kind.HTTP, data={"exchange": 1, "method": "POST", "url": "http://x/mcp", "status": 200}),
        Event("a_future_kind", data={"x": 1}),
    ]
    events[3].add_finding("unknown-id", "an error finding")
    events[4].add_finding("style", "a warning only", "warning")
    write_capture(tmp_path / "odd.jsonl", events)
    index = assert_agrees_with_reader(tmp_path / "odd.jsonl")
    assert index.columns.categories[events.index(events[3])] & 0x20  # the error finding is a problem


def test_malformed_blank_and_cut_off_lines_give_the_readers_warnings(tmp_path):
    path = tmp_path / "broken.jsonl"
    write_capture(path, [message({"jsonrpc": "2.0", "method": f"m/{i}"}) for i in range(5)])
    lines = path.read_bytes().splitlines(keepends=True)
    lines.insert(2, b"\n")
    lines.insert(3, b"{not json\n")
    lines.insert(4, b"[1, 2]\n")
    lines.insert(5, b'{"seq": "one", "kind": "message"}\n')
    # the writer's own line shape, but its raw text never closes (a garbled line, not the last one)
    lines.insert(6, b'{"seq":50,"t":1,"wall":1,"kind":"message","dir":"s2c","raw":"xxxxxxxx\n')
    lines.append(b'{"seq":99,"t":1,"wall":1,"kind":"message","dir":"s2c","raw":"{\\"jsonrpc\\":\\"2.0\\",\\"meth')
    path.write_bytes(b"".join(lines))
    index = assert_agrees_with_reader(path)
    assert any("cut off" in w for w in index.warnings) and any("skipped" in w for w in index.warnings)


@pytest.mark.parametrize("chunk", [97, 128 << 10])
def test_lines_ended_with_crlf_or_holding_a_lone_cr_index_as_they_read(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(index_module, "CHUNK_BYTES", chunk)
    path = tmp_path / "crlf.jsonl"
    write_capture(path, [message({"jsonrpc": "2.0", "id": i, "method": f"m/{i}"}) for i in range(8)])
    lines = path.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2][:-1] + b"\r\n"  # saved by an editor that ends lines so
    lines[4] = lines[4].replace(b'"kind"', b'\r"kind"')  # a CR where JSON allows white space
    lines[5] = lines[5].replace(b"}\n", b"}\r\r\n")
    path.write_bytes(b"".join(lines))
    assert len(assert_agrees_with_reader(path)) == 8


def test_lines_longer_than_a_chunk_and_scanning_in_tiny_slices_change_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(index_module, "CHUNK_BYTES", 97)
    events = [message(obj) for obj in ODD_MESSAGES]
    events.insert(3, message({"jsonrpc": "2.0", "id": 1, "result": {"text": "x" * 5000}}, request_method="big"))
    write_capture(tmp_path / "long.jsonl", events)
    assert_agrees_with_reader(tmp_path / "long.jsonl", budget=0)


def test_a_file_that_is_not_a_capture_is_refused_with_the_readers_sentence(tmp_path):
    path = tmp_path / "nope.jsonl"
    path.write_text('{"hello": 1}\n')
    with pytest.raises(CaptureError) as raised:
        CaptureIndex(path)
    with pytest.raises(CaptureError) as read:
        read_capture(path)
    assert str(raised.value) == str(read.value)
    with pytest.raises(CaptureError, match="no such file"):
        CaptureIndex(tmp_path / "missing.jsonl")


def test_the_filter_columns_select_the_rows_the_readers_events_would(tmp_path):
    events = read_capture(SAMPLE).events
    index = CaptureIndex(SAMPLE)
    index.scan_all()
    table = index.columns.method_table("tools/")
    rows = index.columns.select(0, len(index), category_table(directions={"s2c"}, show_stderr=False), table)
    want = [row for row, e in enumerate(events) if e.kind not in (Kind.STDERR, Kind.HTTP, Kind.SSE, Kind.LIFECYCLE,
                                                                   Kind.NOTE)
            and (e.dir is None or e.dir == "s2c") and "tools/" in ((e.rpc.method or e.data.get("request_method") or "")
                                                                  if e.rpc else "")]
    assert list(rows) == want and want
    assert list(IndexedEvents(index)) == events
    index.close()


_TEXT = st.text(alphabet=st.sampled_from(list('ab"\\{}[],:/ é\n\t\x00')), max_size=12)
_VALUE = st.recursive(st.none() | st.booleans() | st.integers(-5, 5) | _TEXT,
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
                      max_leaves=6)
_KEYS = st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error", "x"])
_MESSAGE = st.dictionaries(_KEYS, st.one_of(_VALUE, st.just("2.0"), st.just("tools/call")), max_size=5)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(_MESSAGE.map(json.dumps), _MESSAGE.map(lambda o: json.dumps(o, separators=(",", ":"))),
                          st.binary(max_size=20).map(lambda b: b.replace(b"\n", b""))), min_size=1, max_size=12),
       st.lists(st.sampled_from(["", "tools/call", "a\"b"]), min_size=12, max_size=12))
def test_any_messages_index_as_they_read(tmp_path, lines, request_methods):
    events = []
    for text, request_method in zip(lines, request_methods, strict=False):  # a method for each possible line
        raw = text.encode() if isinstance(text, str) else text
        event = decode_line(raw, Direction.S2C)
        if request_method and event.rpc is not None and event.rpc.method is None:
            event.put(request_method=request_method)
        events.append(event)
    write_capture(tmp_path / "any.jsonl", events)
    assert_agrees_with_reader(tmp_path / "any.jsonl")
