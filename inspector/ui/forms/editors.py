"""The widgets of one field of a :class:`~inspector.ui.forms.form_widget.SchemaForm`: an editor per field kind
(each renders a value of :mod:`inspector.core.forms.values`) and the :class:`FieldBox` around it (label, null
box, description, problems).

Numbers are line edits, not spin boxes: a spin box clamps and starts at 0, and an optional number left empty must
be omitted. Drop-downs change with the wheel only once focused (:func:`inspector.ui.wheel_guard.guard_wheel`):
scrolling a form scrolls it. Server text (titles, descriptions, enum labels) is shown as plain text only, never
as markup, and never in tooltips (Qt guesses rich text there).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QFontDatabase, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from inspector.core.forms import values as V
from inspector.core.forms.fields import Field
from inspector.ui.json_highlighter import is_dark
from inspector.ui.wheel_guard import guard_wheel

#: red for problems, in light and dark palettes (the server requests panel's error colours)
ERROR_COLOURS = ("#cf222e", "#ff7b72")
#: what an unset optional choice or boolean shows
NOT_SENT = "— not sent —"
#: the button of a part the form's budget cut (inspector.core.forms.fields.expand)
EXPAND_TEXT = "Lay out as a form"
#: rows of a JSON field's editor
JSON_FIELD_LINES = 4
#: example text for string formats (placeholder hints)
FORMAT_HINTS = {"date": "date, e.g. 2025-11-25", "date-time": "date-time, e.g. 2025-11-25T09:30:00Z",
                "time": "time, e.g. 09:30:00Z", "email": "email, e.g. ada@example.com",
                "uri": "URI, e.g. https://example.com/", "uuid": "UUID"}

Notify = Callable[[], None]


def plain(text: str, parent: QWidget, *, wrap: bool = True) -> QLabel:
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
    return label


def _hint(f: Field) -> str:
    """The placeholder of a text or number field: its format, range, length or pattern."""
    parts: list[str] = []
    if f.kind == "string":
        if f.format:
            parts.append(FORMAT_HINTS.get(f.format, f.format))
        if f.min_length is not None and f.max_length is not None:
            parts.append(f"{f.min_length} to {f.max_length} characters")
        elif f.min_length:
            parts.append(f"at least {f.min_length} characters")
        elif f.max_length is not None:
            parts.append(f"at most {f.max_length} characters")
        if f.pattern:
            parts.append(f"matching {f.pattern}")
    else:
        parts.append("integer" if f.kind == "integer" else "number")
        low = f"more than {_num(f.exclusive_minimum)}" if f.exclusive_minimum is not None else \
            f"at least {_num(f.minimum)}" if f.minimum is not None else ""
        high = f"less than {_num(f.exclusive_maximum)}" if f.exclusive_maximum is not None else \
            f"at most {_num(f.maximum)}" if f.maximum is not None else ""
        if f.minimum is not None and f.maximum is not None:
            parts.append(f"{_num(f.minimum)} to {_num(f.maximum)}")
        else:
            parts += [p for p in (low, high) if p]
        if f.multiple_of is not None:
            parts.append(f"a multiple of {_num(f.multiple_of)}")
    return ", ".join(parts)


def _num(value: float | None) -> str:
    return json.dumps(value)


# -- editors: one per field kind; each renders a value of inspector.core.forms.values --------------------------

class Editor:
    """The input widgets of one field. ``value``/``set_value`` speak the core's value tree; ``boxes`` walks
    the field boxes inside (composite editors) so problems reach them."""

    def __init__(self, f: Field, notify: Notify, parent: QWidget) -> None:
        self.field = f
        self.notify = notify
        self.widget = QWidget(parent)

    def value(self) -> Any:
        return V.UNSET

    def set_value(self, value: Any) -> None:
        pass

    def children(self, path: str) -> list[tuple[str, FieldBox]]:
        return []

    def focus_widget(self) -> QWidget:
        return self.widget


class TextEditor(Editor):
    """string, number, integer: a line edit; empty text sends nothing."""

    def __init__(self, f: Field, notify: Notify, parent: QWidget) -> None:
        super().__init__(f, notify, parent)
        self.edit = QLineEdit(parent)
        self.edit.setPlaceholderText(_hint(f))
        self.edit.textEdited.connect(lambda _text: notify())
        self.widget = self.edit

    def value(self) -> Any:
        text = self.edit.text()
        return text if text else V.UNSET

    def set_value(self, value: Any) -> None:
        self.edit.setText(value if isinstance(value, str) else "")


class BooleanEditor(Editor):
    """A check box when the field is required; "not sent / true / false" when it may be left out."""

    def __init__(self, f: Field, notify: Notify, parent: QWidget) -> None:
        super().__init__(f, notify, parent)
        if f.required:
            self.check: QCheckBox | None = QCheckBox("true", parent)
            self.check.toggled.connect(lambda _on: notify())
            self.combo: QComboBox | None = None
            self.widget = self.check
        else:
            self.check = None
            self.combo = guard_wheel(QComboBox(parent))
            self.combo.addItems([NOT_SENT, "true", "false"])
            self.combo.activated.connect(lambda _index: notify())
            self.widget = self.combo

    def value(self) -> Any:
        if self.check is not None:
            return self.check.isChecked()
        assert self.combo is not None
        return {1: True, 2: False}.get(self.combo.currentIndex(), V.UNSET)

    def set_value(self, value: Any) -> None:
        if self.check is not None:
            self.check.setChecked(value is True)
        elif self.combo is not None:
            self.combo.setCurrentIndex(1 if value is True else 2 if value is False else 0)


class ChoiceEditor(Editor):
    """An enum (or titled oneOf of consts) as a drop-down; optional ones start with "not sent"."""

    def __init__(self, f: Field, notify: Notify, parent: QWidget) -> None:
        super().__init__(f, notify, parent)
        self.combo = guard_wheel(QComboBox(parent))
        self.offset = 0 if f.required else 1
        if not f.required:
            self.combo.addItem(NOT_SENT)
        for option in f.options:
            self.combo.addItem(option.label)
        self.combo.activated.connect(lambda _index: notify())
        self.widget = self.combo

    def value(self) -> Any:
        index = self.combo.currentIndex() - self.offset
        return index if 0 <= index < len(self.field.options) else V.UNSET

    def set_value(self, value: Any) -> None:
        if isinstance(value, int) and 0 <= value < len(self.field.options):
            self.combo.setCurrentIndex(value + self.offset)
        else:
            self.combo.setCurrentIndex(0 if self.offset else -1)


class MultiEditor(Editor):
    """An array of enum values as one check box per option."""

    def __init__(self, f: Field, notify: Notify, parent: QWidget) -> None:
        super().__init__(f, notify, parent)
        self.widget = QWidget(parent)
        layout = QVBoxLayout(self.widget)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.checks = []
        for option in f.options:
            check = QCheckBox(option.label, self.widget)
            check.toggled.connect(lambda _on: notify())
            layout.addWidget(check)
            self.checks.append(check)

    def value(self) -> Any:
        chosen = [i for i, check in enumerate(self.checks) if check.isChecked()]
        return chosen if chosen or self.field.required else V.UNSET

    def set_value(self, value: Any) -> None:
        chosen = set(value) if isinstance(value, list) else set()
        for i, check in enumerate(self.checks):
            check.blockSignals(True)
            check.setChecked(i in chosen)
            check.blockSignals(False)

    def focus_widget(self) -> QWidget:
        return self.checks[0] if self.checks else self.widget


class ConstEditor(Editor):
    """A fixed value: shown; an optional one has a "send" box."""

    def __init__(self, f: Field, notify: Notify, parent: QWidget) -> None:
        super().__init__(f, notify, parent)
        self.widget = QWidget(parent)
        layout = QHBoxLayout(self.widget)
        layout.setContentsMargins(0, 0, 0, 0)
        shown = plain(json.dumps(f.const, ensure_ascii=False), self.widget)
        shown.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.send: QCheckBox | None = None
        if not f.required:
            self.send = QCheckBox("send", self.widget)
            self.send.toggled.connect(lambda _on: notify())
            layout.addWidget(self.send)
        layout.addWidget(shown, 1)

    def value(self) -> Any:
        return True if self.send is None or self.send.isChecked() else V.UNSET

    def set_value(self, value: Any) -> None:
        if self.send is not None:
            self.send.setChecked(value is True)


class NullEditor(Editor):
    def __init__(self, f: Field, notify: Notify, parent: QWidget) -> None:
        super().__init__(f, notify, parent)
        self.widget = plain("null", parent)

    def value(self) -> Any:
        return None


class JsonEditor(Editor):
    """What the form cannot lay out, as JSON text; a part the form's budget cut has a button that lays it out."""

    def __init__(self, f: Field, notify: Notify, parent: QWidget) -> None:
        super().__init__(f, notify, parent)
        self.edit = QPlainTextEdit(parent)
        self.edit.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.edit.setPlaceholderText("JSON")
        self.edit.setFixedHeight(self.edit.fontMetrics().lineSpacing() * JSON_FIELD_LINES + 12)
        self.edit.setTabChangesFocus(True)
        self._setting = False
        self.edit.textChanged.connect(self._changed)
        self.widget = self.edit
        self.expand_button: QPushButton | None = None
        if f.expandable:
            self.widget = QWidget(parent)
            layout = QVBoxLayout(self.widget)
            layout.setContentsMargins(0, 0, 0, 0)
            layout.addWidget(self.edit)
            self.expand_button = QPushButton(EXPAND_TEXT, self.widget)
            self.expand_button.setAutoDefault(False)
            self.expand_button.clicked.connect(self._expand)
            layout.addWidget(self.expand_button, 0, Qt.AlignmentFlag.AlignLeft)

    def _expand(self) -> None:
        from inspector.ui.forms.form_widget import SchemaForm  # the form around this field (it imports this module)

        form = self.widget.parentWidget()
        while form is not None and not isinstance(form, SchemaForm):
            form = form.parentWidget()
        if form is not None:
            form.expand(self.field)

    def focus_widget(self) -> QWidget:
        return self.edit

    def _changed(self) -> None:
        if not self._setting:
            self.notify()

    def value(self) -> Any:
        text = self.edit.toPlainText()
        return text if text.strip() else V.UNSET

    def set_value(self, value: Any) -> None:
        self._setting = True
        try:
            self.edit.setPlainText(value if isinstance(value, str) else "")
        finally:
            self._setting = False


