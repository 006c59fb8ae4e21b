"""The window's actions, declared once: the menus and the keyboard shortcuts both come from :data:`ACTIONS`.

A key belongs to exactly one action of the window. Qt finds an "ambiguous shortcut overload" (and does
nothing at all) when two enabled shortcuts of one window match a key press, which is what happened when the
session tab registered Ctrl+J, F8, Ctrl+Shift+C and Ctrl+Shift+X again beside the menu items. So widgets do
not register window-wide shortcuts of their own; the only other shortcuts are scoped to one widget and its
children (the composer's Ctrl+Enter, Alt+Up/Down; the stderr pane's F3), and those keys appear here in
:data:`WIDGET_SHORTCUTS` so that the test which checks for clashes (tests/ui/test_actions.py) knows them.

Actions that work on the current tab are enabled only while there is one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QTabWidget

if TYPE_CHECKING:
    from inspector.ui.clientbench.run import ClientBenches
    from inspector.ui.collections.run import CollectionRuns
    from inspector.ui.compare.drift import Baselines
    from inspector.ui.compare.run import Comparisons
    from inspector.ui.context.run import ModelViews
    from inspector.ui.controllers.files import CaptureFiles
    from inspector.ui.controllers.runs import ServerRuns
    from inspector.ui.controllers.settings import SessionSettings
    from inspector.ui.load.run import LoadTests
    from inspector.ui.serve.run import ServeCaptures
    from inspector.ui.session.tab import SessionTab

Shortcut = str | QKeySequence.StandardKey


class Window(Protocol):
    """What the actions work on: the main window and the controllers the composition root gave it
    (inspector/ui/app.py)."""

    tabs: QTabWidget
    session_settings: SessionSettings
    files: CaptureFiles
    runs: ServerRuns
    comparisons: Comparisons
    load_tests: LoadTests
    collection_runs: CollectionRuns
    baselines: Baselines
    serves: ServeCaptures
    model_views: ModelViews
    client_benches: ClientBenches

    def current_tab(self) -> SessionTab | None: ...
    def open_demo(self) -> Any: ...
    def close_tab(self, index: int) -> None: ...
    def close(self) -> bool: ...
    def restart_current(self) -> None: ...
    def stop_current(self) -> None: ...
    def reload_on_save_current(self) -> None: ...
    def about(self) -> None: ...


@dataclass(frozen=True)
class ActionSpec:
    """One action of the window: where it sits in the menus, its key, and what it does.

    ``window`` runs with the main window; ``tab`` with the current session tab (the action is disabled while
    there is none). Exactly one of them is set.
    """

    name: str  #: a stable identifier (``window.actions[name]``)
    menu: str  #: the menu title it sits in
    text: str
    shortcut: Shortcut | None = None
    window: Callable[[Window], Any] | None = None
    tab: Callable[[SessionTab], Any] | None = None
    separator_before: bool = False
    needs_tab: bool = False  #: a window action that works on the current tab: disabled while there is none

    @property
    def on_tab(self) -> bool:
        return self.tab is not None or self.needs_tab


ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("demo", "&File", "&Demo session", window=lambda w: w.open_demo()),
    ActionSpec("open", "&File", "&Open capture…", QKeySequence.StandardKey.Open,
               window=lambda w: w.files.open_dialog()),
    ActionSpec("save_as", "&File", "&Save capture as…", QKeySequence.StandardKey.Save,
               window=lambda w: w.files.save_as(), needs_tab=True),
    ActionSpec("export", "&File", "&Export…", window=lambda w: w.files.export_dialog(), needs_tab=True),
    ActionSpec("close_tab", "&File", "&Close tab", QKeySequence.StandardKey.Close,
               window=lambda w: w.close_tab(w.tabs.currentIndex()), separator_before=True, needs_tab=True),
    # Ctrl+Q spelled out: not every platform theme binds the standard Quit key (offscreen Qt binds none)
    ActionSpec("quit", "&File", "&Quit", "Ctrl+Q", window=lambda w: w.close()),
    ActionSpec("restart", "&Session", "&Restart", "Ctrl+R", window=lambda w: w.restart_current(), needs_tab=True),
    ActionSpec("stop", "&Session", "&Stop", window=lambda w: w.stop_current(), needs_tab=True),
    ActionSpec("reload_on_save", "&Session", "Reload on sa&ve…", window=lambda w: w.reload_on_save_current(),
               needs_tab=True),
    ActionSpec("cancel_request", "&Session", "&Cancel the selected request", "Ctrl+Shift+X",
               tab=lambda t: t.cancel_selected()),
    ActionSpec("reconnect", "&Session", "Reconnect to the capture's server…",
               window=lambda w: w.runs.reconnect_current(), needs_tab=True),
    ActionSpec("replay", "&Session", "Re&play session…", "Ctrl+Shift+R", window=lambda w: w.runs.replay_current(),
               needs_tab=True),
    ActionSpec("check_server", "&Session", "C&heck server", window=lambda w: w.runs.check_current(), needs_tab=True),
    ActionSpec("resend", "&Session", "Resend the selected message", "Ctrl+Shift+E", tab=lambda t: t.resend_selected()),
    ActionSpec("compare_with", "&Session", "Co&mpare with…", window=lambda w: w.comparisons.compare_current(),
               needs_tab=True, separator_before=True),
    ActionSpec("load_test", "&Session", "&Load test…", window=lambda w: w.load_tests.load_current(), needs_tab=True),
    ActionSpec("run_collection", "&Session", "Run co&llection…",
               window=lambda w: w.collection_runs.run_collection_current(), needs_tab=True),
    ActionSpec("save_baseline", "&Session", "Save tool &baseline…",
               window=lambda w: w.baselines.save_baseline_current(), needs_tab=True),
    ActionSpec("model_view", "&Session", "Model's &view", window=lambda w: w.model_views.show_current(),
               needs_tab=True),
    ActionSpec("copy_config", "&Session", "Copy server as &config…", window=lambda w: w.files.copy_server_config(),
               needs_tab=True),
    ActionSpec("serve_capture", "&Session", "Ser&ve this capture…", window=lambda w: w.serves.serve_current(),
               needs_tab=True),
    ActionSpec("test_client", "&Session", "Test a cl&ient…", window=lambda w: w.client_benches.open_dialog()),
    ActionSpec("timeout", "&Session", "Request &timeout…", window=lambda w: w.session_settings.ask_request_timeout(),
               separator_before=True),
    ActionSpec("max_message", "&Session", "Message size &limit…", window=lambda w: w.session_settings.ask_max_message(),
               separator_before=True),
    ActionSpec("find", "&View", "&Find", QKeySequence.StandardKey.Find, tab=lambda t: t.timeline.focus_filter()),
    ActionSpec("next_problem", "&View", "&Next problem", "F8", tab=lambda t: t.timeline.next_problem()),
    ActionSpec("jump_to_pair", "&View", "&Jump request ↔ response", "Ctrl+J", tab=lambda t: t.timeline.jump_to_pair()),
    ActionSpec("copy_message", "&View", "&Copy message as JSON", "Ctrl+Shift+C", tab=lambda t: t.copier.copy_message()),
    ActionSpec("explorer", "&View", "E&xplorer: show or fold", "Ctrl+E", tab=lambda t: t.toggle_explorer(),
               separator_before=True),
    ActionSpec("about", "&Help", "&About", window=lambda w: w.about()),
)


#: Keys bound inside one widget (and its children) only, by the widget that owns them.
WIDGET_SHORTCUTS: dict[str, str] = {
    "Ctrl+Return": "composer: send (also the answer to a server request); explorer: call the tool",
    "Ctrl+Enter": "composer: send; explorer: call the tool (the keypad's Enter)",
    "Alt+Up": "composer: the previous message sent",
    "Alt+Down": "composer: the next message sent",
    "F3": "stderr pane: the next match",
}

MENU_ORDER = ("&File", "&Session", "&View", "&Help")


def menu_path(name: str) -> str:
    """Where an action sits, as a sentence names it: ``Session > Request timeout…``."""
    spec = next(spec for spec in ACTIONS if spec.name == name)
    return f"{spec.menu} > {spec.text}".replace("&", "")


def install_actions(window: QMainWindow, target: Window) -> tuple[dict[str, QAction], QMenu]:
    """Build the menu bar of ``window`` from :data:`ACTIONS`, each action working on ``target`` (the window with its
    controllers); returns the actions by name, and the "Open recent" submenu the File menu gets after "Open
    capture…" (the window's captures controller fills it)."""
    bar = window.menuBar()
    menus = {title: bar.addMenu(title) for title in MENU_ORDER}
    actions: dict[str, QAction] = {}
    recent: QMenu | None = None
    for spec in ACTIONS:
        menu = menus[spec.menu]
        if spec.separator_before:
            menu.addSeparator()
        action = QAction(spec.text, window)
        if isinstance(spec.shortcut, QKeySequence.StandardKey):
            action.setShortcuts(spec.shortcut)  # every key the platform binds (Close: Ctrl+W and Ctrl+F4)
        elif spec.shortcut is not None:
            action.setShortcut(QKeySequence(spec.shortcut))
        action.triggered.connect(_runner(target, spec))
        menu.addAction(action)
        actions[spec.name] = action
        if spec.name == "open":
            recent = menu.addMenu("Open &recent")
    enable_tab_actions(actions, False)
    assert recent is not None, "the File menu has Open"
    return actions, recent


def keys_of(shortcut: Shortcut) -> list[str]:
    """The keys a shortcut stands for, as text (a standard key may have several on a platform)."""
    sequences = QKeySequence.keyBindings(shortcut) if isinstance(shortcut, QKeySequence.StandardKey) \
        else [QKeySequence(shortcut)]
    return [sequence.toString(QKeySequence.SequenceFormat.PortableText) for sequence in sequences]


def enable_tab_actions(actions: dict[str, QAction], has_tab: bool) -> None:
    """Enable the actions that work on the current tab exactly while there is one."""
    for spec in ACTIONS:
        if spec.on_tab:
            actions[spec.name].setEnabled(has_tab)


def _runner(window: Window, spec: ActionSpec) -> Callable[[], None]:
    def run() -> None:
        if spec.window is not None:
            spec.window(window)
            return
        tab = window.current_tab()
        if tab is not None and spec.tab is not None:
            spec.tab(tab)

    return run
