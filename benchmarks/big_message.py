"""Big message: one 50 MB single-line result (the demo server's big_message tool) in the window (offscreen).

  receive        the live session gets the answer: time, and the longest event-loop stall meanwhile
                 (framing and saving 50 MB happen on the event loop; not a goal of issue 7, shown for scale)
  preview        selecting it until the detail pane shows its (bounded) preview: time, longest stall
  show all       "Show all" until all of it is pretty-printed and highlighted: time, longest stall
  the same       with the session's capture opened (the 50 MB line is read a piece at a time)

A 2 ms QTimer heartbeat measures stalls. Baseline, in the same run: what the previous "Show all" did,
json.loads + json.dumps(indent=2) of the message in a worker thread, with the same heartbeat running (the
thread holds the interpreter while the JSON C code runs, so the window stalls all the same).

Goals (issue 7, item 4): preview under 200 ms; no stall over 100 ms while selecting or showing all.
Run: python benchmarks/big_message.py [--size-mb 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import qasync
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication

from inspector.core.clients.profiles import ProfileStore
from inspector.ui.main_window import MainWindow
from inspector.ui.panels.detail import pretty
from inspector.ui.session.live import READY
from inspector.ui.session.tab import SessionTab

HERE = Path(__file__).resolve().parent

HEARTBEAT_MS = 2


class Heartbeat:
    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(HEARTBEAT_MS)
        self.timer.timeout.connect(self._beat)
        self.gaps: list[float] = []
        self.last = time.perf_counter()

    def _beat(self) -> None:
        now = time.perf_counter()
        self.gaps.append(now - self.last)
        self.last = now

    def start(self) -> None:
        self.gaps = []
        self.last = time.perf_counter()
        self.timer.start()

    def stop(self) -> float:
        """The longest stall (ms) since start, counting up to now."""
        self._beat()
        self.timer.stop()
        return max(0.0, max(self.gaps) - HEARTBEAT_MS / 1000) * 1000


async def until(condition: Callable[[], bool], timeout: float) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("timed out")
        await asyncio.sleep(0.01)


async def select_and_show_all(tab: SessionTab, seq: int, beat: Heartbeat) -> dict[str, float]:
    beat.start()
    await asyncio.sleep(0.05)
    started = time.perf_counter()
    tab.select_seq(seq)
    tab.detail.pretty.viewport().repaint()
    preview = time.perf_counter() - started
    await asyncio.sleep(0.05)
    preview_stall = beat.stop()
    preview_chars = len(tab.detail.pretty.toPlainText())
    beat.start()
    started = time.perf_counter()
    tab.detail.show_all.click()
    await until(lambda: not tab.detail.formatting, 600)
    show_all = time.perf_counter() - started
    show_all_stall = beat.stop()
    return {"preview": preview, "preview_stall": preview_stall, "preview_chars": preview_chars,
            "show_all": show_all, "show_all_stall": show_all_stall,
            "shown_chars": len(tab.detail.pretty.toPlainText())}


async def run(size: int) -> dict[str, object]:
    tmp = tempfile.mkdtemp()
    window = MainWindow(settings=QSettings(str(Path(tmp, "s.ini")), QSettings.Format.IniFormat),
                        store=ProfileStore(Path(tmp, "p.json")), captures=Path(tmp))
    window.resize(1400, 860)
    window.show()
    beat = Heartbeat()
    tab = window.open_demo()
    await until(lambda: tab.live.state == READY, 60)
    beat.start()
    started = time.perf_counter()
    tab.composer.set_text(json.dumps({"jsonrpc": "2.0", "method": "tools/call", "params": {
        "name": "big_message", "arguments": {"size_bytes": size}}}))
    assert tab.composer.send()
    await until(lambda: any(e.data.get("request_method") == "tools/call" for e in tab.events[-5:]), 300)
    tab.bridge.flush_now()
    receive = time.perf_counter() - started
    await asyncio.sleep(1.0)  # the capture writer's flush of the 50 MB line comes 100 ms later: part of receiving
    receive_stall = beat.stop()
    answer = next(e for e in reversed(tab.events) if e.data.get("request_method") == "tools/call")
    live = await select_and_show_all(tab, answer.seq, beat)
    raw = answer.raw
    await tab.close()

    capture = window.open_capture(tab.capture_path)
    await until(lambda: not capture.loading, 120)
    opened = await select_and_show_all(capture, answer.seq, beat)

    # baseline: the previous Show all, pretty() in a worker thread, with the heartbeat running
    beat.start()
    started = time.perf_counter()
    worker = threading.Thread(target=pretty, args=(raw,))
    worker.start()
    await until(lambda: not worker.is_alive(), 600)
    thread_time = time.perf_counter() - started
    thread_stall = beat.stop()
    window.settings.clear()
    return {"size": len(raw), "receive": receive, "receive_stall": receive_stall, "live": live,
            "capture": opened, "thread_time": thread_time, "thread_stall": thread_stall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=float, default=50)
    args = parser.parse_args()
    app = QApplication([])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        r = loop.run_until_complete(run(int(args.size_mb * 1024 * 1024)))
    print(f"one {r['size']:,}-byte result; python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"  received in {r['receive']:.2f} s, longest stall meanwhile {r['receive_stall']:.0f} ms (not a goal)")
    for name in ("live", "capture"):
        m = r[name]
        print(f"  {name + ':':9} preview {m['preview'] * 1000:6.1f} ms (goal < 200), longest stall "
              f"{m['preview_stall']:5.1f} ms; {m['preview_chars']:,} characters shown")
        print(f"  {'':9} show all {m['show_all']:5.1f} s, longest stall {m['show_all_stall']:5.1f} ms (goal < 100); "
              f"{m['shown_chars']:,} characters shown")
    print(f"  baseline: json.loads + json.dumps(indent=2) in a worker thread {r['thread_time']:.2f} s, longest "
          f"stall {r['thread_stall']:.0f} ms (the thread holds the interpreter); show all "
          f"{r['capture']['show_all'] / r['thread_time']:.1f}x its time")


if __name__ == "__main__":
    main()
