"""Peak memory of a command's whole process tree (the inspector and the server it starts), read from /proc:
what issue 26 measured with /usr/bin/time -v, for the tests that bound it."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: How often the tree is looked at; each process's own high-water mark (VmHWM) covers what happens between.
POLL_SECONDS = 0.01


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    peak_mib: float  #: the sum of each process's peak resident memory (never less than the tree's peak)
    seconds: float


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        kids.setdefault(ppid, []).append(int(name))
    return kids


def _hwm_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_measured(argv: Sequence[str], *, timeout: float, env: dict[str, str] | None = None,
                 cwd: str | os.PathLike[str] | None = None) -> Run:
    """Run ``argv``; the peak of its process tree is the sum over its processes of the largest VmHWM seen."""
    started = time.monotonic()
    process = subprocess.Popen(list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd,
                               start_new_session=True)
    peaks: dict[int, int] = {}
    out: list[bytes] = []
    err: list[bytes] = []
    import threading

    readers = [threading.Thread(target=lambda s=s, b=b: b.append(s.read()), daemon=True)
               for s, b in ((process.stdout, out), (process.stderr, err))]
    for reader in readers:
        reader.start()
    try:
        while process.poll() is None:
            if time.monotonic() - started > timeout:
                raise TimeoutError(f"{argv[:4]} still running after {timeout:g} s")
            kids = _children()
            stack = [process.pid]
            while stack:
                pid = stack.pop()
                peaks[pid] = max(peaks.get(pid, 0), _hwm_kib(pid))
                stack += kids.get(pid, [])
            time.sleep(POLL_SECONDS)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, 9)
            process.wait()
    for reader in readers:
        reader.join(10)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()
    return Run(process.returncode, b"".join(out).decode(errors="replace"), b"".join(err).decode(errors="replace"),
               sum(peaks.values()) / 1024, time.monotonic() - started)
