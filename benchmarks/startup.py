"""Start-up: how long `mcp-inspector --version` and showing the window take, each against a baseline run
in the same loop (the machine is shared, so only ratios to a baseline measured alongside mean much).

  --version   `python -m inspector --version`  vs  `python -c pass` (the interpreter's own start)
  window      `python -m inspector --exit-when-shown` (offscreen: it prints "shown" once the main window
              has painted, then quits)  vs  a bare PySide6 QMainWindow shown the same way

Each figure is the median of --runs runs, baseline and inspector interleaved. "Cold" here means a fresh
interpreter each time; the OS file cache is warm after the first run (dropping it needs root and a quiet
machine, and says more about the disk than about the program).

Goals (issue 7, item 5): --version under 0.3 s; the window shown under 1.5 s.
Run: python benchmarks/startup.py [--runs 5] [--importtime]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BARE_WINDOW = """
import sys
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication(sys.argv[:1])
window = QMainWindow()
window.resize(1320, 820)
class Watcher(QObject):
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            print("shown", flush=True)
            QTimer.singleShot(0, app.quit)
        return False
watcher = Watcher(window)
window.installEventFilter(watcher)
window.show()
app.exec()
"""


def timed(argv: list[str], expect: str, env: dict[str, str]) -> float:
    """Seconds from starting ``argv`` until it printed a line starting with ``expect`` (then it is waited for)."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT, env=env)
    assert proc.stdout is not None
    elapsed = None
    for line in proc.stdout:
        if line.startswith(expect):
            elapsed = time.perf_counter() - started
            break
    proc.stdout.read()
    proc.wait(timeout=60)
    if elapsed is None:
        raise RuntimeError(f"{argv} never printed {expect!r} (exit code {proc.returncode})")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--importtime", action="store_true", help="also print the 15 slowest imports of --version")
    args = parser.parse_args()
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    py = sys.executable
    cases = {
        "python -c pass": ([py, "-c", "print('x')"], "x"),
        "mcp-inspector --version": ([py, "-m", "inspector", "--version"], "mcp-inspector"),
        "bare PySide6 window shown": ([py, "-c", BARE_WINDOW], "shown"),
        "mcp-inspector window shown": ([py, "-m", "inspector", "--exit-when-shown"], "shown"),
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    for argv, expect in cases.values():  # one warm-up run each: the file cache, .pyc files
        timed(argv, expect, env)
    for _ in range(args.runs):
        for name, (argv, expect) in cases.items():
            times[name].append(timed(argv, expect, env))
    med = {name: statistics.median(values) for name, values in times.items()}
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, median of {args.runs} runs "
          f"(load average {os.getloadavg()[0]:.1f})")
    print(f"{'':28} {'median s':>9} {'min s':>7} {'x baseline':>11}")
    for name, base in (("python -c pass", None), ("mcp-inspector --version", "python -c pass"),
                       ("bare PySide6 window shown", None),
                       ("mcp-inspector window shown", "bare PySide6 window shown")):
        ratio = f"{med[name] / med[base]:.2f}" if base else "1.00"
        print(f"{name:28} {med[name]:9.3f} {min(times[name]):7.3f} {ratio:>11}")
    print(f"--version adds {med['mcp-inspector --version'] - med['python -c pass']:.3f} s to the interpreter's start "
          "(goal: under 0.3 s in all)")
    print(f"the window adds {med['mcp-inspector window shown'] - med['bare PySide6 window shown']:.3f} s to a bare "
          "PySide6 window (goal: shown under 1.5 s in all)")
    if args.importtime:
        out = subprocess.run([py, "-X", "importtime", "-m", "inspector", "--version"], capture_output=True,
                             text=True, cwd=ROOT, env=env).stderr
        rows = [line.split("|") for line in out.splitlines()
                if line.startswith("import time:") and "cumulative" not in line]
        rows.sort(key=lambda r: -int(r[1]))
        print("slowest imports of --version (cumulative µs):")
        for row in rows[:15]:
            print(f"  {int(row[1]):>8} {row[2].rstrip()}")


if __name__ == "__main__":
    main()
