"""A live tab's breakpoints, hooked up: the Breakpoints and Intercepted tabs beside the tab's other panels (the
Intercepted tab's title counts what waits, and comes forward when a message is paused), "Break on messages like
this" in the timeline's menu, and "Break on calls to this tool" from the Explorer.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QMenu, QTabWidget

from inspector.core.wire.events import Direction, Event, Kind
from inspector.ui.intercept.control import InterceptControl
from inspector.ui.intercept.panel import BreakpointsPanel
from inspector.ui.intercept.queue import InterceptedQueue

INTERCEPTED = "Intercepted"


def hook_up(control: InterceptControl, side: QTabWidget) -> tuple[BreakpointsPanel, InterceptedQueue]:
    """Add the two tabs to ``side`` and follow the queue's count in the Intercepted tab's title."""
    panel = BreakpointsPanel(control, side)
    queue = InterceptedQueue(control, side)
    side.addTab(panel, "Breakpoints")
    side.addTab(queue, INTERCEPTED)
    shown = [0]

    def count(paused: int) -> None:
        side.setTabText(side.indexOf(queue), f"{INTERCEPTED} ({paused})" if paused else INTERCEPTED)
        if paused > shown[0]:
            side.setCurrentWidget(queue)  # a message was just paused: the person decides there
        shown[0] = paused

    control.paused_changed.connect(count)
    return panel, queue


def row_menu(control: InterceptControl, selected: Callable[[], Event | None],
             request_of: Callable[[], Event | None]) -> Callable[[QMenu], None]:
    """``selected``: the timeline's selected event; ``request_of``: the request the selected response answers.
    What the timeline's context menu gains: "Break on messages like this" (disabled, with the reason as its
    tooltip, on a row that is no message)."""

    def add(menu: QMenu) -> None:
        menu.addSeparator()
        action = menu.addAction("Break on messages like this",
                                lambda: break_like(control, selected(), request_of()))
        event = selected()
        if event is None or event.kind != Kind.MESSAGE or event.dir not in (Direction.C2S, Direction.S2C):
            action.setEnabled(False)
            action.setToolTip("select a message to pause the ones like it")

    return add


def break_like(control: InterceptControl, event: Event | None, request: Event | None) -> bool:
    """Pause the messages like ``event``: its direction and method, and its tool (a response's from ``request``,
    the request it answers); False, with the sentence said, when ``event`` is no message."""
    if event is None or event.kind != Kind.MESSAGE or event.dir not in (Direction.C2S, Direction.S2C):
        control.said.emit("select a message to pause the ones like it", True)
        return False
    method = event.data.get("request_method")
    tool = None
    if request is not None and request.rpc is not None and request.rpc.method == "tools/call":
        try:
            params = request.json().get("params")
        except (ValueError, AttributeError):
            params = None
        tool = params.get("name") if isinstance(params, dict) and isinstance(params.get("name"), str) else None
    return control.add_like(str(event.dir), event.raw, request_method=method if isinstance(method, str) else None,
                            request_tool=tool)

