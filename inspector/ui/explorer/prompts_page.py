"""The Explorer's Prompts page: the server's prompts, a field per argument (completions asked of the server as
the user types), Get, and the messages the prompt gives."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from inspector.core.session.outcomes import result_of
from inspector.core.transports.base import TransportError
from inspector.ui.explorer.result_view import ResultView
from inspector.ui.explorer.widgets import ROLE_ITEM, CompletingField

if TYPE_CHECKING:
    from inspector.ui.explorer.shared import PageContext


class PromptsPage(QWidget):
    def __init__(self, explorer: PageContext) -> None:
        super().__init__()
        self.explorer = explorer
        self._prompt: dict[str, Any] | None = None
        self._prompt_fields: dict[str, CompletingField] = {}
        self.prompt_list = QListWidget(self)
        self.prompt_list.currentItemChanged.connect(lambda item, _old: self._prompt_selected(item))
        self.prompt_about = QLabel(self)
        self.prompt_about.setTextFormat(Qt.TextFormat.PlainText)
        self.prompt_about.setWordWrap(True)
        self.prompt_form = QFormLayout()
        self.get_button = QPushButton("Get", self)
        self.get_button.clicked.connect(self.get_prompt)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.prompt_list, 1)
        left_layout.addWidget(self.prompt_about)
        left_layout.addLayout(self.prompt_form)
        left_layout.addWidget(self.get_button)
        self.prompt_result = ResultView()  # its resource links: read_requested, which the panel connects
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(left)
        split.addWidget(self.prompt_result)
        split.setSizes([300, 400])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)

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
            field = CompletingField(self.explorer.asker(self._complete_prompt, name))
            if isinstance(argument.get("description"), str):
                field.setPlaceholderText(argument["description"])
            self._prompt_fields[name] = field
            self.prompt_form.addRow(name + (" *" if argument.get("required") else ""), field)

    def _complete_prompt(self, name: str) -> None:
        if self._prompt is None:
            return
        ref = {"type": "ref/prompt", "name": str(self._prompt.get("name"))}
        others = {n: f.text() for n, f in self._prompt_fields.items() if n != name and f.text()}
        self.explorer.complete(self._prompt_fields[name], ref, name, others)

    def get_prompt(self) -> None:
        if self._prompt is None or self.explorer.catalog is None or not self.explorer.ready:
            return
        name = str(self._prompt.get("name"))
        arguments = {n: f.text() for n, f in self._prompt_fields.items() if f.text()}
        self.prompt_result.clear(f"getting {name}…")
        self.explorer.spawn(self._get(name, arguments), f"getting prompt {name}")

    async def _get(self, name: str, arguments: dict[str, str]) -> None:
        catalog = self.explorer.catalog
        assert catalog is not None
        try:
            response = await catalog.get_prompt(name, arguments)
        except TransportError as exc:
            self.prompt_result.say(str(exc), failure=True)
            return
        result, error = result_of(response)
        self.prompt_result.clear()
        if error is not None:
            self.prompt_result.show_error("prompts/get", error)
        else:
            self.prompt_result.show_messages(name, result)
