"""One-shot ``call``: wall time and peak memory of ``mcp-inspector call`` against the official MCP Inspector's
CLI (npm ``@modelcontextprotocol/inspector --cli``), on four real servers, in the same run (issue 14, point 5).

    python benchmarks/oneshot_call.py [--runs 5] [--only everything,time]

Each tool call runs ``--runs`` times per client, the clients alternating so that both see the same machine.
Wall time is from the start of the client's process to its exit (it starts the server, calls the tool,
prints the result and shuts the server down). Peak memory is the largest sum of the resident set sizes of the
client's whole process tree (the client, its helpers, the server and the server's children), sampled from
/proc every few milliseconds: both clients' trees hold the same server. Medians are printed, with the ratio
ours / official; the goals are at most 0.8 for time and 0.5 for memory.

The npm packages are installed (pinned) into the test cache, as the tests install server-everything
(tests/npm_servers.py); the official CLI is run with node directly (its launcher script, as ``npx`` would after
resolving it), which is the fastest way to start it. Linux only (/proc).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from npm_servers import (  # noqa: E402 - the tests' installer, found through the path set just above
    EVERYTHING_PACKAGE,
    EVERYTHING_VERSION,
    FILESYSTEM_PACKAGE,
    FILESYSTEM_VERSION,
    MEMORY_PACKAGE,
    MEMORY_VERSION,
    OFFICIAL_INSPECTOR_PACKAGE,
    OFFICIAL_INSPECTOR_VERSION,
    install_package,
)

#: how often the process tree's memory is sampled (a short-lived helper between two samples is missed)
SAMPLE_INTERVAL = 0.005
#: bound on one client run (node start-up on a busy machine, a server that hangs)
RUN_TIMEOUT = 120.0
PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass
class Case:
    name: str
    server: list[str]
    tool: str
    args: list[str]  #: KEY=VALUE
    env: dict[str, str]

    @property
    def marker(self) -> str:
        """What only the server's command line holds: its script."""
        return self.server[1] if len(self.server) > 1 and self.server[0].endswith("node") else self.server[0]


@dataclass
class Run:
    wall: float
    peak_rss: int  #: bytes, the whole tree
    peak_client: int  #: bytes, the tree without the server
    ok: bool


def children_of() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        tree.setdefault(int(fields[1]), []).append(int(entry.name))
    return tree


def tree_rss(root: int, marker: str) -> tuple[int, int]:
    """The resident memory of ``root`` and all its descendants, and of the client's part of them (the tree
    without the server: the process whose command line holds ``marker``, and its descendants), in bytes."""
    tree = children_of()
    total = server = 0
    stack = [(root, False)]
    while stack:
        pid, in_server = stack.pop()
        try:
            with open(f"/proc/{pid}/statm", "rb") as statm:
                rss = int(statm.read().split()[1]) * PAGE
            if not in_server:
                with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                    # the server's own command line starts with its script (a client names it further on)
                    in_server = marker.encode() in cmdline.read().split(b"\0")[:2]
        except (OSError, IndexError, ValueError):
            continue
        total += rss
        server += rss if in_server else 0
        stack.extend((child, in_server) for child in tree.get(pid, []))
    return total, total - server


def measure(argv: list[str], env: dict[str, str], marker: str) -> Run:
    started = time.monotonic()
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               env={**os.environ, **env})
    peak = client = 0
    while process.poll() is None:
        whole, without_server = tree_rss(process.pid, marker)
        peak, client = max(peak, whole), max(client, without_server)
        if time.monotonic() - started > RUN_TIMEOUT:
            process.kill()
            break
        time.sleep(SAMPLE_INTERVAL)
    assert process.stdout is not None
    out = process.stdout.read()
    process.wait()
    wall = time.monotonic() - started
    return Run(wall, peak, client, process.returncode == 0 and len(out) > 0)


def ours(case: Case) -> list[str]:
    return [sys.executable, "-m", "inspector", "call", case.tool, *case.args, "--", *case.server]


def official(launcher: Path, case: Case) -> list[str]:
    argv = [shutil.which("node") or "node", str(launcher), "--cli", *case.server, "--method", "tools/call",
            "--tool-name", case.tool]
    for arg in case.args:
        argv += ["--tool-arg", arg]
    return argv


def cases(work: Path) -> list[Case]:
    node, everything = install_package(EVERYTHING_PACKAGE, EVERYTHING_VERSION, "dist/index.js")
    _, filesystem = install_package(FILESYSTEM_PACKAGE, FILESYSTEM_VERSION, "dist/index.js")
    _, memory = install_package(MEMORY_PACKAGE, MEMORY_VERSION, "dist/index.js")
    time_server = Path(sys.executable).parent / "mcp-server-time"
    shared = work / "shared"
    shared.mkdir(exist_ok=True)
    (shared / "hello.txt").write_text("hello\n")
    return [
        Case("everything", [node, str(everything), "stdio"], "get-sum", ["a=2", "b=3"], {}),
        Case("filesystem", [node, str(filesystem), str(shared)], "list_allowed_directories", [], {}),
        Case("memory", [node, str(memory)], "read_graph", [], {"MEMORY_FILE_PATH": str(work / "memory.jsonl")}),
        Case("time", [str(time_server) if time_server.exists() else "mcp-server-time", "--local-timezone", "UTC"],
             "get_current_time", ["timezone=UTC"], {}),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated case names (everything,filesystem,memory,time)")
    options = parser.parse_args()
    _, launcher_js = install_package(OFFICIAL_INSPECTOR_PACKAGE, OFFICIAL_INSPECTOR_VERSION,
                                     "clients/launcher/build/index.js")
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    with tempfile.TemporaryDirectory() as tmp:
        chosen = [c for c in cases(Path(tmp)) if not options.only or c.name in options.only.split(",")]
        print(f"{'server':<12} {'ours s':>7} {'official s':>10} {'time x':>6}   {'tree MiB ours/official':>22} "
              f"{'x':>5}   {'client MiB ours/official':>24} {'x':>5}")
        for case in chosen:
            mine: list[Run] = []
            theirs: list[Run] = []
            for _ in range(options.runs):
                mine.append(measure(ours(case), {**env, **case.env}, case.marker))
                theirs.append(measure(official(launcher_js, case), case.env, case.marker))
            if not all(r.ok for r in mine + theirs):
                print(f"{case.name}: a run failed (ours ok: {[r.ok for r in mine]}, official ok: "
                      f"{[r.ok for r in theirs]})")
            t_mine = statistics.median(r.wall for r in mine)
            t_theirs = statistics.median(r.wall for r in theirs)
            m_mine = statistics.median(r.peak_rss for r in mine) / 2**20
            m_theirs = statistics.median(r.peak_rss for r in theirs) / 2**20
            c_mine = statistics.median(r.peak_client for r in mine) / 2**20
            c_theirs = statistics.median(r.peak_client for r in theirs) / 2**20
            print(f"{case.name:<12} {t_mine:>7.3f} {t_theirs:>10.3f} {t_mine / t_theirs:>6.2f}   "
                  f"{m_mine:>10.1f} / {m_theirs:>9.1f} {m_mine / m_theirs:>5.2f}   "
                  f"{c_mine:>11.1f} / {c_theirs:>10.1f} {c_mine / c_theirs:>5.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
