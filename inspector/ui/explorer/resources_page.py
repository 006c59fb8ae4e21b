"""The Explorer's Resources page: the server's resources (read, subscribe where the server offers it, updates
said as they come) and its resource templates, with a field per RFC 6570 variable (completions asked of the
server as the user types) and the URI they expand to."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)
from uritemplate import URITemplate

from inspector.core.explore.catalog import ExploreError
from inspector.core.session.outcomes import result_of
from inspector.core.transports.base import TransportError
from inspector.ui.explorer.result_view import ResultView
from inspector.ui.explorer.widgets import ROLE_ITEM, CompletingField

if TYPE_CHECKING:
    from inspector.ui.explorer.shared import PageContext


class ResourcesPage(QWidget):
    def __init__(self, explorer: PageContext) -> None:
        super().__init__()
        self.explorer = explorer
        self._template: dict[str, Any] | None = None
        self._fields: dict[str, CompletingField] = {}
        self.resource_list = QListWidget(self)
        self.resource_list.itemActivated.connect(lambda item: self._read_item(item))
        self.resource_list.currentItemChanged.connect(lambda _item, _old: self._resource_selected())
        self.read_button = QPushButton("Read", self)
        self.read_button.clicked.connect(lambda: self._read_item(self.resource_list.currentItem()))
        self.subscribe_button = QPushButton("Subscribe", self)
        self.subscribe_button.clicked.connect(self._toggle_subscription)
        self.updates = QLabel(self)
        self.updates.setTextFormat(Qt.TextFormat.PlainText)
        self.updates.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.read_button)
        row.addWidget(self.subscribe_button)
        row.addStretch(1)
        self.template_list = QListWidget(self)
        self.template_list.currentItemChanged.connect(lambda item, _old: self._template_selected(item))
        self.template_form = QFormLayout()
        self.template_uri = QLabel(self)
        self.template_uri.setTextFormat(Qt.TextFormat.PlainText)
        self.template_read = QPushButton("Read", self)
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
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(left)
        split.addWidget(self.resource_result)
        split.setSizes([400, 300])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)

    # -- resources -------------------------------------------------------------------------------------

    def updated(self, uri: str) -> None:
        """The server says ``uri`` changed (a subscription's notification)."""
        self.updates.setText(f"{uri} was updated at {time.strftime('%H:%M:%S')}; Read shows it")

    def _resource_selected(self) -> None:
        item = self.resource_list.currentItem()
        uri = item.data(ROLE_ITEM).get("uri") if item is not None else None
        catalog = self.explorer.catalog
        subscribed = catalog is not None and uri in catalog.subscribed
        self.subscribe_button.setText("Unsubscribe" if subscribed else "Subscribe")

    def _read_item(self, item: QListWidgetItem | None) -> None:
        if item is not None and isinstance(uri := item.data(ROLE_ITEM).get("uri"), str):
            self.read(uri)

    def read(self, uri: str) -> None:
        """Read ``uri`` and show it here (a resource link clicked anywhere in the Explorer comes here)."""
        if self.explorer.catalog is None or not self.explorer.ready:
            return
        self.explorer.show_page(self)
        self.resource_result.clear(f"reading {uri}…")
        self.explorer.spawn(self._read(uri), f"reading {uri}")

    async def _read(self, uri: str) -> None:
        catalog = self.explorer.catalog
        assert catalog is not None
        try:
            response = await catalog.read_resource(uri)
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
        catalog = self.explorer.catalog
        if item is None or catalog is None:
            return
        uri = str(item.data(ROLE_ITEM).get("uri"))
        self.explorer.spawn(self._subscription(uri, uri not in catalog.subscribed), "changing the subscription")

    async def _subscription(self, uri: str, on: bool) -> None:
        catalog = self.explorer.catalog
        assert catalog is not None
        try:
            await (catalog.subscribe(uri) if on else catalog.unsubscribe(uri))
        except (ExploreError, TransportError) as exc:
            self.explorer.say(str(exc), failure=True)
            return
        self.explorer.say(f"subscribed to {uri}: updates show here" if on else f"unsubscribed from {uri}")
        self._resource_selected()

    # -- templates -------------------------------------------------------------------------------------

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
            field = CompletingField(self.explorer.asker(self._complete_template, name))
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

    def expanded_uri(self) -> str:
        if self._template is None:
            return ""
        values: dict[str, Any] = {name: field.text() for name, field in self._fields.items() if field.text()}
        try:
            return str(URITemplate(str(self._template.get("uriTemplate") or "")).expand(values))
        except (ValueError, TypeError) as exc:
            self.explorer.say(f"the template cannot be expanded: {exc}", failure=True)
            return ""

    def _show_expanded(self) -> None:
        self.template_uri.setText(self.expanded_uri())

    def read_template(self) -> None:
        uri = self.expanded_uri()
        if uri:
            self.read(uri)

    def _complete_template(self, name: str) -> None:
        if self._template is None:
            return
        ref = {"type": "ref/resource", "uri": str(self._template.get("uriTemplate"))}
        others = {n: f.text() for n, f in self._fields.items() if n != name and f.text()}
        self.explorer.complete(self._fields[name], ref, name, others)
