"""The Model's view page: every tool, prompt, resource template and the instructions, the most expensive first,
each with its tokens, bytes and share; the tools' tokens as a bar chart (:mod:`.chart`; a bar selects its tool);
the exact text a client puts in the context for the selected item, hidden characters made visible; and the
findings of docs/context-rules.md, which select their item."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from inspector.core.context.cost import KINDS, Listing, text_of
from inspector.core.context.lint import visible
from inspector.core.context.report import ContextReport
from inspector.ui.context.chart import TokenChart

_DRIFT_COLOUR = "#fff3c4"  #: a tool that drifted from the pinned baseline
_SEVERITY_COLOURS = {"error": "#c62828", "warning": "#ef6c00", "note": "#546e7a"}


def share(tokens: int, total: int) -> str:
    """``tokens``' share of ``total``, in percent to one decimal."""
    return f"{tokens / total * 100:.1f}%" if total > 0 else ""


class ModelView(QWidget):
    """One listing's report, read-only; :meth:`show_report` shows another in its place (a live session's
    listing again, after the server said it changed)."""

    def __init__(self, report: ContextReport, listing: Listing, drift: dict[str, str] | None = None,
                 parent: QWidget | None = None) -> None:
        """``drift``: tool name -> what changed since the pinned baseline (``changed: description``, ``added``),
        shown in a column of its own and highlighted."""
        super().__init__(parent)
        self.report = report
        #: what keeps a live session's view up to date (:class:`~inspector.ui.context.run.Follower`), kept here
        #: as long as the view is
        self.follower: Any = None
        self.texts: dict[tuple[str, str], str] = {}
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.PlainText)  # the server's name is its own text
        self.summary.setWordWrap(True)
        self.chart = TokenChart()
        self.costs = QTreeWidget()
        self.costs.setHeaderLabels(["name", "kind", "tokens", "bytes", "share", "findings", "pinned"])
        self.costs.setRootIsDecorated(False)
        self.costs.setUniformRowHeights(True)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setPlaceholderText("Select an item to see the exact text the model reads")
        self.findings = QTreeWidget()
        self.findings.setHeaderLabels(["severity", "rule", "item", "field", "span", "what"])
        self.findings.setRootIsDecorated(False)
        self.costs.currentItemChanged.connect(lambda item, _old: self._show(item))
        self.findings.currentItemChanged.connect(lambda item, _old: self._select(item))
        self.chart.tool_clicked.connect(lambda name: self.select_item("tool", name))
        upper = QSplitter(Qt.Orientation.Horizontal)
        upper.addWidget(self.chart)
        upper.addWidget(self.costs)
        upper.setSizes([500, 500])  # half each: the chart's own size hint would leave the list a sliver
        lower = QSplitter(Qt.Orientation.Horizontal)
        lower.addWidget(self.text)
        lower.addWidget(self.findings)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(upper)
        split.addWidget(lower)
        split.setSizes([300, 200])
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(split)
        self.show_report(report, listing, drift)
        first = self.findings.topLevelItem(0) or self.costs.topLevelItem(0)
        if first is not None:
            first.treeWidget().setCurrentItem(first)

    def show_report(self, report: ContextReport, listing: Listing, drift: dict[str, str] | None = None) -> None:
        """Show ``report`` of ``listing``: the summary, the chart, the costs and the findings; the item selected
        before stays selected if it is still listed."""
        drift = drift or {}
        current = self.costs.currentItem()
        kept = current.data(0, Qt.ItemDataRole.UserRole) if current is not None else None
        self.report = report
        self.texts = {}
        for kind, (_key, name_member, _parts) in KINDS.items():
            for item in listing.items(kind):
                self.texts[kind, str(item.get(name_member))] = text_of(item)
        if listing.instructions:
            self.texts["instructions", "instructions"] = listing.instructions
        self.summary.setText(f"{report.source}: {report.summary()} (tokenizer {report.tokenizer})")
        self.chart.show_report(report)
        counted: dict[tuple[str, str], int] = {}
        for f in report.findings:
            counted[f.kind, f.item] = counted.get((f.kind, f.item), 0) + 1
        self.costs.blockSignals(True)  # the text shown follows the selection kept, once, below
        self.costs.clear()
        for cost in report.items:
            drifted = drift.get(cost.name, "") if cost.kind == "tool" else ""
            row = QTreeWidgetItem([visible(cost.label()), cost.kind, str(cost.cost.tokens), str(cost.cost.bytes),
                                   share(cost.cost.tokens, report.totals.tokens),
                                   str(counted.get((cost.kind, cost.name), "") or ""), visible(drifted)])
            if drifted:
                for column in (0, 6):
                    row.setBackground(column, QBrush(QColor(_DRIFT_COLOUR)))
            row.setData(0, Qt.ItemDataRole.UserRole, (cost.kind, cost.name))
            for column in (2, 3, 4):
                row.setTextAlignment(column, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if counted.get((cost.kind, cost.name)):
                row.setForeground(5, QBrush(QColor(_SEVERITY_COLOURS["error"])))
            self.costs.addTopLevelItem(row)
        self.costs.blockSignals(False)
        self.findings.blockSignals(True)
        self.findings.clear()
        for f in report.findings:
            row = QTreeWidgetItem([f.severity, f.rule, visible(f.label()), visible(f.field), f"{f.start}:{f.end}",
                                   f"{f.message}: {f.excerpt}"])
            row.setForeground(0, QBrush(QColor(_SEVERITY_COLOURS.get(f.severity, "#000000"))))
            row.setData(0, Qt.ItemDataRole.UserRole, (f.kind, f.item))
            self.findings.addTopLevelItem(row)
        self.findings.blockSignals(False)
        for tree in (self.costs, self.findings):
            for column in range(tree.columnCount()):
                tree.resizeColumnToContents(column)
        if kept is not None and not self.select_item(*kept):
            self.text.clear()

    def select_item(self, kind: str, name: str) -> bool:
        """Select the item ``kind`` ``name`` among the costs (which shows its text); False if it is not listed."""
        for i in range(self.costs.topLevelItemCount()):
            row = self.costs.topLevelItem(i)
            if row is not None and tuple(row.data(0, Qt.ItemDataRole.UserRole)) == (kind, name):
                self.costs.setCurrentItem(row)
                self._show(row)  # the same row selected again after a refresh: its text may have changed
                return True
        return False

    def _show(self, item: QTreeWidgetItem | None) -> None:
        key: Any = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        self.text.setPlainText(visible(self.texts.get(tuple(key), "")) if key else "")
        self.chart.mark(key[1] if key and key[0] == "tool" else None)

    def _select(self, item: QTreeWidgetItem | None) -> None:
        """A finding selects its item among the costs, which shows its text."""
        if item is not None:
            self.select_item(*item.data(0, Qt.ItemDataRole.UserRole))
