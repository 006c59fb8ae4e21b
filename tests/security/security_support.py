"""Shared by the security rows (imported as ``security_support``): what sockets a process holds, which
processes are the inspector's, and a loopback TCP server that accepts and never answers."""

from __future__ import annotations

import os
import socket
from pathlib import Path

TCP_LISTEN = "0A"


def socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def _table(*names: str) -> list[list[str]]:
    rows = []
    for name in names:
        path = Path("/proc/net") / name
        if path.exists():
            rows += [row.split() for row in path.read_text().splitlines()[1:]]
    return rows


def listening_tcp_inodes() -> set[str]:
    return {fields[9] for fields in _table("tcp", "tcp6") if fields[3] == TCP_LISTEN}


def tcp_inodes() -> set[str]:
    return {fields[9] for fields in _table("tcp", "tcp6")}


def udp_inodes() -> set[str]:
    return {fields[9] for fields in _table("udp", "udp6")}


def unix_listening_paths(inodes: set[str]) -> list[str]:
    """Paths of the listening Unix sockets among ``inodes`` (flags 00010000 = __SO_ACCEPTCON)."""
    return [fields[7] for fields in _table("unix") if len(fields) > 7 and fields[6] in inodes
            and fields[3] == "00010000"]


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if ppid == pid:
                found.append(int(entry.name))
    return found


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def inspector_processes(root: int) -> list[int]:
    """``root`` and its descendants running the same program (a tap forks its recorder); not the server."""
    own = cmdline(root)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid == root or cmdline(pid) == own:
            found.append(pid)
            todo += children(pid)
    return found


def network_sockets(pids: list[int]) -> dict[str, set[str]]:
    """The TCP listeners, all TCP sockets and UDP sockets these processes hold (by inode)."""
    held = set().union(*(socket_inodes(pid) for pid in pids))
    return {"tcp listening": held & listening_tcp_inodes(), "tcp": held & tcp_inodes(), "udp": held & udp_inodes()}


class SilentTcpServer:
    """A loopback TCP port that accepts connections (in the kernel's backlog) and never answers: an HTTP server
    that hangs, so a client stays connected long enough to be looked at. Lives in the test process."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def connected_inodes(self) -> set[str]:
        """Inodes of sockets connected to this port (the client's side)."""
        port = f"{self.port:04X}"
        return {fields[9] for fields in _table("tcp", "tcp6") if fields[2].endswith(":" + port)}

    def close(self) -> None:
        self.sock.close()
