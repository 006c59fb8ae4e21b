"""What the Explorer shows of the 2026-07-28 surface and its official extensions, each a widget of its own that
subscribes to a core object, hooked into :class:`~inspector.ui.explorer.panel.ExplorerPanel` by a few calls:

* the Tasks page (:class:`~inspector.ui.explorer.tasks_page.TasksPage`) and "Run as task" beside Call
  (:class:`~inspector.ui.explorer.tasks_page.TaskOption`), over the catalog's
  :class:`~inspector.core.explore.tasks.TaskBook`; while the selected tool's call runs as a task, its status
  and progress show in the tool's result pane;
* the subscription line (2026-07-28): the ``subscriptions/listen`` stream the catalog keeps open, its id, what
  the server acknowledged hearing and how many notifications came (:class:`~inspector.core.explore.subscriptions.
  Subscriptions`);
* the caching line (2026-07-28 ``ttlMs``/``cacheScope``): how long each list and the last resource read are fresh
  (the catalog lists a kind again when its listing expires);
* the Skills page (:class:`~inspector.ui.explorer.skills_page.SkillsPage`) over a
  :class:`~inspector.core.skills.shelf.SkillShelf`: enabled for a server that declares the skills extension.

The panel calls :meth:`ExtensionPages.bind`, :meth:`server_ready` and :meth:`connection_ended` with its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidgetItem, QVBoxLayout

from inspector.core.explore.caching import CacheHints, short
from inspector.core.explore.catalog import Catalog, Notice
from inspector.core.explore.subscriptions import Subscription
from inspector.core.explore.tasks import TaskRun
from inspector.core.notices import What
from inspector.core.skills.shelf import SkillShelf
from inspector.core.wire.ids import id_key
from inspector.ui.explorer.skills_page import SkillsPage
from inspector.ui.explorer.tasks_page import TaskOption, TasksPage

if TYPE_CHECKING:
    from inspector.ui.explorer.panel import ExplorerPanel


class ExtensionPages:
    """The extension pages of one Explorer, and the hooks the panel calls."""

    def __init__(self, panel: ExplorerPanel) -> None:
        from inspector.ui.explorer.widgets import ROLE_ITEM

        self.panel = panel
        self.catalog: Catalog | None = None
        tools = panel.tools
        self.task_option = TaskOption(tools)
        for row in tools.findChildren(QHBoxLayout):  # beside Call
            if row.indexOf(tools.call_button) >= 0:
                row.insertWidget(row.indexOf(tools.call_button) + 1, self.task_option)
                break
        tools.tool_list.currentItemChanged.connect(
            lambda item, _old: self.task_option.follow(_item_data(item, ROLE_ITEM)))
        self.tasks_page = TasksPage(panel.tasks.spawn, panel.say)
        self.tasks_index = panel.pages.add_page(self.tasks_page, "Tasks")
        self.skills_page = SkillsPage(panel.tasks.spawn, panel.say)
        self.skills_index = panel.pages.add_page(self.skills_page, "Skills")
        self.shelf: SkillShelf | None = None
        self.subscription = QLabel(panel)
        self.subscription.setTextFormat(Qt.TextFormat.PlainText)
        self.subscription.setWordWrap(True)
        self.subscription.hide()
        self.caching = QLabel(panel)
        self.caching.setTextFormat(Qt.TextFormat.PlainText)
        self.caching.setWordWrap(True)
        self.caching.setToolTip("2026-07-28 caching hints (ttlMs, cacheScope): a list is listed again when it "
                                "expires, never sooner")
        self.caching.hide()
        self._read_line = ""

    def bind(self, catalog: Catalog) -> None:
        self.catalog = catalog
        layout = self.panel.layout()  # the panel's own, made after its pages: the line goes above its status
        if isinstance(layout, QVBoxLayout) and layout.indexOf(self.subscription) < 0:
            layout.insertWidget(layout.count() - 1, self.caching)
            layout.insertWidget(layout.count() - 1, self.subscription)
        self.tasks_page.bind(catalog.tasks)
        catalog.tasks.listeners.append(self._task_news)
        self.shelf = SkillShelf(catalog.session, timeout=catalog.timeout)
        self.skills_page.bind(self.shelf)
        catalog.subscriptions.listeners.append(self._subscription_news)
        catalog.listeners.append(self._catalog_news)

    def server_ready(self) -> None:
        assert self.catalog is not None
        server = self.catalog.session.server
        self.task_option.server = server
        self.tasks_page.server_ready(server)
        self.panel.pages.setTabEnabled(self.tasks_index, True)
        self.task_option.follow(self.panel.tools.tool)
        self.panel.pages.setTabEnabled(self.skills_index, self.shelf is not None and self.shelf.offered)
        self.skills_page.server_ready()

    def connection_ended(self) -> None:
        self.tasks_page.cancel_button.setEnabled(False)
        self.tasks_page.list_button.setEnabled(False)
        for button in (self.skills_page.load_button, self.skills_page.read_button, self.skills_page.refresh_button,
                       self.skills_page.directory_button):
            button.setEnabled(False)

    def as_task(self) -> bool:
        """Whether the user asked for the selected tool's call to run as a task."""
        return self.task_option.wanted()

    def _subscription_news(self, subscription: Subscription) -> None:
        assert self.catalog is not None
        current = self.catalog.subscriptions.current
        shown = current if current is not None else subscription
        self.subscription.setText(f"Listening: {shown.line()}" if shown.ended is None else shown.line())
        self.subscription.setToolTip("2026-07-28 servers send changes only on a subscriptions/listen stream; its "
                                     "id is the listen request's")
        self.subscription.show()

    def _catalog_news(self, notice: Notice) -> None:
        if notice.what in (What.LISTED, What.READ):
            self._show_caching(notice)
        elif notice.what == What.LISTEN_FAILED:
            self.subscription.setText(str(notice.sentence))
            self.subscription.show()

    def _show_caching(self, notice: Notice) -> None:
        assert self.catalog is not None
        if notice.what == What.READ and isinstance(notice.data, CacheHints):
            self._read_line = f"read {notice.uri}: {short(notice.data)}"
        lists = [f"{kind} {short(hints)}" for kind, hints in self.catalog.freshness.items() if hints is not None]
        parts = ([f"Cache: {' · '.join(lists)}"] if lists else []) + ([self._read_line] if self._read_line else [])
        self.caching.setText("\n".join(parts))
        self.caching.setVisible(bool(parts))

    def _task_news(self, run: TaskRun) -> None:
        """A task of the call on screen: its status and progress in the result pane while it runs."""
        token = self.panel.tools.token
        if token is None or run.progress_token is None or id_key(run.progress_token) != id_key(token) \
                or run.terminal:
            return
        self.panel.tools.show_progress(token, {**(run.progress or {}), "message": run.line()})


def _item_data(item: QListWidgetItem | None, role: Any) -> Any:
    return item.data(role) if item is not None else None
