"""The Apps tab's account of an app: its policy side by side (requested by the server, effective in the
inspector, blocked in the browser), its resource's checks, and what the app said to its host.

Server and app text reaches the screen as plain text only (table items and a plain-text view).
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHeaderView,
    QPlainTextEdit,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QWidget,
)

from inspector.core.apps.policy import CSP_KEYS, LIST_OF, Policy
from inspector.core.apps.report import Blocked
from inspector.core.wire.events import Finding

COLUMNS = ("", "Requested", "Effective", "Blocked")
#: A CSP directive the browser reports, and the list of the policy it belongs to.
DIRECTIVE_LIST = {"connect-src": "connectDomains", "img-src": "resourceDomains", "script-src": "resourceDomains",
                  "script-src-elem": "resourceDomains", "script-src-attr": "resourceDomains",
                  "style-src": "resourceDomains", "style-src-elem": "resourceDomains",
                  "style-src-attr": "resourceDomains", "font-src": "resourceDomains", "media-src": "resourceDomains",
                  "frame-src": "frameDomains", "child-src": "frameDomains", "base-uri": "baseUriDomains",
                  "worker-src": "resourceDomains"}
ROWS = (*CSP_KEYS, "permissions", "other")


def list_of_block(blocked: Blocked) -> str:
    """Which row of the table a blocked request belongs to (code the CSP refused to run: ``other``)."""
    if not blocked.request:
        return "other"
    return LIST_OF.get(blocked.use) or DIRECTIVE_LIST.get(blocked.use) or "other"


def _lines(values: Any) -> str:
    if values is None:
        return "(not declared)"
    if isinstance(values, list):
        return "\n".join(v if isinstance(v, str) else json.dumps(v) for v in values) or "(none)"
    if isinstance(values, dict):
        return "\n".join(values) or "(none)"
    return json.dumps(values)


class PolicyView(QTabWidget):
    """Three pages: Policy (the side-by-side table), Checks, and From the app."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDocumentMode(True)
        self.table = QTableWidget(len(ROWS), len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
        self.checks = QPlainTextEdit(self)
        self.said = QPlainTextEdit(self)
        for view in (self.checks, self.said):
            view.setReadOnly(True)
            view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.addTab(self.table, "Policy")
        self.addTab(self.checks, "Checks")
        self.addTab(self.said, "From the app")
        self.clear()

    def clear(self) -> None:
        for row, name in enumerate(ROWS):
            self._set(row, 0, name)
            for column in (1, 2, 3):
                self._set(row, column, "")
        self.checks.setPlainText("")
        self.said.setPlainText("")

    def _set(self, row: int, column: int, text: str) -> None:
        item = QTableWidgetItem(text)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
        item.setToolTip(text)
        self.table.setItem(row, column, item)

    def cell(self, row_name: str, column: str) -> str:
        """What the table shows for ``row_name`` (a list, ``permissions`` or ``other``) in ``column``."""
        item = self.table.item(ROWS.index(row_name), COLUMNS.index(column))
        return item.text() if item is not None else ""

    def show_policy(self, policy: Policy, blocked: list[Blocked]) -> None:
        requested = policy.requested_csp if isinstance(policy.requested_csp, dict) else {}
        effective = policy.effective()
        dropped: dict[str, list[str]] = {}
        for drop in policy.dropped:
            dropped.setdefault(drop.key, []).append(f"{drop.entry!r} dropped: {drop.reason}")
        for row, key in enumerate(CSP_KEYS):
            self._set(row, 1, _lines(requested.get(key)) if policy.declared else "(no csp: restrictive default)")
            self._set(row, 2, "\n".join([*effective[key], *dropped.get(key, [])]) or "(none)")
        permissions = ROWS.index("permissions")
        self._set(permissions, 1, _lines(policy.requested_permissions))
        self._set(permissions, 2, "\n".join([*policy.permissions, *dropped.get("permissions", [])]) or "(none)")
        by_row: dict[str, list[str]] = {}
        for block in blocked:
            by_row.setdefault(list_of_block(block), []).append(f"{block.url} ({block.by}: {block.reason})")
        for row, name in enumerate(ROWS):
            self._set(row, 3, "\n".join(by_row.get(name, [])))
        self.table.resizeRowsToContents()

    def show_checks(self, findings: list[Finding], csp: str) -> None:
        marks = {"error": "!", "warning": "~", "info": "i"}
        lines = [f"{marks.get(f.severity, '?')} {f.text}" for f in findings] or ["no problem found"]
        self.checks.setPlainText("\n".join([*lines, "", "Content-Security-Policy of the app's document:", csp]))

    def show_said(self, state: Any) -> None:
        """What the app told its host: its messages, its model context, the links it asked to open."""
        lines: list[str] = []
        for message in state.messages:
            lines.append(f"ui/message: {json.dumps(message, ensure_ascii=False)}")
        if state.model_context is not None:
            lines.append(f"model context: {json.dumps(state.model_context, ensure_ascii=False)}")
        for link in state.links:
            lines.append(f"ui/open-link {link['url']}: {'opened' if link['opened'] else 'not opened'}"
                         + (f" ({link['reason']})" if link.get("reason") else ""))
        for name in state.refused_calls:
            lines.append(f"tools/call {name} refused: the tool is not callable by apps")
        self.said.setPlainText("\n".join(lines))
