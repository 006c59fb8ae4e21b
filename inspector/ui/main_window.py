"""The main window: server profiles on the left, one tab per session or capture, standard menus.

No listening port anywhere: sessions are subprocesses or outgoing connections, captures are files.
"""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from PySide6.QtCore import QByteArray, QRect, QSettings, QSize, Qt
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QScreen, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QStyle,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from inspector import __version__
from inspector.core import offload
from inspector.core.capture import CaptureError
from inspector.core.capture.index import CaptureIndex
from inspector.core.clients.profiles import ProfileError, ProfileStore
from inspector.core.explore.history import FILE_NAME as HISTORY_FILE
from inspector.core.explore.history import History
from inspector.core.paths import captures_dir
from inspector.core.session.session import DEFAULT_REQUEST_TIMEOUT
from inspector.core.session.target import Target, make_transport
from inspector.core.sizes import DEFAULT_MAX_MESSAGE, format_size, parse_size
from inspector.core.tasks import Tasks
from inspector.core.transports.base import TransportError
from inspector.ui.actions import enable_tab_actions, install_actions
from inspector.ui.compare.drift import watch_drift
from inspector.ui.profiles.sidebar import ProfilesSidebar
from inspector.ui.session.live import LiveSession
from inspector.ui.session.tab import SessionTab
from inspector.ui.timeline.model import plain_tooltip
from inspector.ui.timeout_dialog import TimeoutDialog, setting_of, timeout_of

MAX_RECENT = 10
#: The settings key of the window's request timeout (seconds; 0 for none).
TIMEOUT_KEY = "session/timeout"
#: The setting of the message size limit (bytes; see MainWindow.max_message).
MAX_MESSAGE_KEY = "session/max_message"
#: The window's size on a first start, where the screen has room for it (else the screen's free area).
DEFAULT_SIZE = QSize(1320, 820)
#: The server list's width on a first start; a saved one wider than this share of the window is not restored.
SIDEBAR_WIDTH = 220
MAX_SIDEBAR_SHARE = 0.4
#: In a window narrower than DEFAULT_SIZE the server list opens at most this share of it (or as narrow as its
#: buttons allow): at 2x on a 1920x1080 screen the window is 960 logical pixels and the timeline needs them.
NARROW_SIDEBAR_SHARE = 0.18
#: The status bar's standing sentence (the OAuth sign-in's loopback listener is the one exception, said while open).
NO_PORT = "No listening port: sessions are subprocesses or outgoing connections."


def clamp_to(rect: QRect, available: QRect) -> QRect:
    """``rect`` shrunk to fit ``available`` (a screen's free area) where it is larger, and moved inside it."""
    width = min(rect.width(), available.width())
    height = min(rect.height(), available.height())
    x = min(max(rect.x(), available.left()), available.left() + available.width() - width)
    y = min(max(rect.y(), available.top()), available.top() + available.height() - height)
    return QRect(x, y, width, height)


def screen_key(screen: QScreen) -> str:
    """What a saved geometry depends on: the screen's size in logical pixels (its size over the scale)."""
    size = screen.geometry().size()
    return f"{size.width()}x{size.height()}"


