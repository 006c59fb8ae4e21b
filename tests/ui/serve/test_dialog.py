"""The "Serve this capture…" dialog on its own: the stdio command and a client's config entry, to copy."""

from __future__ import annotations

import json

from PySide6.QtGui import QGuiApplication

from inspector.core.tasks import Tasks
from inspector.ui.serve.dialog import ServeDialog
from inspector.ui.serve.http import HttpServing


def dialog_for(tmp_path):
    capture = tmp_path / "my capture.jsonl"
    capture.write_text("", encoding="utf-8")
    return capture, ServeDialog(capture, HttpServing(["unused"], Tasks()))


def test_the_stdio_command_names_the_capture_by_its_absolute_path_and_copies_as_shown(qapp, tmp_path):
    capture, dialog = dialog_for(tmp_path)
    assert dialog.command.text() == f"mcp-inspector serve '{capture.resolve()}'"  # quoted: the name has a space
    dialog.copy_command.click()
    assert QGuiApplication.clipboard().text() == dialog.command.text()


def test_the_config_entry_runs_the_same_command_in_each_clients_shape(qapp, tmp_path):
    capture, dialog = dialog_for(tmp_path)
    dialog.client.setCurrentText("Claude Desktop")
    assert json.loads(dialog.snippet.toPlainText()) == {"mcpServers": {"my capture-twin": {
        "command": "mcp-inspector", "args": ["serve", str(capture.resolve())]}}}
    dialog.client.setCurrentText("VS Code")
    entry = json.loads(dialog.snippet.toPlainText())["servers"]["my capture-twin"]
    assert entry == {"type": "stdio", "command": "mcp-inspector", "args": ["serve", str(capture.resolve())]}
    dialog.copy_snippet.click()
    assert QGuiApplication.clipboard().text() == dialog.snippet.toPlainText()


def test_http_is_offered_stopped_until_the_user_starts_it(qapp, tmp_path):
    _capture, dialog = dialog_for(tmp_path)
    assert dialog.start_button.isEnabled()
    assert not dialog.stop_button.isEnabled() and not dialog.copy_url.isEnabled()
    assert dialog.url.text() == "" and dialog.http.state == "stopped"
