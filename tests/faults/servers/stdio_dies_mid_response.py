"""Answers initialize, then starts a 1 MiB answer to tools/list, writes its first 100,000 bytes and is
killed by SIGKILL (as the out-of-memory killer would) in the middle of the line."""

import json
import os
import signal

import stdio_wire  # noqa: F401 - makes _wire importable
from _wire import initialize_result, messages, send

WRITTEN = 100_000

if __name__ == "__main__":
    for message in messages():
        if message.get("method") == "initialize":
            send(initialize_result(message, "dies-mid-response-server"))
        elif message.get("method") == "tools/list":
            answer = json.dumps({"jsonrpc": "2.0", "id": message["id"],
                                 "result": {"tools": [], "_meta": {"padding": "x" * (1 << 20)}}}).encode()
            view = memoryview(answer[:WRITTEN])
            while view:
                view = view[os.write(1, view):]
            os.kill(os.getpid(), signal.SIGKILL)
