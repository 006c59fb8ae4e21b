"""Serve keeps a big capture's scanned index in the user's cache folder and starts from it the next time, only for
the same capture unchanged: a capture changed since, a damaged cache file or another capture's is scanned again,
and what is served is the same either way."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from helpers import ROOT
from lines_capture import write_lines

from inspector.core.capture import saved_index
from inspector.core.capture.index import CaptureIndex
from inspector.core.serve import index as serve_index
from inspector.core.serve.index import ServeIndex
from inspector.core.serve.twin import Twin
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import decode_line

C, S = Direction.C2S, Direction.S2C


@pytest.fixture(autouse=True)
def cache_folder(tmp_path, monkeypatch):
    """Every capture is big enough to be cached, in a cache folder of this test's own."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("MCP_INSPECTOR_CACHE", str(folder))
    monkeypatch.setattr(serve_index, "CACHED_FROM_BYTES", 1)
    return folder


@pytest.fixture(autouse=True)
def opened(monkeypatch):
    """Every ServeIndex a test opens is closed after it."""
    indexes: list[ServeIndex] = []
    real_init = ServeIndex.__init__

    def init(self: ServeIndex, *args: object, **kwargs: object) -> None:
        real_init(self, *args, **kwargs)  # type: ignore[arg-type]
        indexes.append(self)

    monkeypatch.setattr(ServeIndex, "__init__", init)
    yield
    for index in indexes:
        index.close()


def exchange(number: int, name: str = "echo") -> list[tuple[str, bytes]]:
    return [(C, json.dumps({"jsonrpc": "2.0", "id": number, "method": "tools/call",
                            "params": {"name": name, "arguments": {"n": number}}}).encode()),
            (S, json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                            "params": {"progressToken": number, "progress": 1}}).encode()),
            (S, json.dumps({"jsonrpc": "2.0", "id": number, "result": {"content": [
                {"type": "text", "text": f"answer {number} ünï"}]}}, ensure_ascii=False).encode())]


HANDSHAKE = [
    (C, b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},'
        b'"clientInfo":{"name":"c","version":"1"}}}'),
    (S, b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},'
        b'"serverInfo":{"name":"s","version":"1"}}}'),
    (C, b'{"jsonrpc":"2.0","method":"notifications/initialized"}'),
]
ODD = [
    (S, b'{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{}}'),  # the server asks
    (C, b'\xff\xfe not UTF-8'),  # kept as base64
    (C, b'{"jsonrpc":"2.0","id":"p","method":"ping"}'),
    (S, b'{"jsonrpc":"2.0","id":"p","result":{}}'),
]


SPAN = Event(Kind.NOTE, data={"text": "a call", "span": "call-1", "span_label": "tools/call echo", "members": [4, 5]})


def write(path: Path, lines: list[tuple[str, bytes]], tail: bytes = b"", span: bool = False) -> Path:
    return write_lines(path, lines, tail=tail, after=[SPAN] if span else ())


def capture(path: Path, calls: int = 5, tail: bytes = b"") -> Path:
    lines = HANDSHAKE + ODD + [line for number in range(1, calls + 1) for line in exchange(number)]
    return write(path, lines, tail, span=True)


def state(index: ServeIndex) -> dict[str, object]:
    """Everything a served capture is answered from, as plain values."""
    capture_index: CaptureIndex = index.capture
    columns = capture_index.columns
    return {
        "rows": len(capture_index), "offsets": list(capture_index.offsets), "warnings": index.warnings,
        "categories": bytes(columns.categories), "methods": [columns.method(r) for r in range(len(columns))],
        "partners": [columns.partner(r) for r in range(len(columns))],
        "seqs": [columns.seq_of_row(r) for r in range(len(columns))],
        "spans": [columns.span(r) for r in range(len(columns))], "next_seq": columns.next_seq,
        "requests": list(index.requests), "answers": list(index.answers), "handshake": index.handshake,
        "housekeeping": index.housekeeping, "server_requests": list(index.server_request_rows),
        "unprompted": index.unprompted_notifications,
        "notifications": {m: list(index.notification_rows(m)) for m in ("notifications/initialized",)},
        "messages": [index.message(r) for r in range(len(capture_index))],
        "events": [index.event(r) for r in range(len(capture_index))],
        "followers": [index.followers(r) for r in range(len(capture_index))],
    }


