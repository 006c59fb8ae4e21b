"""The serve index reads a capture's messages the short way (from the line's raw text, no event built) exactly as
from the events, on awkward lines too, and finds the server's requests among its notifications."""

from __future__ import annotations

import json

from lines_capture import write_lines

from inspector.core.capture.index import BIG_LINE_BYTES
from inspector.core.serve.index import ServeIndex
from inspector.core.wire.events import Direction

C, S = Direction.C2S, Direction.S2C

AWKWARD = [
    (C, json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "say", "arguments": {"text": 'a "quoted" \\ backslash'}}}).encode()),
    (S, json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"text": "ünïcødé ✓ 𝄞"}}, ensure_ascii=False).encode()),
    (C, json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "é"}}).encode()),
    (S, b'{"jsonrpc":"2.0","id":2,"result":{"lone":"\\ud800"}}'),  # a lone surrogate as a JSON escape: ASCII bytes
    (C, b'{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///x"}}'),
    (S, json.dumps({"jsonrpc": "2.0", "id": 3, "result": {"contents": [{"text": "x" * (BIG_LINE_BYTES + 10)}]}})
     .encode()),  # a line over a megabyte: read back a piece at a time
    (C, b'\xef\xbb\xbf{"jsonrpc":"2.0","id":4,"method":"ping"}'),  # a byte order mark
    (S, b'{"jsonrpc":"2.0","id":4,"result":{}}'),
    (S, b'[{"jsonrpc":"2.0","method":"notifications/batched"}]'),  # a batch: no object
    (S, b'{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{}}'),  # the server asks
    (S, b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"\\"method\\":\\"x\\""}}'),
    (C, b'\xff\xfe not UTF-8'),  # kept as base64
    (C, '{"jsonrpc":"2.0","id":5}'.encode("utf-16-le")),  # valid UTF-8 that json.loads reads as UTF-16 bytes
]


write = write_lines


def from_event(index: ServeIndex, row: int) -> dict:
    """The message of a row read the long way: the event's raw bytes, parsed."""
    try:
        value = json.loads(index.raw(row))
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def every_server_message_that_asks(index: ServeIndex) -> int:
    """The server's messages that are no answer and no notification, looked at one by one."""
    columns = index.capture.columns
    return sum(1 for row in range(len(columns))
               if index.event(row).dir == S and index.event(row).kind == "message"
               and (columns.partner(row) is None or columns.partner(row) > row)
               and not columns.method(row).startswith("notifications/"))


def test_messages_read_from_their_lines_raw_text_are_those_their_events_hold(tmp_path):
    path = write(tmp_path / "awkward.jsonl", AWKWARD, tail=b'{"seq":99,"t":1,"wall":1,"kind":"message","dir":"c2s"')
    index = ServeIndex(path)
    try:
        assert index.warnings and "cut off" in index.warnings[0]
        rows = range(len(index.capture))
        assert len(rows) == len(AWKWARD)
        assert [index.message(row) for row in rows] == [from_event(index, row) for row in rows]
        assert index.message(1)["result"]["text"] == "ünïcødé ✓ 𝄞"
        assert index.message(3)["result"]["lone"] == "\ud800"
        assert index.message(8) == {}
        assert index.server_requests == every_server_message_that_asks(index) >= 1
        assert [index.method(p) for p in range(len(index))] == ["tools/call", "tools/call", "resources/read"]
    finally:
        index.close()


def test_the_servers_requests_are_found_among_many_notifications_and_answers(tmp_path):
    lines = [(C, b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}')]
    lines += [(S, b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1}}')] * 50
    lines += [(S, b'{"jsonrpc":"2.0","id":"s1","method":"roots/list"}'),
              (C, b'{"jsonrpc":"2.0","id":"s1","result":{}}'),
              (S, b'{"jsonrpc":"2.0","id":"s2","method":"elicitation/create","params":{}}'),
              (S, b'{"jsonrpc":"2.0","id":1,"result":{}}')]
    index = ServeIndex(write(tmp_path / "asks.jsonl", lines))
    try:
        assert index.server_requests == every_server_message_that_asks(index) == 2
        assert len(index) == 1
    finally:
        index.close()
