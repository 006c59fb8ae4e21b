"""Capture files: writer + reader round trip, tolerant reading of damaged or foreign files, crash window."""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.core.capture import (
    FORMAT_NAME,
    FORMAT_VERSION,
    CaptureError,
    CaptureWriter,
    read_capture,
)
from inspector.core.capture import reader as reader_mod
from inspector.core.capture import writer as writer_mod
from inspector.core.capture.format import dumps_json, event_to_line
from inspector.core.capture.writer import make_header
from inspector.core.wire.events import Direction, Event, Finding, Kind
from inspector.core.wire.framing import decode_line

TARGET = {"transport": "stdio", "argv": ["python", "-m", "weather"], "cwd": "/srv", "env": {}, "redacted": True}
REQUEST = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"h\xc3\xa9"}}}'
RESPONSE = b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a\xe2\x80\xa8b"}]}}'


def every_kind_of_event() -> list[Event]:
    request = decode_line(REQUEST, Direction.C2S)  # as the writer gets it: pairing is on the response only
    response = decode_line(RESPONSE, Direction.S2C, eol=b"\r\n")  # carries a "crlf" warning finding
    response.put(reply_to=1, latency=0.0125, request_method="tools/call")
    response.add_finding("id-type-mismatch", "answers id \"1\" (a string)")
    bad_utf8 = Event(Kind.FRAMING_ERROR, raw=b'{"a":"\xff\xfe"}', dir=Direction.S2C, eol=b"\n",
                     reason="not valid UTF-8: byte FF at offset 6 cannot be decoded (MCP messages must be UTF-8)")
    pretty = Event(Kind.FRAMING_ERROR, raw=b'{\n  "jsonrpc": "2.0",\n  "method": "x"\n}', dir=Direction.S2C,
                   eol=b"\n", reason="one JSON object pretty-printed over 4 lines")
    odd_text = Event(Kind.FRAMING_ERROR, raw='tab\there "quoted" back\\slash \x00\x1f\x7f \u2028 end\r'.encode(),
                     dir=Direction.S2C, eol=b"", reason="plain text")
    stderr_unterminated = Event(Kind.STDERR, raw=b"Traceback (most recent call last):", dir=Direction.S2C, eol=b"")
    stderr_crlf = Event(Kind.STDERR, raw=b"WARNING: on Windows", dir=Direction.S2C, eol=b"\r\n")
    stderr_bytes = Event(Kind.STDERR, raw=b"\x1b[31mred\x1b[0m \xff", dir=Direction.S2C, eol=b"\n")
    spawned = Event(Kind.LIFECYCLE, data={"what": "spawned", "pid": 4242, "argv": ["python", "-m", "weather"],
                                          "env": {"API_KEY": "[redacted]"}, "cwd": None, "ok": True})
    exited = Event(Kind.LIFECYCLE, data={"what": "exited", "pid": 4242, "signal": "SIGTERM", "after": "stdin closed"})
    note = Event(Kind.NOTE, data={"text": "handshake: initialize, protocol 2025-06-18", "version": "2025-06-18"})
    oversize = Event(Kind.FRAMING_ERROR, raw=b'{"jsonrpc":"2.0","result":"' + b"A" * 100, dir=Direction.S2C, eol=b"",
                     reason="a line of 100,000,000 bytes is over the size limit")
    oversize.put(oversize={"total_bytes": 100_000_000, "tail": b"\xffB" * 50 + b'"}'})
    events = [request, response, bad_utf8, pretty, odd_text, stderr_unterminated, stderr_crlf, stderr_bytes,
              spawned, exited, note, oversize]
    for seq, event in enumerate(events, start=1):
        event.seq = seq
        event.t = seq * 0.015625 + 0.000001  # six decimals, as written
        event.wall = 1_764_670_000.5 + seq
    return events


FIELDS = ("seq", "t", "wall", "kind", "dir", "raw", "eol", "reason", "findings", "data")


def fields(event: Event) -> dict[str, Any]:
    """The saved fields, as plain values (findings and data are read-only views until first written)."""
    out = {name: getattr(event, name) for name in FIELDS}
    out["findings"] = list(out["findings"])
    out["data"] = dict(out["data"])
    return out


def write_capture(path: Path, events: list[Event], **header_extra: Any) -> None:
    with CaptureWriter(path, make_header(TARGET, **header_extra)) as writer:
        for event in events:
            writer.write(event)


