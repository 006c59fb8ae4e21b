"""A server that answers like a plain one, ignores SIGTERM, keeps running after its stdin closes, and leaves a
grandchild in a session of its own (out of the server's process group, so killing the group misses it), also
ignoring SIGTERM, holding the server's stdout open. Usage: ``python stdio_hold.py PIDFILE``: the grandchild's pid
is added there (one line per start: ``check`` starts the server several times), for the test to end it.

Copied from the adversarial pass of issue 26 (hold.py): ``check`` printed two "Event loop is closed" tracebacks
against it, from asyncio's subprocess transport collected after the event loop had closed.
"""

import signal
import subprocess
import sys
import time
from pathlib import Path

HOLDER = ("import os, signal, time\n"
          "os.setsid()\n"
          "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
          "time.sleep(120)\n")

if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER])
    with open(sys.argv[1], "a") as pids:
        pids.write(f"{holder.pid}\n")
    sys.argv = [sys.argv[0], "plain"]
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import stdio_hostile

    try:
        stdio_hostile.main()
    finally:
        time.sleep(120)
