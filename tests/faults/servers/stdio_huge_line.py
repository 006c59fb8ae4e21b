"""Answers initialize, then answers tools/list with one line of ``--mib N`` MiB (default 200; over any
limit), generated in 1 MiB pieces so neither it nor the test ever holds the line, then behaves.

The line is a complete, valid JSON-RPC response: only its size is wrong.
"""

import json
import os
import sys

import stdio_wire  # noqa: F401 - makes _wire importable
from _wire import default_reply, messages, send

MIB = int(sys.argv[sys.argv.index("--mib") + 1]) if "--mib" in sys.argv else 200
PIECE = 1 << 20


def write_all(data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(1, view):]


def huge_answer(request_id: object) -> None:
    head = b'{"jsonrpc":"2.0","id":' + json.dumps(request_id).encode() + b',"result":{"tools":[],"_meta":{"padding":"'
    tail = b'"}}}\n'
    padding = MIB * PIECE - len(head) - len(tail)
    write_all(head)
    piece = b"x" * PIECE
    while padding > 0:
        write_all(piece[:padding])
        padding -= PIECE
    write_all(tail)


if __name__ == "__main__":
    for message in messages():
        if "id" not in message or "method" not in message:
            continue
        if message["method"] == "tools/list":
            huge_answer(message["id"])
        else:
            send(default_reply(message, "huge-line-server"))
