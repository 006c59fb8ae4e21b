"""``SchemaForm``: a form generated from a JSON Schema, with a JSON view of the same arguments.

Interface (the explorer and the server requests panel code against exactly this):

- ``SchemaForm(schema: dict, parent=None)``
- ``arguments() -> dict``: the arguments the form stands for (empty optional fields omitted)
- ``set_arguments(args: dict) -> None``: show ``args`` in the form and the JSON view
- ``problems() -> list[Violation]``: every way the arguments break the schema (``inspector.core.schemas.validate``)
- ``changed = Signal(object)``: the arguments dict, after every edit (form or JSON), and once after
  ``set_arguments``

All logic lives in :mod:`inspector.core.forms` (field tree, values, validation and where each problem goes);
these widgets only render it; each field's widgets are :mod:`inspector.ui.forms.editors`'.
"""

from __future__ import annotations

import json
import re
from typing import Any

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase, QPalette
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from inspector.core.forms import values as V
from inspector.core.forms.fields import Field, build, expand, replace_field, value_label
from inspector.core.protocol.replies import server_defaults_trusted
from inspector.core.schemas.validate import Violation, describe_value, violations
from inspector.ui.forms.editors import ERROR_COLOURS, EXPAND_TEXT, NOT_SENT, FieldBox, plain
from inspector.ui.json_highlighter import JsonHighlighter, is_dark

# -- the form ------------------------------------------------------------------------------------------------

