"""Reads the first request, writes one line to stderr and exits with code 3 without answering."""

import sys

from _wire import log, stdin

MESSAGE = "fatal: cannot open database /nonexistent/db.sqlite"

if __name__ == "__main__":
    if "--immediately" not in sys.argv:
        stdin.readline()
    log(MESSAGE)
    raise SystemExit(3)
