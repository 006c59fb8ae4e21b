"""Starts a helper process that ignores SIGTERM and inherits stdout and stderr (the pipes to the client),
then fails: one line on stderr, exit code 2, without answering anything.

The helper keeps the pipes open, so a client waiting for end-of-file on stdout never gets it; only killing
the whole process group (SIGKILL, since SIGTERM is ignored) ends it. Its pid goes to the file named by argv[1].
"""

import os
import subprocess
import sys

HELPER = (
    "import os, signal, sys\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "os.write(int(sys.argv[1]), b'ready\\n')\n"
    "while True:\n"
    "    signal.pause()\n"
)
MESSAGE = b"fatal: worker pool failed to start (port 7777 in use)\n"

if __name__ == "__main__":
    pid_file = sys.argv[1]
    ready_r, ready_w = os.pipe()
    helper = subprocess.Popen([sys.executable, "-c", HELPER, str(ready_w)], stdin=subprocess.DEVNULL,
                              pass_fds=(ready_w,))
    os.close(ready_w)
    with os.fdopen(ready_r, "rb") as ready:
        ready.readline()  # SIGTERM is ignored from here on
    with open(pid_file + ".tmp", "w") as f:
        f.write(str(helper.pid))
    os.replace(pid_file + ".tmp", pid_file)
    os.write(2, MESSAGE)
    os._exit(2)  # no wait for the helper: it stays behind, holding the pipes