HEADER_LINE = json.dumps({"format": FORMAT_NAME, "version": FORMAT_VERSION, "created": "2026-12-02T10:00:00.000+00:00",
                          "target": TARGET}) + "\n"


def note_line(seq: int, text: str = "hi") -> str:
    return json.dumps({"seq": seq, "t": 0.5, "wall": 1.0, "kind": "note", "data": {"text": text}}) + "\n"


# -- round trip -------------------------------------------------------------------------------------------


def test_every_kind_of_event_survives_a_round_trip(tmp_path):
    events = every_kind_of_event()
    path = tmp_path / "session.mcpcap"
    write_capture(path, events)
    capture = read_capture(path)
    assert capture.warnings == []
    assert [fields(e) for e in capture.events] == [fields(e) for e in events]


def test_messages_get_their_rpc_summary_back(tmp_path):
    events = every_kind_of_event()
    path = tmp_path / "c.mcpcap"
    write_capture(path, events)
    loaded = read_capture(path).events
    assert loaded[0].rpc == events[0].rpc
    assert loaded[1].rpc == events[1].rpc
    assert loaded[3].rpc is not None and loaded[3].rpc.kind == "notification"  # the pretty-printed one
    assert loaded[4].rpc is None


def test_bytes_that_are_not_utf8_are_stored_as_base64(tmp_path):
    events = every_kind_of_event()
    path = tmp_path / "c.mcpcap"
    write_capture(path, events)
    lines = path.read_bytes().splitlines()
    bad = json.loads(lines[3])  # header, request, response, then the bad UTF-8 line
    assert "raw" not in bad
    assert base64.b64decode(bad["raw_b64"]) == b'{"a":"\xff\xfe"}'
    over = json.loads(lines[12])
    assert base64.b64decode(over["data"]["oversize"]["tail_b64"]) == b"\xffB" * 50 + b'"}'


def test_each_event_is_exactly_one_line_and_lf_eol_is_implicit(tmp_path):
    events = every_kind_of_event()
    path = tmp_path / "c.mcpcap"
    write_capture(path, events)
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    assert len(lines) == 1 + len(events) + 1
    request = json.loads(lines[1])
    assert "eol" not in request  # "\n" is the default
    assert json.loads(lines[2])["eol"] == "\r\n"


def test_the_header_has_format_version_created_and_target(tmp_path):
    path = tmp_path / "c.mcpcap"
    before = dt.datetime.now(dt.UTC)
    write_capture(path, [], inspector="0.1.0")
    header = read_capture(path).header
    assert header["format"] == "mcp-inspector-capture" == FORMAT_NAME
    assert header["version"] == 1 == FORMAT_VERSION
    created = dt.datetime.fromisoformat(header["created"])
    assert created.tzinfo is not None
    assert before - dt.timedelta(seconds=1) <= created <= dt.datetime.now(dt.UTC) + dt.timedelta(seconds=1)
    assert header["target"] == TARGET
    assert header["inspector"] == "0.1.0"
    assert read_capture(path).target == TARGET
    assert read_capture(path).events == []


def test_a_header_whose_target_is_not_an_object_gives_an_empty_target(tmp_path):
    path = tmp_path / "c.mcpcap"
    path.write_text(json.dumps({"format": FORMAT_NAME, "version": 1, "target": "stdio"}) + "\n")
    assert read_capture(path).target == {}


# -- damaged captures -------------------------------------------------------------------------------------


def test_a_capture_cut_off_mid_line_loads_everything_before_with_a_warning(tmp_path):
    events = every_kind_of_event()
    path = tmp_path / "crashed.mcpcap"
    write_capture(path, events)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 20])  # the last line loses its end, as after SIGKILL mid-write
    capture = read_capture(path)
    assert [fields(e) for e in capture.events] == [fields(e) for e in events[:-1]]
    [warning] = capture.warnings
    assert "cut off" in warning
    assert f"line {len(events) + 1}" in warning
    assert "everything before it was loaded" in warning


def test_a_capture_cut_off_right_after_a_newline_loads_cleanly(tmp_path):
    events = every_kind_of_event()
    path = tmp_path / "c.mcpcap"
    write_capture(path, events)
    capture = read_capture(path)
    assert capture.warnings == []
    assert len(capture.events) == len(events)


