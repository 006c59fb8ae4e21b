"""Render the README's screenshots offscreen from real sessions: python scripts/screenshots.py [OUT_DIR]

Each picture is a real session against the bundled demo server (or a capture), grabbed from the window.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import qasync  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from inspector.core.profiles import ProfileStore, ServerProfile  # noqa: E402
from inspector.ui.live_session import READY, Target  # noqa: E402
from inspector.ui.main_window import MainWindow  # noqa: E402


async def until(condition, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the demo did not get there in time")
        await asyncio.sleep(0.02)


async def settle(window: MainWindow) -> None:
    await asyncio.sleep(0.3)  # let the window repaint (no processEvents() inside a task: qasync forbids re-entry)


async def send(tab, text: str, method: str) -> None:
    tab.composer.set_text(text)
    tab.composer.send()
    await until(lambda: any(e.data.get("request_method") == method for e in tab.events[-20:]), 10)


async def shoot(out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = ProfileStore(Path(tmp, "profiles.json"))
        store.save([ServerProfile(name="demo", kind="stdio", command=sys.executable, args=["-m", "inspector.demo"]),
                    ServerProfile(name="weather (remote)", kind="http", url="https://mcp.example.com/mcp"),
                    ServerProfile(name="filesystem", kind="stdio", command="npx",
                                  args=["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"])])
        window = MainWindow(settings=QSettings(str(Path(tmp, "s.ini")), QSettings.Format.IniFormat), store=store,
                            captures=Path(tmp))
        window.resize(1440, 880)
        window.show()
        tab = window.open_live(Target(name="demo", argv=[sys.executable, "-m", "inspector.demo", "--banner",
                                                         "Demo server v1 starting (a print() on stdout)"]))
        await until(lambda: tab.live.state == READY, 30)
        await send(tab, '{"jsonrpc":"2.0","method":"tools/list"}', "tools/list")
        await send(tab, '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"junk_stdout","arguments":{}}}',
                   "tools/call")
        await send(tab, '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"stderr_burst",'
                        '"arguments":{"lines":12}}}', "tools/call")
        tab.composer.set_text('{\n  "jsonrpc": "2.0",\n  "method": "tools/call",\n  "params": {\n    "name": "add",\n'
                              '    "arguments": {"a": 2, "b": 40}\n  }\n}')
        listed = next(e for e in tab.events if e.data.get("request_method") == "tools/list")
        tab.select_seq(listed.seq)
        await settle(window)
        window.grab().save(str(out / "session.png"))

        junk = next(e for e in tab.events if e.kind.startswith("framing") and e.raw.startswith(b"\xff"))
        tab.select_seq(junk.seq)
        tab.detail.tabs.setCurrentWidget(tab.detail.hex)
        await settle(window)
        window.grab().save(str(out / "framing-error.png"))

        tab.side.setCurrentWidget(tab.stderr)
        await settle(window)
        window.grab().save(str(out / "stderr.png"))
        await tab.close()
        window.settings.clear()
        window.close()


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "images"
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication([])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(shoot(out))
    print(f"screenshots in {out}")


if __name__ == "__main__":
    main()
