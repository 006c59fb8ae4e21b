"""Answers initialize, then answers the next request without the final newline and exits.

A client reading lines never sees that last answer: the inspector must report it as an unterminated line.
"""

import json

from _wire import initialize_result, messages, send, write_raw

if __name__ == "__main__":
    for message in messages():
        if message.get("method") == "initialize":
            send(initialize_result(message, "unterminated-server"))
        elif "id" in message and "method" in message:
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}}
            write_raw(json.dumps(reply, separators=(",", ":")).encode("utf-8"))  # no newline
            raise SystemExit(0)
