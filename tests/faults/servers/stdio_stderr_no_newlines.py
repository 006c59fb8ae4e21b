"""Floods stderr with progress dots and never a newline (``--mib N``, default 16 MiB), then exits with
code 1 without answering: a crash after a progress bar, or a minified stack trace on one line.

The dots are written before stdin is read, so a client that does not drain stderr deadlocks here.
"""

import os
import sys

MIB = int(sys.argv[sys.argv.index("--mib") + 1]) if "--mib" in sys.argv else 16
HEAD = b"downloading weights "
TAIL = b" error: disk full"

if __name__ == "__main__":
    os.write(2, HEAD)
    chunk = b"." * (1 << 20)
    for _ in range(MIB):
        view = memoryview(chunk)
        while view:
            view = view[os.write(2, view):]
    os.write(2, TAIL)  # still no newline
    raise SystemExit(1)