class ObjectEditor(Editor):
    """Its fields, one box each, in the schema's order; nested objects sit in a group box."""

    def __init__(self, f: Field, notify: Notify, parent: QWidget, *, top: bool = False) -> None:
        super().__init__(f, notify, parent)
        self.widget = QWidget(parent) if top else QGroupBox(parent)
        layout = QVBoxLayout(self.widget)
        layout.setContentsMargins(0, 0, 0, 0) if top else layout.setContentsMargins(8, 4, 8, 8)
        self.boxes = [FieldBox(child, notify, self.widget) for child in f.children]
        for box in self.boxes:
            layout.addWidget(box)
        if not f.children and top:
            layout.addWidget(plain("This takes no arguments." if not f.note else "", self.widget))
        self.extra: dict[str, Any] = {}
        self.explicit = False

    def value(self) -> Any:
        return V.Obj({box.field.name or "": box.value() for box in self.boxes}, dict(self.extra), self.explicit)

    def set_value(self, value: Any) -> None:
        obj = value if isinstance(value, V.Obj) else V.Obj()
        self.extra = dict(obj.extra)
        self.explicit = obj.explicit
        for box in self.boxes:
            box.set_value(obj.values.get(box.field.name or "", V.UNSET))

    def children(self, path: str) -> list[tuple[str, FieldBox]]:
        return [(V.join(path, box.field.name or ""), box) for box in self.boxes]

    def focus_widget(self) -> QWidget:
        return self.boxes[0].editor.focus_widget() if self.boxes else self.widget


