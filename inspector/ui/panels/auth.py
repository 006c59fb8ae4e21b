"""The Auth panel: an OAuth-protected session's sign-in, step by step (discovery, metadata, registration,
authorize, token, refresh, step-up, retry), each with its outcome; a failed step says its sentence and the rule
it keeps. While a login waits for the browser it says so, shows the authorization address (copyable) and takes
a pasted redirect URL instead. "Log out" forgets the server's tokens.

A thin view of :class:`inspector.ui.oauth.WindowLogin`: it only follows its signals and calls its
methods. Everything shown is plain text (URLs and sentences carry server content, which is untrusted).
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from inspector.core.auth.model import Step, TokenSet
from inspector.ui.json_highlighter import is_dark
from inspector.ui.oauth import WindowLogin
from inspector.ui.panels.composer import STATUS_COLOURS
from inspector.ui.timeline.model import plain_tooltip

#: How each outcome is marked in the list (a narrow side panel: a mark, the word in its tooltip and in the box
#: below), and the colour it takes (the composer's status colours, light and dark).
OUTCOMES = {"ok": ("✓", "ok"), "failed": ("✗", "error"), "tried": ("–", "off"), "skipped": ("–", "off")}
_STEP_ROLE = Qt.ItemDataRole.UserRole


def describe_token(tokens: TokenSet | None, now: float | None = None) -> str:
    """One line about a held token: whether there is one and when it expires."""
    if tokens is None:
        return "No token held."
    if tokens.expires_at is None:
        return "A token is held; the server did not say when it expires."
    left = tokens.expires_at - (now if now is not None else time.time())
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(tokens.expires_at))
    refresh = " (a refresh token is held too)" if tokens.refresh_token else ""
    if left <= 0:
        return f"A token is held; it expired at {when}{refresh}."
    minutes = int(left // 60)
    span = f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{max(minutes, 1)} min"
    return f"A token is held; it expires at {when}, in {span}{refresh}."


class AuthPanel(QWidget):
    def __init__(self, login: WindowLogin, parent: Any = None) -> None:
        super().__init__(parent)
        self.login = login

        self.waiting_box = QFrame(self)
        self.waiting_box.setFrameShape(QFrame.Shape.StyledPanel)
        self.waiting_label = QLabel("Waiting for you to log in in your browser…", self.waiting_box)
        self.waiting_label.setTextFormat(Qt.TextFormat.PlainText)
        self.waiting_label.setWordWrap(True)
        self.address = QLineEdit(self.waiting_box)
        self.address.setReadOnly(True)
        self.address.setToolTip("The authorization address the browser was sent to")
        self.copy_button = QPushButton("Copy address", self.waiting_box)
        self.copy_button.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.address.text()))
        self.paste_edit = QLineEdit(self.waiting_box)
        self.paste_edit.setPlaceholderText("redirect URL from the browser")
        self.paste_edit.returnPressed.connect(self.use_pasted)
        self.paste_button = QPushButton("Use redirect URL", self.waiting_box)
        self.paste_button.clicked.connect(self.use_pasted)
        self.paste_problem = QLabel("", self.waiting_box)
        self.paste_problem.setTextFormat(Qt.TextFormat.PlainText)
        self.paste_problem.setWordWrap(True)
        address_row = QHBoxLayout()
        address_row.addWidget(self.address, 1)
        address_row.addWidget(self.copy_button)
        paste_row = QHBoxLayout()
        paste_row.addWidget(self.paste_edit, 1)
        paste_row.addWidget(self.paste_button)
        box = QVBoxLayout(self.waiting_box)
        box.addWidget(self.waiting_label)
        box.addLayout(address_row)
        box.addLayout(paste_row)
        box.addWidget(self.paste_problem)
        # never squeezed by the steps below it: what to do now comes first
        self.waiting_box.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.waiting_box.hide()

        self.token_label = QLabel(describe_token(None), self)
        self.token_label.setTextFormat(Qt.TextFormat.PlainText)
        self.token_label.setWordWrap(True)
        self.logout_button = QPushButton("Log out", self)
        self.logout_button.setToolTip("Forget this server's tokens (memory and keyring): the next request signs in "
                                      "again")
        self.logout_button.clicked.connect(self.login.logout)
        token_row = QHBoxLayout()
        token_row.addWidget(self.token_label, 1)
        token_row.addWidget(self.logout_button)

        self.steps = QTreeWidget(self)
        self.steps.setHeaderLabels(["Step", "What happened"])
        self.steps.setRootIsDecorated(False)
        self.steps.setUniformRowHeights(True)
        self.steps.setColumnWidth(0, self.fontMetrics().horizontalAdvance("✓ registration") + 16)
        self.steps.currentItemChanged.connect(self._show_step)
        self.detail = QPlainTextEdit(self)  # plain text: sentences and URLs carry server content
        self.detail.setReadOnly(True)
        self.detail.setPlaceholderText("Select a step to see what happened, where, and the rule it keeps.")
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.steps)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.waiting_box)
        layout.addLayout(token_row)
        layout.addWidget(split, 1)

        login.step_added.connect(self.add_step)
        login.waiting.connect(self._waiting)
        login.waiting_ended.connect(self._waiting_ended)
        login.said.connect(self._said)
        login.tokens_changed.connect(self.refresh_token)
        for step in list(login.client.steps if login.client is not None else []):
            self.add_step(step)
        self.refresh_token()

    # -- following the login --------------------------------------------------------------------------------

    def add_step(self, step: Step) -> None:
        mark, colour = OUTCOMES.get(step.outcome, ("?", "off"))
        item = QTreeWidgetItem(self.steps, [f"{mark} {step.name}", step.sentence])
        item.setData(0, _STEP_ROLE, step)
        item.setToolTip(0, f"{step.name}: {step.outcome}")
        item.setToolTip(1, plain_tooltip(step.sentence))
        light, dark = STATUS_COLOURS[colour]
        brush = QBrush(QColor(dark if is_dark(self.palette()) else light))
        item.setForeground(0, brush)
        if step.outcome == "failed":
            item.setForeground(1, brush)
            self.steps.setCurrentItem(item)  # the failure's sentence and rule in the box below, at once
            self.login.attention.emit()
        else:
            current = self.steps.currentItem()
            if current is None or current.data(0, _STEP_ROLE).outcome != "failed":  # a failure stays in view
                self.steps.scrollToItem(item)

    def refresh_token(self) -> None:
        tokens = self.login.held()
        self.token_label.setText(describe_token(tokens))
        self.logout_button.setEnabled(tokens is not None)

    def _show_step(self, current: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        step = current.data(0, _STEP_ROLE) if current is not None else None
        if not isinstance(step, Step):
            self.detail.clear()
            return
        lines = [f"{step.name}: {step.outcome}", step.sentence]
        if step.rule:
            lines.append(f"rule: {step.rule}")
        lines.append(f"at {step.url}")
        self.detail.setPlainText("\n".join(lines))

    def _waiting(self, url: str, redirect_uri: str) -> None:
        self.waiting_label.setText(f"Waiting for you to log in in your browser… it comes back to {redirect_uri}. "
                                   "If it cannot, paste below the address it ends on.")
        self.address.setText(url)
        self.address.setCursorPosition(0)
        self.paste_edit.clear()
        self._said("")
        self.waiting_box.show()

    def _waiting_ended(self) -> None:
        # never squeezed by the steps below it: what to do now comes first
        self.waiting_box.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.waiting_box.hide()
        self.address.clear()

    def _said(self, text: str) -> None:
        self.paste_problem.setText(text)
        self.paste_problem.setVisible(bool(text))

    def use_pasted(self) -> None:
        """Complete the waiting login with the pasted redirect URL (or say why it cannot)."""
        self._said(self.login.paste(self.paste_edit.text()) or "")
