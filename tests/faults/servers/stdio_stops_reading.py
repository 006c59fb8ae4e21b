"""Answers initialize, then never reads its stdin again (and never exits by itself).

A client that writes more than the pipe holds (64 KiB on Linux) blocks: the write can never finish.
"""

import json
import signal

import stdio_wire  # noqa: F401 - makes _wire importable
from _wire import initialize_result, send, stdin

if __name__ == "__main__":
    request = json.loads(stdin.readline())
    send(initialize_result(request, "stops-reading-server"))
    while True:
        signal.pause()  # stdin is never read again; SIGTERM (default action) ends it
