"""GUI under flood: a stdio server sends 20,000 notifications a second for 10 seconds into a live session in
the window (offscreen). A 5 ms heartbeat timer measures how long the event loop is ever blocked; the process's
peak resident memory (the server is another process) is read from the kernel at the end, against the RSS of
the idle window before the session started.

Goals (issue 4 / 7): longest stall under 100 ms, 99th percentile under 50 ms, every message in the timeline.
Issue 17: 1,000,000 events (--rate 20000 --seconds 50) at most 200 MB peak RSS; 10,000,000 at most 400 MB.
Every message in the timeline is counted from the timeline's columns (one byte a row), and the last row's
event is read back: its seq must be the number of events the capture holds. Stalls are counted from the
session's start; the turn that builds the tab (widgets, first imports: a one-off when the user opens it) is
reported on its own.
Run: python benchmarks/gui_flood.py [--rate 20000] [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import qasync
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

from inspector.core.capture.columns import KIND_CODES, KIND_MASK
from inspector.core.clients.profiles import ProfileStore
from inspector.core.wire.events import Kind
from inspector.ui.app import build_window
from inspector.ui.session.live import Target

HERE = Path(__file__).resolve().parent

HEARTBEAT_MS = 5


def rss_mb() -> float:
    """The resident memory of this process now, in MB (from /proc)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def peak_rss_mb() -> float:
    """The most this process ever had resident, in MB (the kernel's high-water mark)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1000


async def run(rate: int, seconds: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        window = build_window(settings=QSettings(str(Path(tmp, "s.ini")), QSettings.Format.IniFormat),
                            store=ProfileStore(Path(tmp, "p.json")), captures=Path(tmp))
        window.resize(1400, 860)
        window.show()
        gaps: list[float] = []
        last = [time.perf_counter()]

        def beat() -> None:
            now = time.perf_counter()
            gaps.append(now - last[0])
            last[0] = now

        timer = QTimer()
        timer.setInterval(HEARTBEAT_MS)
        timer.timeout.connect(beat)
        timer.start()
        expected = int(rate * seconds)
        await asyncio.sleep(0.2)
        idle_rss = rss_mb()
        tab = window.open_live(Target(name="flood", argv=[sys.executable, str(HERE / "paced_server.py"), str(rate),
                                                          str(seconds)], handshake="none"))
        opened = len(gaps)
        await asyncio.sleep(0.05)  # the heartbeat notes the turn that built the tab (a one-off, reported apart)
        opening = gaps[opened:]
        mark = len(gaps)
        started = time.perf_counter()
        deadline = started + seconds * 3 + 30
        while tab.live.session.counts["s2c"] < expected and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        tab.feed.flush_now()
        elapsed = time.perf_counter() - started
        timer.stop()
        rows = tab.model.rowCount()
        only_messages = bytes(value & KIND_MASK == KIND_CODES[Kind.MESSAGE] for value in range(256))
        messages_in_view = tab.model.columns.mask(0, rows, only_messages).count(1)
        last_seq_ok = rows > 0 and tab.model.event(rows - 1).seq == tab.live.writer.events_written
        end_rss = rss_mb()
        await tab.close()
        window.settings.clear()
        window.close()
    stalls = sorted(max(0.0, g - HEARTBEAT_MS / 1000) for g in gaps[mark:])
    open_stall = max((max(0.0, g - HEARTBEAT_MS / 1000) for g in opening), default=0.0)
    return {"expected": expected, "received": tab.live.session.counts["s2c"], "in_timeline": messages_in_view,
            "elapsed": elapsed, "max_stall_ms": stalls[-1] * 1000, "open_stall_ms": open_stall * 1000,
            "p99_stall_ms": stalls[int(len(stalls) * 0.99)] * 1000,
            "median_stall_ms": statistics.median(stalls) * 1000, "beats": len(gaps),
            "idle_rss": idle_rss, "end_rss": end_rss, "peak_rss": peak_rss_mb(), "rows": rows,
            "last_seq_ok": last_seq_ok}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=int, default=20_000)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    app = QApplication([])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        result = loop.run_until_complete(run(args.rate, args.seconds))
    print(f"{args.rate:,} messages/s for {args.seconds:g} s; python {sys.version.split()[0]}, {os.cpu_count()} cores")
    print(f"received {result['received']:,} of {result['expected']:,}; in the timeline: {result['in_timeline']:,}; "
          f"took {result['elapsed']:.1f} s")
    print(f"event-loop stall: longest {result['max_stall_ms']:.1f} ms (goal < 100), 99th percentile "
          f"{result['p99_stall_ms']:.1f} ms (goal < 50), median {result['median_stall_ms']:.2f} ms over "
          f"{result['beats']:,} heartbeats of {HEARTBEAT_MS} ms, from the session's start; building the tab "
          f"before it (a one-off, when the user opens it) held the loop {result['open_stall_ms']:.0f} ms")
    print(f"timeline rows {result['rows']:,}; last row is the session's last event: {result['last_seq_ok']}")
    print(f"resident memory: peak {result['peak_rss']:.0f} MB (goal: 1M events at most 200, 10M at most 400); "
          f"idle window before the session {result['idle_rss']:.0f} MB; at the end {result['end_rss']:.0f} MB")


if __name__ == "__main__":
    main()
