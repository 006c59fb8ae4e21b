"""The Explorer: what the server offers, in a live session tab, filled on connect and kept up to date.

Pages: Tools (list with annotation badges and data: icons; arguments editor; Call, Ctrl+Enter; result),
Resources (read, subscribe; templates with a form for their RFC 6570 variables and completions), Prompts
(argument fields with completions; Get; messages), Roots (the folders answered to ``roots/list``) and History
(calls kept per profile: run again, copy as an ``mcp-inspector call`` line or as JSON-RPC).

Everything goes through the tab's :class:`~inspector.core.explore.catalog.Catalog`, hence through the session:
each request is a row of the timeline. Server text reaches the screen as plain text only.
"""

from __future__ import annotations

import base64
import binascii
import json
import time
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import QEvent, QObject, QStringListModel, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QIcon, QImage, QKeyEvent, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QCompleter,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from uritemplate import URITemplate

from inspector.core.explore.catalog import Catalog, ExploreError, Notice, request_message
from inspector.core.explore.history import Call, History, command_line, summarize
from inspector.core.explore.tasks import outcome_of
from inspector.core.session.outcomes import result_of
from inspector.core.session.target import Target
from inspector.core.tasks import Tasks
from inspector.core.transports.base import TransportError
from inspector.ui.explorer.arguments import arguments_editor_for
from inspector.ui.explorer.extension_pages import ExtensionPages
from inspector.ui.explorer.result_view import ResultView
from inspector.ui.timeline.model import plain_tooltip

#: Keys that call the selected tool (as the composer's send keys).
CALL_KEYS = ("Ctrl+Return", "Ctrl+Enter")
#: Typing pauses this long before the server is asked for completions (one request per pause, not per key).
COMPLETION_DELAY_MS = 250
#: At close, how long the explorer's requests under way may take to fail (the session is closed: at once).
CLOSE_GRACE = 2.0
#: Annotation hints shown as badges, with the text of each (https://modelcontextprotocol.io/specification/2025-11-25/schema#toolannotations).
BADGES = (("readOnlyHint", "read-only"), ("destructiveHint", "destructive"), ("idempotentHint", "idempotent"),
          ("openWorldHint", "open-world"))
ROLE_ITEM = Qt.ItemDataRole.UserRole
#: The icon of a list item is drawn at most this many pixels square.
ICON_SIDE = 20


def badges(tool: dict[str, Any]) -> list[str]:
    """The annotation hints a tool sets to true, as badge words."""
    annotations = tool.get("annotations")
    if not isinstance(annotations, dict):
        return []
    return [word for key, word in BADGES if annotations.get(key) is True]


def data_icon(item: dict[str, Any]) -> QIcon | None:
    """The first of an item's ``icons`` given as a ``data:`` URI with base64 image data; never fetched from
    anywhere (http icons are left out: server content is untrusted and the window opens no connection)."""
    icons = item.get("icons")
    for icon in icons if isinstance(icons, list) else []:
        src = icon.get("src") if isinstance(icon, dict) else None
        if not isinstance(src, str) or not src.startswith("data:") or ";base64," not in src:
            continue
        try:
            raw = base64.b64decode(src.split(";base64,", 1)[1], validate=False)
        except (binascii.Error, ValueError):
            continue
        image = QImage()
        if image.loadFromData(raw):
            return QIcon(QPixmap.fromImage(image))
    return None


def item_text(item: dict[str, Any], key: str = "name") -> str:
    """A list line: the name, and the title when it says more."""
    name = str(item.get(key) or "?")
    title = item.get("title")
    return f"{name} — {title}" if isinstance(title, str) and title and title != name else name


def copy_as_button(parent: QWidget, command: Callable[[], str], rpc: Callable[[], str],
                   copy: Callable[[str], None]) -> QPushButton:
    """One "Copy as" button with a menu (as an ``mcp-inspector`` command, as JSON-RPC): one button, not two,
    keeps the Explorer narrow enough to sit beside the timeline on a small screen. A push button: its menu
    arrow gets a place of its own (a tool button's was drawn over the end of the text)."""
    button = QPushButton("Copy as", parent)
    menu = QMenu(button)
    menu.addAction("Copy as command", lambda: copy(command()))
    menu.addAction("Copy as JSON-RPC", lambda: copy(rpc()))
    button.setMenu(menu)
    return button


