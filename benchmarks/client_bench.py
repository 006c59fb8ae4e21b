"""``mcp-inspector test-client``: how long every default scenario takes against the Python SDK's client (the tiny
client of tests/data/clients/sdk_client.py), against a baseline measured in the same loop: the same client run
once against the ``handshake`` scenario server directly, without the bench (its start and handshake are most of
each scenario's time).

Goal (issue 42): all default scenarios under 60 s on the project's 2-core machine.
Run: python benchmarks/client_bench.py [--runs 3]
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
CLIENT = [sys.executable, str(ROOT / "tests" / "data" / "clients" / "sdk_client.py"), "--"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    totals: list[float] = []
    alone: list[float] = []
    per: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(options.runs):
            start = time.monotonic()
            subprocess.run([*CLIENT, sys.executable, "-m", "inspector", "scenario-server", "handshake", "--out",
                            str(Path(tmp) / f"alone-{run}.jsonl")], env=env, check=True, timeout=60)
            alone.append(time.monotonic() - start)
            report = Path(tmp) / f"run-{run}.json"
            start = time.monotonic()
            subprocess.run([sys.executable, "-m", "inspector", "test-client", "--report", str(report), "--", *CLIENT],
                           env=env, timeout=600, stderr=subprocess.DEVNULL)
            totals.append(time.monotonic() - start)
            for scenario in json.loads(report.read_text())["scenarios"]:
                per.setdefault(scenario["name"], []).append(scenario["seconds"])
                if scenario["status"] != "passed":
                    print(f"note: {scenario['name']} {scenario['status']}")
    print(f"{'scenario':<16} {'median s':>8}")
    for name, seconds in per.items():
        print(f"{name:<16} {statistics.median(seconds):8.2f}")
    print(f"{'client alone':<16} {statistics.median(alone):8.2f}   (baseline: one run against the handshake server)")
    print(f"{'all scenarios':<16} {statistics.median(totals):8.2f}   (the whole test-client run, median of "
          f"{options.runs})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
