"""The Explorer's History page: the tool calls made with this server's profile (kept in the data folder), each
run again with Run again (or a double click) or copied as an ``mcp-inspector call`` line or as JSON-RPC."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from inspector.core.explore.catalog import request_message
from inspector.core.explore.history import Call, History
from inspector.ui.explorer.save_to_collection import save_to_collection_button
from inspector.ui.explorer.widgets import ROLE_ITEM, copy_as_button

if TYPE_CHECKING:
    from inspector.ui.explorer.shared import PageContext


class HistoryPage(QWidget):
    rerun_requested = Signal(str, dict)  #: call this tool with these arguments again (on the Tools page)

    def __init__(self, explorer: PageContext) -> None:
        super().__init__()
        self.explorer = explorer
        self.store: History | None = None  #: where calls are kept, per profile (None: this session only)
        self.profile = ""
        self.history_list = QListWidget(self)
        self.history_list.itemActivated.connect(lambda _item: self.rerun())
        rerun = QPushButton("Run again", self)
        rerun.clicked.connect(self.rerun)
        row = QHBoxLayout()
        row.addWidget(rerun)
        row.addStretch(1)
        row.addWidget(copy_as_button(self, lambda: self.history_text(command=True),
                                     lambda: self.history_text(command=False), explorer.copy))
        # a row of its own: one row of all the buttons would widen the Explorer past what fits beside the timeline
        saving = QHBoxLayout()
        saving.addStretch(1)
        saving.addWidget(save_to_collection_button(self, self.chosen, explorer.say))
        layout = QVBoxLayout(self)
        layout.addWidget(self.history_list, 1)
        layout.addLayout(row)
        layout.addLayout(saving)

    def show_calls(self, store: History | None, profile: str) -> None:
        """The calls ``store`` keeps for ``profile``, newest first."""
        self.store, self.profile = store, profile
        self.history_list.clear()
        for call in reversed(store.calls(profile) if store is not None else []):
            self._add_item(call)

    def remember(self, tool: str, arguments: dict[str, Any], summary: str) -> None:
        """A call was made: kept (a failure to save is said) and shown first."""
        call = Call(tool, arguments, summary)
        if self.store is not None:
            try:
                self.store.add(self.profile, call)
            except OSError as exc:
                self.explorer.say(f"the call history could not be saved: {exc.strerror or exc}", failure=True)
        self._add_item(call, first=True)

    def _add_item(self, call: Call, first: bool = False) -> None:
        arguments = json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"))
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(call.at))
        item = QListWidgetItem(f"{when}  {call.tool} {arguments}  →  {call.summary}")
        item.setData(ROLE_ITEM, call)
        if first:
            self.history_list.insertItem(0, item)
        else:
            self.history_list.addItem(item)

    def chosen(self) -> Call | None:
        """The selected call (the newest when none is selected)."""
        item = self.history_list.currentItem() or self.history_list.item(0)
        return item.data(ROLE_ITEM) if item is not None else None

    def rerun(self) -> None:
        """Call the chosen entry again, as it was (``rerun_requested``); its result shows on the Tools page."""
        call = self.chosen()
        if call is None or not self.explorer.ready:
            return
        self.rerun_requested.emit(call.tool, call.arguments)

    def history_text(self, *, command: bool) -> str:
        """The chosen call as an ``mcp-inspector call`` line (``command``) or as its JSON-RPC request."""
        call = self.chosen()
        catalog = self.explorer.catalog
        if call is None or catalog is None:
            return ""
        if command:
            return self.explorer.command(call.tool, call.arguments)
        return request_message("tools/call", catalog.call_params(call.tool, call.arguments))
