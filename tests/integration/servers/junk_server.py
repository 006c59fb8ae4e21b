"""Writes junk on stdout before its first message, then behaves.

``--banner``: a line of plain text (a startup print()). ``--non-utf8``: a line of Latin-1 bytes that are not
UTF-8. Both may be given; they are written in that order.
"""

import sys

from _wire import serve, write_raw

BANNER = b"Welcome to BannerServer v1.0 (stdio mode)\n"
#: "café ÿ" in Latin-1: E9 and FF can never appear in UTF-8 like this.
NON_UTF8 = b"caf\xe9 \xff status: ready\n"

if __name__ == "__main__":
    if "--banner" in sys.argv:
        write_raw(BANNER)
    if "--non-utf8" in sys.argv:
        write_raw(NON_UTF8)
    serve("junk-server")
