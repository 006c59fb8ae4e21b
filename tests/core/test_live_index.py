"""LiveIndex: a live session's events as the capture being written, with only a bounded window of them in
memory. Older rows read back from the file are the events the reader reads; pairing, seq lookups and text
search reach them; the number of Event objects alive stays bounded however many events pass; the judge's
pacer queues rows, not events."""

from __future__ import annotations

import gc

import pytest

from inspector.core.capture import index as index_module
from inspector.core.capture import read_capture
from inspector.core.capture.live import LiveIndex
from inspector.core.capture.pipeline import EventPipeline
from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.protocol.judge import ProtocolJudge
from inspector.core.protocol.pacer import JudgePacer
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import decode_line

RING = 40


def batch(n: int) -> list[Event]:
    """A request, its answer, a notification with non-ASCII text, an undecodable stderr line, a note."""
    stderr = Event(Kind.STDERR, raw=b"\xff\xfe binary stderr %d" % n, dir=Direction.S2C, eol=b"\n")
    return [decode_line(b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo"}}' % n,
                        Direction.C2S),
            decode_line('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"h\u00e9 %d"}}'
                        .encode() % n, Direction.S2C),
            decode_line(b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"marker%d"}]}}'
                        % (n, n), Direction.S2C),
            stderr,
            Event(Kind.NOTE, data={"text": f"note {n}"})]


def live_pipeline(tmp_path, **ring):
    writer = CaptureWriter(tmp_path / "live.jsonl", make_header({"transport": "stdio"}), track_offsets=True)
    index = LiveIndex(writer, ring_events=RING, **ring)
    pipeline = EventPipeline(writer, index)
    return writer, index, pipeline


def test_old_rows_read_back_from_the_file_are_the_events_the_reader_reads(tmp_path):
    writer, index, pipeline = live_pipeline(tmp_path)
    for n in range(200):
        pipeline.push(batch(n), t=n / 10, wall=1e9 + n)
    assert len(index) == 1000 and index.held == 1000 - RING
    # old rows are read before the writer flushed its buffer: the index flushes it first
    old = [index.event(row) for row in range(0, 1000, 7)]
    writer.close()
    saved = read_capture(writer.path).events
    assert [e.seq for e in saved] == list(range(1, 1001))
    assert old == saved[0:1000:7]
    assert index.event(999) is not saved[999] and index.event(999) == saved[999]  # in memory, as it came
    index.close()


def test_pairing_and_seq_lookups_reach_rows_no_longer_in_memory(tmp_path):
    writer, index, pipeline = live_pipeline(tmp_path)
    for n in range(100):
        pipeline.push(batch(n), t=0.0, wall=0.0)
    request = index.row_of_seq(1)
    assert request == 0 and index.held > 0
    response = index.columns.partner(request)
    assert response == 2 and index.event(response).data["reply_to"] == 1
    assert index.columns.method(response) == "tools/call"
    writer.close()
    index.close()


def test_text_search_finds_old_rows_in_the_file_including_binary_lines(tmp_path):
    writer, index, pipeline = live_pipeline(tmp_path)
    for n in range(100):
        pipeline.push(batch(n), t=0.0, wall=0.0)
    rows, stop = index.rows_containing(b"marker3", 0, len(index), max_bytes=1 << 30)
    assert stop == len(index)
    hits = [row for row in rows if b"marker3" in index.event(row).raw]
    assert [index.event(row).seq for row in hits] == [5 * n + 3 for n in (3, *range(30, 40))]
    # undecodable stderr lines are saved as base64: every one is a candidate, whatever the needle
    stderr_rows = [row for row in range(len(index)) if index.event(row).kind == Kind.STDERR]
    assert set(stderr_rows) <= set(rows)
    writer.close()
    index.close()


def test_an_event_after_the_capture_closed_keeps_its_row_in_memory(tmp_path):
    writer, index, pipeline = live_pipeline(tmp_path)
    pipeline.push(batch(0), t=0.0, wall=0.0)
    writer.close()
    pipeline.push([Event(Kind.NOTE, data={"text": "after the end"})], t=1.0, wall=1.0)
    assert len(index) == 6 and index.event(5).data["text"] == "after the end"
    found, position = [], 0
    while position < len(index):  # as the timeline's search goes: slice after slice
        rows, position = index.rows_containing(b"after", position, len(index))
        found += rows
    assert found == [3, 5]  # the binary stderr line (always a candidate) and the unsaved row
    index.close()


def alive_events() -> int:
    gc.collect()
    gc.unfreeze()  # frozen objects are not listed by get_objects()
    return sum(1 for obj in gc.get_objects() if isinstance(obj, Event))


@pytest.mark.parametrize("batches", [400, 4000])
def test_events_alive_stay_bounded_however_many_pass(tmp_path, monkeypatch, batches):
    monkeypatch.setattr(index_module, "EVENT_CACHE", 100)
    writer, index, pipeline = live_pipeline(tmp_path)
    before = alive_events()
    for n in range(batches):
        pipeline.push(batch(n), t=0.0, wall=0.0)
    for row in range(0, len(index), 3):  # reading old rows back caches a bounded number of them
        index.event(row)
    alive = alive_events() - before
    assert len(index) == 5 * batches
    assert alive <= RING + 101, alive
    writer.close()
    index.close()


def test_the_ring_also_has_a_byte_bound(tmp_path):
    writer, index, pipeline = live_pipeline(tmp_path, ring_bytes=10_000)
    big = '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"%s"}}' % ("x" * 4000)
    for _ in range(10):
        pipeline.push([decode_line(big.encode(), Direction.S2C)], t=0.0, wall=0.0)
    assert index.held == 8  # two of 4 KB fit in 10 KB
    assert index.event(0).raw == big.encode()  # read back from the file
    writer.close()
    index.close()


def test_the_pacer_judges_queued_rows_in_order_fetching_each_when_it_judges_it(tmp_path):
    writer, index, pipeline = live_pipeline(tmp_path)
    fetched: list[int] = []
    judged: list[int] = []

    def fetch(row: int) -> Event:
        fetched.append(row)
        return index.event(row)

    pacer = JudgePacer(ProtocolJudge("2025-11-25"), lambda events, found: judged.extend(e.seq for e in events))
    for n in range(60):
        pipeline.push(batch(n), t=0.0, wall=0.0)
        assert pacer.push_rows(len(index) - 5, len(index), fetch) == (n == 0)
        assert pacer.backlog == 5 * (n + 1)
    assert not fetched  # nothing is held or read until it is judged
    pacer.drain()
    assert judged == list(range(1, 301)) and fetched == list(range(300)) and pacer.backlog == 0
    writer.close()
    index.close()
