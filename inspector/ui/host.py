"""What the window's controllers see of the window: :class:`ViewHost`, a small interface the main window fulfils,
and :class:`Controller`, the signals every controller speaks through.

A controller (``ui/controllers``, and the entry points of ``ui/compare``, ``ui/load``, ``ui/collections``) never
holds the main window. It is built by the composition root (inspector/ui/app.py) with the services it uses (the
settings, the captures folder, the task keeper, the profiles) and a view host, which it only asks for the current
session tab and the parent of its dialogs; what it did, it says with signals the composition root connects once:

- ``said``: a sentence for the status line;
- ``view_ready``: a result view (a replay, a check report, a comparison, a load run, a collection run, a tap's
  tab) to show in a tab of its own (:meth:`inspector.ui.main_window.MainWindow.show_view`, the one place that
  does it);
- ``capture_wanted``: a capture file to open read-only; ``session_wanted``: a target to start a live session with.

So a controller is tested with a fake host and its signals, without a main window (tests/ui/test_host.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Signal

from inspector.core.connect.target import Target
from inspector.core.tasks import Tasks

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from inspector.ui.session.tab import SessionTab


class ViewHost(Protocol):
    """The window as its controllers see it."""

    def current_tab(self) -> SessionTab | None:
        """The session tab on screen (a live session, a tap or an opened capture), or None."""
        ...

    def session_tabs(self) -> list[SessionTab]:
        """Every open session tab."""
        ...

    def show_tab(self, widget: QWidget) -> None:
        """Bring an open tab forward (one already closed is left alone)."""
        ...

    def window(self) -> QWidget:
        """The parent of a controller's dialogs and views."""
        ...

    def warn(self, title: str, text: str) -> None:
        """A warning in plain text, in a message box."""
        ...


class Controller(QObject):
    """One controller of the window: what a menu item or a signal does, speaking through the signals above."""

    said = Signal(str)  #: a sentence for the status line
    view_ready = Signal(object, str, str)  #: a view to show in a tab of its own, its tab's title, its tooltip or ""
    capture_wanted = Signal(object)  #: the Path of a capture to open read-only
    session_wanted = Signal(object)  #: a Target to start a live session with

    def __init__(self, host: ViewHost, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.host = host

    def say(self, sentence: str) -> None:
        self.said.emit(sentence)

    def show_view(self, view: QObject, title: str, tooltip: str = "") -> None:
        """Have ``view`` shown in a tab titled ``title``; a view with ``open_capture_requested`` (the button that
        opens its run's capture) has it answered with ``capture_wanted``."""
        opener = getattr(view, "open_capture_requested", None)
        if opener is not None:
            opener.connect(lambda path: self.capture_wanted.emit(Path(path)))
        self.view_ready.emit(view, title, tooltip)

    def flush_current(self) -> None:
        """Write out what the current live session has buffered of its capture, before it is read."""
        tab = self.host.current_tab()
        if tab is not None and tab.live is not None and tab.live.writer is not None:
            tab.live.writer.flush()


class SessionRunner(Controller):
    """A controller that runs something against a server in a session of its own (a comparison, a load test, a
    collection run): in the background, its capture in the captures folder, the target first given the
    window's session settings."""

    def __init__(self, host: ViewHost, tasks: Tasks, captures: Path, prepare: Callable[[Target], Target],
                 parent: QObject | None = None) -> None:
        """Runs go in ``tasks``, their sessions' captures in ``captures``; ``prepare`` applies the window's session
        settings to the target."""
        super().__init__(host, parent)
        self.tasks = tasks
        self.captures = captures
        self.prepare = prepare

    def live_tab(self, what: str) -> SessionTab | None:
        """The current tab when it has a live session; else None, and the status line says ``what`` needs one."""
        tab = self.host.current_tab()
        if tab is None or tab.live is None:
            self.say(f"{what} needs a live session: connect to the server first")
            return None
        return tab
