"""Reload on save in a live stdio session tab: a change under the watched paths restarts the server in the same
tab (:meth:`LiveSession.reload`), then the pinned calls run again and their answers, with the lists before and
after, are compared with the previous run (:func:`inspector.core.compare.differ.compare`).

:class:`Reloader` is the logic (a QObject with signals, no widgets): it owns the :class:`~inspector.core.watching.
Watcher`, runs one reload at a time (changes that come during one make one more after it) and says what came of
each: ``said`` for the status line ("reloaded in 0.8 s, 1 tool added"), ``compared`` with the comparison.
:class:`ReloadPanel` is the thin widget beside the timeline that shows the comparison's lines.

Pinned calls: the requests of a collection the person pinned (Pin a collection… in the Reload tab; the file is
read again at each reload, so its edits count), else the last :data:`DEFAULT_PINNED` (a setting) tool calls of the
Explorer's history for this server. A first reload has no previous run: the pinned calls run on the old server
before it is restarted; pinning another collection starts again from there.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from inspector.core.collections.format import CollectionError
from inspector.core.collections.format import load as load_collection
from inspector.core.compare.differ import KIND_NAMES, Comparison, compare
from inspector.core.compare.report import text_lines
from inspector.core.compare.sessions import Exchange, ServerRecord, keyed
from inspector.core.explore.catalog import KINDS, Catalog, Notice
from inspector.core.explore.history import Call
from inspector.core.notices import What
from inspector.core.tasks import Tasks
from inspector.core.transports.base import TransportError
from inspector.core.waiting import wait_for
from inspector.core.watching import Watcher
from inspector.ui.session.live import LiveSession

if TYPE_CHECKING:
    from inspector.ui.session.tab import SessionTab

#: How many of the Explorer's last calls run again after each reload, unless the setting says otherwise.
DEFAULT_PINNED = 3
#: The QSettings key of that number (Session > Reload on save…).
PINNED_SETTING = "session/reload_pinned_calls"


class Reloader(QObject):
    """Restarts ``live``'s server on each debounced change under ``paths`` (``ignore``: glob patterns), reruns the
    pinned calls (the requests of :attr:`collection` when one is pinned, else ``history()``'s calls) and compares
    them and the lists with the previous run."""

    said = Signal(str, bool)  #: a sentence for the status line, and whether it says something failed
    compared = Signal(object)  #: the :class:`Comparison` of the previous run with this one
    changed = Signal(list)  #: the changed files a reload starts for
    pins_changed = Signal(str)  #: what is pinned now, in a few words

    def __init__(self, live: LiveSession, catalog: Catalog, paths: list[Path], ignore: list[str],
                 history: Callable[[], list[Call]], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.live, self.catalog, self.paths, self.ignore, self.history = live, catalog, paths, ignore, history
        self.collection: Path | None = None  #: the pinned collection's file, if one is pinned
        self.tasks = Tasks(report=lambda sentence: self.said.emit(sentence, True))
        self.watcher: Watcher | None = None
        self.previous: list[Exchange] | None = None  #: the pinned calls' last run
        self._busy = False
        self._waiting: set[str] = set()  #: files changed during a reload: one more reload after it
        self.reloads = 0  #: reloads done (ok or not)
        #: what the last reload came to, and whether it failed: the status line keeps saying it
        self.last: tuple[str, bool] | None = None
        self.said.connect(lambda sentence, failure: setattr(self, "last", (sentence, failure)))

    def start(self) -> None:
        """Watch from now on (the session restarts on the next change)."""
        self.live.set_reloads(True)
        self.watcher = Watcher(self.paths, self.on_change, asyncio.get_event_loop(), self.ignore,
                               on_error=lambda sentence: self.said.emit(sentence, True))
        self.watcher.start()

    def stop(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None
        self.live.set_reloads(False)

    def on_change(self, files: list[str]) -> None:
        """A debounced batch of changed files: reload now, or after the reload under way; nothing once the session
        was stopped."""
        if not self.live.can_reload:
            return
        if self._busy:
            self._waiting.update(files)
            return
        self._busy = True
        self.tasks.spawn(self._reload(files), "reloading the server")

    async def _reload(self, files: list[str]) -> None:
        try:
            while True:
                self.changed.emit(files)
                await self.reload(files)
                if not self._waiting or not self.live.can_reload:
                    return
                files, self._waiting = sorted(self._waiting), set()
        finally:
            self._busy = False

    async def reload(self, files: list[str]) -> Comparison | None:
        """One reload: the pinned calls' first run if there is none yet, the restart, the lists again, the pinned
        calls again, and the comparison (None when the server did not come up)."""
        before, who_before = self.interface(), self._who()
        if self.previous is None and self.live.state == "ready":
            self.previous = await self.run_pinned()
        began = time.monotonic()
        listed = self._listing_waiter()
        ok = await self.live.reload(files)
        took = time.monotonic() - began
        self.reloads += 1
        if not ok:
            listed.cancel()
            await self._failed(took)
            return None
        try:
            await wait_for(asyncio.shield(listed), self.live.target.timeout or 30)
        except TimeoutError:
            pass  # compared with what was listed in time; the Explorer says what failed
        run = await self.run_pinned()
        a = ServerRecord("before the reload", *who_before, interface=before, exchanges=self.previous or [])
        b = ServerRecord("after the reload", *self._who(), interface=self.interface(), exchanges=run)
        comparison = compare(a, b)
        self.previous = run
        self.said.emit(f"reloaded in {took:.1f} s, {summary(comparison)}", False)
        self.compared.emit(comparison)
        return comparison

    def _who(self) -> tuple[str | None, str | None]:
        """The server's name and version, as its handshake said."""
        server = self.live.server
        return (server.name, server.version) if server is not None else (None, None)

    def interface(self) -> dict[str, dict[str, dict[str, Any]]]:
        """What the Explorer has listed, by kind and key (the kinds the server declares)."""
        if not self.catalog.loaded:
            return {}
        return {kind: keyed(kind, self.catalog.items[kind]) for kind in KINDS if self.catalog.declares(kind)}

    def _listing_waiter(self) -> asyncio.Future[None]:
        """Done once every kind the restarted server declares has been listed (or failed to be)."""
        future: asyncio.Future[None] = asyncio.get_event_loop().create_future()
        seen: set[str] = set()

        def notice(event: Notice) -> None:
            if future.done() or event.kind is None or event.what not in (What.LISTED, What.LIST_FAILED):
                return
            seen.add(event.kind)
            if all(kind in seen for kind in KINDS if self.catalog.declares(kind)):
                future.set_result(None)

        def ready(_info: object) -> None:  # a server that declares nothing lists nothing
            if not any(self.catalog.declares(kind) for kind in KINDS) and not future.done():
                future.set_result(None)

        self.catalog.listeners.append(notice)
        self.live.server_known.connect(ready)

        def done(_: object) -> None:
            if notice in self.catalog.listeners:
                self.catalog.listeners.remove(notice)
            self.live.server_known.disconnect(ready)

        future.add_done_callback(done)
        return future

    def pin_collection(self, path: Path | None) -> None:
        """Pin the collection at ``path`` (None: the History's last calls again); the next reload runs its
        requests first on the server as it is, and compares later runs with that."""
        self.collection = path
        self.previous = None
        self.pins_changed.emit(self.pins_text())

    def pins_text(self) -> str:
        """What runs after each reload, in a few words."""
        if self.collection is not None:
            return f"Pinned: the collection {self.collection.name}."
        count = len(self.history())
        if not count:
            return "Pinned: nothing yet (call a tool in the Explorer, or pin a collection)."
        return "Pinned: the History's last call." if count == 1 else f"Pinned: the History's last {count} calls."

    def pinned(self) -> list[tuple[str, Any]]:
        """The requests to make after each reload, as (method, params)."""
        if self.collection is None:
            return [("tools/call", {"name": call.tool, "arguments": call.arguments}) for call in self.history()]
        try:
            collection = load_collection(self.collection)
        except (CollectionError, OSError) as exc:
            self.said.emit(f"the pinned collection cannot be read: {exc}", True)
            return []
        return [(request.method, request.params) for request in collection.requests]

    async def run_pinned(self) -> list[Exchange]:
        """Each pinned call made once, in order, as an :class:`Exchange` (an answer that does not come is one
        with no response)."""
        session = self.live.session
        exchanges: list[Exchange] = []
        for method, params in self.pinned():
            exchange = Exchange(0, method, params)
            if session is None or session.closed:
                exchanges.append(exchange)
                continue
            began = time.monotonic()
            try:
                answer = await session.request(method, params, timeout=self.live.target.timeout or 30)
            except TransportError:
                exchanges.append(exchange)
                continue
            exchange.seq, exchange.response_seq = answer.seq, answer.seq
            exchange.latency = time.monotonic() - began
            message = answer.json()
            exchange.response = message if isinstance(message, dict) else None
            exchanges.append(exchange)
        return exchanges

    async def _failed(self, took: float) -> None:
        """The server did not come up: its sentence, and the doctor's first failing step (its stderr is in the
        stderr tab already)."""
        from inspector.core.doctor.runner import diagnose

        sentence = f"reload failed after {took:.1f} s: {self.live.sentence}"
        self.said.emit(sentence + "; asking the doctor…", True)
        try:
            report = await diagnose(self.live.target, timeout=min(self.live.target.timeout or 10, 10))
        except Exception as exc:  # the doctor is a help here: its own failure is said, not raised
            self.said.emit(f"{sentence}; the doctor could not run ({exc})", True)
            return
        first = report.first_failure
        step = f"the doctor's first failing step, {first.step}: {first.detail}" if first is not None else \
            "the doctor found nothing wrong on a fresh start"
        self.said.emit(f"{sentence}; {step}; the next change tries again", True)


def watch(tab: SessionTab, paths: list[Path], ignore: list[str], pinned: int) -> Reloader:
    """Reload on save for ``tab``'s live stdio session: a change under ``paths`` (``ignore``: glob patterns)
    restarts the server in the tab; the last ``pinned`` calls of the Explorer's history run again after each
    reload and the tab's Reload tab shows how they and the lists differ from the previous run. Watching again
    replaces the watch."""
    assert tab.live is not None and tab.explorer.catalog is not None  # attach_live came first
    history = tab.explorer.history

    def calls() -> list[Call]:
        store = history.store
        return store.calls(history.profile)[-pinned:] if store is not None and pinned > 0 else []

    unwatch(tab)
    reloader = tab.reloader = Reloader(tab.live, tab.explorer.catalog, paths, ignore, calls, tab)
    reloader.said.connect(lambda _sentence, _failure: tab.update_counts())
    panel = tab.reload_panel = ReloadPanel(reloader, tab)
    tab.side.addTab(panel, "Reload")
    reloader.compared.connect(lambda _comparison: tab.side.setCurrentWidget(panel))
    reloader.start()
    return reloader


def unwatch(tab: SessionTab) -> bool:
    """Reload on save off for ``tab`` (its Reload tab goes); whether it was on."""
    was_on = tab.reloader is not None
    if tab.reloader is not None:
        tab.reloader.stop()
        tab.reloader = None
    if tab.reload_panel is not None:
        tab.side.removeTab(tab.side.indexOf(tab.reload_panel))
        tab.reload_panel.deleteLater()
        tab.reload_panel = None
    return was_on


def ask_paths(parent: QWidget) -> list[Path]:
    """What to watch, chosen by the person: a file (the server's own, usually) or a folder; [] when cancelled."""
    box = QMessageBox(QMessageBox.Icon.Question, "Reload on save",
                      "Restart the server in this tab whenever a file is saved. Watch one file or a whole folder?",
                      QMessageBox.StandardButton.Cancel, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    file_button = box.addButton("A file…", QMessageBox.ButtonRole.AcceptRole)
    folder_button = box.addButton("A folder…", QMessageBox.ButtonRole.AcceptRole)
    box.exec()
    if box.clickedButton() is file_button:
        chosen, _ = QFileDialog.getOpenFileName(parent, "Reload on save: the file to watch")
    elif box.clickedButton() is folder_button:
        chosen = QFileDialog.getExistingDirectory(parent, "Reload on save: the folder to watch")
    else:
        return []
    return [Path(chosen)] if chosen else []


def summary(comparison: Comparison) -> str:
    """``1 tool added, 2 prompts changed; 1 pinned call answered differently``, or ``nothing changed``."""
    counts = Counter((change.kind, change.change) for change in comparison.interface)
    parts = [f"{n} {KIND_NAMES[kind]}{'' if n == 1 else 's'} {change}" for (kind, change), n in counts.items()]
    differing = {change.label for change in comparison.behaviour if change.counts}
    if differing:
        n = len(differing)
        parts.append(f"{n} pinned call{'' if n == 1 else 's'} answered differently")
    return ", ".join(parts) or "nothing changed"


class ReloadPanel(QWidget):
    """The comparison of the last reload, as the ``diff`` command prints it (read-only text)."""

    def __init__(self, reloader: Reloader, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = QLabel(f"Watching {', '.join(p.name for p in reloader.paths)}: the next save reloads "
                              "the server.", self)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        self.heading.setWordWrap(True)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)  # beside the timeline: narrow
        self.text.setFont(QFont("monospace"))
        self.text.setPlaceholderText("After each reload, the pinned calls' answers and the lists are compared "
                                     "with the previous run here.")
        self.reloader = reloader
        self.pins = QLabel(reloader.pins_text(), self)
        self.pins.setTextFormat(Qt.TextFormat.PlainText)
        self.pins.setWordWrap(True)
        self.pin_button = QPushButton("Pin a collection…", self)
        self.pin_button.clicked.connect(self.choose_collection)
        self.unpin_button = QPushButton("Unpin", self)
        self.unpin_button.clicked.connect(lambda: reloader.pin_collection(None))
        self.unpin_button.hide()
        pins = QHBoxLayout()
        pins.addWidget(self.pins, 1)
        pins.addWidget(self.pin_button)
        pins.addWidget(self.unpin_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.heading)
        layout.addLayout(pins)
        layout.addWidget(self.text, 1)
        reloader.pins_changed.connect(self._pins_changed)
        reloader.compared.connect(lambda _c: self.pins.setText(reloader.pins_text()))
        reloader.changed.connect(lambda files: self.heading.setText(
            f"Reloading after a change to {', '.join(Path(f).name for f in files)}…"))
        reloader.said.connect(lambda sentence, _failure: self.heading.setText(sentence))
        reloader.compared.connect(self.show_comparison)

    def choose_collection(self) -> None:
        chosen, _ = QFileDialog.getOpenFileName(self, "Pin a collection: its requests run after each reload",
                                                filter="Collections (*.json);;All files (*)")
        if chosen:
            self.reloader.pin_collection(Path(chosen))

    def _pins_changed(self, text: str) -> None:
        self.pins.setText(text)
        self.unpin_button.setVisible(self.reloader.collection is not None)

    def show_comparison(self, comparison: Comparison) -> None:
        self.text.setPlainText("\n".join(text_lines(comparison)))
