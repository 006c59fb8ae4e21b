"""The process a warm test server runs as (tests/warm_python.py): ``python -I -S warm_python_client.py (FILE |
-m NAME) ARGS...`` has the script zygote (tests/warm_cli_zygote.py, mode ``scripts``) fork the server with
this process's stdin, stdout, stderr, folder and environment, and then stands for it until it ends.

What whoever started this process sees is what ``python FILE ARGS`` would give them: the server's bytes on
the pipes, its exit status (a signal that ended the server ends this process with the same signal), and the
signals sent to this process (or its process group) reach the server's. Killed outright (SIGKILL), this
process closes its connection and the zygote kills the server. Where no zygote is named
(``MCP_INSPECTOR_TESTS_WARM_PYTHON`` unset, as in an environment a test built from nothing) or it does not
answer, this process becomes ``python FILE ARGS`` itself (exec).

Started with ``-I -S``, it imports nothing but the standard library's core: its start costs about 10 ms of CPU,
where the SDK's server costs 0.8 s to import.
"""

from __future__ import annotations

import array
import json
import os
import signal
import socket
import sys

VARIABLE = "MCP_INSPECTOR_TESTS_WARM_PYTHON"
#: What reaches the server when it reaches this process (SIGKILL and SIGSTOP cannot be caught: SIGKILL ends
#: the server through the zygote; no warm server is one a test freezes).
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)


def cold(argv: list[str]) -> None:
    os.execv(sys.executable, [sys.executable, *argv])


def read_line(conn: socket.socket, buffer: bytearray) -> bytes:
    while b"\n" not in buffer:
        chunk = conn.recv(4096)
        if not chunk:
            return b""
        buffer += chunk
    line, _, rest = bytes(buffer).partition(b"\n")
    buffer[:] = rest
    return line


def main() -> None:
    argv = sys.argv[1:]
    if argv[:1] == ["-m"]:
        run, args = {"module": argv[1]}, argv[2:]
    else:
        run, args = {"path": os.path.abspath(argv[0])}, argv[1:]
    path = os.environ.get(VARIABLE)
    if not path:
        cold(argv)
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError:
        cold(argv)
    request = {"run": run, "argv": args, "cwd": os.getcwd(), "env": dict(os.environ), "session": True,
               "sigint": "ignore" if signal.getsignal(signal.SIGINT) is signal.SIG_IGN else "default"}
    conn.sendmsg([json.dumps(request).encode() + b"\n"],
                 [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [0, 1, 2]))])
    buffer = bytearray()
    line = read_line(conn, buffer)
    if not line:
        cold(argv)  # the zygote refused the request before forking: nothing of the server ran
    pid = int(line)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the server holds the pipes now: they end when it does, not when this process does
        os.dup2(devnull, fd)

    def forward(sig: int, _frame: object) -> None:
        try:
            os.killpg(pid, sig)
        except OSError:
            pass

    for sig in FORWARDED:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, forward)
    line = read_line(conn, buffer)
    conn.close()
    if not line.startswith(b"exit "):
        os._exit(1)
    code = int(line.split()[1])
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        code = 128 - code
    os._exit(code)


if __name__ == "__main__":
    main()
