"""Runs the real desktop app (``mcp-inspector`` with its own arguments, through inspector.cli.main) in this
process and drives its first live session the way a user would, for tests that need the window as a separate
process (to SIGKILL it, to look at its sockets, to audit what it touches).

    python tests/ui/gui_driver.py [--call JSON] [--quit-when-answered] -- --demo

Prints one JSON line per step on stdout: ``{"state": ..., "capture": PATH, "pid": PID}`` when the session is
ready (or failed), ``{"sent": ...}`` after the composer sent ``--call``, ``{"answered": SEQ}`` when its answer
arrived. With ``--quit-when-answered`` the window is then closed the normal way (File > Quit), so the app
shuts the server down and exits. Needs ``QT_QPA_PLATFORM=offscreen`` without a display.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from inspector.cli.main import main as inspector_main
from inspector.ui import main_window
from inspector.ui.session.live import CLOSED, FAILED, READY


def say(**fields: Any) -> None:
    print(json.dumps(fields), flush=True)


def install(call: str | None, quit_when_answered: bool) -> None:
    original = main_window.MainWindow.open_live
    driven: list[Any] = []

    def open_live(window: Any, target: Any) -> Any:
        tab = original(window, target)
        if tab is not None and not driven:
            driven.append(tab)
            window.tasks.spawn(drive(window, tab, call, quit_when_answered), "driving the window")
        return tab

    main_window.MainWindow.open_live = open_live  # type: ignore[method-assign]  # the driver wraps it


async def drive(window: Any, tab: Any, call: str | None, quit_when_answered: bool) -> None:
    loop = asyncio.get_running_loop()
    settled: asyncio.Future[str] = loop.create_future()

    def state_changed(state: str, _sentence: str) -> None:
        if state in (READY, FAILED, CLOSED) and not settled.done():
            settled.set_result(state)

    tab.live.state_changed.connect(state_changed)
    state = await settled
    say(state=state, capture=str(tab.capture_path), pid=os.getpid(), sentence=tab.live.sentence)
    if state != READY or call is None:
        return
    method = json.loads(call)["method"]
    seen = len(tab.events)  # answers to this method are looked for only after this point
    tab.composer.set_text(call)
    say(sent=tab.composer.send())
    if not quit_when_answered:
        return  # (a flood: scanning the timeline for the answer would only slow the window down)
    answered: asyncio.Future[int] = loop.create_future()

    def arrived() -> None:
        nonlocal seen
        for event in tab.events[seen:]:
            if event.data.get("request_method") == method and "reply_to" in event.data and not answered.done():
                answered.set_result(event.seq)
        seen = len(tab.events)

    tab.feed.rows_arrived.connect(arrived)
    say(answered=await answered)
    window.close()


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--call", help="a message for the composer to send once the session is ready")
    parser.add_argument("--quit-when-answered", action="store_true")
    if "--" not in argv:
        parser.error("the app's own arguments go after --")
    split = argv.index("--")
    args = parser.parse_args(argv[:split])
    install(args.call, args.quit_when_answered)
    return inspector_main(argv[split + 1:])


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