class ArrayEditor(Editor):
    """Fixed positions (prefixItems) then rows of one item field, each with Remove; Add appends a row."""

    def __init__(self, f: Field, notify: Notify, parent: QWidget) -> None:
        super().__init__(f, notify, parent)
        self.widget = QFrame(parent)
        self.widget.setFrameShape(QFrame.Shape.StyledPanel)
        outer = QVBoxLayout(self.widget)
        outer.setContentsMargins(6, 4, 6, 6)
        self.rows_layout = QVBoxLayout()
        outer.addLayout(self.rows_layout)
        self.add_button = QPushButton("Add item", self.widget)
        self.add_button.setAutoDefault(False)
        self.add_button.clicked.connect(self._add_clicked)
        self.add_button.setVisible(f.item is not None)
        outer.addWidget(self.add_button, 0, Qt.AlignmentFlag.AlignLeft)
        self.rows: list[tuple[QWidget, FieldBox]] = []
        self.empty = plain("no items", self.widget)
        self.rows_layout.addWidget(self.empty)

    def _add_clicked(self) -> None:
        self._add_row(V.new_row(self.field))
        self._update()
        self.rows[-1][1].editor.focus_widget().setFocus()
        self.notify()

    def _add_row(self, value: Any) -> None:
        index = len(self.rows)
        f = self.field.prefix[index] if index < len(self.field.prefix) else self.field.item
        assert f is not None
        row = QWidget(self.widget)
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        box = FieldBox(f, self.notify, row, label=False)
        box.set_value(value)
        layout.addWidget(box, 1)
        if index >= len(self.field.prefix):
            remove = QToolButton(row)
            remove.setText("Remove")
            remove.clicked.connect(lambda: self._remove(row))
            layout.addWidget(remove, 0, Qt.AlignmentFlag.AlignTop)
        self.rows_layout.addWidget(row)
        self.rows.append((row, box))

    def _remove(self, row: QWidget) -> None:
        self.rows = [(r, b) for r, b in self.rows if r is not row]
        row.hide()
        row.deleteLater()
        self._update()
        self.notify()

    def _update(self) -> None:
        self.empty.setVisible(not self.rows)
        full = self.field.max_items is not None and len(self.rows) >= self.field.max_items
        self.add_button.setEnabled(not full)

    def value(self) -> Any:
        if not self.rows and not self.field.required:
            return V.UNSET
        return [box.value() for _row, box in self.rows]

    def set_value(self, value: Any) -> None:
        for row, _box in self.rows:
            row.hide()
            row.deleteLater()
        self.rows = []
        for item in value if isinstance(value, list) else []:
            if len(self.rows) >= len(self.field.prefix) and self.field.item is None:
                break
            self._add_row(item)
        self._update()

    def children(self, path: str) -> list[tuple[str, FieldBox]]:
        return [(f"{path}[{i}]", box) for i, (_row, box) in enumerate(self.rows)]

    def focus_widget(self) -> QWidget:
        return self.add_button


