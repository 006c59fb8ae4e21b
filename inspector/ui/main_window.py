"""The main window: server profiles on the left, one tab per session or capture, standard menus.

It is the view host of its controllers (:class:`inspector.ui.host.ViewHost`): the composition root
(inspector/ui/app.py, :func:`~inspector.ui.app.build_window`) builds them, hands them to the window for its menus and
connects their signals to it; the window never builds or calls into them itself but for its menus' actions.

No listening port anywhere: sessions are subprocesses or outgoing connections, captures are files.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from PySide6.QtCore import QByteArray, QRect, QSettings, QSize, Qt, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication, QScreen, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QListWidget,
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
from inspector.core.connect.opened import CannotOpen
from inspector.core.connect.target import Target
from inspector.core.explore.history import FILE_NAME as HISTORY_FILE
from inspector.core.explore.history import History
from inspector.core.paths import captures_dir
from inspector.core.tasks import Tasks
from inspector.core.transports.base import TransportError
from inspector.ui.actions import enable_tab_actions, install_actions
from inspector.ui.profiles.sidebar import ProfilesSidebar
from inspector.ui.session.live import LiveSession
from inspector.ui.session.tab import SessionTab
from inspector.ui.timeline.model import plain_tooltip

if TYPE_CHECKING:
    from inspector.ui.clientbench.run import ClientBenches
    from inspector.ui.collections.run import CollectionRuns
    from inspector.ui.compare.drift import Baselines
    from inspector.ui.compare.run import Comparisons
    from inspector.ui.context.run import ModelViews
    from inspector.ui.controllers.files import CaptureFiles
    from inspector.ui.controllers.runs import ServerRuns
    from inspector.ui.controllers.settings import SessionSettings
    from inspector.ui.controllers.taps import TapWatcher
    from inspector.ui.load.run import LoadTests
    from inspector.ui.serve.run import ServeCaptures

#: The window's size on a first start, where the screen has room for it (else the screen's free area).
DEFAULT_SIZE = QSize(1320, 820)
#: The server list's width on a first start; a saved one wider than this share of the window is not restored.
SIDEBAR_WIDTH = 220
MAX_SIDEBAR_SHARE = 0.4
#: In a window narrower than DEFAULT_SIZE the server list opens at most this share of it (or as narrow as its
#: buttons allow): at 2x on a 1920x1080 screen the window is 960 logical pixels and the timeline needs them.
NARROW_SIDEBAR_SHARE = 0.18
#: The window's own minimum. Set explicitly, it keeps Qt from raising the window's minimum to its layout's (the sum
#: of every pane's): that made the window wider than a 1280x720 screen at 1.5x when the Explorer or an elicitation
#: showed, and it stayed so after they went. The panes fit the screen's width themselves (issue 39).
MIN_SIZE = QSize(320, 240)
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
    # the controllers, given by the composition root (inspector/ui/app.py), for the actions that reach them
    session_settings: SessionSettings
    files: CaptureFiles
    runs: ServerRuns
    tap_watcher: TapWatcher
    comparisons: Comparisons
    load_tests: LoadTests
    collection_runs: CollectionRuns
    baselines: Baselines
    serves: ServeCaptures
    model_views: ModelViews
    client_benches: ClientBenches

    session_opened = Signal(object, object)  #: a live session's tab and its target, once attached
    capture_opened = Signal(object)  #: the Path of a capture opened read-only
    closing = Signal()  #: the window is closing: stop listening for taps

    def __init__(self, *, settings: QSettings | None = None, store: ProfileStore | None = None,
                 captures: Path | None = None, tasks: Tasks | None = None) -> None:
        """What the window works with comes from its composition root (:func:`inspector.ui.app.build_window`,
        which also gives it its controllers); the defaults are the user's own stores."""
        super().__init__()
        offload.use_workers()  # big messages are decoded, judged and formatted in a worker process (issue 17)
        #: every background task the window starts; a failure shows in the status bar
        self.tasks = tasks or Tasks()
        self.tasks.report = self.report_failure
        self.settings = settings or QSettings()
        self.captures = captures or captures_dir()
        self.setWindowTitle("MCP Inspector")
        self.setMinimumSize(MIN_SIZE)
        self.tabs: QTabWidget = QTabWidget(self)
        self.tabs.setTabsClosable(True)
        self.tabs.setDocumentMode(True)
        self.tabs.tabCloseRequested.connect(self.close_tab)
        self.sidebar = ProfilesSidebar(store or ProfileStore(), self)
        self.sidebar.connect_requested.connect(lambda profile: self.open_live(Target.from_profile(profile)))
        self.taps = QListWidget(self)
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.sidebar, 3)
        taps_label = QLabel("LIVE TAPS", left)
        taps_label.setTextFormat(Qt.TextFormat.PlainText)
        left_layout.addWidget(taps_label)
        left_layout.addWidget(self.taps, 1)
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

    # -- menus -----------------------------------------------------------------------------------------

    def _build_menus(self) -> None:
        """The menus, each action working on this window and the controllers it is given (the "Open recent"
        submenu is filled by the captures controller)."""
        self.menu_actions, self.recent_menu = install_actions(self, self)
        self.tabs.currentChanged.connect(
            lambda _: enable_tab_actions(self.menu_actions, self.current_tab() is not None))

    def report_failure(self, sentence: str) -> None:
        """A background task failed: say so in the status bar (plain text), never a traceback."""
        self.statusBar().showMessage(sentence)

    def say(self, sentence: str) -> None:
        """A sentence in the status line (what a controller ``said``)."""
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

    def session_tabs(self) -> list[SessionTab]:
        return [tab for tab in map(self.tabs.widget, range(self.tabs.count())) if isinstance(tab, SessionTab)]

    def show_tab(self, widget: QWidget) -> None:
        if self.tabs.indexOf(widget) >= 0:
            self.tabs.setCurrentWidget(widget)

    def show_view(self, view: QWidget, title: str, tooltip: str = "") -> None:
        """``view`` in a new tab titled ``title``, brought forward: every tab opens here (a session's, a tap's, a
        capture's, and each result view a controller has ready). ``tooltip``: the tab's, as plain text."""
        index = self.tabs.addTab(view, title)
        if tooltip:
            self.tabs.setTabToolTip(index, plain_tooltip(tooltip))  # a capture's file name is not markup
        if isinstance(view, SessionTab):
            view.title_changed.connect(lambda text, t=view: self.tabs.setTabText(self.tabs.indexOf(t), text))
        self.tabs.setCurrentIndex(index)

    def add_tab(self, tab: SessionTab) -> None:
        self.show_view(tab, tab.title, tab.title)

    # -- settings --------------------------------------------------------------------------------------

    def open_live(self, target: Target, watch: list[Path] | None = None, watch_ignore: list[str] | None = None
                  ) -> SessionTab:
        """A tab with a live session to ``target``. When it cannot even be set up (a URL or header no transport
        can use, an unknown transport named by a capture being reconnected), the tab opens failed, its status
        line saying why, and nothing is started. ``watch`` (a stdio target): reload on save, a change under these
        paths (less ``watch_ignore``'s globs) restarting the server in the tab
        (:func:`inspector.ui.session.reload.watch`)."""
        target = self.session_settings.apply(target)
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
            self.session_opened.emit(tab, target)  # a profile's tool baseline: warn when the tools drifted from it
            if watch and not target.is_http:
                from inspector.ui.session.reload import watch as reload_on_save

                reload_on_save(tab, watch, list(watch_ignore or ()), self.pinned_calls())
        except (TransportError, ValueError, CannotOpen) as exc:  # a URL, header, transport or capture folder no one
            # can use: nothing was started
            tab.cannot_start(str(exc))
        self.add_tab(tab)
        return tab

    def pinned_calls(self) -> int:
        """How many of the Explorer's last calls run again after each reload (Reload on save)."""
        from inspector.ui.session.reload import DEFAULT_PINNED, PINNED_SETTING

        try:
            return max(0, int(self.settings.value(PINNED_SETTING, DEFAULT_PINNED)))  # type: ignore[call-overload]  # QSettings gives object
        except (TypeError, ValueError):
            return DEFAULT_PINNED

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

        return self.open_live(self.session_settings.with_request_timeout(Target(name="demo", argv=[sys.executable, "-m",
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
        self.add_tab(tab)
        self.capture_opened.emit(path)
        return tab

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

    def reload_on_save_current(self, paths: list[Path] | None = None) -> None:
        """Session > Reload on save…: on for the current live stdio session, watching ``paths`` (else what the
        person chooses); when it is on and no paths are given, off."""
        from inspector.ui.session import reload

        tab = self.current_tab()
        if tab is None or tab.live is None or tab.live.target.is_http or tab.live.finished:
            self.say("Reload on save works on a live session with a server command (stdio).")
            return
        if paths is None and reload.unwatch(tab):
            tab.update_counts()
            self.say("Reload on save is off: saving no longer restarts the server.")
            return
        chosen = paths if paths is not None else reload.ask_paths(self)
        if chosen:
            reload.watch(tab, chosen, [], self.pinned_calls())
            self.say(f"Reload on save: a change to {', '.join(p.name for p in chosen)} restarts the server.")

    def stop_current(self) -> None:
        tab = self.current_tab()
        if tab is not None and tab.live is not None:
            self.tasks.spawn(tab.live.stop(), "stopping the session")

    # -- the request timeout ---------------------------------------------------------------------------

    # -- replay ----------------------------------------------------------------------------------------

    # -- check ---------------------------------------------------------------------------------------

    def about(self) -> None:
        box = QMessageBox(self)
        box.setWindowTitle("About MCP Inspector")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(f"mcp-inspector {__version__}\nA desktop inspector and debugger for Model Context Protocol "
                    f"servers.\nCaptures are saved in {self.captures}.")
        box.exec()

    # -- closing ---------------------------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:
        self.closing.emit()
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

    async def _shutdown(self, tabs: list[QWidget]) -> None:
        await asyncio.gather(*(tab.close() for tab in tabs if isinstance(tab, SessionTab)),
                             return_exceptions=True)
        for tab in tabs:
            tab.setParent(None)  # closed: the next closeEvent finds no live session
        self.tabs.clear()
        self.close()
