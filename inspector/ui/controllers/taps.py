"""Live taps in the window: ``mcp-inspector tap`` finds the window on a private per-user Unix socket (no TCP
port); each tap gets a read-only tab fed with its events as they come, and an entry in the LIVE TAPS list.
``mcp-inspector serve`` streams each served session the same way (its hello's role: ``serve``), to a tab named
``serve: CAPTURE``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QListWidget, QListWidgetItem

from inspector.ui.host import Controller, ViewHost
from inspector.ui.session.tab import SessionTab

#: How long a tap's breakpoint link waits for the tap's tab (its feed connects from another process, at once).
TAB_WAIT = 5.0


class TapWatcher(Controller):
    def __init__(self, host: ViewHost, taps: QListWidget, socket: Path | None, parent: QObject | None = None) -> None:
        """Each tap gets an entry in ``taps`` (the LIVE TAPS list) and a tab (``view_ready``); ``socket``: where to
        listen (None: the user's own)."""
        super().__init__(host, parent)
        self.taps = taps
        self.socket = socket
        self.listener: Any = None
        self.problem: str | None = None  #: why the window does not listen for taps, in one sentence
        self._tabs: dict[Any, SessionTab] = {}  #: each tap's tab, by the tap's pid (its breakpoint link finds it)
        self._arrivals: dict[Any, asyncio.Event] = {}  #: a link waiting for its tap's tab, by the tap's pid
        taps.itemActivated.connect(self._selected)
        taps.itemClicked.connect(self._selected)

    async def listen(self) -> None:
        """Taps (mcp-inspector tap) find the window on a private per-user Unix socket; no TCP port."""
        from inspector.core.tap.channel import ChannelError, listen

        try:
            self.listener = await listen(self.socket, self._on_tap, others={
                "breakpoints": self._on_breakpoints, "faults": self._on_faults})
        except ChannelError as exc:
            self.problem = str(exc)
            self.taps.addItem(QListWidgetItem(f"not listening: {exc}"))

    async def _on_tap(self, connection: Any) -> None:
        from inspector.core.wire.events import Event

        role = "serve" if connection.hello.get("role") == "serve" else "tap"  # mcp-inspector serve --live
        tab = SessionTab(f"{role}: {connection.name}", self.host.window())
        tab.attach_tap(connection.hello)
        pid = connection.hello.get("pid")
        self._tabs[pid] = tab
        self._tab_came(pid).set()
        self.show_view(tab, tab.title, tab.title)
        label = connection.name if role == "tap" else tab.title  # a served session says so in the list too
        item = QListWidgetItem(f"{label} (live)")
        item.setData(Qt.ItemDataRole.UserRole, tab)
        self.taps.addItem(item)
        dropped = 0
        async for message in connection.messages():  # read to the end even after the tab closed: the tap waits
            if tab.closed:
                continue
            if isinstance(message, Event):
                tab.add_tap_events([message])  # the tab's feed announces them in batches
            elif message.get("type") == "dropped":
                dropped = int(message.get("total", dropped))
        self._tabs.pop(pid, None)
        if tab.closed:  # its tab was closed during the tap: the list's entry goes too
            self.taps.takeItem(self.taps.row(item))
            return
        item.setText(f"{label} (ended)")
        tab.tap_ended(connection.end, dropped)

    def _tab_came(self, pid: Any) -> asyncio.Event:
        return self._arrivals.setdefault(pid, asyncio.Event())

    async def _linked_tab(self, hello: dict[str, Any]) -> SessionTab | None:
        """The tab of the tap (or served session) with ``hello``'s pid, once its feed made it (it may connect a
        moment later); None within :data:`TAB_WAIT`, or when it closed."""
        from inspector.core.waiting import wait_for

        pid = hello.get("pid")
        try:
            await wait_for(self._tab_came(pid).wait(), TAB_WAIT)
        except TimeoutError:
            return None
        finally:
            self._arrivals.pop(pid, None)
        tab = self._tabs.get(pid)
        return None if tab is None or tab.closed else tab

    async def _on_breakpoints(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                              hello: dict[str, Any]) -> None:
        """A tap's relay links its breakpoints: to the tab of the tap with the same pid, for as long as both
        last. No tab: no link (the relay passes all)."""
        from inspector.core.tap.breakpoint_link import WindowSide

        tab = await self._linked_tab(hello)
        if tab is not None:
            await tab.attach_tap_breakpoints(WindowSide(reader, writer, hello)).run()

    async def _on_faults(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                         hello: dict[str, Any]) -> None:
        """A served capture's twin links its faults: to its serve tab (same pid), for as long as both last. No
        tab: no link (the twin keeps its command line's faults)."""
        from inspector.core.serve.fault_link import FaultsWindowSide
        from inspector.ui.intercept.fault_panel import attach_faults

        tab = await self._linked_tab(hello)
        if tab is not None:
            tab.serve_faults = attach_faults(tab.side, FaultsWindowSide(reader, writer, hello))
            await tab.serve_faults.control.run()

    def _selected(self, item: QListWidgetItem) -> None:
        tab = item.data(Qt.ItemDataRole.UserRole)
        if isinstance(tab, SessionTab):
            self.host.show_tab(tab)

    def stop(self) -> None:
        if self.listener is not None:
            self.listener.close()
            self.listener = None
