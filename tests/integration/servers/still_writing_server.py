"""Answers like a well-behaved server until its stdin closes, then floods log notifications without end: it is
still writing when the shutdown grace is over and the inspector has to end it with SIGTERM.

Each notification goes out in two writes, its first half, a pause, then the rest with its newline. SIGTERM is
blocked except during that pause, so the signal always finds the server half-way through a line: the cut is
where a real flood's cut almost always is, but never by chance.

``--in-a-child``: the server itself exits when its stdin closes, but a child it forks on the way out (same
process group, same stdout) writes 100 more lines and half of one, and keeps the pipe open: the inspector
stops reading it once the server has exited and the drain grace is over.
"""

import json
import os
import signal
import sys
import time

from _wire import initialize_result, serve, write_raw

#: Where each line is cut in two (the test restates it).
HALF = 40


def line(number: int) -> bytes:
    note = {"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "logger": "flood", "data": f"flood line {number:06d}"}}
    return json.dumps(note, separators=(",", ":")).encode("utf-8") + b"\n"


def declare_logging(request: dict) -> dict | None:
    """initialize declares the logging capability its notifications/message need; the rest is the default."""
    if request.get("method") != "initialize":
        return None
    answer = initialize_result(request, "still-writing-server")
    answer["result"]["capabilities"]["logging"] = {}
    return answer


if __name__ == "__main__":
    serve("still-writing-server", declare_logging)
    if "--in-a-child" in sys.argv:
        if os.fork():
            os._exit(0)
        for number in range(1, 101):
            write_raw(line(number))
        write_raw(line(101)[:HALF])
        while True:
            signal.pause()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    number = 0
    while True:
        number += 1
        data = line(number)
        write_raw(data[:HALF])
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})  # a pending SIGTERM ends us here
        time.sleep(0.001)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        write_raw(data[HALF:])
