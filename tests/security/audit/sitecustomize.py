"""Loaded by every Python process started with this folder on PYTHONPATH (tests/security/test_file_access.py):
logs, as JSON lines to $MCP_INSPECTOR_AUDIT_LOG, every file system change the process asks for through Python
(PEP 578 audit events): opens for writing, mkdir, rename, remove, chmod, links, and Unix socket binds.

Reads are not logged (Python opens hundreds of files to import itself); the log is opened before the hook is
installed, and written with os.write, so logging never audits itself.
"""

from __future__ import annotations

import json
import os
import sys

_LOG = os.environ.get("MCP_INSPECTOR_AUDIT_LOG")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_CHANGES = {"os.mkdir", "os.rename", "os.remove", "os.rmdir", "os.chmod", "os.chown", "os.symlink", "os.link",
            "os.truncate", "os.utime", "shutil.copyfile", "shutil.copymode", "shutil.copystat", "shutil.move",
            "shutil.rmtree", "os.mkfifo", "os.mknod"}


def _install(fd: int) -> None:
    pid = os.getpid()
    argv = " ".join(getattr(sys, "orig_argv", sys.argv))

    def log(event: str, args: tuple) -> None:
        if os.getpid() != pid:  # a forked child: say so
            nonlocal_pid[0] = os.getpid()
        line = json.dumps({"pid": os.getpid(), "argv": argv, "event": event,
                           "args": [a if isinstance(a, (str, int, float, type(None))) else os.fsdecode(a)
                                    if isinstance(a, bytes) else repr(a) for a in args]})
        os.write(fd, line.encode() + b"\n")

    nonlocal_pid = [pid]

    def hook(event: str, args: tuple) -> None:
        try:
            if event == "open":
                path, mode, flags = args
                if path is None or isinstance(path, int):
                    return
                writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \
                    (isinstance(flags, int) and flags & _WRITE_FLAGS)
                if writing:
                    log(event, (path, mode, flags))
            elif event in _CHANGES:
                log(event, args)
            elif event == "socket.bind":
                sock, address = args
                log(event, (repr(sock.family), address if isinstance(address, (str, bytes)) else repr(address)))
        except Exception:  # an audit hook must never break the program it watches
            pass

    sys.addaudithook(hook)


if _LOG:
    _install(os.open(_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600))
