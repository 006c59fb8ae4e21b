"""``serve --live`` without a process: the served session's events reach the feed exactly while a window is
connected, and a session served to no window goes through no pipeline (it costs what serving without --live does)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspector.core.serve.live import ROLE, LiveCapture
from inspector.core.serve.twin import Outgoing
from inspector.core.wire.events import Direction
from inspector.core.wire.framing import decode_line

SOURCE_HEADER = {"created": "2026-12-01T10:00:00.000+00:00"}


class FakeFeed:
    """A TapFeed as LiveCapture uses it: it records what it was given, connected or not as the test says."""

    def __init__(self, hello: dict[str, Any]) -> None:
        self.hello = hello
        self.next_seq = 1
        self.connected = False
        self.lines: list[str] = []
        self.closed_with: list[int | None] = []

    async def start(self) -> None:
        return None

    def send(self, lines: list[str]) -> None:
        self.lines += lines

    async def close(self, exit_code: int | None) -> None:
        self.closed_with.append(exit_code)


def exchange(record: LiveCapture, msg_id: int) -> None:
    request = decode_line(json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "tools/list"}).encode(),
                          Direction.C2S)
    answer = json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": {"tools": []}}).encode()
    record.exchange(request, [Outgoing(answer, 7)])


def test_events_reach_the_feed_only_while_a_window_is_connected_and_the_end_closes_it(tmp_path: Path):
    feeds: list[FakeFeed] = []

    def make(hello: dict[str, Any]) -> FakeFeed:
        feeds.append(FakeFeed(hello))
        return feeds[-1]

    record = LiveCapture(None, tmp_path / "served.jsonl", SOURCE_HEADER, "auto", make)
    feed = feeds[0]
    assert feed.hello["role"] == ROLE and feed.hello["name"] == "served.jsonl" and feed.hello["capture"] is None
    exchange(record, 1)  # no window: not even numbered
    assert record.pipeline.seq == 0 and feed.lines == []
    feed.connected = True
    exchange(record, 2)
    record.close()
    sent = [json.loads(line) for line in feed.lines]
    assert [(e["seq"], e["dir"]) for e in sent] == [(1, "c2s"), (2, "s2c")]
    assert sent[1]["data"]["served_from"] == 7 and sent[1]["data"]["request_method"] == "tools/list"
    assert feed.next_seq == 3 and feed.closed_with == [0]
