"""A stdio server (standard library only) that says its tool list changed all the time.

It answers every ``tools/list`` with the list *and* a ``notifications/tools/list_changed`` (the server of issue 25
that made the window list its tools 1,538 times in 12 s), and once initialized it also floods the notification
every 10 ms for FLOOD_SECONDS; then it logs "flood over" (``notifications/message``) and goes quiet, so a test can
wait for that line instead of sleeping. ``--declare`` declares ``tools.listChanged``; without it the server sends
the notification without declaring it, which the protocol forbids.
"""

import json
import sys
import threading
import time

FLOOD_SECONDS = 2.5
FLOOD_EVERY = 0.01
DECLARE = "--declare" in sys.argv
lock = threading.Lock()


def send(obj):
    with lock:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()


def list_changed():
    send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})


def flood():
    end = time.monotonic() + FLOOD_SECONDS
    while time.monotonic() < end:
        list_changed()
        time.sleep(FLOOD_EVERY)
    send({"jsonrpc": "2.0", "method": "notifications/message",
          "params": {"level": "info", "logger": "loop", "data": "flood over"}})


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        method, msg_id = msg.get("method"), msg.get("id")
        if method == "initialize":
            tools = {"listChanged": True} if DECLARE else {}
            send({"jsonrpc": "2.0", "id": msg_id, "result": {
                "protocolVersion": msg["params"]["protocolVersion"],
                "capabilities": {"tools": tools, "logging": {}},
                "serverInfo": {"name": "list-changed-loop", "version": "1"}}})
        elif method == "notifications/initialized":
            threading.Thread(target=flood, daemon=True).start()
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": msg_id, "result": {"tools": [
                {"name": "noop", "description": "Does nothing.",
                 "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}]}})
            list_changed()
        elif msg_id is not None and method is not None:
            send({"jsonrpc": "2.0", "id": msg_id, "result": {}} if method == "ping" else
                 {"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32601, "message": f"no method {method}"}})


if __name__ == "__main__":
    main()
