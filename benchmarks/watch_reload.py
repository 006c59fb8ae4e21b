"""Save to list_changed through ``tap --watch`` (issue 45: under 1.5 s for a Python SDK server).

A client speaking raw JSON lines connects through ``mcp-inspector tap --watch DIR -- python DIR/server.py`` (a
Python SDK ``MCPServer`` with one tool) and initializes. Each round rewrites server.py (a tool added, then removed
again, so the tools change every time) and measures from the write's return to the client's receipt of
``notifications/tools/list_changed``; then it lists the tools (the new server answers) before the next round.

Baseline, in the same run: the same server's cold start, from its spawn to its answer to ``initialize`` (a
reload starts the server anew, so it cannot beat that). Both are medians of ``--runs``, interleaved.

    python benchmarks/watch_reload.py [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER = '''\
from mcp.server.mcpserver import MCPServer

server = MCPServer("bench")


@server.tool()
def echo(text: str) -> str:
    """Echo the text."""
    return text

# TOOLS

if __name__ == "__main__":
    server.run()
'''
ADDED = '''
@server.tool()
def added(x: int) -> int:
    """Added on save."""
    return x
'''
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "bench", "version": "1"}}}


def send(process: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()


def read_until(process: subprocess.Popen[bytes], wanted: object, key: str = "id") -> dict[str, object]:
    assert process.stdout is not None
    while True:
        line = process.stdout.readline()
        if not line:
            raise SystemExit("the process closed its stdout")
        message = json.loads(line)
        if message.get(key) == wanted:
            return message


def cold_start(server: Path) -> float:
    """Spawn to the answer to initialize, for the server alone."""
    began = time.perf_counter()
    process = subprocess.Popen([sys.executable, str(server)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    send(process, INITIALIZE)
    read_until(process, 1)
    spent = time.perf_counter() - began
    assert process.stdin is not None
    process.stdin.close()
    process.wait(timeout=30)
    return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp, "srv")
        folder.mkdir()
        server = folder / "server.py"
        server.write_text(SERVER)
        # the baseline's server lives beside, not under the watched folder
        alone = Path(tmp, "alone.py")
        alone.write_text(SERVER)
        tap = subprocess.Popen(
            [sys.executable, "-m", "inspector", "tap", "--no-live", "--capture", str(Path(tmp, "c.jsonl")),
             "--watch", str(folder), "--", sys.executable, str(server)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
        assert tap.stderr is not None
        if b"watching" not in tap.stderr.readline():
            raise SystemExit("the tap did not start watching")
        send(tap, INITIALIZE)
        read_until(tap, 1)
        send(tap, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        baseline, reload = [], []
        for run in range(args.runs):
            baseline.append(cold_start(alone))
            server.write_text(SERVER.replace("# TOOLS", ADDED if run % 2 == 0 else ""))
            began = time.perf_counter()
            read_until(tap, "notifications/tools/list_changed", key="method")
            reload.append(time.perf_counter() - began)
            send(tap, {"jsonrpc": "2.0", "id": 100 + run, "method": "tools/list"})
            tools = read_until(tap, 100 + run)
            names = {tool["name"] for tool in tools["result"]["tools"]}  # type: ignore[index]
            assert ("added" in names) == (run % 2 == 0), names
        assert tap.stdin is not None
        tap.stdin.close()
        tap.wait(timeout=60)
    base, saved = statistics.median(baseline), statistics.median(reload)
    print(f"runs: {args.runs}")
    print("| path | median s | min s | max s | x baseline |")
    print("|---|---|---|---|---|")
    print(f"| baseline: the server's cold start to its initialize answer | {base:.3f} | {min(baseline):.3f} | "
          f"{max(baseline):.3f} | 1.00 |")
    print(f"| save to list_changed through tap --watch | {saved:.3f} | {min(reload):.3f} | {max(reload):.3f} | "
          f"{saved / base:.2f} |")
    print(f"bar: under 1.5 s: {'met' if saved < 1.5 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