class UnionEditor(Editor):
    """oneOf/anyOf: a chooser, and the chosen branch's fields below it (each branch keeps its values)."""

    def __init__(self, f: Field, notify: Notify, parent: QWidget) -> None:
        super().__init__(f, notify, parent)
        self.widget = QWidget(parent)
        layout = QVBoxLayout(self.widget)
        layout.setContentsMargins(0, 0, 0, 0)
        self.chooser = guard_wheel(QComboBox(self.widget))
        self.offset = 0 if f.required else 1
        if not f.required:
            self.chooser.addItem(NOT_SENT)
        for number, branch in enumerate(f.branches, 1):
            self.chooser.addItem(branch.label or f"Option {number}")
        self.stack = QStackedWidget(self.widget)
        self.stack.addWidget(QWidget(self.stack))  # nothing chosen
        self.branches: dict[int, FieldBox] = {}
        layout.addWidget(self.chooser)
        layout.addWidget(self.stack)
        self.chooser.activated.connect(self._chosen)

    def _branch(self, index: int) -> FieldBox:
        if index not in self.branches:
            box = FieldBox(self.field.branches[index], self.notify, self.stack, label=False)
            box.set_value(V.initial(self.field.branches[index]))
            self.branches[index] = box
            self.stack.addWidget(box)
        return self.branches[index]

    def _chosen(self, _row: int) -> None:
        self._show(self.chooser.currentIndex() - self.offset)
        self.notify()

    def _show(self, index: int) -> None:
        if 0 <= index < len(self.field.branches):
            self.stack.setCurrentWidget(self._branch(index))
        else:
            self.stack.setCurrentIndex(0)

    def value(self) -> Any:
        index = self.chooser.currentIndex() - self.offset
        if not 0 <= index < len(self.field.branches):
            return V.UNSET
        return V.Branch(index, self._branch(index).value())

    def set_value(self, value: Any) -> None:
        if isinstance(value, V.Branch) and 0 <= value.index < len(self.field.branches):
            self._branch(value.index).set_value(value.value)
            self.chooser.setCurrentIndex(value.index + self.offset)
            self._show(value.index)
        else:
            self.chooser.setCurrentIndex(0 if self.offset else -1)
            self._show(-1)

    def children(self, path: str) -> list[tuple[str, FieldBox]]:
        index = self.chooser.currentIndex() - self.offset
        box = self.branches.get(index)
        return [(path, box)] if box is not None and self.stack.currentWidget() is box else []

    def focus_widget(self) -> QWidget:
        return self.chooser


