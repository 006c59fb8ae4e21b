"""Session > Load test…'s one dialog (inspector/ui/load/dialog.py; issue 39: it was four modal dialogs, the
arguments a raw ``{}``): the tool, its arguments in its schema's form, the concurrency and the duration."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDialog

from inspector.ui.load.dialog import DEFAULT_CONCURRENCY, DEFAULT_DURATION, LoadDialog

TOOLS = [
    {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                                     "required": ["text"]}},
    {"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"},
                                                                     "b": {"type": "number"}}}},
]


def test_the_dialog_starts_from_the_explorers_tool_and_arguments_in_its_form(qtbot, tmp_path):
    dialog = LoadDialog(TOOLS, selected="add", arguments={"a": 2, "b": 3})
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.tool.currentText() == "add"
    assert dialog.arguments_editor.editor_at("arguments.a") is not None, "a form, not a JSON text"
    assert dialog.choice() == ("add", {"a": 2, "b": 3}, DEFAULT_CONCURRENCY, DEFAULT_DURATION)
    assert dialog.grab().save(str(tmp_path / "load-dialog.png"))


@pytest.mark.report("faults", "Load test with arguments that break the tool's schema", surface="GUI", group="window")
def test_arguments_that_break_the_schema_keep_the_dialog_open_with_a_sentence(qtbot, report):
    dialog = LoadDialog(TOOLS, selected="add")
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.tool.setCurrentText("echo")
    assert dialog.arguments_editor.editor_at("arguments.text") is not None
    dialog.accept()
    assert dialog.result() != QDialog.DialogCode.Accepted and dialog.isVisible()
    assert dialog.problem.text() == 'Not run: arguments is missing the required field "text".'
    dialog.arguments_editor.set_arguments({"text": "hi"})
    dialog.concurrency.setValue(4)
    dialog.duration.setValue(2.5)
    dialog.accept()
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert dialog.choice() == ("echo", {"text": "hi"}, 4, 2.5)
    report.saw('Not run: arguments is missing the required field "text".')
