"""Reads stdin forever and never answers anything (exits when stdin closes).

``--ready FIFO``: after the first line arrives (so the client has sent its first request), write ``ready`` to
the named pipe FIFO, so that a test knows the conversation is under way without polling.
"""

import sys

from _wire import stdin

if __name__ == "__main__":
    ready = sys.argv[sys.argv.index("--ready") + 1] if "--ready" in sys.argv else None
    for _ in stdin:
        if ready is not None:
            with open(ready, "w") as fifo:
                fifo.write("ready\n")
            ready = None