EDITORS: dict[str, type[Editor]] = {
    "string": TextEditor, "number": TextEditor, "integer": TextEditor, "boolean": BooleanEditor,
    "choice": ChoiceEditor, "multi": MultiEditor, "array": ArrayEditor, "union": UnionEditor,
    "const": ConstEditor, "null": NullEditor, "json": JsonEditor,
}


class FieldBox(QWidget):
    """One field: its label (``*`` when required), its editor, a "null" box when nullable, its description,
    the form's note about it, and its problems in red."""

    def __init__(self, f: Field, notify: Notify, parent: QWidget, *, label: bool = True, top: bool = False) -> None:
        super().__init__(parent)
        self.field = f
        self.notify = notify
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 2)
        layout.setSpacing(2)
        self.header: QLabel | None = None
        if label and not top:
            named = f" ({f.name})" if f.name and f.title and f.title != f.name else ""
            text = f.label + named + (" *" if f.required else "")
            self.header = plain(text, self)
            font = self.header.font()
            font.setBold(True)
            self.header.setFont(font)
            layout.addWidget(self.header)
        self.editor: Editor = ObjectEditor(f, notify, self, top=top) if f.kind == "object" \
            else EDITORS.get(f.kind, JsonEditor)(f, notify, self)
        if isinstance(self.editor.widget, QGroupBox) and self.header is not None:
            self.editor.widget.setTitle(self.header.text())  # the group box carries the label
            self.header.hide()
        self.editor.focus_widget().setAccessibleName(f.label or f.kind)
        self.null_box: QCheckBox | None = None
        if f.nullable:
            row = QHBoxLayout()
            row.addWidget(self.editor.widget, 1)
            self.null_box = QCheckBox("null", self)
            self.null_box.toggled.connect(self._null_toggled)
            row.addWidget(self.null_box, 0, Qt.AlignmentFlag.AlignTop)
            layout.addLayout(row)
        else:
            layout.addWidget(self.editor.widget)
        for text in (f.description, f.note):
            if text:
                help_label = plain(text, self)
                help_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
                layout.addWidget(help_label)
        self.error = plain("", self)
        self.error.setObjectName("problem")
        self.error.hide()
        layout.addWidget(self.error)
        self._colour_error()

    def _null_toggled(self, on: bool) -> None:
        self.editor.widget.setEnabled(not on)
        self.notify()

    def value(self) -> Any:
        if self.null_box is not None and self.null_box.isChecked():
            return V.NULL
        return self.editor.value()

    def set_value(self, value: Any) -> None:
        if self.null_box is not None:
            self.null_box.blockSignals(True)
            self.null_box.setChecked(value is V.NULL)
            self.null_box.blockSignals(False)
            self.editor.widget.setEnabled(value is not V.NULL)
        self.editor.set_value(V.UNSET if value is V.NULL else value)

    def show_problems(self, sentences: list[str]) -> None:
        self.error.setText(" ".join(s if s.endswith(".") else s + "." for s in sentences))
        self.error.setVisible(bool(sentences))

    def _colour_error(self) -> None:
        palette = self.error.palette()
        palette.setColor(QPalette.ColorRole.WindowText, QColor(ERROR_COLOURS[1 if is_dark(self.palette()) else 0]))
        self.error.setPalette(palette)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self._colour_error()
        super().changeEvent(event)