def served(index: ServeIndex) -> list[bytes]:
    """What a twin of the capture sends to a client that asks everything recorded, and something not recorded."""
    twin = Twin(index)
    asked = [*HANDSHAKE, *(line for number in (3, 1, 2, 2, 5) for line in exchange(number)[:1]),
             (C, b'{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"nope"}}')]
    return [out.line for direction, raw in asked if direction == C
            for out in twin.receive(decode_line(raw, direction))]


def test_a_second_start_reads_the_cached_index_without_scanning_and_serves_the_same(tmp_path, monkeypatch):
    path = capture(tmp_path / "big.jsonl")
    first = ServeIndex(path)
    assert not first.from_cache
    assert first.cache_path is not None and first.cache_path.is_file()
    want, want_served = state(first), served(first)
    first.close()

    def no_scan(self: CaptureIndex) -> None:
        raise AssertionError("the capture was scanned again")

    monkeypatch.setattr(CaptureIndex, "scan_all", no_scan)
    second = ServeIndex(path)
    assert second.from_cache
    assert state(second) == want
    assert served(second) == want_served
    second.close()


def test_the_cache_is_in_the_users_cache_folder_never_beside_the_capture(tmp_path, cache_folder):
    folder = tmp_path / "captures"
    folder.mkdir()
    path = capture(folder / "big.jsonl")
    folder.chmod(0o555)  # a capture's folder that cannot be written to
    try:
        index = ServeIndex(path)
        index.close()
        assert ServeIndex(path).from_cache
    finally:
        folder.chmod(0o755)
    assert sorted(p.name for p in folder.iterdir()) == ["big.jsonl"]
    assert index.cache_path is not None and index.cache_path.parent == cache_folder / "serve-index"


def test_a_capture_that_grew_since_is_scanned_again_and_serves_what_it_holds_now(tmp_path):
    path = capture(tmp_path / "big.jsonl", calls=3)
    ServeIndex(path).close()
    write(path, HANDSHAKE + ODD + [line for n in range(1, 5) for line in exchange(n)], span=True)
    grown = ServeIndex(path)
    assert not grown.from_cache
    assert len(grown) == 4
    grown.close()
    again = ServeIndex(path)  # the cache was written again, for the capture as it is now
    assert again.from_cache and len(again) == 4


def test_a_capture_rewritten_with_the_same_size_and_time_is_scanned_again(tmp_path):
    path = capture(tmp_path / "big.jsonl")
    stat = path.stat()
    ServeIndex(path).close()
    text = path.read_bytes()
    at = text.rindex(b"answer 5")
    path.write_bytes(text[:at] + b"answer 6" + text[at + len(b"answer 5"):])  # same size, another last answer
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    index = ServeIndex(path)
    assert not index.from_cache
    assert "answer 6" in json.dumps(index.message(index.answers[-1]))


def test_a_capture_still_being_written_warns_as_today_and_its_rest_is_read_once_written(tmp_path):
    cut = b'{"seq":99,"t":1.0,"wall":1.0,"kind":"message","dir":"c2s","raw":"{\\"jsonrpc'
    path = capture(tmp_path / "big.jsonl", tail=cut)
    scanned = ServeIndex(path)
    cached = ServeIndex(path)
    assert cached.from_cache and cached.warnings == scanned.warnings
    assert any("cut off" in warning for warning in cached.warnings)
    with open(path, "ab") as out:  # the recorder writes the rest of the line
        out.write(b'\\":\\"2.0\\",\\"method\\":\\"notifications/cancelled\\"}"}\n')
    finished = ServeIndex(path)
    assert not finished.from_cache
    assert finished.warnings == [] and len(finished.capture) == len(scanned.capture) + 1


@pytest.mark.parametrize("damage", ["a flipped byte", "a flipped category", "cut short", "empty", "not an index",
                                    "another layout", "another capture's"])
