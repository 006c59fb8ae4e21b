"""Writes COUNT notifications of about SIZE bytes to stdout as fast as it can, then exits (stdin is ignored)."""

import json
import sys

count, size = int(sys.argv[1]), int(sys.argv[2])
line = json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": ""}})
pad = max(0, size - len(line) - 1)
body = (json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "x" * pad}})
        + "\n").encode()
out = sys.stdout.buffer
batch = body * 256
for _ in range(count // 256):
    out.write(batch)
out.write(body * (count % 256))
out.flush()
