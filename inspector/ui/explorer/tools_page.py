"""The Explorer's Tools page: the server's tools (annotation badges, icons), the selected tool's arguments as a
form built from its input schema, Call (Ctrl+Enter), Copy as, and the result with its progress."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from inspector.core.apps.meta import resource_uri
from inspector.core.explore.catalog import request_message
from inspector.core.explore.history import summarize
from inspector.core.explore.tasks import outcome_of
from inspector.core.transports.base import TransportError
from inspector.ui.explorer.arguments import arguments_editor_for
from inspector.ui.explorer.result_view import ResultView
from inspector.ui.explorer.widgets import CALL_KEYS, ROLE_ITEM, CallKeys, badges, copy_as_button, item_text

if TYPE_CHECKING:
    from inspector.ui.explorer.shared import PageContext


class ToolsPage(QWidget):
    called = Signal(str, dict, str)  #: a call ended: the tool, its arguments, the summary the History keeps
    break_requested = Signal(str)  #: "Break on calls to this tool": its name (the tab's breakpoints add one)

    def __init__(self, explorer: PageContext) -> None:
        super().__init__()
        self.explorer = explorer
        self._tool: dict[str, Any] | None = None
        self._token: str | None = None  #: the progress token of the call whose result the page shows
        self._running = False  #: that call is under way (its progress may be shown; after its outcome, none is)
        #: what was typed in each tool's form, by name, while the page lives: the form of a tool selected again
        #: (a list_changed re-list selects it anew) starts from it, not empty
        self._typed: dict[str, dict[str, Any]] = {}
        self.tool_list = QListWidget(self)
        self.tool_list.currentItemChanged.connect(lambda item, _old: self._tool_selected(item))
        # a click or Enter on a tool goes on to its form; arrows and type-ahead stay in the list, so that typing a
        # name selects that tool (focus moved to the form after the first letter, and Ctrl+Enter then called
        # whatever tool that letter had selected: issue 39)
        self.tool_list.itemClicked.connect(lambda _item: self._to_form())
        self.tool_list.itemActivated.connect(lambda _item: self._to_form())
        # the tool's menu: pause its calls at a breakpoint (the Breakpoints tab shows the rule)
        self.break_action = QAction("Break on calls to this tool", self.tool_list)
        self.break_action.triggered.connect(self._break_on_tool)
        self.tool_list.addAction(self.break_action)
        self.tool_list.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.tool_about = QLabel(self)
        self.tool_about.setTextFormat(Qt.TextFormat.PlainText)
        self.tool_about.setWordWrap(True)
        self.editor_slot = QVBoxLayout()
        self.arguments_editor: Any = None
        self.call_button = QPushButton("Call", self)
        self.call_button.setToolTip("Call the tool (Ctrl+Enter)")
        self.call_button.clicked.connect(self.call)
        self.copy_menu = copy_as_button(self, self.command_for_current, self.rpc_for_current, explorer.copy)
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
        self.tool_result = ResultView()  # its resource links: read_requested, which the panel connects
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.tool_list)
        split.addWidget(form)
        split.addWidget(self.tool_result)
        # the arguments form the most (on a small screen, a field or two in sight): the result view is empty until a
        # call, and the splitter shares a short page by these proportions
        split.setSizes([150, 450, 100])
        # the list and the result scroll: two lines each at least, so that on a small screen the page fits its tab
        # with the Call button in sight (issue 39: at 1.5x on 1280x720 it was below the page's fold)
        line = self.fontMetrics().lineSpacing()
        self.tool_list.setMinimumHeight(2 * line)
        self.tool_result.setMinimumHeight(2 * line)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        self._call_keys = CallKeys(self.call, self)
        for keys in CALL_KEYS:
            QShortcut(QKeySequence(keys), self, self.call).setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)

    def _break_on_tool(self) -> None:
        if self._tool is not None and isinstance(self._tool.get("name"), str):
            self.break_requested.emit(self._tool["name"])

    @property
    def tool(self) -> dict[str, Any] | None:
        """The tool selected on the page (its tools/list entry), or None."""
        return self._tool

    @property
    def token(self) -> str | None:
        """The progress token of the call whose result the page shows, or None."""
        return self._token

    def select_tool(self, name: str) -> bool:
        for row in range(self.tool_list.count()):
            if self.tool_list.item(row).data(ROLE_ITEM).get("name") == name:
                self.tool_list.setCurrentRow(row)
                return True
        return False

    def relisted(self) -> None:
        """The list was filled again (its signals blocked meanwhile): the same tool, listed unchanged, keeps its
        form; another tool, or a changed schema, gets a new one (starting from what was typed for it)."""
        item = self.tool_list.currentItem()
        tool = item.data(ROLE_ITEM) if item is not None else None
        self.explorer.follow_task_support(tool)  # its taskSupport may have changed
        if tool is not None and self._tool is not None and self.arguments_editor is not None \
                and tool.get("name") == self._tool.get("name") \
                and tool.get("inputSchema") == self._tool.get("inputSchema"):
            self._tool = tool
            self.tool_about.setText(self._about(tool))
            return
        self._tool_selected(item)

    def _tool_selected(self, item: QListWidgetItem | None) -> None:
        tool = item.data(ROLE_ITEM) if item is not None else None
        if self.arguments_editor is not None:
            if self._tool is not None:
                self._typed[str(self._tool.get("name"))] = self.arguments_editor.arguments()
            self.arguments_editor.deleteLater()
            self.arguments_editor = None
        self._tool = tool
        if tool is None:
            self.tool_about.setText("")
            return
        self.tool_about.setText(self._about(tool))
        schema = tool.get("inputSchema") if isinstance(tool.get("inputSchema"), dict) else {"type": "object"}
        self.arguments_editor = arguments_editor_for(schema, self)
        if typed := self._typed.get(str(tool.get("name"))):
            self.arguments_editor.set_arguments(typed)
        self.editor_slot.addWidget(self.arguments_editor)
        self._call_keys.watch(self.arguments_editor)
        if not self.tool_list.hasFocus():  # chosen from elsewhere (the history, a link): its form is next
            self._to_form()

    @staticmethod
    def _about(tool: dict[str, Any]) -> str:
        lines = [item_text(tool)]
        if isinstance(tool.get("description"), str):
            lines.append(tool["description"])
        if words := badges(tool):
            lines.append("hints: " + ", ".join(words))
        if uri := resource_uri(tool):
            lines.append(f"app: {uri} (a call shows it in the Apps tab)")
        return "\n".join(lines)

    def _to_form(self) -> None:
        if self.arguments_editor is not None:
            self.arguments_editor.focus_first()  # its first field, not the Form/JSON toggle

    def call(self) -> None:
        """Call the selected tool with the editor's arguments (a problem with them is said, nothing is sent)."""
        explorer = self.explorer
        if self._tool is None or self.arguments_editor is None or explorer.catalog is None or not explorer.ready:
            return
        # a note on what could not be checked (a server's pattern too slow to decide, a schema that refers to
        # itself) does not stop the call: the form shows it, the server judges
        problems = [p for p in self.arguments_editor.problems() if getattr(p, "blocking", True)]
        if problems:  # the composer sends anything, arguments that break the schema included
            first = problems[0]
            explorer.say(f"not called: {getattr(first, 'sentence', first)}", failure=True)
            return
        self.call_tool(str(self._tool.get("name")), self.arguments_editor.arguments())

    def call_tool(self, name: str, arguments: dict[str, Any]) -> None:
        catalog = self.explorer.catalog
        assert catalog is not None
        tool = catalog.find("tools", name) or {}
        token = catalog.new_token()
        self._token = token
        self._running = True
        self.tool_result.clear(f"calling {name}…")
        self.explorer.spawn(self._call(name, arguments, token, tool.get("outputSchema")), f"calling {name}")

    async def _call(self, name: str, arguments: dict[str, Any], token: str, output_schema: Any) -> None:
        catalog = self.explorer.catalog
        assert catalog is not None
        try:
            response = await catalog.call_tool(name, arguments, progress=token,
                                               as_task=self.explorer.as_task())
        except TransportError as exc:
            self._ended(token)
            if self._token == token:
                self.tool_result.clear()
                self.tool_result.say(str(exc), failure=True)
            self.called.emit(name, arguments, f"failed: {exc}")
            return
        self._ended(token)
        result, error = outcome_of(response)  # a task's own result, for a call that ran as one
        if self._token == token:
            self.tool_result.clear()
            if error is not None:
                self.tool_result.show_error("tools/call", error)
            else:
                self.tool_result.show_call(name, result, output_schema)
        self.called.emit(name, arguments, summarize(result, error))

    def _ended(self, token: str) -> None:
        if self._token == token:
            self._running = False

    def show_progress(self, token: str | None, data: dict[str, Any]) -> None:
        """The server's progress for the call with ``token``, or its task's status: shown while it is the call
        on the page and under way (news that come after its outcome, a cancelled task's last status, would
        cover the outcome)."""
        if token is not None and token == self._token and self._running:
            self.tool_result.show_progress(data)

    def command_for_current(self) -> str:
        if self._tool is None or self.arguments_editor is None:
            return ""
        return self.explorer.command(str(self._tool.get("name")), self.arguments_editor.arguments())

    def rpc_for_current(self) -> str:
        catalog = self.explorer.catalog
        if self._tool is None or self.arguments_editor is None or catalog is None:
            return ""
        return request_message("tools/call", catalog.call_params(str(self._tool.get("name")),
                                                                self.arguments_editor.arguments()))
