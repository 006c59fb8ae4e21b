"""Composition root of the desktop app: the Qt application, the qasync event loop, the main window and its
controllers (:func:`build_window`).

All I/O (subprocess pipes, HTTP) runs as asyncio tasks on the Qt event loop through qasync, so the GUI
thread never blocks on the network or a pipe.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from inspector.core.clients.profiles import ProfileStore
from inspector.core.connect.target import Target
from inspector.core.paths import captures_dir
from inspector.core.tasks import Tasks

if TYPE_CHECKING:  # Qt is imported when the window is built, not with this module
    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication, QWidget

    from inspector.ui.main_window import MainWindow


def run_gui(*, demo: bool = False, target: Target | None = None, open_file: Path | None = None,
            exit_when_shown: bool = False, timeout: float | None = None, max_message: int | None = None,
            otlp_endpoint: str | None = None, watch: list[Path] | None = None,
            watch_ignore: list[str] | None = None) -> int:
    """Show the window and run the event loop until it closes. ``exit_when_shown``: print ``shown`` once
    the window has painted and quit (how benchmarks/startup.py times the start-up). ``timeout``: ``--timeout``
    (``inf``: none), else the window's saved Session > Request timeout applies. ``max_message``: the
    command line's --max-message (None: the window's setting). ``otlp_endpoint``: ``--otlp-endpoint``, where
    every live session sends its spans. ``watch``, ``watch_ignore``: ``--watch`` and ``--watch-ignore``, reload on
    save for the session of ``target`` (a stdio one)."""
    import qasync
    from PySide6.QtCore import QCoreApplication, QSettings, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from inspector.ui import otel_export

    otel_export.configure(otlp_endpoint)
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)  # Qt WebEngine (MCP Apps)
    QCoreApplication.setOrganizationName("mcp-inspector")
    QCoreApplication.setApplicationName("mcp-inspector")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationDisplayName("MCP Inspector")
    app.setWindowIcon(app_icon())
    app.setDesktopFileName("mcp-inspector")  # Wayland: the window belongs to mcp-inspector.desktop (its icon)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    quit_requested = asyncio.Event()
    app.aboutToQuit.connect(quit_requested.set)
    # the composition root: the window gets its stores and its task keeper here, and starts listening for taps
    window = build_window(settings=QSettings(), store=ProfileStore(), captures=captures_dir(), tasks=Tasks(),
                          listen_for_taps=True, timeout=timeout, max_message=max_message)
    # Ctrl-C or SIGTERM close the window the normal way: live sessions shut their servers down first
    signal.signal(signal.SIGINT, lambda *_: window.close())
    signal.signal(signal.SIGTERM, lambda *_: window.close())
    wake = QTimer()  # Python only sees signals when it runs; let it run a few times a second
    wake.start(250)
    wake.timeout.connect(lambda: None)
    if exit_when_shown:
        _quit_when_painted(window, app)
    window.show()
    if demo:
        window.open_demo()
    if target is not None:
        window.open_live(window.session_settings.with_request_timeout(target), watch, watch_ignore)
    if open_file is not None:
        window.open_capture(open_file)
    with loop:
        loop.run_until_complete(quit_requested.wait())
    return 0


def build_window(*, settings: QSettings | None = None, store: ProfileStore | None = None, captures: Path | None = None,
                 tap_socket: Path | None = None, listen_for_taps: bool = False, tasks: Tasks | None = None,
                 timeout: float | None = None, max_message: int | None = None) -> MainWindow:
    """The main window with its controllers, each given the services it uses and the window as its view host
    (:class:`inspector.ui.host.ViewHost`), their signals connected to the window: what they say goes to the status
    line, the views they have ready open in tabs (:meth:`MainWindow.show_view`), the captures and sessions they
    want opened are opened. The defaults are the user's own stores (tests give their own). ``timeout``:
    ``--timeout`` at start, which overrides the saved request timeout for this run (``inf``: none).
    ``max_message``: the command line's --max-message, which outranks the saved setting until the user sets
    another. ``listen_for_taps``: listen (on ``tap_socket``, else the user's own) for ``mcp-inspector tap``."""

    from inspector.ui.clientbench.run import ClientBenches
    from inspector.ui.collections.run import CollectionRuns
    from inspector.ui.compare.drift import Baselines
    from inspector.ui.compare.run import Comparisons
    from inspector.ui.context.run import ModelViews
    from inspector.ui.controllers.files import CaptureFiles
    from inspector.ui.controllers.runs import ServerRuns
    from inspector.ui.controllers.settings import SessionSettings
    from inspector.ui.controllers.taps import TapWatcher
    from inspector.ui.host import Controller
    from inspector.ui.load.run import LoadTests
    from inspector.ui.main_window import MainWindow
    from inspector.ui.serve.run import ServeCaptures

    window = MainWindow(settings=settings, store=store, captures=captures, tasks=tasks)
    profiles = window.sidebar.profiles
    window.session_settings = settings_ = SessionSettings(window, window.settings, timeout, max_message, window)
    prepare = settings_.apply
    window.files = CaptureFiles(window, window.settings, window.captures, window.recent_menu, window)
    window.runs = ServerRuns(window, window.tasks, window.captures, prepare, settings_.with_request_timeout,
                             profiles, window)
    window.tap_watcher = TapWatcher(window, window.taps, tap_socket, window)
    window.comparisons = Comparisons(window, window.tasks, window.captures, prepare, profiles, window)
    window.load_tests = LoadTests(window, window.tasks, window.captures, prepare, window)
    window.collection_runs = CollectionRuns(window, window.tasks, window.captures, prepare, window)
    window.baselines = Baselines(window, window.sidebar.store, profiles, window)
    window.serves = ServeCaptures(window, window.tasks, tap_socket, window)
    window.model_views = ModelViews(window, window)
    window.client_benches = ClientBenches(window, window.tasks, window.captures, window)
    controllers: list[Controller] = [settings_, window.files, window.runs, window.tap_watcher, window.comparisons,
                                     window.load_tests, window.collection_runs, window.baselines, window.serves,
                                     window.model_views, window.client_benches]
    for controller in controllers:
        controller.said.connect(window.say)
        controller.view_ready.connect(window.show_view)
        controller.capture_wanted.connect(window.open_capture)
        controller.session_wanted.connect(window.open_live)
    window.capture_opened.connect(window.files.remember)
    window.session_opened.connect(window.baselines.watch)
    window.baselines.profiles_changed.connect(window.sidebar.reload)
    window.closing.connect(window.tap_watcher.stop)
    window.closing.connect(window.serves.stop)
    window.closing.connect(window.client_benches.stop)
    window.files.refresh_recent()
    if listen_for_taps:
        window.tasks.spawn(window.tap_watcher.listen(), "listening for taps")
    return window


def _quit_when_painted(window: QWidget, app: QApplication) -> None:
    from PySide6.QtCore import QEvent, QObject, QTimer

    class Watcher(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                watched.removeEventFilter(self)
                print("shown", flush=True)
                QTimer.singleShot(0, app.quit)
            return False

    watcher = Watcher(window)
    window.installEventFilter(watcher)


def app_icon() -> QIcon:
    """The app's icon from the PNGs shipped in inspector/resources (no SVG plugin needed at run time)."""
    from PySide6.QtGui import QIcon

    from inspector import resources

    icon = QIcon()
    for size in resources.ICON_SIZES:
        icon.addFile(str(resources.icon_png(size)))
    return icon