def test_a_damaged_or_foreign_cache_file_is_ignored_and_the_capture_scanned_again(tmp_path, damage):
    path = capture(tmp_path / "big.jsonl")
    scanned = ServeIndex(path)
    want = state(scanned)
    assert scanned.cache_path is not None
    saved = scanned.cache_path
    scanned.close()
    data = saved.read_bytes()
    if damage == "a flipped byte":
        saved.write_bytes(data[:-3] + bytes([data[-3] ^ 0x01]) + data[-2:])
    elif damage == "a flipped category":  # the first row's kind: nothing but the cache's own hash can tell
        at = saved_index._body_start(data)
        saved.write_bytes(data[:at] + bytes([data[at] ^ 0x02]) + data[at + 1:])
    elif damage == "cut short":
        saved.write_bytes(data[:len(data) // 2])
    elif damage == "empty":
        saved.write_bytes(b"")
    elif damage == "not an index":
        saved.write_bytes(b'{"jsonrpc":"2.0"}\n' * 100)
    elif damage == "another layout":
        saved.write_bytes(data.replace(b'"layout":1', b'"layout":0', 1))
    else:  # the cached index of another capture, put where this one's goes
        other = capture(tmp_path / "other.jsonl", calls=2)
        ServeIndex(other, cache=tmp_path / "other.idx").close()
        shutil.copyfile(tmp_path / "other.idx", saved)
    index = ServeIndex(path)
    assert not index.from_cache
    assert state(index) == want
    assert ServeIndex(path).from_cache  # rewritten


def test_a_cache_that_cannot_be_written_leaves_serve_scanning_as_before(tmp_path, cache_folder):
    cache_folder.write_text("a file where the cache folder should be")
    path = capture(tmp_path / "big.jsonl")
    index = ServeIndex(path)
    again = ServeIndex(path)
    assert not index.from_cache and not again.from_cache
    assert state(again) == state(index)


def test_an_older_format_capture_is_cached_and_read_back_as_it_scans(tmp_path):
    path = tmp_path / "sample-v1.jsonl"
    shutil.copyfile(ROOT / "tests" / "data" / "sample-v1.jsonl", path)
    scanned = ServeIndex(path)
    cached = ServeIndex(path)
    assert cached.from_cache and state(cached) == state(scanned)


def test_a_small_capture_keeps_no_cache(tmp_path, monkeypatch, cache_folder):
    monkeypatch.setattr(serve_index, "CACHED_FROM_BYTES", 1 << 20)
    index = ServeIndex(capture(tmp_path / "small.jsonl"))
    assert index.cache_path is None and not index.from_cache
    assert not cache_folder.exists()


def test_the_cache_folder_keeps_the_most_recently_used_captures_only(tmp_path, monkeypatch, cache_folder):
    monkeypatch.setattr(serve_index, "CACHED_CAPTURES", 2)
    paths = [capture(tmp_path / f"c{number}.jsonl", calls=1) for number in range(3)]
    for number, path in enumerate(paths):
        index = ServeIndex(path)
        assert index.cache_path is not None
        os.utime(index.cache_path, (1e9 + number, 1e9 + number))  # the order they were used in, to the second
    kept = sorted(cache_folder.joinpath("serve-index").glob("*.idx"))
    assert len(kept) == 2
    assert not ServeIndex(paths[0]).from_cache


def test_a_capture_that_grows_while_it_is_scanned_keeps_no_cache(tmp_path, monkeypatch):
    """The recorder appends while serve scans: the index is of the capture as it was, so it is not kept for the
    capture as it is now."""
    path = capture(tmp_path / "big.jsonl")
    scan_all = CaptureIndex.scan_all

    def growing(self: CaptureIndex) -> None:
        scan_all(self)
        with open(path, "ab") as out:
            out.write(path.read_bytes().splitlines(keepends=True)[-1])

    monkeypatch.setattr(CaptureIndex, "scan_all", growing)
    index = ServeIndex(path)
    assert index.cache_path is not None and not index.cache_path.exists()
