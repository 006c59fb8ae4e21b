"""Answers initialize, then writes the first half of its tools/list answer and nothing more: it hangs half-way
through a line long before the inspector stops it, so the cut line is its own doing, not the stop's."""

import json
import signal

from _wire import initialize_result, messages, send, write_raw

if __name__ == "__main__":
    for message in messages():
        if message.get("method") == "initialize":
            send(initialize_result(message, "stalls-mid-line-server"))
        elif message.get("method") == "tools/list":
            answer = {"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}}
            write_raw(json.dumps(answer, separators=(",", ":")).encode("utf-8")[:20])
    while True:  # stdin closed: still hanging, until the inspector's SIGTERM
        signal.pause()