def test_malformed_lines_in_the_middle_are_skipped_with_their_line_number(tmp_path):
    path = tmp_path / "c.mcpcap"
    path.write_text(HEADER_LINE + note_line(1) + "this is not json\n" + "\n" + "[1, 2]\n"
                    + '{"seq": "3", "kind": "note"}\n' + note_line(4) + '{"kind": "note"}\n' + note_line(5))
    capture = read_capture(path)
    assert [e.seq for e in capture.events] == [1, 4, 5]
    assert capture.warnings == [
        "line 3 was skipped: not valid JSON",
        "line 5 was skipped: the line is not a JSON object",
        'line 6 was skipped: "seq" must be an integer and "kind" a string',
        "line 8 was skipped: an event is malformed (KeyError: 'seq')",
    ]


@pytest.mark.parametrize(
    "bad",
    [
        {"seq": "1", "kind": "note"},
        {"seq": 1, "kind": 5},
        {"seq": 1.5, "kind": "note"},
        {"seq": 1, "kind": "message", "raw": 5},
        {"seq": 1, "kind": "message", "raw": ["x"]},
        {"seq": 1, "kind": "message", "raw_b64": "not base64!"},
        {"seq": 1, "kind": "message", "raw_b64": 5},
        {"seq": 1, "kind": "stderr", "raw": "x", "eol": 10},
        {"seq": 1, "kind": "note", "t": "soon"},
        {"seq": 1, "kind": "note", "wall": None},
        {"seq": 1, "kind": "note", "t": [1]},
        {"seq": 1, "kind": "note", "findings": 3},
        {"seq": 1, "kind": "note", "findings": ["crlf"]},
        {"seq": 1, "kind": "note", "findings": [{"text": "no code"}]},
        {"seq": 1, "kind": "note", "data": [1, 2]},
        {"seq": 1, "kind": "note", "data": "text"},
        {"seq": 1, "kind": "note", "data": {"tail_b64": "A"}},
    ],
    ids=repr,
)
def test_an_event_with_wrong_types_is_skipped_with_a_warning_not_an_exception(tmp_path, bad):
    path = tmp_path / "c.mcpcap"
    path.write_text(HEADER_LINE + note_line(1) + json.dumps(bad) + "\n" + note_line(2))
    capture = read_capture(path)
    assert [e.seq for e in capture.events] == [1, 2]
    [warning] = capture.warnings
    assert warning.startswith("line 3 was skipped: ")


def test_past_twenty_malformed_lines_the_rest_are_counted(tmp_path):
    path = tmp_path / "c.mcpcap"
    path.write_text(HEADER_LINE + "garbage\n" * 25 + note_line(1))
    capture = read_capture(path)
    assert len(capture.events) == 1
    assert len(capture.warnings) == reader_mod.MAX_LISTED_PROBLEMS + 1
    assert capture.warnings[-1] == "5 more malformed lines were skipped"


@pytest.mark.parametrize("name", ["t", "wall"])
def test_a_huge_integer_time_is_a_skipped_line_not_a_crash(tmp_path, name):
    path = tmp_path / "c.mcpcap"
    path.write_text(HEADER_LINE + '{"seq":1,"kind":"note","' + name + '":1' + "0" * 400 + "}\n" + note_line(2))
    capture = read_capture(path)  # today: OverflowError: int too large to convert to float
    assert [e.seq for e in capture.events] == [2]
    assert capture.warnings[0].startswith("line 2 was skipped")


# -- files that are not captures --------------------------------------------------------------------------


def _error_for(path: Path) -> str:
    with pytest.raises(CaptureError) as info:
        read_capture(path)
    return str(info.value)


def test_a_json_object_without_format_is_not_a_capture(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"mcpServers": {"weather": {"command": "python"}}}\n')
    message = _error_for(path)
    assert str(path) in message
    assert "is not an mcp-inspector capture" in message
    assert '"format": "mcp-inspector-capture"' in message


@pytest.mark.parametrize("first_line", ['[{"format": "mcp-inspector-capture"}]', '"mcp-inspector-capture"',
                                        '{"format": "something-else", "version": 1}'])
def test_a_first_line_that_is_json_but_no_capture_header_is_refused(tmp_path, first_line):
    path = tmp_path / "c.jsonl"
    path.write_text(first_line + "\n" + note_line(1))
    assert "is not an mcp-inspector capture" in _error_for(path)


