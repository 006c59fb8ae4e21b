"""The serve index parses recorded messages with orjson where it reads them exactly as ``json.loads`` does, and with
``json.loads`` where it would not: the messages it serves are those of the events either way."""

from __future__ import annotations

import json
from pathlib import Path

from lines_capture import write_lines

from inspector.core.serve.index import ServeIndex
from inspector.core.wire.events import Direction

C, S = Direction.C2S, Direction.S2C

#: what orjson reads otherwise than json.loads, or refuses
AWKWARD = [
    (C, b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"n":123456789012345678901234567890}}'),
    (S, b'{"jsonrpc":"2.0","id":1,"result":{"x":NaN,"y":Infinity,"z":-Infinity}}'),
    (C, b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"s":"\\ud800 lone"}}'),
    (S, b'{"jsonrpc":"2.0","id":2,"result":{"big":1e400,"tiny":5e-324,"neg":-0.0}}'),
    (C, b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"a":1,"a":2}}'),  # a repeated key: the last
    (S, b'{"jsonrpc":"2.0","id":3,"result":' + b'[' * 1100 + b']' * 1100 + b'}'),  # deeper than orjson reads
    (C, b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"u":"\\u0000\\u00e9\\ud83d\\ude00"}}'),
    (S, b'{"jsonrpc":"2.0","id":4,"result":{"n":-9223372036854775809,"m":18446744073709551615}}'),
]


def write(path: Path) -> Path:
    return write_lines(path, AWKWARD)


def test_messages_orjson_would_read_otherwise_are_read_as_json_loads_reads_them(tmp_path):
    index = ServeIndex(write(tmp_path / "awkward.jsonl"))
    try:
        for row in range(len(index.capture)):
            try:
                want = json.loads(index.event(row).raw)
            except RecursionError:  # too deep for json.loads too: no message, as before
                want = {}
            got = index.message(row)
            assert json.dumps(got) == json.dumps(want)  # NaN == NaN only as text
            assert [type(v) for v in _leaves(got)] == [type(v) for v in _leaves(want)]
    finally:
        index.close()


def _leaves(value: object) -> list[object]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]
