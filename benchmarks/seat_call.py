"""The agent seat's ``call_tool`` against the same one-shot ``call`` (issue 44: at most 0.1 s more).

    python benchmarks/seat_call.py [--runs 7]

Both call the bundled demo server's ``add`` (2 + 3). The one-shot figure is the wall time of
``mcp-inspector call add ... -- python -m inspector.demo`` from its start to its exit; the seat's is the time
from writing the ``tools/call`` request to a running ``mcp-inspector mcp`` to reading its answer (the seat is
started once, before, as an agent's client starts it). The runs alternate so both see the same machine;
medians are printed with the difference.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

DEMO = [sys.executable, "-m", "inspector.demo"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    folder = tempfile.mkdtemp(prefix="seat-bench-")
    seat = subprocess.Popen([sys.executable, "-m", "inspector", "mcp", "--captures", folder],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert seat.stdin is not None and seat.stdout is not None

    def ask(message: dict[str, Any]) -> dict[str, Any]:
        assert seat.stdin is not None and seat.stdout is not None
        seat.stdin.write(json.dumps(message).encode() + b"\n")
        seat.stdin.flush()
        answer: dict[str, Any] = json.loads(seat.stdout.readline())
        return answer

    ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
                                                                        "capabilities": {}}})
    oneshot, through = [], []
    for run in range(runs):
        started = time.monotonic()
        subprocess.run([sys.executable, "-m", "inspector", "call", "add", "--args", '{"a": 2, "b": 3}', "--json",
                        "--out", f"{folder}/oneshot.jsonl", "--", *DEMO], capture_output=True, check=True)
        oneshot.append(time.monotonic() - started)
        started = time.monotonic()
        answer = ask({"jsonrpc": "2.0", "id": run + 1, "method": "tools/call", "params": {
            "name": "call_tool", "arguments": {"target": {"command": DEMO}, "tool": "add",
                                               "arguments": {"a": 2, "b": 3}}}})
        through.append(time.monotonic() - started)
        assert answer["result"]["structuredContent"]["result"]["structuredContent"] == {"sum": 5}, answer
    seat.stdin.close()
    seat.wait()
    a, b = statistics.median(oneshot), statistics.median(through)
    print(f"one-shot call: median {a:.3f} s; through the seat: median {b:.3f} s; difference {b - a:+.3f} s "
          f"({runs} runs each)")


if __name__ == "__main__":
    main()