def test_a_text_file_is_not_a_capture(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Meeting notes\nnothing to see\n")
    message = _error_for(path)
    assert "is not an mcp-inspector capture" in message
    assert "first line is not JSON" in message


def test_a_binary_file_is_not_a_capture(tmp_path):
    path = tmp_path / "image.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
    assert "first line is not JSON" in _error_for(path)


@pytest.mark.parametrize("content", [b"", b"\n", b"   \n" + HEADER_LINE.encode()])
def test_an_empty_file_is_not_a_capture(tmp_path, content):
    path = tmp_path / "empty.mcpcap"
    path.write_bytes(content)
    message = _error_for(path)
    assert "is empty" in message
    assert "capture header" in message


def test_a_directory_is_not_a_capture(tmp_path):
    message = _error_for(tmp_path)
    assert str(tmp_path) in message
    assert "is a directory, not a capture file" in message


def test_a_missing_file_says_so(tmp_path):
    path = tmp_path / "nowhere.mcpcap"
    message = _error_for(path)
    assert message == f"{path}: no such file"


def test_a_newer_format_version_asks_for_an_upgrade(tmp_path):
    path = tmp_path / "future.mcpcap"
    path.write_text(json.dumps({"format": FORMAT_NAME, "version": 2, "target": {}}) + "\n" + note_line(1))
    message = _error_for(path)
    assert "version 2" in message
    assert "newer" in message
    assert "upgrade" in message


@pytest.mark.parametrize("version", [0, -1, "1", 1.0, True, None])
def test_an_invalid_format_version_is_refused(tmp_path, version):
    path = tmp_path / "c.mcpcap"
    header: dict[str, Any] = {"format": FORMAT_NAME, "target": {}}
    if version is not None:
        header["version"] = version
    path.write_text(json.dumps(header) + "\n")
    assert "invalid capture format version" in _error_for(path)


# -- properties: reading never raises on what follows a valid header ---------------------------------------


def _read_bytes_after_header(tmp_path_factory: pytest.TempPathFactory, tail: bytes) -> None:
    path = tmp_path_factory.mktemp("prop") / "c.mcpcap"
    path.write_bytes(HEADER_LINE.encode() + tail)
    capture = read_capture(path)  # must not raise, CaptureError included: the header is fine
    assert capture.header["format"] == FORMAT_NAME
    assert all(isinstance(w, str) and w for w in capture.warnings)
    assert all(isinstance(e, Event) for e in capture.events)


@given(tail=st.binary(max_size=400))
def test_arbitrary_bytes_after_a_valid_header_never_raise(tmp_path_factory, tail):
    _read_bytes_after_header(tmp_path_factory, tail)


KEYS = ["seq", "t", "wall", "kind", "dir", "raw", "raw_b64", "eol", "reason", "findings", "data", "rpc"]
# Integers stay within float range: a huge integer "t" is the known OverflowError bug, tested above.
json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63), st.floats(allow_nan=False),
                         st.text(max_size=10), st.sampled_from(["message", "framing_error", "stderr", "note",
                                                                "{}[", "////", "AAAA", "\n", "c2s"]))
small_objects = st.dictionaries(st.sampled_from(KEYS + ["code", "text", "severity", "tail_b64"]), json_scalars,
                                max_size=3)
json_values = st.one_of(json_scalars, st.lists(json_scalars, max_size=3), small_objects,
                        st.lists(small_objects, max_size=2), st.dictionaries(st.just("oversize"), small_objects))
event_objects = st.dictionaries(st.sampled_from(KEYS), json_values, max_size=6)


@given(objs=st.lists(event_objects, min_size=1, max_size=4), cut=st.integers(0, 40))
def test_event_shaped_json_lines_after_a_valid_header_never_raise(tmp_path_factory, objs, cut):
    text = "".join(json.dumps(obj) + "\n" for obj in objs)
    data = text.encode()
    _read_bytes_after_header(tmp_path_factory, data[: max(0, len(data) - cut)])


# -- the writer -------------------------------------------------------------------------------------------


@pytest.fixture
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The writer's monotonic clock, frozen unless a test moves it: no write flushes on its own."""
    now = [1000.0]
    monkeypatch.setattr(writer_mod, "time", SimpleNamespace(monotonic=lambda: now[0]))
    return now