class _CallKeys(QObject):
    """Ctrl+Enter pressed in an editor that swallows it (a text editor inserts a line) calls ``slot``: key
    presses delivered straight to a widget (an inactive window, synthetic events) meet no shortcut map."""

    def __init__(self, slot: Callable[[], None], parent: QObject) -> None:
        super().__init__(parent)
        self._slot = slot

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) \
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) \
                and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self._slot()
            return True
        return False

    def watch(self, widget: QWidget) -> None:
        widget.installEventFilter(self)
        for child in widget.findChildren(QWidget):
            child.installEventFilter(self)


class CompletingField(QLineEdit):
    """A line edit whose suggestions come from ``completion/complete`` as the user types (after a pause)."""

    def __init__(self, ask: Callable[[str], None] | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.suggestions = QStringListModel(self)
        completer = QCompleter(self.suggestions, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.setCompleter(completer)
        self._ask = ask
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(COMPLETION_DELAY_MS)
        self._timer.timeout.connect(self.ask_now)
        if ask is not None:
            self.textEdited.connect(lambda _text: self._timer.start())

    def ask_now(self) -> None:
        if self._ask is not None:
            self._ask(self.text())

    def offer(self, typed: str, values: list[str]) -> None:
        """The server's suggestions for ``typed``; shown when the field still holds it."""
        if self.text() != typed:
            return
        self.suggestions.setStringList(values)
        if values and self.hasFocus():
            self.completer().complete()


class ExplorerPanel(QWidget):
    """The explorer of one live session tab. :meth:`bind` it to the session's catalog before the session
    starts, call :meth:`server_ready` after the handshake and :meth:`connection_ended` when it is over."""

    roots_edited = Signal(list)  #: the user changed the roots: the folders, to keep in the profile
    said = Signal(str, bool)  #: a sentence for the tab's status line, and whether it says something failed

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog: Catalog | None = None
        self.target: Target | None = None
        self.tasks = Tasks(report=lambda sentence: self.say(sentence, failure=True))
        self.history: History | None = None
        self.profile = ""
        self.ready = False
        self._tool: dict[str, Any] | None = None
        self._template: dict[str, Any] | None = None
        self._prompt: dict[str, Any] | None = None
        self._fields: dict[str, CompletingField] = {}
        self._prompt_fields: dict[str, CompletingField] = {}
        self._token: str | None = None
        #: kind -> why the server's list_changed for it is not acted on: said with the counts, which a later
        #: listing of another kind would otherwise say over it
        self._ignored: dict[str, str] = {}
        self.pages = QTabWidget(self)
        self.pages.setDocumentMode(True)
        self._build_tools()
        self._build_resources()
        self._build_prompts()
        self._build_roots()
        self._build_history()
        self.extensions = ExtensionPages(self)  # Tasks (and Run as task), each a widget of its own
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.status)
        self._enable(False)

    # -- construction ----------------------------------------------------------------------------------

    def _build_tools(self) -> None:
        page = QWidget()
        self.tool_list = QListWidget(page)
        self.tool_list.currentItemChanged.connect(lambda item, _old: self._tool_selected(item))
        self.tool_about = QLabel(page)
        self.tool_about.setTextFormat(Qt.TextFormat.PlainText)
        self.tool_about.setWordWrap(True)
        self.editor_slot = QVBoxLayout()
        self.arguments_editor: Any = None
        self.call_button = QPushButton("Call", page)
        self.call_button.setToolTip("Call the tool (Ctrl+Enter)")
        self.call_button.clicked.connect(self.call)
        self.copy_menu = copy_as_button(page, lambda: self.command_for_current(), lambda: self.rpc_for_current(),
                                        self._copy)
        buttons = QHBoxLayout()
        buttons.addWidget(self.call_button)
        buttons.addWidget(QLabel("Ctrl+Enter"))
        buttons.addStretch(1)
        buttons.addWidget(self.copy_menu)
        form = QWidget()
        form_layout = QVBoxLayout(form)
        form_layout.setContentsMargins(0, 0, 0, 0)
        form_layout.addWidget(self.tool_about)
        form_layout.addLayout(self.editor_slot, 1)
        form_layout.addLayout(buttons)
        self.tool_result = ResultView()
        self.tool_result.read_requested.connect(self.read)
        split = QSplitter(Qt.Orientation.Vertical, page)
        split.addWidget(self.tool_list)
        split.addWidget(form)
        split.addWidget(self.tool_result)
        split.setSizes([200, 200, 300])
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        self.tools_page = page
        self._call_keys = _CallKeys(self.call, self)
        for keys in CALL_KEYS:
            QShortcut(QKeySequence(keys), page, self.call).setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.pages.addTab(page, "Tools")

    def _build_resources(self) -> None:
        page = QWidget()
        self.resource_list = QListWidget(page)
        self.resource_list.itemActivated.connect(lambda item: self._read_item(item))
        self.resource_list.currentItemChanged.connect(lambda _item, _old: self._resource_selected())
        self.read_button = QPushButton("Read", page)
        self.read_button.clicked.connect(lambda: self._read_item(self.resource_list.currentItem()))
        self.subscribe_button = QPushButton("Subscribe", page)
        self.subscribe_button.clicked.connect(self._toggle_subscription)
        self.updates = QLabel(page)
        self.updates.setTextFormat(Qt.TextFormat.PlainText)
        self.updates.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.read_button)
        row.addWidget(self.subscribe_button)
        row.addStretch(1)
        self.template_list = QListWidget(page)
        self.template_list.currentItemChanged.connect(lambda item, _old: self._template_selected(item))
        self.template_form = QFormLayout()
        self.template_uri = QLabel(page)
        self.template_uri.setTextFormat(Qt.TextFormat.PlainText)
        self.template_read = QPushButton("Read", page)
        self.template_read.clicked.connect(self.read_template)
        template_row = QHBoxLayout()
        template_row.addWidget(self.template_uri, 1)
        template_row.addWidget(self.template_read)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(QLabel("Resources"))
        left_layout.addWidget(self.resource_list, 2)
        left_layout.addLayout(row)
        left_layout.addWidget(self.updates)
        left_layout.addWidget(QLabel("Templates"))
        left_layout.addWidget(self.template_list, 1)
        left_layout.addLayout(self.template_form)
        left_layout.addLayout(template_row)
        self.resource_result = ResultView()
        self.resource_result.read_requested.connect(self.read)
        split = QSplitter(Qt.Orientation.Vertical, page)
        split.addWidget(left)
        split.addWidget(self.resource_result)
        split.setSizes([400, 300])
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        self.resources_page = page
        self.pages.addTab(page, "Resources")

    def _build_prompts(self) -> None:
        page = QWidget()
        self.prompt_list = QListWidget(page)
        self.prompt_list.currentItemChanged.connect(lambda item, _old: self._prompt_selected(item))
        self.prompt_about = QLabel(page)
        self.prompt_about.setTextFormat(Qt.TextFormat.PlainText)
        self.prompt_about.setWordWrap(True)
        self.prompt_form = QFormLayout()
        self.get_button = QPushButton("Get", page)
        self.get_button.clicked.connect(self.get_prompt)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.prompt_list, 1)
        left_layout.addWidget(self.prompt_about)
        left_layout.addLayout(self.prompt_form)
        left_layout.addWidget(self.get_button)
        self.prompt_result = ResultView()
        self.prompt_result.read_requested.connect(self.read)
        split = QSplitter(Qt.Orientation.Vertical, page)
        split.addWidget(left)
        split.addWidget(self.prompt_result)
        split.setSizes([300, 400])
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        self.pages.addTab(page, "Prompts")

    def _build_roots(self) -> None:
        page = QWidget()
        about = QLabel("Folders the server may work in, answered to its roots/list as file:// URIs. Kept in the "
                       "server's profile; the server is told when the list changes.", page)
        about.setWordWrap(True)
        self.root_list = QListWidget(page)
        add = QPushButton("Add folder…", page)
        add.clicked.connect(self._add_root)
        remove = QPushButton("Remove", page)
        remove.clicked.connect(self._remove_root)
        row = QHBoxLayout()
        row.addWidget(add)
        row.addWidget(remove)
        row.addStretch(1)
        layout = QVBoxLayout(page)
        layout.addWidget(about)
        layout.addWidget(self.root_list, 1)
        layout.addLayout(row)
        self.pages.addTab(page, "Roots")

    def _build_history(self) -> None:
        page = QWidget()
        self.history_list = QListWidget(page)
        self.history_list.itemActivated.connect(lambda _item: self.rerun())
        rerun = QPushButton("Run again", page)
        rerun.clicked.connect(self.rerun)
        row = QHBoxLayout()
        row.addWidget(rerun)
        row.addStretch(1)
        row.addWidget(copy_as_button(page, lambda: self._history_text(command=True),
                                     lambda: self._history_text(command=False), self._copy))
        layout = QVBoxLayout(page)
        layout.addWidget(self.history_list, 1)
        layout.addLayout(row)
        self.pages.addTab(page, "History")

    # -- the session -----------------------------------------------------------------------------------

    def bind(self, catalog: Catalog, target: Target, history: History | None) -> None:
        """Work through ``catalog`` (attached here) for the session to ``target``; calls are kept in
        ``history`` under the target's name."""
        self.catalog = catalog
        self.target = target
        self.history = history
        self.profile = target.name
        self._ignored = {}
        catalog.listeners.append(self._notice)
        catalog.attach()
        self.extensions.bind(catalog)
        for folder in target.roots:
            self.root_list.addItem(folder)
        self._show_history()

    def server_ready(self) -> None:
        """The handshake is done: list what the server declares."""
        if self.catalog is None:
            return
        self.ready = True
        self._enable(True)
        caps = self.catalog.capabilities
        for index, kind in ((0, "tools"), (1, "resources"), (2, "prompts")):
            self.pages.setTabEnabled(index, self.catalog.declares(kind))
        self.subscribe_button.setVisible(self.catalog.can_subscribe)
        if caps and not self.catalog.declares("tools") and self.catalog.declares("resources"):
            self.pages.setCurrentIndex(1)
        self.extensions.server_ready()
        self.say("listing what the server offers…")
        self._spawn(self.catalog.load(), "listing what the server offers")

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
        await self.tasks.wait(CLOSE_GRACE)
        if self.catalog is not None:
            await self.catalog.wait_idle(CLOSE_GRACE)

    def _enable(self, on: bool) -> None:
        for button in (self.call_button, self.read_button, self.subscribe_button, self.template_read,
                       self.get_button):
            button.setEnabled(on)

    def _spawn(self, coro: Coroutine[Any, Any, Any], what: str) -> None:
        self.tasks.spawn(coro, what)

    def say(self, text: str, *, failure: bool = False) -> None:
        self.status.setText(text)
        self.said.emit(text, failure)

    def _notice(self, notice: Notice) -> None:
        if notice.what == "listed" and notice.kind is not None:
            self._fill(notice.kind)
            self.say(self._counts())
        elif notice.what == "list_failed":
            self.say(f"could not list {notice.kind}: {notice.sentence}", failure=True)
        elif notice.what == "change_ignored" and notice.kind is not None:
            self._ignored[notice.kind] = str(notice.sentence)
            self.say(self._counts())
        elif notice.what == "progress" and notice.token == self._token and isinstance(notice.data, dict):
            self.tool_result.show_progress(notice.data)
        elif notice.what == "updated" and notice.uri is not None:
            self.updates.setText(f"{notice.uri} was updated at {time.strftime('%H:%M:%S')}; Read shows it")

    def _counts(self) -> str:
        assert self.catalog is not None
        parts = [f"{len(self.catalog.items[k])} {k}" for k in ("tools", "resources", "templates", "prompts")
                 if self.catalog.declares(k)]
        counts = ", ".join(parts) or "the server declares no tools, resources or prompts"
        return "; ".join([counts, *self._ignored.values()])

    def _fill(self, kind: str) -> None:
        assert self.catalog is not None
        items = self.catalog.items[kind]
        target, key = {"tools": (self.tool_list, "name"), "resources": (self.resource_list, "uri"),
                       "templates": (self.template_list, "uriTemplate"),
                       "prompts": (self.prompt_list, "name")}[kind]
        current = target.currentItem().data(ROLE_ITEM).get(key) if target.currentItem() is not None else None
        target.clear()
        for item in items:
            line = QListWidgetItem(item_text(item) if kind != "resources" else
                                   f"{item.get('name') or item.get('uri')} — {item.get('uri')}")
            if kind == "tools" and (words := badges(item)):
                line.setText(line.text() + "   " + " ".join(f"[{w}]" for w in words))
            description = item.get("description")
            line.setToolTip(plain_tooltip(description) if isinstance(description, str) and description else "")
            line.setData(ROLE_ITEM, item)
            icon = data_icon(item)
            if icon is not None:
                line.setIcon(icon)
            target.addItem(line)
            if item.get(key) == current:
                target.setCurrentItem(line)

    # -- tools -----------------------------------------------------------------------------------------

    def select_tool(self, name: str) -> bool:
        for row in range(self.tool_list.count()):
            if self.tool_list.item(row).data(ROLE_ITEM).get("name") == name:
                self.tool_list.setCurrentRow(row)
                return True
        return False

    def _tool_selected(self, item: QListWidgetItem | None) -> None:
        tool = item.data(ROLE_ITEM) if item is not None else None
        self._tool = tool
        if self.arguments_editor is not None:
            self.arguments_editor.deleteLater()
            self.arguments_editor = None
        if tool is None:
            self.tool_about.setText("")
            return
        lines = [item_text(tool)]
        if isinstance(tool.get("description"), str):
            lines.append(tool["description"])
        if words := badges(tool):
            lines.append("hints: " + ", ".join(words))
        self.tool_about.setText("\n".join(lines))
        schema = tool.get("inputSchema") if isinstance(tool.get("inputSchema"), dict) else {"type": "object"}
        self.arguments_editor = arguments_editor_for(schema, self)
        self.editor_slot.addWidget(self.arguments_editor)
        self._call_keys.watch(self.arguments_editor)
        self.arguments_editor.setFocus()

    def call(self) -> None:
        """Call the selected tool with the editor's arguments (a problem with them is said, nothing is sent)."""
        if self._tool is None or self.arguments_editor is None or self.catalog is None or not self.ready:
            return
        problems = self.arguments_editor.problems()
        if problems:  # the composer sends anything, arguments that break the schema included
            first = problems[0]
            self.say(f"not called: {getattr(first, 'sentence', first)}", failure=True)
            return
        self.call_tool(str(self._tool.get("name")), self.arguments_editor.arguments())

    def call_tool(self, name: str, arguments: dict[str, Any]) -> None:
        assert self.catalog is not None
        tool = self.catalog.find("tools", name) or {}
        token = self.catalog.new_token()
        self._token = token
        self.tool_result.clear(f"calling {name}…")
        self._spawn(self._call(name, arguments, token, tool.get("outputSchema")), f"calling {name}")

    async def _call(self, name: str, arguments: dict[str, Any], token: str, output_schema: Any) -> None:
        assert self.catalog is not None
        try:
            response = await self.catalog.call_tool(name, arguments, progress=token, as_task=self.extensions.as_task())
        except TransportError as exc:
            if self._token == token:
                self.tool_result.clear()
                self.tool_result.say(str(exc), failure=True)
            self._remember(name, arguments, f"failed: {exc}")
            return
        result, error = outcome_of(response)  # a task's own result, for a call that ran as one
        if self._token == token:
            self.tool_result.clear()
            if error is not None:
                self.tool_result.show_error("tools/call", error)
            else:
                self.tool_result.show_call(name, result, output_schema)
        self._remember(name, arguments, summarize(result, error))

    def command_for_current(self) -> str:
        if self._tool is None or self.arguments_editor is None:
            return ""
        return self._command(str(self._tool.get("name")), self.arguments_editor.arguments())

    def rpc_for_current(self) -> str:
        if self._tool is None or self.arguments_editor is None or self.catalog is None:
            return ""
        return request_message("tools/call", self.catalog.call_params(str(self._tool.get("name")),
                                                                     self.arguments_editor.arguments()))

    def _command(self, tool: str, arguments: dict[str, Any]) -> str:
        target = self.target or Target()
        return command_line(tool, arguments, target.command_options())

    def _copy(self, text: str) -> None:
        if text:
            QGuiApplication.clipboard().setText(text)
            self.say("copied to the clipboard")

    # -- history ---------------------------------------------------------------------------------------

    def _remember(self, tool: str, arguments: dict[str, Any], summary: str) -> None:
        call = Call(tool, arguments, summary)
        if self.history is not None:
            try:
                self.history.add(self.profile, call)
            except OSError as exc:
                self.say(f"the call history could not be saved: {exc.strerror or exc}", failure=True)
        self._add_history_item(call, first=True)

    def _show_history(self) -> None:
        self.history_list.clear()
        for call in reversed(self.history.calls(self.profile) if self.history is not None else []):
            self._add_history_item(call)

    def _add_history_item(self, call: Call, first: bool = False) -> None:
        arguments = json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"))
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(call.at))
        item = QListWidgetItem(f"{when}  {call.tool} {arguments}  →  {call.summary}")
        item.setData(ROLE_ITEM, call)
        if first:
            self.history_list.insertItem(0, item)
        else:
            self.history_list.addItem(item)

    def _history_call(self) -> Call | None:
        item = self.history_list.currentItem() or self.history_list.item(0)
        return item.data(ROLE_ITEM) if item is not None else None

    def rerun(self) -> None:
        """Call the chosen history entry again, as it was; its result shows on the Tools page."""
        call = self._history_call()
        if call is None or not self.ready:
            return
        self.select_tool(call.tool)
        if self.arguments_editor is not None:
            self.arguments_editor.set_arguments(call.arguments)
        self.pages.setCurrentWidget(self.tools_page)
        self.call_tool(call.tool, call.arguments)

    def _history_text(self, *, command: bool) -> str:
        call = self._history_call()
        if call is None or self.catalog is None:
            return ""
        if command:
            return self._command(call.tool, call.arguments)
        return request_message("tools/call", self.catalog.call_params(call.tool, call.arguments))

    # -- resources -------------------------------------------------------------------------------------

    def _resource_selected(self) -> None:
        item = self.resource_list.currentItem()
        uri = item.data(ROLE_ITEM).get("uri") if item is not None else None
        subscribed = self.catalog is not None and uri in self.catalog.subscribed
        self.subscribe_button.setText("Unsubscribe" if subscribed else "Subscribe")

    def _read_item(self, item: QListWidgetItem | None) -> None:
        if item is not None and isinstance(uri := item.data(ROLE_ITEM).get("uri"), str):
            self.read(uri)

    def read(self, uri: str) -> None:
        """Read ``uri`` and show it on the Resources page (a resource link clicked anywhere comes here)."""
        if self.catalog is None or not self.ready:
            return
        self.pages.setCurrentWidget(self.resources_page)
        self.resource_result.clear(f"reading {uri}…")
        self._spawn(self._read(uri), f"reading {uri}")

    async def _read(self, uri: str) -> None:
        assert self.catalog is not None
        try:
            response = await self.catalog.read_resource(uri)
        except TransportError as exc:
            self.resource_result.say(str(exc), failure=True)
            return
        result, error = result_of(response)
        self.resource_result.clear()
        if error is not None:
            self.resource_result.show_error("resources/read", error)
        else:
            self.resource_result.show_contents(uri, result)

    def _toggle_subscription(self) -> None:
        item = self.resource_list.currentItem()
        if item is None or self.catalog is None:
            return
        uri = str(item.data(ROLE_ITEM).get("uri"))
        self._spawn(self._subscription(uri, uri not in self.catalog.subscribed), "changing the subscription")

    async def _subscription(self, uri: str, on: bool) -> None:
        assert self.catalog is not None
        try:
            await (self.catalog.subscribe(uri) if on else self.catalog.unsubscribe(uri))
        except (ExploreError, TransportError) as exc:
            self.say(str(exc), failure=True)
            return
        self.say(f"subscribed to {uri}: updates show here" if on else f"unsubscribed from {uri}")
        self._resource_selected()

    def _template_selected(self, item: QListWidgetItem | None) -> None:
        self._template = item.data(ROLE_ITEM) if item is not None else None
        while self.template_form.rowCount():
            self.template_form.removeRow(0)
        self._fields = {}
        if self._template is None:
            self.template_uri.setText("")
            return
        template = str(self._template.get("uriTemplate") or "")
        for name in self.template_variables():
            field = CompletingField(self._asker(self._complete_template, name))
            field.textChanged.connect(lambda _text: self._show_expanded())
            self._fields[name] = field
            self.template_form.addRow(name, field)
        self.template_uri.setText(template)

    def template_variables(self) -> list[str]:
        if self._template is None:
            return []
        try:
            return list(URITemplate(str(self._template.get("uriTemplate") or "")).variable_names)
        except (ValueError, TypeError):
            return []

    def _asker(self, ask: Callable[[str], None], name: str) -> Callable[[str], None] | None:
        """What the field of argument ``name`` calls to ask for completions: None when the server declares none."""
        if self.catalog is None or not self.catalog.completions:
            return None
        return lambda _text: ask(name)

    def expanded_uri(self) -> str:
        if self._template is None:
            return ""
        values: dict[str, Any] = {name: field.text() for name, field in self._fields.items() if field.text()}
        try:
            return str(URITemplate(str(self._template.get("uriTemplate") or "")).expand(values))
        except (ValueError, TypeError) as exc:
            self.say(f"the template cannot be expanded: {exc}", failure=True)
            return ""

    def _show_expanded(self) -> None:
        self.template_uri.setText(self.expanded_uri())

    def read_template(self) -> None:
        uri = self.expanded_uri()
        if uri:
            self.read(uri)

    def _complete_template(self, name: str) -> None:
        if self._template is None or self.catalog is None:
            return
        ref = {"type": "ref/resource", "uri": str(self._template.get("uriTemplate"))}
        others = {n: f.text() for n, f in self._fields.items() if n != name and f.text()}
        self._spawn(self._complete(self._fields[name], ref, name, others), "asking for completions")

    async def _complete(self, field: CompletingField, ref: dict[str, Any], name: str, others: dict[str, str]) -> None:
        assert self.catalog is not None
        typed = field.text()
        try:
            values = await self.catalog.complete(ref, name, typed, others or None)
        except (ExploreError, TransportError) as exc:
            self.say(f"no suggestions for {name}: {exc}", failure=True)
            return
        field.offer(typed, values)

    # -- prompts ---------------------------------------------------------------------------------------

    def _prompt_selected(self, item: QListWidgetItem | None) -> None:
        self._prompt = item.data(ROLE_ITEM) if item is not None else None
        while self.prompt_form.rowCount():
            self.prompt_form.removeRow(0)
        self._prompt_fields = {}
        if self._prompt is None:
            self.prompt_about.setText("")
            return
        description = self._prompt.get("description")
        self.prompt_about.setText(description if isinstance(description, str) else "")
        arguments = self._prompt.get("arguments")
        for argument in arguments if isinstance(arguments, list) else []:
            if not isinstance(argument, dict) or not isinstance(argument.get("name"), str):
                continue
            name = argument["name"]
            field = CompletingField(self._asker(self._complete_prompt, name))
            if isinstance(argument.get("description"), str):
                field.setPlaceholderText(argument["description"])
            self._prompt_fields[name] = field
            self.prompt_form.addRow(name + (" *" if argument.get("required") else ""), field)

    def _complete_prompt(self, name: str) -> None:
        if self._prompt is None:
            return
        ref = {"type": "ref/prompt", "name": str(self._prompt.get("name"))}
        others = {n: f.text() for n, f in self._prompt_fields.items() if n != name and f.text()}
        self._spawn(self._complete(self._prompt_fields[name], ref, name, others), "asking for completions")

    def get_prompt(self) -> None:
        if self._prompt is None or self.catalog is None or not self.ready:
            return
        name = str(self._prompt.get("name"))
        arguments = {n: f.text() for n, f in self._prompt_fields.items() if f.text()}
        self.prompt_result.clear(f"getting {name}…")
        self._spawn(self._get(name, arguments), f"getting prompt {name}")

    async def _get(self, name: str, arguments: dict[str, str]) -> None:
        assert self.catalog is not None
        try:
            response = await self.catalog.get_prompt(name, arguments)
        except TransportError as exc:
            self.prompt_result.say(str(exc), failure=True)
            return
        result, error = result_of(response)
        self.prompt_result.clear()
        if error is not None:
            self.prompt_result.show_error("prompts/get", error)
        else:
            self.prompt_result.show_messages(name, result)

    # -- roots -----------------------------------------------------------------------------------------

    def roots(self) -> list[str]:
        return [self.root_list.item(row).text() for row in range(self.root_list.count())]

    def _add_root(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "A folder the server may work in")
        if folder:
            self.set_roots([*self.roots(), folder])

    def _remove_root(self) -> None:
        row = self.root_list.currentRow()
        if row >= 0:
            folders = self.roots()
            del folders[row]
            self.set_roots(folders)

    def set_roots(self, folders: list[str]) -> None:
        """The roots are now ``folders``: shown, kept in the profile (:attr:`roots_edited`) and, in a live
        session, answered to roots/list with the server told they changed."""
        self.root_list.clear()
        self.root_list.addItems(folders)
        self.roots_edited.emit(list(folders))
        if self.catalog is not None and not self.catalog.session.closed:
            self._spawn(self.catalog.set_roots(folders), "telling the server the roots changed")