class SchemaForm(QWidget):
    """A form for ``schema`` with a Form/JSON toggle over the same arguments (see the module docstring)."""

    changed = Signal(object)

    def __init__(self, schema: dict[str, Any], parent: QWidget | None = None, *, trust_defaults: bool = False,
                 named: str = V.ROOT) -> None:
        """``named``: what the sentences call the value the form makes (an elicitation's answer is
        ``result.content``, as the reply's own check says); paths (:meth:`editor_at`) keep ``arguments``."""
        super().__init__(parent)
        self._schema = schema
        self._named = named
        #: an elicitation's form: a value equal to its field's default is never a problem (as the judge reads it)
        self._trust_defaults = trust_defaults
        self._root = build(schema)
        self._value: Any = V.initial(self._root)
        self._args: dict[str, Any] = V.arguments(self._root, self._value)
        self._misfits: list[str] = []
        self._json_text_ok = True
        self._syncing = False
        self._boxes: dict[str, FieldBox] = {}

        self.form_button = QPushButton("Form", self)
        self.json_button = QPushButton("JSON", self)
        toggle = QButtonGroup(self)
        for button in (self.form_button, self.json_button):
            button.setCheckable(True)
            button.setAutoDefault(False)
            toggle.addButton(button)
        self.form_button.setChecked(True)
        self.form_button.setToolTip("Edit the arguments field by field")
        self.json_button.setToolTip("Edit the same arguments as JSON")
        switch = QHBoxLayout()
        switch.setSpacing(0)
        switch.addWidget(self.form_button)
        switch.addWidget(self.json_button)
        switch.addStretch(1)

        self.note = plain("", self)
        self.note.setObjectName("note")
        self.note.hide()

        self.scroller = QScrollArea(self)
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        self._holder = QWidget(self.scroller)
        self._holder_layout = QVBoxLayout(self._holder)
        self._holder_layout.setContentsMargins(2, 2, 2, 2)
        self.root_box = FieldBox(self._root, self._edited, self._holder, top=True)
        self._holder_layout.addWidget(self.root_box, 0, Qt.AlignmentFlag.AlignTop)
        self._holder_layout.addStretch(1)
        self.scroller.setWidget(self._holder)

        self.json_edit = QPlainTextEdit(self)
        self.json_edit.setObjectName("arguments-json")
        self.json_edit.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.json_edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.json_highlighter = JsonHighlighter(self.json_edit.document(), self.json_edit.palette())
        self.json_status = plain("", self)
        self.json_status.setObjectName("json-status")
        json_page = QWidget(self)
        json_layout = QVBoxLayout(json_page)
        json_layout.setContentsMargins(0, 0, 0, 0)
        json_layout.addWidget(self.json_edit, 1)
        json_layout.addWidget(self.json_status)

        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.scroller)
        self.stack.addWidget(json_page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(switch)
        layout.addWidget(self.note)
        layout.addWidget(self.stack, 1)
        # the fields (or the JSON) scroll within a couple of lines at least: the form never asks its panel for the
        # height of its longest page (issue 39: on a small screen that pushed the buttons below it out of sight)
        self.stack.setMinimumHeight(2 * self.fontMetrics().lineSpacing())

        self.form_button.toggled.connect(lambda on: self.show_json(not on))
        self.json_edit.textChanged.connect(self._json_edited)
        self.root_box.set_value(self._value)
        self._refresh()

    # -- the interface ---------------------------------------------------------------------------------

    def arguments(self) -> dict[str, Any]:
        """The arguments the form stands for (a copy)."""
        return json.loads(json.dumps(self._args))

    def set_arguments(self, args: dict[str, Any]) -> None:
        """Show ``args`` in the form and the JSON view; ``changed`` fires once. What the form cannot show is
        named in a note and kept as written until the form is edited."""
        self._take(dict(args) if isinstance(args, dict) else {}, from_json=False)
        self.changed.emit(self.arguments())

    def problems(self) -> list[Violation]:
        """Every way the arguments break the schema (and JSON fields whose text is not JSON), paths from
        ``arguments``."""
        schema = server_defaults_trusted(self._schema, self._args) if self._trust_defaults else self._schema
        if self._misfits:
            return violations(schema, self._args, root=V.ROOT)
        return V.problems(self._root, schema, self._value)

    # -- extras for the explorer and tests -------------------------------------------------------------

    def field_tree(self) -> Field:
        return self._root

    def editor_at(self, path: str) -> QWidget | None:
        """The input widget of the field at ``path`` (``arguments.a``, ``arguments.items[0]``), if shown."""
        box = self._boxes.get(path)
        return box.editor.focus_widget() if box is not None else None

    def problem_at(self, path: str) -> str:
        """The red text shown under the field at ``path`` ("" when none)."""
        box = self._boxes.get(path)
        return box.error.text() if box is not None and not box.error.isHidden() else ""

    def expand(self, cut: Field) -> None:
        """Lay out ``cut``, a part the form's budget left as JSON (:func:`inspector.core.forms.fields.expand`);
        the arguments stay as they are, now shown in its fields."""
        built = expand(self._schema, cut)
        if built is cut:
            return
        self._root = replace_field(self._root, cut, built)
        old = self.root_box
        self.root_box = FieldBox(self._root, self._edited, self._holder, top=True)
        self._holder_layout.replaceWidget(old, self.root_box)
        old.hide()
        old.deleteLater()
        self._take(self.arguments(), from_json=False)

    def show_json(self, on: bool = True) -> None:
        """Switch between the form and the JSON view of the same arguments."""
        if on:
            self._write_json()
        self.stack.setCurrentIndex(1 if on else 0)
        for button, checked in ((self.json_button, on), (self.form_button, not on)):
            button.blockSignals(True)
            button.setChecked(checked)
            button.blockSignals(False)

    def focus_first(self) -> None:
        """Give the focus to the first field of the view shown (the form's first input, or the JSON text)."""
        page = self.stack.currentWidget()
        if page is None:
            return
        fields = [w for w in page.findChildren(QWidget)
                  if w.focusPolicy() & Qt.FocusPolicy.TabFocus and w.isVisibleTo(page) and w.isEnabled()]
        (fields[0] if fields else page).setFocus(Qt.FocusReason.OtherFocusReason)

    def json_shown(self) -> bool:
        return self.stack.currentIndex() == 1

    # -- internals -------------------------------------------------------------------------------------

    def _edited(self) -> None:
        if self._syncing:
            return
        self._value = self.root_box.value()
        self._args = V.arguments(self._root, self._value)
        self._misfits = []
        self._refresh()
        self.changed.emit(self.arguments())

    def _take(self, args: dict[str, Any], *, from_json: bool) -> None:
        value, misfits = V.from_arguments(self._root, args)
        self._syncing = True
        try:
            self.root_box.set_value(value)
        finally:
            self._syncing = False
        self._value = value
        self._args = args
        self._misfits = misfits
        if not from_json:
            self._write_json()
        self._refresh()

    def _json_edited(self) -> None:
        if self._syncing:
            return
        parsed, problem = V.parse_json(self.json_edit.toPlainText())
        if problem is None and not isinstance(parsed, dict):
            problem = f"the arguments must be a JSON object, this is {describe_value(parsed)}"
        self._json_text_ok = problem is None
        if problem is not None:
            self._status(f"{problem}; the form keeps its last good values.", error=True)
            return
        self._take(parsed, from_json=True)
        self.changed.emit(self.arguments())

    def _write_json(self) -> None:
        self._syncing = True
        try:
            self.json_edit.setPlainText(json.dumps(self._args, indent=2, ensure_ascii=False))
        finally:
            self._syncing = False
        self._json_text_ok = True
        self._refresh()

    def _refresh(self) -> None:
        found = self.problems()
        placed = V.assign(found, self._root, self._value)
        self._boxes = {}
        todo: list[tuple[str, FieldBox]] = [(V.ROOT, self.root_box)]
        while todo:
            path, box = todo.pop()
            self._boxes.setdefault(path, box)
            box.show_problems([self._said(t) for t in placed.get(path, [])] if self._boxes[path] is box else [])
            todo.extend(box.editor.children(path))
        if self._misfits:
            self.note.setText("The form cannot show all of these arguments: " + "; ".join(self._misfits[:3]) +
                              ". They are sent as written in the JSON view until you edit the form.")
        self.note.setVisible(bool(self._misfits))
        if self._json_text_ok:
            if found:
                self._status(self._said(found[0].sentence)
                             + (f" (and {len(found) - 1} more)" if len(found) > 1 else "") + ".", error=True)
            else:
                self._status("The arguments fit the schema.", error=False)

    def _said(self, sentence: str) -> str:
        """``sentence`` with the form's paths named as the form's value is (``arguments.x`` -> ``result.content.x``)."""
        if self._named == V.ROOT:
            return sentence
        return re.sub(rf"(?<![\w.]){V.ROOT}(?=[.\[\s]|$)", self._named, sentence)

    def _status(self, text: str, *, error: bool) -> None:
        self.json_status.setText(text)
        palette = self.json_status.palette()
        colour = ERROR_COLOURS[1 if is_dark(self.palette()) else 0] if error else \
            self.palette().color(QPalette.ColorRole.WindowText).name()
        palette.setColor(QPalette.ColorRole.WindowText, QColor(colour))
        self.json_status.setPalette(palette)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self.json_highlighter.set_palette(self.palette())
        super().changeEvent(event)


__all__ = ["EXPAND_TEXT", "NOT_SENT", "FieldBox", "SchemaForm", "value_label"]