def note_event(seq: int) -> Event:
    return Event(Kind.NOTE, data={"text": f"note {seq}"}, seq=seq, t=seq / 8, wall=1.5)


def test_a_write_inside_a_running_loop_reaches_the_os_within_the_flush_interval(tmp_path, frozen_clock):
    interval = 0.05
    path = tmp_path / "live.mcpcap"
    event = note_event(1)
    line = event_to_line(event).encode()

    async def scenario() -> tuple[float, bytes, bytes]:
        loop = asyncio.get_running_loop()
        writer = CaptureWriter(path, make_header(TARGET), flush_interval=interval)
        flushed = asyncio.Event()
        real_flush = writer.flush

        def flush_and_signal() -> None:
            real_flush()
            flushed.set()

        writer.flush = flush_and_signal  # type: ignore[method-assign]  # the test watches the flushes
        try:
            writer.write(event)
            started = loop.time()
            buffered = path.read_bytes()
            # Bounded wait for the writer's own timer; close() is not called before we look at the file.
            await asyncio.wait_for(flushed.wait(), timeout=interval + 5)
            waited = loop.time() - started
            on_disk = path.read_bytes()  # what another process (or a post-mortem) would see
        finally:
            writer.close()
        return waited, buffered, on_disk

    waited, buffered, on_disk = asyncio.run(scenario())
    assert line not in buffered  # the write itself was buffered...
    assert on_disk.endswith(line)  # ...and the loop timer put it in the file, before any close()
    assert interval * 0.9 <= waited < interval + 1.0  # the timer fires at the interval (1 s of scheduling slack)


def test_without_a_loop_close_writes_everything_buffered(tmp_path, frozen_clock):
    path = tmp_path / "c.mcpcap"
    writer = CaptureWriter(path, make_header(TARGET))
    events = [note_event(i) for i in range(1, 4)]
    for event in events:
        writer.write(event)
    assert path.read_bytes().count(b"\n") == 1  # only the header: no loop, no timer, clock not moved
    assert writer.events_written == 3
    writer.close()
    assert path.read_bytes().count(b"\n") == 4
    assert [fields(e) for e in read_capture(path).events] == [fields(e) for e in events]


def test_without_a_loop_a_write_after_the_interval_flushes_everything_buffered(tmp_path, frozen_clock):
    path = tmp_path / "c.mcpcap"
    with CaptureWriter(path, make_header(TARGET), flush_interval=0.1) as writer:
        writer.write(note_event(1))
        assert path.read_bytes().count(b"\n") == 1
        frozen_clock[0] += 0.1
        writer.write(note_event(2))
        assert path.read_bytes().count(b"\n") == 3


def test_a_large_buffer_is_written_out_at_once(tmp_path, frozen_clock):
    path = tmp_path / "c.mcpcap"
    with CaptureWriter(path, make_header(TARGET)) as writer:
        big = Event(Kind.STDERR, raw=b"x" * writer_mod.MAX_BUFFERED_CHARS, dir=Direction.S2C, seq=1)
        writer.write(big)
        assert path.stat().st_size > writer_mod.MAX_BUFFERED_CHARS


def test_the_header_reaches_the_file_immediately(tmp_path, frozen_clock):
    path = tmp_path / "c.mcpcap"
    writer = CaptureWriter(path, make_header(TARGET))
    try:
        assert json.loads(path.read_bytes())["target"] == TARGET
    finally:
        writer.close()


def test_writes_after_close_are_ignored_and_close_is_idempotent(tmp_path):
    path = tmp_path / "c.mcpcap"
    writer = CaptureWriter(path, make_header(TARGET))
    writer.write(note_event(1))
    writer.close()
    writer.write(note_event(2))
    writer.close()
    writer.flush()
    assert [e.seq for e in read_capture(path).events] == [1]


def test_a_non_utf8_argument_in_the_target_does_not_break_the_capture(tmp_path):
    # On Linux, sys.argv holds undecodable bytes as lone surrogates (PEP 383): `record -- server /data/caf\xe9`
    # gives "/data/caf\udce9". json.dumps(ensure_ascii=False) keeps the surrogate and the UTF-8 file refuses it.
    path = tmp_path / "c.mcpcap"
    target = dict(TARGET, argv=["server", "/data/caf\udce9"])
    with CaptureWriter(path, make_header(target)) as writer:  # today: UnicodeEncodeError
        writer.write(note_event(1))
    capture = read_capture(path)
    assert capture.target["argv"][1].startswith("/data/caf")
    assert [e.seq for e in capture.events] == [1]


