"""A stdio "server" that writes N JSON-RPC notifications of about SIZE bytes to stdout as fast as it can.

The payload is built before writing, so the server's own cost is a few large writes and both measured
paths read the same bytes at the same speed. Usage: flood_server.py COUNT SIZE
"""

import json
import sys


def payload(count: int, size: int) -> bytes:
    lines = []
    for i in range(count):
        msg = {"jsonrpc": "2.0", "method": "notifications/message",
               "params": {"level": "info", "logger": "flood", "data": {"i": i, "text": ""}}}
        base = len(json.dumps(msg, separators=(",", ":")))
        msg["params"]["data"]["text"] = "x" * max(0, size - 1 - base)
        lines.append(json.dumps(msg, separators=(",", ":")))
    return ("\n".join(lines) + "\n").encode()


def main() -> None:
    count, size = int(sys.argv[1]), int(sys.argv[2])
    data = payload(count, size)
    out = sys.stdout.buffer
    view = memoryview(data)
    for start in range(0, len(data), 1 << 20):
        out.write(view[start : start + (1 << 20)])
    out.flush()


if __name__ == "__main__":
    main()
