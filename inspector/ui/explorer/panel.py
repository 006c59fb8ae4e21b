"""The Explorer: what the server offers, in a live session tab, filled on connect and kept up to date.

Pages: Tools (list with annotation badges and data: icons; arguments editor; Call, Ctrl+Enter; result),
Resources (read, subscribe; templates with a form for their RFC 6570 variables and completions), Prompts
(argument fields with completions; Get; messages), Roots (the folders answered to ``roots/list``) and History
(calls kept per profile: run again, copy as an ``mcp-inspector call`` line or as JSON-RPC).

Everything goes through the tab's :class:`~inspector.core.explore.catalog.Catalog`, hence through the session:
each request is a row of the timeline. Server text reaches the screen as plain text only.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication, QIcon, QPixmap
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from inspector.core.apps.meta import resource_uri
from inspector.core.connect.target import Target
from inspector.core.explore.catalog import Catalog, ExploreError, Notice
from inspector.core.explore.history import History, command_line
from inspector.core.notices import What
from inspector.core.present.images import ICON_MAX_PIXELS, icon_bytes
from inspector.core.tasks import Tasks
from inspector.core.transports.base import TransportError
from inspector.ui.explorer.extension_pages import ExtensionPages
from inspector.ui.explorer.history_page import HistoryPage
from inspector.ui.explorer.page_tabs import PageTabs
from inspector.ui.explorer.prompts_page import PromptsPage
from inspector.ui.explorer.resources_page import ResourcesPage
from inspector.ui.explorer.roots_page import RootsPage
from inspector.ui.explorer.tools_page import ToolsPage
from inspector.ui.explorer.widgets import ROLE_ITEM, CompletingField, badges, item_text
from inspector.ui.images import Decoded, decode_off_thread
from inspector.ui.timeline.model import plain_tooltip

#: At close, how long the explorer's requests under way may take to fail (the session is closed: at once).
CLOSE_GRACE = 2.0
#: The icon of a list item is drawn at most this many pixels square.
ICON_SIDE = 20


class ExplorerPanel(QWidget):
    """The explorer of one live session tab. :meth:`bind` it to the session's catalog before the session
    starts, call :meth:`server_ready` after the handshake and :meth:`connection_ended` when it is over. It
    composes its pages (:mod:`tools_page`, :mod:`resources_page`, :mod:`prompts_page`, :mod:`roots_page`,
    :mod:`history_page`), keeps their lists filled from the catalog and gives them what they share."""

    roots_edited = Signal(list)  #: the user changed the roots: the folders, to keep in the profile
    said = Signal(str, bool)  #: a sentence for the tab's status line, and whether it says something failed
    break_on_tool = Signal(str)  #: "Break on calls to this tool" on the Tools page: the tool's name

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog: Catalog | None = None
        self.target: Target | None = None
        self.tasks = Tasks(report=lambda sentence: self.say(sentence, failure=True))
        self._icons_generation: dict[str, int] = {}  #: bumped at each fill of a list: its icon task then stops
        self.ready = False
        #: kind -> why the server's list_changed for it is not acted on: said with the counts, which a later
        #: listing of another kind would otherwise say over it
        self._ignored: dict[str, str] = {}
        self.pages = PageTabs(self)
        self.pages.setDocumentMode(True)
        self.tools = ToolsPage(self)
        self.resources = ResourcesPage(self)
        self.prompts = PromptsPage(self)
        self.roots = RootsPage(self)
        self.history = HistoryPage(self)
        for page, title in ((self.tools, "Tools"), (self.resources, "Resources"), (self.prompts, "Prompts"),
                            (self.roots, "Roots"), (self.history, "History")):
            self.pages.add_page(page, title)
        self.extensions = ExtensionPages(self)  # Tasks (and Run as task), Skills, subscription and caching lines
        # what one page asks of another comes through here: the pages do not know each other
        for result in (self.tools.tool_result, self.prompts.prompt_result):
            result.read_requested.connect(self.read)
        self.tools.called.connect(self.history.remember)
        self.tools.break_requested.connect(self.break_on_tool.emit)
        self.history.rerun_requested.connect(self._rerun)
        self.roots.edited.connect(self.roots_edited.emit)
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.status)
        self._enable(False)
        # what the server offers is there to explore once it said so (server_ready): a session that fails before
        # keeps these tabs disabled; Roots and History are the user's own
        for index in (0, 1, 2, self.extensions.tasks_index, self.extensions.skills_index):
            self.pages.setTabEnabled(index, False)

    # -- the session -----------------------------------------------------------------------------------

    def bind(self, catalog: Catalog, target: Target, history: History | None) -> None:
        """Work through ``catalog`` (attached here) for the session to ``target``; calls are kept in
        ``history`` under the target's name."""
        self.catalog = catalog
        self.target = target
        self._ignored = {}
        catalog.listeners.append(self._notice)
        catalog.attach()
        self.extensions.bind(catalog)
        self.roots.show_roots(list(target.roots))
        self.history.show_calls(history, target.name)

    def server_ready(self) -> None:
        """The handshake is done: list what the server declares."""
        if self.catalog is None:
            return
        self.ready = True
        self._enable(True)
        caps = self.catalog.capabilities
        for index, kind in ((0, "tools"), (1, "resources"), (2, "prompts")):
            self.pages.setTabEnabled(index, self.catalog.declares(kind))
        self.resources.subscribe_button.setVisible(self.catalog.can_subscribe)
        if caps and not self.catalog.declares("tools") and self.catalog.declares("resources"):
            self.pages.setCurrentIndex(1)
        elif self.catalog.declares("tools"):  # the disabled tabs had moved it to Roots
            self.pages.setCurrentIndex(0)
        self.extensions.server_ready()
        self.say("listing what the server offers…")
        self.spawn(self.catalog.load(), "listing what the server offers")

    def connection_ended(self) -> None:
        self.ready = False
        self._enable(False)
        self.extensions.connection_ended()
        if self.catalog is not None:
            self.catalog.detach()

    async def close(self) -> None:  # type: ignore[override]  # not QWidget.close: ends the explorer's work
        """After the session closed: let the explorer's requests under way end (each fails at once now), so that
        none is left half-sent."""
        self.connection_ended()
        for view in (self.tools.tool_result, self.resources.resource_result, self.prompts.prompt_result):
            view.decoding.cancel_all()  # an image decoded after its tab is gone would have nowhere to go
        await self.tasks.wait(CLOSE_GRACE)
        if self.catalog is not None:
            await self.catalog.wait_idle(CLOSE_GRACE)

    def _enable(self, on: bool) -> None:
        for button in (self.tools.call_button, self.resources.read_button, self.resources.subscribe_button,
                       self.resources.template_read, self.prompts.get_button):
            button.setEnabled(on)

    def spawn(self, coro: Coroutine[Any, Any, Any], what: str) -> None:
        self.tasks.spawn(coro, what)

    def say(self, text: str, *, failure: bool = False) -> None:
        self.status.setText(text)
        self.said.emit(text, failure)

    def _notice(self, notice: Notice) -> None:
        if notice.what == What.LISTED and notice.kind is not None:
            self._fill(notice.kind)
            self.say(self._counts())
        elif notice.what == What.LIST_FAILED:
            self.say(f"could not list {notice.kind}: {notice.sentence}", failure=True)
        elif notice.what == What.CHANGE_IGNORED and notice.kind is not None:
            self._ignored[notice.kind] = str(notice.sentence)
            self.say(self._counts())
        elif notice.what == What.PROGRESS and isinstance(notice.data, dict):
            self.tools.show_progress(notice.token, notice.data)
        elif notice.what == What.UPDATED and notice.uri is not None:
            self.resources.updated(notice.uri)

    def _counts(self) -> str:
        assert self.catalog is not None
        parts = [f"{len(self.catalog.items[k])} {k}" for k in ("tools", "resources", "templates", "prompts")
                 if self.catalog.declares(k)]
        counts = ", ".join(parts) or "the server declares no tools, resources or prompts"
        return "; ".join([counts, *self._ignored.values()])

    def _fill(self, kind: str) -> None:
        assert self.catalog is not None
        items = self.catalog.items[kind]
        target, key = {"tools": (self.tools.tool_list, "name"), "resources": (self.resources.resource_list, "uri"),
                       "templates": (self.resources.template_list, "uriTemplate"),
                       "prompts": (self.prompts.prompt_list, "name")}[kind]
        current = target.currentItem().data(ROLE_ITEM).get(key) if target.currentItem() is not None else None
        # the Tools page hears of the new list once it is filled (relisted), not of an empty list between: the
        # selected tool's form, what is typed in it and its focus stay when the tool is listed again unchanged
        target.blockSignals(kind == "tools")
        target.clear()
        for item in items:
            line = QListWidgetItem(item_text(item) if kind != "resources" else
                                   f"{item.get('name') or item.get('uri')} — {item.get('uri')}")
            # a tool with an MCP App says so: calling it renders the app in the Apps tab
            if kind == "tools" and (words := badges(item) + (["app"] if resource_uri(item) else [])):
                line.setText(line.text() + "   " + " ".join(f"[{w}]" for w in words))
            description = item.get("description")
            line.setToolTip(plain_tooltip(description) if isinstance(description, str) and description else "")
            line.setData(ROLE_ITEM, item)
            target.addItem(line)
            if item.get(key) == current:
                target.setCurrentItem(line)
        if kind == "tools":
            target.blockSignals(False)
            self.tools.relisted()
        self._icons_generation[kind] = generation = self._icons_generation.get(kind, 0) + 1
        wanted = [(row, raw) for row, item in enumerate(items) if (raw := icon_bytes(item)) is not None]
        if wanted:
            self.spawn(self._draw_icons(target, kind, generation, wanted), f"drawing the {kind}' icons")

    async def _draw_icons(self, target: QListWidget, kind: str, generation: int,
                          wanted: list[tuple[int, bytes]]) -> None:
        """Each item's ``data:`` icon, decoded off the GUI thread within ICON_MAX_PIXELS (one too large gets no
        icon and a line in its tooltip saying why); the same bytes are decoded once. A list filled again
        meanwhile is left alone."""
        seen: dict[bytes, Decoded] = {}
        for row, raw in wanted:
            decoded = seen.get(raw)
            if decoded is None:
                decoded = seen[raw] = await decode_off_thread(raw, ICON_MAX_PIXELS, ICON_SIDE * 2)
            if self._icons_generation.get(kind) != generation:
                return
            if row >= target.count():
                continue
            line = target.item(row)
            if decoded.image is not None:
                line.setIcon(QIcon(QPixmap.fromImage(decoded.image)))
            else:
                item = line.data(ROLE_ITEM)
                description = item.get("description") if isinstance(item, dict) else None
                said = f"{description}\n\n" if isinstance(description, str) and description else ""
                line.setToolTip(plain_tooltip(f"{said}Its icon is not shown: {decoded.problem}."))

    # -- what the pages share ---------------------------------------------------------------------------

    def read(self, uri: str) -> None:
        """Read ``uri`` on the Resources page (a resource link clicked on any page comes here)."""
        self.resources.read(uri)

    def _rerun(self, tool: str, arguments: dict[str, Any]) -> None:
        """A History entry called again: on the Tools page, its tool selected and its arguments in the form."""
        tools = self.tools
        tools.select_tool(tool)
        if tools.arguments_editor is not None:
            tools.arguments_editor.set_arguments(arguments)
        self.show_page(tools)
        tools.call_tool(tool, arguments)

    def show_page(self, page: QWidget) -> None:
        self.pages.setCurrentWidget(page)

    def follow_task_support(self, tool: dict[str, Any] | None) -> None:
        self.extensions.task_option.follow(tool)

    def as_task(self) -> bool:
        return self.extensions.as_task()

    def command(self, tool: str, arguments: dict[str, Any]) -> str:
        """The ``mcp-inspector call`` line that makes this call to this session's server (its options kept,
        secrets left out)."""
        target = self.target or Target()
        return command_line(tool, arguments, target.command_options())

    def copy(self, text: str) -> None:
        if text:
            QGuiApplication.clipboard().setText(text)
            self.say("copied to the clipboard")

    def asker(self, ask: Callable[[str], None], name: str) -> Callable[[str], None] | None:
        """What the field of argument ``name`` calls to ask for completions: None when the server declares none."""
        if self.catalog is None or not self.catalog.completions:
            return None
        return lambda _text: ask(name)

    def complete(self, field: CompletingField, ref: dict[str, Any], name: str, others: dict[str, str]) -> None:
        """Ask the server for completions of argument ``name`` of ``ref`` (``others``: the arguments given so far)
        and offer them in ``field``."""
        self.spawn(self._complete(field, ref, name, others), "asking for completions")

    async def _complete(self, field: CompletingField, ref: dict[str, Any], name: str, others: dict[str, str]) -> None:
        assert self.catalog is not None
        typed = field.text()
        try:
            values = await self.catalog.complete(ref, name, typed, others or None)
        except (ExploreError, TransportError) as exc:
            self.say(f"no suggestions for {name}: {exc}", failure=True)
            return
        field.offer(typed, values)
