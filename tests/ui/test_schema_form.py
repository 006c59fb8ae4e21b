"""SchemaForm: typing into a generated form gives arguments and problems; the JSON view edits the same arguments."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QPushButton

from inspector.ui.forms.form_widget import NOT_SENT, SchemaForm

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core" / "forms"))
from form_schemas import DRAFT_2020, ELICITATION, EVERYTHING

GET_SUM = next(t["inputSchema"] for t in EVERYTHING if t["name"] == "get-sum")


@pytest.fixture
def make(qtbot):
    def build(schema: dict) -> SchemaForm:
        form = SchemaForm(schema)
        qtbot.addWidget(form)
        form.resize(480, 700)
        form.show()
        qtbot.waitExposed(form)
        return form
    return build


def _type(qtbot, widget, text: str) -> None:
    assert isinstance(widget, QLineEdit), widget
    widget.setFocus()
    qtbot.keyClicks(widget, text)


def test_typing_numbers_into_get_sum_gives_number_arguments_and_no_problems(make, qtbot):
    form = make(GET_SUM)
    assert form.arguments() == {}
    assert form.problem_at("arguments.a") == "arguments.a is required."
    seen: list[dict] = []
    form.changed.connect(seen.append)
    _type(qtbot, form.editor_at("arguments.a"), "2")
    _type(qtbot, form.editor_at("arguments.b"), "3")
    assert form.arguments() == {"a": 2, "b": 3}
    assert form.problems() == []
    assert form.problem_at("arguments.a") == ""
    assert seen[-1] == {"a": 2, "b": 3} and len(seen) == 2


def test_text_that_is_not_a_number_is_said_in_red_next_to_its_field(make, qtbot):
    form = make(GET_SUM)
    _type(qtbot, form.editor_at("arguments.a"), "two")
    assert form.arguments() == {"a": "two"}
    assert form.problem_at("arguments.a") == 'arguments.a must be a number, it is the string "two".'
    assert {p.path for p in form.problems()} == {"arguments.a", "arguments"}, "a is not a number, b is missing"
    qtbot.keyClick(form.editor_at("arguments.a"), Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(form.editor_at("arguments.a"), Qt.Key.Key_Backspace)
    assert "a" not in form.arguments(), "an emptied field is omitted, never sent as 0"


def test_an_optional_number_left_empty_is_omitted_and_defaults_are_prefilled(make, qtbot):
    schema = next(t["inputSchema"] for t in EVERYTHING if t["name"] == "trigger-long-running-operation")
    form = make(schema)
    assert form.arguments() == {"duration": 10, "steps": 5}
    editor = form.editor_at("arguments.steps")
    editor.selectAll()
    qtbot.keyClick(editor, Qt.Key.Key_Delete)
    assert form.arguments() == {"duration": 10}


def test_the_elicitation_form_takes_choices_checks_and_formats(make, qtbot):
    form = make(ELICITATION)
    _type(qtbot, form.editor_at("arguments.name"), "Ada")
    _type(qtbot, form.editor_at("arguments.email"), "not-an-email")
    assert form.problem_at("arguments.email") == \
        'arguments.email must be in the format email, it is the string "not-an-email".'
    check = form.editor_at("arguments.check")
    assert isinstance(check, QComboBox) and check.currentText() == NOT_SENT
    check.setCurrentIndex(1)
    check.activated.emit(1)
    hero = form.editor_at("arguments.titledSingleSelectEnum")
    assert isinstance(hero, QComboBox) and hero.currentText() == "Superman"
    hero.setCurrentIndex(3)  # after "not sent": the field is optional
    hero.activated.emit(3)
    fish = form.editor_at("arguments.titledMultipleSelectEnum")
    assert isinstance(fish, QCheckBox) and fish.text() == "Tuna" and fish.isChecked()
    salmon = [c for c in fish.parentWidget().findChildren(QCheckBox) if c.text() == "Salmon"][0]
    salmon.click()  # below the scroll area's fold: click() is the same toggle a mouse gives
    args = form.arguments()
    assert args["name"] == "Ada" and args["check"] is True and args["titledSingleSelectEnum"] == "hero-3"
    assert args["titledMultipleSelectEnum"] == ["fish-1", "fish-2"]
    assert [p.path for p in form.problems()] == ["arguments.email"]


def test_the_json_view_edits_the_same_arguments_and_the_form_follows(make, qtbot):
    form = make(GET_SUM)
    qtbot.mouseClick(form.json_button, Qt.MouseButton.LeftButton)
    assert form.json_shown() and json.loads(form.json_edit.toPlainText()) == {}
    form.json_edit.setPlainText('{"a": 4, "b": 1.5}')
    assert form.arguments() == {"a": 4, "b": 1.5}
    assert form.editor_at("arguments.a").text() == "4"
    form.json_edit.setPlainText('{"a": 4, "b": ')
    assert form.json_status.text().startswith("line 1, column 15: ")
    assert form.json_status.text().endswith("the form keeps its last good values.")
    assert form.arguments() == {"a": 4, "b": 1.5}
    qtbot.mouseClick(form.form_button, Qt.MouseButton.LeftButton)
    assert not form.json_shown()
    _type(qtbot, form.editor_at("arguments.b"), "0")
    assert form.arguments() == {"a": 4, "b": 1.5}, "1.50 is still 1.5"


def test_set_arguments_fills_the_form_and_says_what_it_cannot_show(make):
    form = make(GET_SUM)
    form.set_arguments({"a": 1, "b": 2})
    assert form.editor_at("arguments.b").text() == "2"
    form.set_arguments({"a": "x", "b": 2, "c": True})
    assert form.arguments() == {"a": "x", "b": 2, "c": True}, "kept as written"
    assert "arguments.a is the string \"x\"" in form.note.text() and form.note.isVisible()
    assert {p.path for p in form.problems()} == {"arguments.a"}


def test_arrays_get_rows_unions_a_chooser_and_unlaid_shapes_a_json_box(make, qtbot):
    form = make(DRAFT_2020)
    assert form.arguments() == {"level": 2, "shape": {"kind": "circle"}}
    assert form.problem_at("arguments.shape.r") == "arguments.shape.r is required."
    chooser = form.editor_at("arguments.shape")
    assert isinstance(chooser, QComboBox) and [chooser.itemText(i) for i in range(chooser.count())] == \
        ["Circle", "kind: square"]
    chooser.setCurrentIndex(1)
    chooser.activated.emit(1)
    _type(qtbot, form.editor_at("arguments.shape.side"), "3")
    assert form.arguments()["shape"] == {"kind": "square", "side": 3}
    form.set_arguments({"shape": {"kind": "square", "side": 3}, "point": [1, 2]})
    assert form.editor_at("arguments.point[1]").text() == "2"
    labels = form.editor_at("arguments.labels")
    labels.setPlainText('{"a": "b"}')
    assert form.arguments()["labels"] == {"a": "b"}
    tags_schema = {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"},
                                                             "maxItems": 2}}}
    tags = make(tags_schema)
    add = [b for b in tags.findChildren(QPushButton) if b.text() == "Add item"][0]
    qtbot.mouseClick(add, Qt.MouseButton.LeftButton)
    assert tags.arguments() == {"tags": [""]}
    _type(qtbot, tags.editor_at("arguments.tags[0]"), "x")
    qtbot.mouseClick(add, Qt.MouseButton.LeftButton)
    assert not add.isEnabled(), "maxItems reached"
    assert tags.arguments() == {"tags": ["x", ""]}


def test_look_at_the_forms_of_server_everything(make, tmp_path):
    """Renders a few forms to PNGs (kept under tmp_path) so a person can look at them."""
    for name in ("get-sum", "trigger-url-elicitation", "gzip-file-as-resource"):
        schema = next(t["inputSchema"] for t in EVERYTHING if t["name"] == name)
        form = make(schema)
        image = form.grab()
        assert not image.isNull() and image.width() > 100
        assert image.save(str(tmp_path / f"{name}.png"))


def _wheel(widget, steps: int) -> None:
    """A mouse wheel turned ``steps`` notches (down for negative) over the middle of ``widget``."""
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    centre = QPointF(widget.rect().center())
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0),
                        QPoint(0, 120 * steps), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def test_the_wheel_over_a_drop_down_scrolls_the_form_and_changes_the_value_only_once_focused(make, qtbot):
    form = make(ELICITATION)
    form.resize(480, 300)  # the form is taller than its window: there is something to scroll
    hero = form.editor_at("arguments.titledSingleSelectEnum")
    bar = form.scroller.verticalScrollBar()
    assert bar.maximum() > 0
    form.scroller.ensureWidgetVisible(hero)
    before, at = hero.currentText(), bar.value()
    form.editor_at("arguments.name").setFocus()
    _wheel(hero, -1)
    assert hero.currentText() == before, "scrolling past a drop-down does not edit it"
    assert bar.value() > at, "the form scrolls instead"
    form.activateWindow()
    hero.setFocus()
    qtbot.waitUntil(hero.hasFocus, timeout=5000)
    _wheel(hero, -1)
    assert hero.currentText() != before, "a focused drop-down still takes the wheel"
