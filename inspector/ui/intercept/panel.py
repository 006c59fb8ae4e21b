"""The Breakpoints panel: the tab's intercept rules, each with a box that enables it; add one by hand (the rules
file's ``when`` fields and an action with its values), remove one, import and export them as a rules file, and the
longest a message may stay paused. A thin view of :class:`~inspector.ui.intercept.control.InterceptControl`: it
shows the rules when they change and says the control's sentences under the list, in red when something failed.
Rules also come from a timeline row ("Break on messages like this") and the Explorer ("Break on calls to this
tool"), through the same control.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from inspector.core.intercept.rules import ACTIONS, MAX_DELAY_MS
from inspector.ui.intercept.control import InterceptControl
from inspector.ui.json_highlighter import is_dark
from inspector.ui.wheel_guard import guard_wheel

#: (light, dark) colours of a failure sentence
FAILURE_COLOURS = ("#cf222e", "#ff7b72")
DIRECTIONS = (("any direction", ""), ("client → server (c2s)", "c2s"), ("server → client (s2c)", "s2c"))


class BreakpointsPanel(QWidget):
    """The rules list, the add form, import/export and the longest pause (see the module)."""

    def __init__(self, control: InterceptControl, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.control = control
        #: asks for a file to import (None: cancelled); replaceable (tests)
        self.choose_import: Callable[[], str | None] = lambda: _file(QFileDialog.getOpenFileName, self,
                                                                     "Import breakpoints")
        self.choose_export: Callable[[], str | None] = lambda: _file(QFileDialog.getSaveFileName, self,
                                                                     "Export breakpoints")
        self.rules = QListWidget(self)
        self.rules.setObjectName("rules")
        self.rules.setToolTip("Tick a breakpoint to enable it; the first enabled one that matches a message acts")
        self.rules.itemChanged.connect(self._ticked)
        # the list takes the height the form leaves (four lines at least), never more: the form stays in sight
        self.rules.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        self.rules.setMinimumHeight(4 * self.fontMetrics().lineSpacing() + 8)
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.clicked.connect(lambda: self.control.remove(self.rules.currentRow()))
        self.import_button = QPushButton("Import…", self)
        self.import_button.setToolTip("Replace the breakpoints with a rules file's (the --rules format)")
        self.import_button.clicked.connect(self._import)
        self.export_button = QPushButton("Export…", self)
        self.export_button.setToolTip("Save the breakpoints as a rules file (for --rules on record, tap and serve)")
        self.export_button.clicked.connect(self._export)
        buttons = QHBoxLayout()
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        buttons.addWidget(self.import_button)
        buttons.addWidget(self.export_button)

        self.message = QLabel(self)
        self.message.setObjectName("message")
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.longest = guard_wheel(QSpinBox(self))
        self.longest.setObjectName("longest")
        self.longest.setRange(0, 3600)
        self.longest.setSuffix(" s")
        self.longest.setSpecialValueText("until you decide")
        self.longest.setToolTip("A message paused longer than this goes on unchanged (none: it waits for you)")
        self.longest.valueChanged.connect(lambda value: self.control.set_max_wait(float(value) if value else None))
        longest = QHBoxLayout()
        longest.addWidget(QLabel("Longest pause", self))
        longest.addWidget(self.longest)
        longest.addStretch(1)

        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.rules, 1)
        layout.addLayout(buttons)
        layout.addWidget(self._add_form())
        layout.addLayout(longest)
        layout.addWidget(self.message)
        scrolled(self, body)

        control.rules_changed.connect(self.refresh)
        control.said.connect(self.say)
        self.refresh()

    def _add_form(self) -> QGroupBox:
        box = QGroupBox("Add a breakpoint", self)
        self.direction = guard_wheel(QComboBox(box))
        for text, value in DIRECTIONS:
            self.direction.addItem(text, value)
        self.method = QLineEdit(box)
        self.method.setPlaceholderText("any method (a response matches its request's)")
        self.tool = QLineEdit(box)
        self.tool.setPlaceholderText("any tool (params.name of tools/call)")
        self.match = QLineEdit(box)
        self.match.setPlaceholderText("a regular expression over the raw text")
        self.action = guard_wheel(QComboBox(box))
        for action in ACTIONS:
            self.action.addItem(action, action)
        self.action.setCurrentIndex(ACTIONS.index("pause"))
        self.values = QStackedWidget(box)
        self.set_text = QLineEdit(box)
        self.set_text.setPlaceholderText('{"/result/content/0/text": "forty-two"}')
        self.delay_ms = guard_wheel(QSpinBox(box))
        self.delay_ms.setRange(0, MAX_DELAY_MS)
        self.delay_ms.setValue(1000)
        self.delay_ms.setSuffix(" ms")
        error = QWidget(box)
        self.error_code = guard_wheel(QSpinBox(error))
        self.error_code.setRange(-2**31, 2**31 - 1)
        self.error_code.setValue(-32000)
        self.error_message = QLineEdit(error)
        self.error_message.setPlaceholderText("message")
        self.error_message.setText("injected by a breakpoint")
        row = QHBoxLayout(error)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.error_code)
        row.addWidget(self.error_message, 1)
        self._pages = {"pause": QLabel("a person decides in the Intercepted tab", box), "rewrite": self.set_text,
                       "delay": self.delay_ms, "drop": QLabel("never delivered", box), "error": error}
        for page in self._pages.values():
            self.values.addWidget(page)
        self.action.currentIndexChanged.connect(lambda _i: self.values.setCurrentWidget(
            self._pages[str(self.action.currentData())]))
        self.values.setCurrentWidget(self._pages["pause"])
        self.add_button = QPushButton("Add", box)
        self.add_button.clicked.connect(self.add_from_form)
        form = QFormLayout(box)
        form.addRow("Direction", self.direction)
        form.addRow("Method", self.method)
        form.addRow("Tool", self.tool)
        form.addRow("Match", self.match)
        form.addRow("Action", self.action)
        form.addRow("", self.values)
        form.addRow("", self.add_button)
        return box

    # -- what the person does --------------------------------------------------------------------------

    def form_rule(self) -> dict[str, Any] | None:
        """The add form as a rule in the rules-file shape (None, and the sentence said, when a value is no JSON)."""
        when = {key: value for key, value in (("dir", str(self.direction.currentData() or "")),
                                              ("method", self.method.text().strip()),
                                              ("tool", self.tool.text().strip()), ("match", self.match.text()))
                if value}
        action = str(self.action.currentData())
        item: dict[str, Any] = {"when": when, "do": action}
        if action == "rewrite":
            try:
                item["set"] = json.loads(self.set_text.text() or "null")
            except ValueError as exc:
                self.say(f"the rewrite's values are not JSON ({exc}): write an object of JSON Pointers and values",
                         True)
                return None
        elif action == "delay":
            item["ms"] = self.delay_ms.value()
        elif action == "error":
            item["code"] = self.error_code.value()
            item["message"] = self.error_message.text()
        return item

    def add_from_form(self) -> bool:
        item = self.form_rule()
        return item is not None and self.control.add(item)

    def _ticked(self, item: QListWidgetItem) -> None:
        self.control.set_enabled(self.rules.row(item), item.checkState() == Qt.CheckState.Checked)

    def _import(self) -> None:
        path = self.choose_import()
        if path:
            self.control.import_file(path)

    def _export(self) -> None:
        path = self.choose_export()
        if path:
            self.control.export_file(path)

    # -- what the panel shows --------------------------------------------------------------------------

    def refresh(self) -> None:
        """Show the control's rules again (after any change)."""
        current = self.rules.currentRow()
        self.rules.blockSignals(True)
        try:
            self.rules.clear()
            for rule in self.control.breakpoints.rules.rules:
                item = QListWidgetItem(f"{rule.label()}: {rule.when.describe()}{_values(rule.to_json())}")
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Checked if rule.enabled else Qt.CheckState.Unchecked)
                self.rules.addItem(item)
            if self.rules.count():
                self.rules.setCurrentRow(min(max(current, 0), self.rules.count() - 1))
        finally:
            self.rules.blockSignals(False)
        self.remove_button.setEnabled(self.rules.count() > 0)
        self.export_button.setEnabled(self.rules.count() > 0)

    def say(self, text: str, failure: bool = False) -> None:
        self.message.setText(text)
        self.message.setProperty("failure", failure)
        palette = self.palette()
        if failure:
            light, dark = FAILURE_COLOURS
            palette.setColor(QPalette.ColorRole.WindowText, QColor(dark if is_dark(palette) else light))
        self.message.setPalette(palette)


def _values(rule: dict[str, Any]) -> str:
    """An action's values as a short clause (`` → -32000 "injected"``)."""
    if rule["do"] == "rewrite":
        return " → " + ", ".join(f"{pointer} = {json.dumps(value, ensure_ascii=False)[:40]}"
                                  for pointer, value in rule["set"].items())
    if rule["do"] == "delay":
        return f" {rule['ms']} ms"
    if rule["do"] == "error":
        return f" → {rule['code']} {json.dumps(rule['message'], ensure_ascii=False)[:60]}"
    return ""


def scrolled(host: QWidget, body: QWidget) -> None:
    """``body`` as ``host``'s whole content, in a scroll area: on a small screen the tab scrolls instead of
    making the window wider or taller than the screen (the side tabs' widest minimum sizes the tab)."""
    area = QScrollArea(host)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(body)
    outer = QVBoxLayout(host)
    outer.setContentsMargins(0, 0, 0, 0)
    outer.addWidget(area)


def _file(ask: Any, parent: QWidget, title: str) -> str | None:
    path, _filter = ask(parent, title, "", "Rules files (*.json);;All files (*)")
    return str(path) or None
