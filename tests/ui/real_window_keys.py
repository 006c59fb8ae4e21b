"""Run under a real X server (Xvfb): the window with a capture open, real key presses from xdotool (XTEST),
and what each did, printed as one JSON line. Used by tests/ui/test_shortcuts_real_window.py; also a way to
try the shortcuts by hand: ``DISPLAY=:99 python tests/ui/real_window_keys.py CAPTURE SCREENSHOT``."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import qasync
from PySide6.QtCore import QSettings
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from inspector.core.clients.profiles import ProfileStore
from inspector.core.wire.events import Direction
from inspector.ui.app import build_window
from inspector.ui.panels.detail import pretty
from inspector.ui.session.live import READY


async def wait(condition, timeout: float = 5.0) -> bool:
    """Let the event loop run until ``condition`` holds (a real X server answers in its own time)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        await asyncio.sleep(0.01)
    return False


def key(name: str) -> None:
    subprocess.run(["xdotool", "key", "--clearmodifiers", name], check=True, timeout=10)


def main() -> None:
    app = QApplication(sys.argv[:1])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        results = loop.run_until_complete(scenario(Path(sys.argv[1]), sys.argv[2]))
    print(json.dumps(results), flush=True)


async def scenario(capture: Path, screenshot: str) -> dict[str, object]:
    folder = Path(tempfile.mkdtemp())
    window = build_window(settings=QSettings(str(folder / "s.ini"), QSettings.Format.IniFormat),
                        store=ProfileStore(folder / "profiles.json"), captures=folder)
    window.resize(1200, 700)
    window.show()
    window.activateWindow()
    results: dict[str, object] = {"active": await wait(lambda: QApplication.activeWindow() is window)}
    tab = window.open_capture(capture)
    assert tab is not None
    tab.model.index_of_file.scan_all()
    tab.model.catch_up()
    model = tab.model
    request = next(row for row in range(model.rowCount())
                   if model.pair_row(row) is not None and model.event(row).dir == Direction.C2S)
    response = model.pair_row(request)
    tab.table.setFocus()
    tab.timeline.select_row(request)
    await wait(lambda: tab.table.hasFocus())

    key("ctrl+j")
    results["ctrl+j"] = await wait(lambda: tab.timeline.current_row() == response)
    key("ctrl+j")
    results["ctrl+j back"] = await wait(lambda: tab.timeline.current_row() == request)
    problem = model.columns.next_problem(request + 1)
    key("F8")
    results["F8"] = await wait(lambda: tab.timeline.current_row() == problem)
    tab.timeline.select_row(request)
    QGuiApplication.clipboard().setText("")
    key("ctrl+shift+c")
    results["ctrl+shift+c"] = await wait(lambda: QGuiApplication.clipboard().text() == pretty(model.event(request).raw))
    # Ctrl+Shift+X cancels a pending request of a live session: the demo's slow tool
    live = window.open_demo()
    await wait(lambda: live.live.state == READY, 30)
    live.composer.set_text('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"slow_count",'
                           '"arguments":{"count":50,"delay_ms":200}}}')
    live.composer.send()
    await wait(lambda: any(e.method == "tools/call" for e in live.timeline.visible_events()))
    call = next(e for e in live.timeline.visible_events() if e.method == "tools/call")
    live.table.setFocus()
    live.timeline.select_seq(call.seq)
    await wait(lambda: live.table.hasFocus())
    key("ctrl+shift+x")
    results["ctrl+shift+x"] = await wait(
        lambda: any(e.method == "notifications/cancelled" for e in live.timeline.visible_events()))
    window.tabs.setCurrentWidget(tab)
    tab.timeline.select_row(response)
    window.grab().save(screenshot)
    await live.close()
    return results


if __name__ == "__main__":
    main()
