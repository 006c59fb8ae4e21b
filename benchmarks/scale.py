"""Scale: a capture of 1,000,000 events opened in the window (offscreen).

Generates (once, then reused) a capture of --count events with a realistic mix: tools/call requests and
their responses paired as the recorder pairs them, progress and log notifications, some stderr lines,
200-300 bytes each. Then, in a fresh interpreter per run (so memory is its own), measures:

  first paint    File > Open until the timeline has rows and has painted them (QWidget.grab())
  full load      until the whole file is indexed (rows, stderr pane, catalog)
  longest stall  the longest the event loop was blocked while loading (a 5 ms QTimer heartbeat), against
                 the same heartbeat on the idle window for 3 s before (the machine's own noise)
  method filter  typing a method into the filter box until the filtered timeline has painted
  peak RSS       VmHWM, against the file's size

Baselines measured in the same run: reading the file line by line (`for line in file`), and the old path
(`read_capture`: every line decoded into an Event) timed on the first 100,000 lines and extrapolated.

Goals (issue 7, item 3): first paint under 5 s; no stall over 100 ms while loading; a method filter over the
whole capture under 300 ms; peak RSS under 2x the file size + 150 MB.
Run: python benchmarks/scale.py [--count 1000000] [--repeat 3] [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

HEARTBEAT_MS = 5
FILTER_METHOD = "notifications/message"


def generate(path: Path, count: int) -> None:
    """Write a capture of ``count`` events through the real writer."""
    from inspector.core.capture.writer import CaptureWriter, make_header
    from inspector.core.wire.events import Direction, Event, Kind
    from inspector.core.wire.framing import decode_line

    rnd = random.Random(7)
    seq, t, request_id = 0, 0.0, 0
    batch: list[Event] = []

    def emit(event: Event) -> None:
        nonlocal seq, t
        seq += 1
        t += rnd.random() * 0.002
        event.seq, event.t, event.wall = seq, t, 1.8e9 + t
        batch.append(event)

    def line(obj: object) -> bytes:
        return json.dumps(obj, separators=(",", ":")).encode()

    header = make_header({"transport": "stdio", "argv": ["python", "-m", "bench_server"], "cwd": None, "env": {},
                          "redacted": True})
    with CaptureWriter(path, header, flush_interval=3600) as writer:
        while seq < count:
            request_id += 1
            request = decode_line(line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {
                "name": rnd.choice(["search", "read_file", "echo", "fetch"]),
                "arguments": {"query": "q" * rnd.randint(60, 140), "limit": rnd.randint(1, 50)}}}), Direction.C2S)
            emit(request)
            request_seq, request_t = seq, t
            for step in range(2):
                emit(decode_line(line({"jsonrpc": "2.0", "method": "notifications/progress", "params": {
                    "progressToken": request_id, "progress": step + 1, "total": 2,
                    "message": "step " + "p" * rnd.randint(80, 160)}}), Direction.S2C))
            if rnd.random() < 0.5:
                emit(decode_line(line({"jsonrpc": "2.0", "method": "notifications/message", "params": {
                    "level": "info", "logger": "bench", "data": "log " + "l" * rnd.randint(120, 220)}}),
                    Direction.S2C))
            if rnd.random() < 0.3:
                emit(Event(Kind.STDERR, raw=(f"[bench] INFO handled request {request_id} in {rnd.randint(1, 99)} ms "
                                             + "s" * rnd.randint(40, 120)).encode(), dir=Direction.S2C, eol=b"\n"))
            response = decode_line(line({"jsonrpc": "2.0", "id": request_id, "result": {
                "content": [{"type": "text", "text": "r" * rnd.randint(150, 250)}], "isError": False}}), Direction.S2C)
            emit(response)
            response.put(reply_to=request_seq, latency=round(t - request_t, 6), request_method="tools/call")
            request.put(answered_by=seq)
            if len(batch) >= 5000:
                writer.write_many(batch)
                batch.clear()
        writer.write_many(batch)


def vm(field: str) -> int:
    for text in Path("/proc/self/status").read_text().splitlines():
        if text.startswith(field + ":"):
            return int(text.split()[1]) * 1024
    return 0


def measure(path: Path) -> dict[str, float]:
    """In this (fresh) interpreter: open the capture in the window and time it."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from inspector.core.clients.profiles import ProfileStore
    from inspector.ui.app import build_window

    app = QApplication([])
    tmp = tempfile.mkdtemp()
    window = build_window(settings=QSettings(str(Path(tmp, "s.ini")), QSettings.Format.IniFormat),
                        store=ProfileStore(Path(tmp, "p.json")), captures=Path(tmp))
    window.resize(1400, 860)
    window.show()
    app.processEvents()
    rss_before = vm("VmRSS")
    gaps: list[float] = []
    last = [time.perf_counter()]

    def beat() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    heartbeat = QTimer()
    heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
    heartbeat.setInterval(HEARTBEAT_MS)
    heartbeat.timeout.connect(beat)

    # the machine's own noise: the same heartbeat on the idle window, for as long as loading typically takes
    last[0] = time.perf_counter()
    heartbeat.start()
    QTimer.singleShot(3000, app.quit)
    app.exec()
    heartbeat.stop()
    idle = sorted(max(0.0, gap - HEARTBEAT_MS / 1000) for gap in gaps) or [0.0]
    gaps.clear()

    started = time.perf_counter()
    cpu_started = time.process_time()
    tab = window.open_capture(path)
    assert tab is not None and tab.model is not None
    tab.table.viewport().grab()  # paint the first rows now
    first_paint = time.perf_counter() - started
    first_rows = tab.model.rowCount()
    assert first_rows > 0
    last[0] = time.perf_counter()
    heartbeat.start()

    def check() -> None:
        if tab.feed.loaded:
            app.quit()

    checker = QTimer()
    checker.setInterval(20)
    checker.timeout.connect(check)
    checker.start()
    app.exec()
    heartbeat.stop()
    full_load = time.perf_counter() - started
    full_load_cpu = time.process_time() - cpu_started
    stalls = sorted(max(0.0, gap - HEARTBEAT_MS / 1000) for gap in gaps) or [0.0]
    rows = tab.model.rowCount()

    filter_started = time.perf_counter()
    tab.filter_method.setText(FILTER_METHOD)
    tab.table.viewport().grab()
    method_filter = time.perf_counter() - filter_started
    filtered_rows = tab.table.model().rowCount()
    clear_started = time.perf_counter()
    tab.filter_method.setText("")
    tab.table.viewport().grab()
    clear_filter = time.perf_counter() - clear_started

    select_started = time.perf_counter()
    tab.timeline.select_seq(rows // 2)
    tab.table.viewport().grab()
    select_row = time.perf_counter() - select_started
    return {"first_paint": first_paint, "first_rows": first_rows, "full_load": full_load, "rows": rows,
            "full_load_cpu": full_load_cpu,
            "max_stall_ms": stalls[-1] * 1000, "p99_stall_ms": stalls[int(len(stalls) * 0.99)] * 1000,
            "idle_max_stall_ms": idle[-1] * 1000, "idle_p99_stall_ms": idle[int(len(idle) * 0.99)] * 1000,
            "beats": len(gaps), "method_filter": method_filter, "filtered_rows": filtered_rows,
            "clear_filter": clear_filter, "select_row": select_row, "peak_rss": vm("VmHWM"),
            "rss_loaded": vm("VmRSS"), "rss_before_open": rss_before}


def baseline_lines(path: Path) -> float:
    started = time.perf_counter()
    with open(path, "rb") as handle:
        for _ in handle:
            pass
    return time.perf_counter() - started


def baseline_read_capture(path: Path, sample: int = 100_000) -> float:
    """Seconds read_capture would take for the whole file, from its rate over the first ``sample`` events."""
    from inspector.core.capture.reader import iter_capture

    started = time.perf_counter()
    events = 0
    for item in iter_capture(path, []):
        events += not isinstance(item, dict)
        if events >= sample:
            break
    rate = (time.perf_counter() - started) / max(events, 1)
    with open(path, "rb") as handle:
        lines = sum(1 for _ in handle) - 1
    return rate * lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--file", type=Path, help="the capture to use (default: generated in the temp folder)")
    parser.add_argument("--regenerate", action="store_true")
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary of indexing the file")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # the child run
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return
    path = args.file or Path(tempfile.gettempdir()) / f"mcp-inspector-scale-{args.count}.jsonl"
    if args.regenerate or not path.exists():
        started = time.perf_counter()
        generate(path, args.count)
        print(f"generated {path} in {time.perf_counter() - started:.1f} s")
    size = path.stat().st_size
    if args.profile:
        import cProfile
        import pstats

        from inspector.core.capture.index import CaptureIndex

        index = CaptureIndex(path)
        cProfile.runctx("index.scan_all()", globals(), {"index": index}, str(path) + ".prof")
        pstats.Stats(str(path) + ".prof").sort_stats("tottime").print_stats(12)
    runs: list[dict[str, float]] = []
    line_times: list[float] = []
    for _ in range(args.repeat):
        line_times.append(baseline_lines(path))
        child = subprocess.run([sys.executable, __file__, "--measure", str(path)], capture_output=True, text=True,
                               env={**os.environ, "QT_QPA_PLATFORM": "offscreen"}, timeout=1800)
        if child.returncode != 0:
            raise SystemExit(child.stderr)
        runs.append(json.loads(child.stdout.splitlines()[-1]))
    old_path = baseline_read_capture(path)
    med = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    lines = statistics.median(line_times)
    print(f"{path}: {med['rows']:,.0f} events, {size / 1e6:,.0f} MB; python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; median of {args.repeat} runs")
    print(f"baseline: reading the file line by line {lines:.2f} s; read_capture (extrapolated) {old_path:.1f} s")
    rows = [
        ("first paint", f"{med['first_paint']:.3f} s", f"{med['first_paint'] / lines:.2f}x reading the lines",
         "under 5 s", med["first_paint"] < 5),
        ("full load", f"{med['full_load']:.2f} s", f"{med['full_load'] / lines:.1f}x reading the lines, "
         f"{med['full_load'] / old_path:.2f}x read_capture; CPU {med['full_load_cpu']:.2f} s",
         "in the background", True),
        ("longest stall while loading", f"{med['max_stall_ms']:.1f} ms",
         f"99th percentile {med['p99_stall_ms']:.1f} ms; idle window {med['idle_max_stall_ms']:.1f} ms "
         f"(p99 {med['idle_p99_stall_ms']:.1f})", "under 100 ms", med["max_stall_ms"] < 100),
        (f"method filter '{FILTER_METHOD}'", f"{med['method_filter'] * 1000:.0f} ms",
         f"{med['filtered_rows']:,.0f} rows; clearing it {med['clear_filter'] * 1000:.0f} ms", "under 300 ms",
         med["method_filter"] < 0.3),
        ("select a row in the middle", f"{med['select_row'] * 1000:.0f} ms", "", "", True),
        ("peak RSS", f"{med['peak_rss'] / 1e6:,.0f} MB",
         f"{med['peak_rss'] / size:.2f}x the file; {(med['rss_loaded'] - med['rss_before_open']) / 1e6:,.0f} MB "
         "for the capture", f"under {(2 * size + 150e6) / 1e6:,.0f} MB", med["peak_rss"] < 2 * size + 150e6),
    ]
    for name, figure, ratio, goal, met in rows:
        print(f"  {name:34} {figure:>10}  {ratio:60} {goal:18} {'met' if met else 'NOT MET' if goal else ''}")


if __name__ == "__main__":
    main()
