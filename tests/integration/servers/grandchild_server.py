"""Starts a grandchild that ignores SIGTERM and keeps the server's stdout and stderr open, then behaves.

The grandchild's pid is written to the file named by argv[1]. When stdin closes the server exits but the
grandchild stays: only killing the whole process group (with SIGKILL, since it ignores SIGTERM) ends it.
"""

import os
import subprocess
import sys

from _wire import serve

GRANDCHILD = (
    "import os, signal, sys\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "os.write(int(sys.argv[1]), b'ready\\n')\n"
    "while True:\n"
    "    signal.pause()\n"
)

if __name__ == "__main__":
    pid_file = sys.argv[1]
    ready_r, ready_w = os.pipe()
    # Inherits stdout and stderr (the pipes to the inspector) and stays in the server's process group.
    child = subprocess.Popen([sys.executable, "-c", GRANDCHILD, str(ready_w)], stdin=subprocess.DEVNULL,
                             pass_fds=(ready_w,))
    os.close(ready_w)
    with os.fdopen(ready_r, "rb") as ready:
        ready.readline()  # SIGTERM is ignored from here on
    with open(pid_file + ".tmp", "w") as f:
        f.write(str(child.pid))
    os.replace(pid_file + ".tmp", pid_file)
    serve("grandchild-server")
    # stdin closed: exit, leaving the grandchild behind (no wait, no kill)
    os._exit(0)
