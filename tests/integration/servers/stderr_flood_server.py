"""Writes 1 MiB to stderr before answering initialize, then behaves.

A client that does not drain stderr while it waits deadlocks here: the pipe buffer (64 KiB) fills, the server
blocks in write() and never answers.
"""

from _wire import serve, stderr, write_raw

LINES = 16384
LINE_BYTES = 64  # with the newline: 16384 * 64 = 1 MiB


def flood() -> bytes:
    lines = []
    for i in range(LINES):
        head = f"flood line {i:05d} "
        lines.append(head + "x" * (LINE_BYTES - 1 - len(head)) + "\n")
    return "".join(lines).encode("ascii")


if __name__ == "__main__":
    data = flood()
    assert len(data) == 1 << 20
    write_raw(data, stderr)
    serve("stderr-flood-server")
