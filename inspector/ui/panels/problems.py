"""The Problems panel: every problem of a session, grouped by rule with counts; a click jumps to the message,
and a rule can be muted for the session (its rows lose their colour, its group is greyed). Under the list, the
selected rule says what it asks and links to the spec.

It shows both kinds of problems: the protocol judge's (kept beside the events) and those the wire layer put on
the events themselves; what counts as a problem is :mod:`inspector.core.wire.problems`' (the same for F8,
"problems only" and the exports). Findings are plain text (server content is untrusted). A group lists at most
:data:`MAX_ITEMS_PER_RULE` findings (a flood of one mistake must not make the panel the slow part); the count
says how many there are.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QBrush, QColor, QDesktopServices
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from inspector.core.protocol.judge import ProtocolFinding
from inspector.core.protocol.rules import BY_ID
from inspector.core.urls import url_refusal
from inspector.ui.timeline.model import plain_tooltip

#: The spec pages the rules link to: the only links this panel opens (they are ours, never a server's).
SPEC_LINKS = frozenset(rule.link for rule in BY_ID.values())


def open_spec_link(url: str) -> bool:
    """Open a rule's spec page in the browser: one of :data:`SPEC_LINKS`, an https URL (the URL rule); anything
    else is not opened (False)."""
    if url_refusal(url) is not None or url not in SPEC_LINKS:
        return False
    return QDesktopServices.openUrl(QUrl(url))

MAX_ITEMS_PER_RULE = 500
_SEQ_ROLE = Qt.ItemDataRole.UserRole
_RULE_ROLE = Qt.ItemDataRole.UserRole + 1
_ORDER = {"error": 0, "warning": 1, "info": 2}


class ProblemsPanel(QWidget):
    """``jump_requested(seq)`` when a finding is activated; ``muted_changed(set of rule ids)`` on mute/unmute."""

    jump_requested = Signal(int)
    muted_changed = Signal(object)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.tree = QTreeWidget(self)
        self.tree.setHeaderLabels(["Rule", "Count"])
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        # readable without dragging: the rule takes the width, the count only what its digits need
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.itemActivated.connect(self._activated)
        self.tree.itemClicked.connect(self._activated)
        self.mute = QPushButton("Mute rule", self)
        self.mute.setEnabled(False)
        self.mute.clicked.connect(self._toggle_mute)
        self.tree.currentItemChanged.connect(self._current_changed)
        self.summary = QLabel("No problems.", self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        #: the selected rule: what it asks, and a link to its spec page (our rules' text, never a server's)
        self.rule_text = QLabel(self)
        self.rule_text.setTextFormat(Qt.TextFormat.RichText)
        self.rule_text.setWordWrap(True)
        self.rule_text.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse
                                               | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
        self.rule_text.linkActivated.connect(open_spec_link)
        self.rule_text.hide()
        bar = QHBoxLayout()
        bar.addWidget(self.summary, 1)
        bar.addWidget(self.mute)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.rule_text)
        self.muted: set[str] = set()
        self.counts: dict[str, int] = {}
        self._groups: dict[str, QTreeWidgetItem] = {}
        self._severity: dict[str, str] = {}
        #: rules that are no protocol rule (the Model's view's: docs/context-rules.md), by id: their titles; their
        #: errors are shown as errors, not as a MUST broken
        self.other_rules: dict[str, str] = {}

    def add(self, findings: list[ProtocolFinding]) -> None:
        """Add findings (any order); groups are created on first sight and their counts updated."""
        if not findings:
            return
        self.tree.setUpdatesEnabled(False)
        try:
            for finding in findings:
                group = self._group(finding)
                count = self.counts[finding.rule] = self.counts.get(finding.rule, 0) + 1
                if count <= MAX_ITEMS_PER_RULE:
                    item = QTreeWidgetItem(group, [f"#{finding.seq}  {finding.text}", ""])
                    item.setData(0, _SEQ_ROLE, finding.seq)
                    item.setToolTip(0, plain_tooltip(finding.text))
                group.setText(1, str(count))
        finally:
            self.tree.setUpdatesEnabled(True)
        self._say()

    def _group(self, finding: ProtocolFinding) -> QTreeWidgetItem:
        group = self._groups.get(finding.rule)
        if group is None:
            rule = BY_ID.get(finding.rule)
            level = rule.level if rule else {"error": "MUST", "warning": "SHOULD"}.get(finding.severity, "INFO")
            title = f"{finding.rule} · {level}" + (f" · {rule.title}" if rule else "")
            if finding.rule in self.other_rules:
                title = f"{finding.rule} · {finding.severity} · {self.other_rules[finding.rule]}"
            group = QTreeWidgetItem(self.tree, [title, "0"])
            group.setData(0, _RULE_ROLE, finding.rule)
            if rule is not None:
                group.setToolTip(0, plain_tooltip(f"{rule.rationale}\n{rule.link}"))
            self._groups[finding.rule] = group
            self._severity[finding.rule] = finding.severity
            self._paint(finding.rule)
        return group

    def _paint(self, rule_id: str) -> None:
        group = self._groups[rule_id]
        if rule_id in self.muted:
            colour = QColor(140, 140, 140)
        elif self._severity.get(rule_id) == "error":
            colour = QColor(220, 50, 47)
        elif self._severity.get(rule_id) == "warning":
            colour = QColor(154, 103, 0)
        else:
            colour = QColor(110, 110, 110)
        group.setForeground(0, QBrush(colour))
        group.setText(0, group.text(0).removesuffix(" (muted)") + (" (muted)" if rule_id in self.muted else ""))

    def _say(self) -> None:
        live = {r: n for r, n in self.counts.items() if r not in self.muted}
        musts = sum(n for r, n in live.items() if self._severity.get(r) == "error" and r not in self.other_rules)
        total = sum(live.values())
        muted = sum(n for r, n in self.counts.items() if r in self.muted)
        text = f"{total} findings, {musts} MUST broken, in {len(live)} rules" if total else "No problems."
        self.summary.setText(text + (f" ({muted} muted)" if muted else ""))

    def _activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        seq = item.data(0, _SEQ_ROLE)
        if isinstance(seq, int):
            self.jump_requested.emit(seq)

    def _rule_of(self, item: QTreeWidgetItem | None) -> str | None:
        while item is not None:
            rule = item.data(0, _RULE_ROLE)
            if isinstance(rule, str):
                return rule
            item = item.parent()
        return None

    def _current_changed(self, current: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        rule = self._rule_of(current)
        self.mute.setEnabled(rule is not None)
        self.mute.setText("Unmute rule" if rule in self.muted else "Mute rule")
        known = BY_ID.get(rule) if rule is not None else None
        if known is None:
            self.rule_text.hide()
            return
        self.rule_text.setText(f"<b>{html.escape(known.level)}</b> · {html.escape(known.rationale)} "
                               f'<a href="{html.escape(known.link)}">{html.escape(known.link)}</a>')
        self.rule_text.setToolTip(known.link)
        self.rule_text.show()

    def _toggle_mute(self) -> None:
        rule = self._rule_of(self.tree.currentItem())
        if rule is None:
            return
        self.set_muted(rule, rule not in self.muted)

    def set_muted(self, rule: str, muted: bool) -> None:
        """Mute (or unmute) ``rule`` for this session."""
        if muted:
            self.muted.add(rule)
        else:
            self.muted.discard(rule)
        if rule in self._groups:
            self._paint(rule)
        self.mute.setText("Unmute rule" if rule in self.muted else "Mute rule")
        self._say()
        self.muted_changed.emit(set(self.muted))