def test_an_event_with_a_non_utf8_argument_in_its_data_is_written(tmp_path):
    path = tmp_path / "c.mcpcap"
    spawned = Event(Kind.LIFECYCLE, data={"what": "spawned", "argv": ["server", "/data/caf\udce9"]}, seq=1)
    writer = CaptureWriter(path, make_header(TARGET))
    writer.write(spawned)
    writer.close()  # today: UnicodeEncodeError, and the file is left open
    [event] = read_capture(path).events
    assert event.data["argv"][1].startswith("/data/caf")


def test_finding_severity_and_text_round_trip(tmp_path):
    event = Event(Kind.MESSAGE, raw=b'{"jsonrpc":"2.0","method":"x"}', dir=Direction.S2C, eol=b"\n", seq=1,
                  findings=[Finding("crlf", "w", "warning"), Finding("id-null", "e")])
    path = tmp_path / "c.mcpcap"
    write_capture(path, [event])
    assert list(read_capture(path).events[0].findings) == [Finding("crlf", "w", "warning"), Finding("id-null", "e")]


_FLAT_VALUES = st.one_of(st.text(), st.integers(), st.floats(), st.booleans(), st.none())


@given(data=st.dictionaries(st.text(min_size=1), _FLAT_VALUES, min_size=1, max_size=4))
def test_a_message_with_flat_data_is_written_as_the_json_encoder_writes_it(data):
    """A response's pairing (reply_to, latency, request_method) takes a fast path past the JSON encoder; its line
    is the encoder's, byte for byte (non-ASCII keys and texts escaped, a float that JSON cannot hold as null)."""
    raw = '{"jsonrpc":"2.0","id":1,"result":{"text":"é"}}'.encode()
    event = Event(Kind.MESSAGE, raw=raw, dir=Direction.S2C, eol=b"\n", data=data, seq=3, t=1.5, wall=2.5)
    bare = Event(Kind.MESSAGE, raw=raw, dir=Direction.S2C, eol=b"\n", seq=3, t=1.5, wall=2.5)
    assert event_to_line(event) == event_to_line(bare)[:-2] + ',"data":' + dumps_json(data) + "}\n"


@pytest.mark.parametrize("data", [
    {"reply_to": 12, "latency": 1.2e-05, "request_method": "tools/call"},
    {"reply_to": 12, "latency": 0.25, "request_method": "tools/\u00e9\ud800"},
    {"reply_to": 12, "latency": float("inf"), "request_method": "ping"},
    {"reply_to": True, "latency": 0.5, "request_method": "ping"},
    {"reply_to": 12, "latency": 3, "request_method": "ping"},
    {"reply_to": 12, "latency": 0.5, "request_method": None},
    {"latency": 0.5, "reply_to": 12, "request_method": "ping"},
])
def test_a_paired_responses_data_is_written_as_the_json_encoder_writes_it(data):
    raw = b'{"jsonrpc":"2.0","id":1,"result":{}}'
    event = Event(Kind.MESSAGE, raw=raw, dir=Direction.S2C, eol=b"\n", data=data, seq=3, t=1.5, wall=2.5)
    bare = Event(Kind.MESSAGE, raw=raw, dir=Direction.S2C, eol=b"\n", seq=3, t=1.5, wall=2.5)
    assert event_to_line(event) == event_to_line(bare)[:-2] + ',"data":' + dumps_json(data) + "}\n"


def test_a_response_paired_with_its_request_keeps_its_data_through_a_capture(tmp_path):
    path = tmp_path / "c.jsonl"
    data = {"reply_to": 12, "latency": 1.2e-05, "request_method": "tools/call"}
    with CaptureWriter(path, make_header({})) as writer:
        writer.write(Event(Kind.MESSAGE, raw=b'{"jsonrpc":"2.0","id":1,"result":{}}', dir=Direction.S2C,
                           eol=b"\n", data=data, seq=1))
    line = path.read_text().splitlines()[1]
    assert line.endswith(',"data":{"reply_to":12,"latency":1.2e-05,"request_method":"tools/call"}}')
    assert read_capture(path).events[0].data == data