class MainWindow(QMainWindow):
    def __init__(self, *, settings: QSettings | None = None, store: ProfileStore | None = None,
                 captures: Path | None = None, tap_socket: Path | None = None, listen_for_taps: bool = False,
                 tasks: Tasks | None = None, timeout: float | None = None, max_message: int | None = None) -> None:
        """What the window works with comes from its composition root (inspector/ui/app.py); the defaults are
        the user's own stores, for tests and embedding. ``timeout``: ``--timeout`` at start, which overrides
        the saved request timeout for this run (``inf``: none). ``max_message``: the command line's
        --max-message, which outranks the saved setting until the user sets another."""
        super().__init__()
        offload.use_workers()  # big messages are decoded, judged and formatted in a worker process (issue 17)
        self.timeout_override = timeout
        self._max_message_override = max_message
        #: every background task the window starts; a failure shows in the status bar
        self.tasks = tasks or Tasks()
        self.tasks.report = self.report_failure
        self.settings = settings or QSettings()
        self.captures = captures or captures_dir()
        self.setWindowTitle("MCP Inspector")
        self.tabs: QTabWidget = QTabWidget(self)
        self.tabs.setTabsClosable(True)
        self.tabs.setDocumentMode(True)
        self.tabs.tabCloseRequested.connect(self.close_tab)
        self.sidebar = ProfilesSidebar(store or ProfileStore(), self)
        self.sidebar.connect_requested.connect(lambda profile: self.open_live(Target.from_profile(profile)))
        self.taps = QListWidget(self)
        self.taps.itemActivated.connect(self._tap_selected)
        self.taps.itemClicked.connect(self._tap_selected)
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.sidebar, 3)
        taps_label = QLabel("LIVE TAPS", left)
        taps_label.setTextFormat(Qt.TextFormat.PlainText)
        left_layout.addWidget(taps_label)
        left_layout.addWidget(self.taps, 1)
        self.tap_socket = tap_socket
        self.tap_listener: Any = None
        self.tap_problem: str | None = None
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.tabs)
        self.splitter.setStretchFactor(0, 0)  # a narrower window narrows the tabs, not the server list
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([SIDEBAR_WIDTH, DEFAULT_SIZE.width() - SIDEBAR_WIDTH])
        self.setCentralWidget(self.splitter)
        self._build_menus()
        self.statusBar().showMessage(NO_PORT)
        self._closing = False
        self._shown = False
        self._restore_geometry()
        state = self.settings.value("window/splitter")
        if isinstance(state, QByteArray):
            self.splitter.restoreState(state)
            if self.splitter.sizes()[0] > self.width() * MAX_SIDEBAR_SHARE:  # saved in a wider window
                self.splitter.setSizes([SIDEBAR_WIDTH, max(0, self.width() - SIDEBAR_WIDTH)])
        if listen_for_taps:
            self.tasks.spawn(self.listen_for_taps(), "listening for taps")

    def _restore_geometry(self) -> None:
        """Reopen where and as large as the window was closed, on a screen of the same logical size only: a
        geometry saved at another scale factor or on another screen means nothing here (a run at 2x saved
        841x537; the next normal start reopened that small). Otherwise, and on a first start, the default
        size, centred. Either way the window fits the screen's free area."""
        geometry = self.settings.value("window/geometry")
        restored = isinstance(geometry, QByteArray) and self.restoreGeometry(geometry)
        screen = QGuiApplication.screenAt(self.geometry().center()) or QGuiApplication.primaryScreen()
        saved_on = self.settings.value("window/screen")
        if restored and saved_on is not None and saved_on != screen_key(screen):
            restored = False
            self.setWindowState(Qt.WindowState.WindowNoState)
        available = screen.availableGeometry()
        if not restored:
            size = DEFAULT_SIZE.boundedTo(available.size())
            self.setGeometry(QStyle.alignedRect(Qt.LayoutDirection.LeftToRight, Qt.AlignmentFlag.AlignCenter, size,
                                                available))
            if size != DEFAULT_SIZE:  # a small screen (or a large scale): all of it, title bar and frame included
                self.setWindowState(Qt.WindowState.WindowMaximized)
        elif not self._maximized():
            self.setGeometry(clamp_to(self.geometry(), available))

    def _maximized(self) -> bool:
        return bool(self.windowState() & (Qt.WindowState.WindowMaximized | Qt.WindowState.WindowFullScreen))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._shown:
            self._shown = True
            self._fit_frame()
            self._fit_sidebar()

    def _fit_sidebar(self) -> None:
        """In a narrow window, the server list gives the timeline its room (NARROW_SIDEBAR_SHARE)."""
        width = self.splitter.width()
        if width >= DEFAULT_SIZE.width():
            return
        left = self.splitter.widget(0)
        assert left is not None  # the server list's column, added in __init__
        narrow = max(left.minimumSizeHint().width(), int(width * NARROW_SIDEBAR_SHARE))
        if self.splitter.sizes()[0] > narrow:
            self.splitter.setSizes([narrow, width - narrow])

    def _fit_frame(self) -> None:
        """Once shown, the frame's size is known: the whole window, frame and title bar too, fits the screen's
        free area (the geometry restored before showing could only fit the inside)."""
        frame = self.frameGeometry()
        fitted = clamp_to(frame, self.screen().availableGeometry())
        if self._maximized() or fitted == frame:
            return
        inner = self.geometry()
        self.setGeometry(fitted.x() + inner.x() - frame.x(), fitted.y() + inner.y() - frame.y(),
                         fitted.width() - (frame.width() - inner.width()),
                         fitted.height() - (frame.height() - inner.height()))

    # -- live taps -------------------------------------------------------------------------------------

    async def listen_for_taps(self) -> None:
        """Taps (mcp-inspector tap) find the window on a private per-user Unix socket; no TCP port."""
        from inspector.core.tap.channel import ChannelError, listen

        try:
            self.tap_listener = await listen(self.tap_socket, self._on_tap)
        except ChannelError as exc:
            self.tap_problem = str(exc)
            self.taps.addItem(QListWidgetItem(f"not listening: {exc}"))

    async def _on_tap(self, connection: Any) -> None:
        from inspector.core.wire.events import Event

        tab = SessionTab(f"tap: {connection.name}", self)
        tab.attach_tap(connection.hello)
        self._add_tab(tab)
        item = QListWidgetItem(f"{connection.name} (live)")
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
        if tab.closed:  # its tab was closed during the tap: the list's entry goes too
            self.taps.takeItem(self.taps.row(item))
            return
        item.setText(f"{connection.name} (ended)")
        tab.tap_ended(connection.end, dropped)

    def _tap_selected(self, item: QListWidgetItem) -> None:
        tab = item.data(Qt.ItemDataRole.UserRole)
        if isinstance(tab, SessionTab) and self.tabs.indexOf(tab) >= 0:
            self.tabs.setCurrentWidget(tab)

    # -- menus -----------------------------------------------------------------------------------------

    def _build_menus(self) -> None:
        self.menu_actions, self.recent_menu = install_actions(self)
        self.tabs.currentChanged.connect(
            lambda _: enable_tab_actions(self.menu_actions, self.current_tab() is not None))
        self._refresh_recent()

    def _refresh_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.recent_files():
            action = QAction(path, self)
            action.triggered.connect(lambda _=False, p=path: self.open_capture(Path(p)))
            self.recent_menu.addAction(action)
        self.recent_menu.setEnabled(bool(self.recent_files()))

    def recent_files(self) -> list[str]:
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in value] if isinstance(value, list) else []

    def _remember(self, path: Path) -> None:
        recent = [str(path)] + [p for p in self.recent_files() if p != str(path)]
        self.settings.setValue("recent", recent[:MAX_RECENT])
        self._refresh_recent()

    def report_failure(self, sentence: str) -> None:
        """A background task failed: say so in the status bar (plain text), never a traceback."""
        self.statusBar().showMessage(sentence)

    def warn(self, title: str, text: str) -> None:
        """A warning in plain text: it may quote a capture (a file name, a recorded command or URL), and nothing a
        capture says is markup (QMessageBox.warning would sniff it for rich text)."""
        box = QMessageBox(QMessageBox.Icon.Warning, title, "", QMessageBox.StandardButton.Ok, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(text)
        box.exec()

    # -- tabs ------------------------------------------------------------------------------------------

    def current_tab(self) -> SessionTab | None:
        widget = self.tabs.currentWidget()
        return widget if isinstance(widget, SessionTab) else None

    def _add_tab(self, tab: SessionTab) -> None:
        index = self.tabs.addTab(tab, tab.title)
        self.tabs.setTabToolTip(index, plain_tooltip(tab.title))  # a capture's file name is not markup
        tab.title_changed.connect(lambda title, t=tab: self.tabs.setTabText(self.tabs.indexOf(t), title))
        self.tabs.setCurrentIndex(index)

    # -- settings --------------------------------------------------------------------------------------

    def max_message(self) -> int:
        """The largest message a session of this window reads whole: --max-message, else the saved setting,
        else the default (64 MiB)."""
        if self._max_message_override is not None:
            return self._max_message_override
        value = self.settings.value(MAX_MESSAGE_KEY)
        try:
            return int(value) if value is not None and int(value) > 0 else DEFAULT_MAX_MESSAGE
        except (TypeError, ValueError):  # a settings file edited by hand
            return DEFAULT_MAX_MESSAGE

    def set_max_message(self, text: str) -> str | None:
        """Save the message size limit ``text`` (``64M``, ``200MB``) for sessions started from now on; returns
        None, or the sentence that says why ``text`` is no size."""
        try:
            size = parse_size(text)
        except ValueError as exc:
            return str(exc)
        self.settings.setValue(MAX_MESSAGE_KEY, size)
        self._max_message_override = None
        self.statusBar().showMessage(f"messages up to {format_size(size)} are read whole in sessions started "
                                     "from now on")
        return None

    def ask_max_message(self) -> None:
        from PySide6.QtWidgets import QInputDialog

        problem: str | None = None
        text = format_size(self.max_message())
        while True:
            label = ("The largest message a session reads whole, for example 64M or 200MB. A longer line is "
                     "recorded as a framing error keeping its first and last 64 KiB. Applies to sessions "
                     "started from now on.") + (f"\n\n{problem}" if problem else "")
            text, ok = QInputDialog.getText(self, "Message size limit", label, text=text)
            if not ok:
                return
            problem = self.set_max_message(text)
            if problem is None:
                return

    def _with_settings(self, target: Target) -> Target:
        """``target`` with what the window's settings say about every session."""
        return replace(target, max_message=self.max_message())

    def open_live(self, target: Target) -> SessionTab:
        """A tab with a live session to ``target``. When it cannot even be set up (a URL or header no transport
        can use, an unknown transport named by a capture being reconnected), the tab opens failed, its status
        line saying why, and nothing is started."""
        target = self._with_settings(target)
        tab = SessionTab(target.name, self)
        live = LiveSession(target, self.captures, handler=tab.requests.handler(), parent=tab)
        tab.explorer.roots_edited.connect(lambda roots: self._keep_roots(target, roots))
        if live.login is not None:  # the one listening port there is, while a sign-in waits: the status bar says so
            live.login.waiting.connect(lambda _url, redirect: self.statusBar().showMessage(
                f"Listening on {urlsplit(redirect).netloc} for the sign-in's redirect only (RFC 8252); closed when "
                "it arrives or the sign-in ends."))
            live.login.waiting_ended.connect(lambda: self.statusBar().showMessage(NO_PORT))
        try:
            # the explorer's call history sits in the data folder, beside the captures folder
            tab.attach_live(live, History(self.captures.parent / HISTORY_FILE))
            watch_drift(self, tab, target)  # a profile's tool baseline: warn when the tools drifted from it
        except (TransportError, ValueError) as exc:  # a URL, header or transport no one can use: nothing was started
            tab.cannot_start(str(exc))
        self._add_tab(tab)
        return tab

    def _keep_roots(self, target: Target, roots: list[str]) -> None:
        """The explorer's roots, edited: kept in the profile the session came from (a session without one keeps
        them until it ends)."""
        if not target.named_by_user:
            return
        store = self.sidebar.store
        try:
            store.update(target.name, replace(store.get(target.name), roots=list(roots)))
        except (ProfileError, OSError) as exc:
            self.statusBar().showMessage(f"the roots could not be kept in the profile: {exc}")

    def open_demo(self) -> SessionTab:
        import sys

        return self.open_live(self.with_request_timeout(Target(name="demo", argv=[sys.executable, "-m",
                                                                                    "inspector.demo"])))

    def open_capture(self, path: Path) -> SessionTab | None:
        """Open a capture read-only. It is indexed, not read whole: the first rows show at once and the rest
        loads in the background with a progress bar (a capture of a million events opens in seconds)."""
        try:
            index = CaptureIndex(path)
        except CaptureError as exc:
            self.warn("Cannot open capture", str(exc))
            return None
        tab = SessionTab(f"{path.name} (read-only)", self)
        tab.attach_index(index, path)
        tab.capture_header = index.header
        self._add_tab(tab)
        self._remember(path)
        return tab

    def open_capture_dialog(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Open capture", str(self.captures),
                                              "Captures (*.jsonl *.json);;All files (*)")
        if name:
            self.open_capture(Path(name))

    def save_as(self) -> None:
        tab = self.current_tab()
        if tab is None or tab.capture_path is None:
            return
        name, _ = QFileDialog.getSaveFileName(self, "Save capture as", str(Path.home() / tab.capture_path.name),
                                              "Captures (*.jsonl)")
        if name:
            problem = self.save_current(Path(name))
            self.statusBar().showMessage(problem or f"saved {name}")

    def save_current(self, path: Path) -> str | None:
        """Copy the current tab's capture to ``path``; a sentence when it cannot be done (a folder that is not
        there or not writable, a full disk), which File > Save capture as… puts in the status line."""
        tab = self.current_tab()
        if tab is None or tab.capture_path is None:
            return "no capture to save"
        if tab.live is not None and tab.live.writer is not None:
            tab.live.writer.flush()
        try:
            shutil.copyfile(tab.capture_path, path)
        except shutil.SameFileError:
            return f"{path} is the capture itself: it is already saved there"
        except OSError as exc:
            return f"cannot save the capture as {path}: {exc.strerror or exc}"
        self._remember(path)
        return None

    def export_dialog(self) -> None:
        """File > Export…: the current tab's capture as HAR, a Markdown or HTML report, or JSON-RPC lines."""
        tab = self.current_tab()
        if tab is None or tab.capture_path is None:
            return
        filters = {"HTML report (*.html)": "html", "Markdown report (*.md)": "markdown",
                   "HAR, for a browser's network panel (*.har)": "har", "JSON-RPC lines (*.jsonl)": "jsonrpc",
                   "OpenTelemetry traces, OTLP/JSON (*.otlp.jsonl)": "otlp"}
        name, chosen = QFileDialog.getSaveFileName(self, "Export", str(Path.home() / tab.capture_path.stem),
                                                   ";;".join(filters))
        if name:
            problem = self.export_current(Path(name), filters.get(chosen, "html"))
            self.statusBar().showMessage(problem or f"exported {name}")

    def export_current(self, path: Path, to: str) -> str | None:
        """Write the current tab's capture to ``path`` in format ``to``; a sentence when it cannot be done."""
        from inspector.core.interop import FORMATS
        from inspector.core.interop.convert import export_capture
        from inspector.core.interop.har import ExportError

        tab = self.current_tab()
        if tab is None or tab.capture_path is None:
            return "no capture to export"
        if tab.live is not None and tab.live.writer is not None:
            tab.live.writer.flush()
        if not path.suffix:
            path = path.with_suffix(FORMATS[to])
        try:
            data = b"".join(export_capture(tab.capture_path, to))
            path.write_bytes(data)
        except ExportError as exc:
            return str(exc)
        except OSError as exc:
            return f"cannot write {path}: {exc.strerror}"
        return None

    def copy_server_config(self) -> None:
        """Session > Copy server as config…: the current tab's server as a client config entry."""
        from inspector.ui.config_dialog import ConfigDialog

        tab = self.current_tab()
        target = tab.target() if tab is not None else None
        if target is None:
            return
        self.config_dialog = ConfigDialog(target, self)
        self.config_dialog.open()

    def close_tab(self, index: int) -> None:
        widget = self.tabs.widget(index)
        if isinstance(widget, SessionTab):
            self.tabs.removeTab(index)
            self.tasks.spawn(self._dispose(widget), "closing the tab")
        elif widget is not None:
            self.tabs.removeTab(index)
            widget.deleteLater()

    @staticmethod
    async def _dispose(tab: SessionTab) -> None:
        await tab.close()
        tab.deleteLater()

    def restart_current(self) -> None:
        tab = self.current_tab()
        if tab is None or tab.live is None:
            return
        target = tab.live.target
        index = self.tabs.indexOf(tab)
        self.close_tab(index)
        new = self.open_live(target)
        self.tabs.tabBar().moveTab(self.tabs.indexOf(new), index)
        self.tabs.setCurrentWidget(new)

    def stop_current(self) -> None:
        tab = self.current_tab()
        if tab is not None and tab.live is not None:
            self.tasks.spawn(tab.live.stop(), "stopping the session")

    def reconnect_current(self) -> None:
        """Start the server a capture names, after showing exactly what would run and asking; refused, as replay
        and check refuse it, when the capture does not name one or kept its secrets out (``[redacted]``)."""
        tab = self.current_tab()
        header = getattr(tab, "capture_header", None)
        if tab is None or header is None:
            return
        target = self._confirmed_capture_target(header, tab.title, "Reconnect")
        if target is not None:
            self.open_live(self.with_request_timeout(target))

    # -- the request timeout ---------------------------------------------------------------------------

    def request_timeout(self) -> float:
        """How long sessions without a profile wait for the handshake and each response: ``--timeout`` of this
        run, else Session > Request timeout… (saved), else the session's default; ``inf`` for none."""
        if self.timeout_override is not None:
            return self.timeout_override
        return timeout_of(self.settings.value(TIMEOUT_KEY, DEFAULT_REQUEST_TIMEOUT), DEFAULT_REQUEST_TIMEOUT)

    def with_request_timeout(self, target: Target) -> Target:
        """``target`` waiting :meth:`request_timeout`: for the sessions the window starts without a profile (its
        command line, the demo, a capture's server)."""
        return dataclasses.replace(target, timeout=self.request_timeout())

    def set_request_timeout(self, seconds: float) -> None:
        """Save the request timeout (``inf``: none); it replaces ``--timeout`` for the rest of the run and applies
        to the next requests of the open sessions without a profile."""
        self.timeout_override = None
        self.settings.setValue(TIMEOUT_KEY, setting_of(seconds))
        for tab in map(self.tabs.widget, range(self.tabs.count())):
            if isinstance(tab, SessionTab) and tab.live is not None and not tab.live.target.named_by_user:
                tab.live.target.timeout = seconds
        self.statusBar().showMessage("sessions without a profile now wait "
                                     + ("as long as the server takes" if seconds == float("inf") else
                                        f"{seconds:g} s for each response"))

    def ask_request_timeout(self) -> None:
        dialog = TimeoutDialog(self.request_timeout(), self)
        if dialog.exec() == TimeoutDialog.DialogCode.Accepted:
            self.set_request_timeout(dialog.seconds())

    # -- replay ----------------------------------------------------------------------------------------

    def replay_current(self) -> None:
        """Replay the current session or capture against a server the user picks: the same one (a capture's
        command or URL only after showing it and asking) or a saved profile. The result opens in a new tab."""
        from PySide6.QtWidgets import QInputDialog

        tab = self.current_tab()
        if tab is None or tab.capture_path is None:
            return
        header = getattr(tab, "capture_header", None)
        same = tab.live.target if tab.live is not None else None
        choices = (["the same server"] if (same is not None or header is not None) else []) + \
                  [f"profile: {p.name}" for p in self.sidebar.profiles()]
        if not choices:
            QMessageBox.information(self, "Replay", "There is no server to replay against: add a profile first.")
            return
        choice, ok = QInputDialog.getItem(self, "Replay session", "Replay against:", choices, 0, False)
        if not ok:
            return
        if choice.startswith("profile: "):
            profile = next(p for p in self.sidebar.profiles() if p.name == choice[len("profile: "):])
            target = Target.from_profile(profile)
        elif same is not None:
            target = same
        else:
            confirmed = self._confirmed_capture_target(header or {}, tab.title, "Replay")
            if confirmed is None:
                return
            target = confirmed
        self.tasks.spawn(self.run_replay(tab.capture_path, target), "the replay")

    def _confirmed_capture_target(self, header: dict[str, Any], name: str, action: str) -> Target | None:
        """The server a capture names, once the person saw exactly what would run and agreed; None when they did
        not, or when it cannot run as recorded (no server named, secrets redacted: said in a warning titled
        ``action``). The one gate of Reconnect, Replay and Check in front of a capture's server."""
        recorded = Target.from_capture_header(header, name)
        problem = recorded.rerun_problem()
        if problem is not None:
            self.warn(action, f"{problem}: use a saved server (a profile) instead.")
            return None
        box = QMessageBox(self)
        box.setWindowTitle("Start this server?")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(f"{action} will start (or contact) the server this capture names, exactly as shown:\n\n"
                    + "\n".join(recorded.describe_lines())
                    + "\n\nOnly continue if you trust where this capture came from.")
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        if box.exec() != QMessageBox.StandardButton.Yes:
            return None
        return recorded

    async def run_replay(self, source: Path, target: Target) -> Any:
        """Replay ``source`` against ``target``; returns the view it opened (or None when it could not)."""
        from inspector.core.replay.engine import ReplayError, ReplayOptions, ReplayPlan, replay
        from inspector.ui.panels.replay import ReplayView
        from inspector.ui.session.live import capture_name

        tab = self.current_tab()
        if tab is not None and tab.live is not None and tab.live.writer is not None:
            tab.live.writer.flush()
        try:
            transport = make_transport(self._with_settings(target))  # only built: nothing starts before the replay
            plan, _ = ReplayPlan.load(source)  # what the reader skipped shows when the capture is opened
        except (ReplayError, TransportError, ValueError, OSError) as exc:  # nothing to replay, a bad URL, ...
            self.warn("Replay", str(exc))
            return None
        out = self.captures / ("replay-" + capture_name(target))
        self.statusBar().showMessage(f"replaying {source.name} against {target.describe()}…")
        result = await replay(plan, transport, ReplayOptions(out=out))
        view = ReplayView(result, source.name, self)
        view.open_capture_requested.connect(lambda path: self.open_capture(Path(path)))
        index = self.tabs.addTab(view, f"replay: {source.stem}")
        self.tabs.setCurrentIndex(index)
        self.statusBar().showMessage(result.summary)
        return view

    # -- check ---------------------------------------------------------------------------------------

    def check_current(self) -> None:
        """Session > Check server: the checks of ``mcp-inspector check`` against the current tab's server (a
        capture's only after showing it and asking), in new sessions saved as captures; the report opens in a
        new tab."""
        tab = self.current_tab()
        if tab is None:
            return
        if tab.live is not None:
            target: Target | None = tab.live.target
        else:
            header = getattr(tab, "capture_header", None)
            target = self._confirmed_capture_target(header, tab.title, "Check") if header is not None else None
        if target is None:
            return
        self.tasks.spawn(self.run_check(target), "the server check")

    async def run_check(self, target: Target) -> Any:
        """Check ``target``'s server; returns the report view it opened."""
        from inspector.core.check.checks import DEFAULT_CHECK_TIMEOUT
        from inspector.core.check.runner import CheckRun, run_checks
        from inspector.ui.panels.check_report import CheckReportView
        from inspector.ui.session.live import capture_name

        base = self.captures / ("check-" + capture_name(target)).removesuffix(".jsonl")
        self.statusBar().showMessage(f"checking {target.describe()}…")
        # each answer is waited for as the command line's check does, or the session's timeout when shorter
        timeout = min(target.timeout, DEFAULT_CHECK_TIMEOUT)
        report = await run_checks(CheckRun(self._with_settings(target), base, timeout=timeout))
        view = CheckReportView(report, self)
        view.open_capture_requested.connect(lambda path: self.open_capture(Path(path)))
        index = self.tabs.addTab(view, f"check: {target.name or target.describe()}")
        self.tabs.setTabToolTip(index, plain_tooltip(target.describe()))
        self.tabs.setCurrentIndex(index)
        self.statusBar().showMessage(f"check of {target.describe()}: {report.summary()}")
        return view

    def about(self) -> None:
        box = QMessageBox(self)
        box.setWindowTitle("About MCP Inspector")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(f"mcp-inspector {__version__}\nA desktop inspector and debugger for Model Context Protocol "
                    f"servers.\nCaptures are saved in {self.captures}.")
        box.exec()

    # -- closing ---------------------------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:
        self._stop_listening()
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/screen", screen_key(self.screen()))
        self.settings.setValue("window/splitter", self.splitter.saveState())
        live: list[QWidget] = [tab for tab in map(self.tabs.widget, range(self.tabs.count()))
                               if isinstance(tab, SessionTab) and tab.live is not None]
        if live and not self._closing:
            self._closing = True
            event.ignore()
            self.tasks.spawn(self._shutdown(live), "shutting the sessions down")
            return
        event.accept()
        offload.shutdown()  # the worker process for big messages ends with the window
        QApplication.quit()

    def _stop_listening(self) -> None:
        if self.tap_listener is not None:
            self.tap_listener.close()
            self.tap_listener = None

    async def _shutdown(self, tabs: list[QWidget]) -> None:
        await asyncio.gather(*(tab.close() for tab in tabs if isinstance(tab, SessionTab)),
                             return_exceptions=True)
        for tab in tabs:
            tab.setParent(None)  # closed: the next closeEvent finds no live session
        self.tabs.clear()
        self.close()
