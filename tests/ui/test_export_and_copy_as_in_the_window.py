"""File > Export…, the timeline's Copy as… menu and Session > Copy server as config… on an opened capture
(issue 18): what lands in the file or on the clipboard is what the core writes, and a stdio session says why it
has no curl."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from helpers import until
from PySide6.QtGui import QGuiApplication
from qt_loop import open_test_window

from inspector.core.wire.events import Direction, Kind

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample-v1.jsonl"


@pytest.fixture
def sample_tab(qapp, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as window:
        tab = window.open_capture(SAMPLE)
        qloop.run_until_complete(until(lambda: not tab.loading, 10, "the capture loaded"))
        yield window, tab


def select_call(tab, name: str) -> None:
    for row in range(tab.model.rowCount()):
        event = tab.model.event(row)
        if event.kind == Kind.MESSAGE and event.dir == Direction.C2S and b'"%s"' % name.encode() in event.raw:
            assert tab.timeline.select_row(row)
            return
    raise AssertionError(f"no call of {name}")


def test_copy_as_command_gives_the_call_line_for_the_captures_server(sample_tab):
    _window, tab = sample_tab
    select_call(tab, "echo")
    assert tab.copier.copy("command")
    words = shlex.split(QGuiApplication.clipboard().text())
    assert words[:3] == ["mcp-inspector", "call", "echo"]
    assert "text=<b>x</b><img src=q>" in words
    assert words[words.index("--"):] == ["--", "python", "-m", "inspector.demo", "--banner", "demo server starting"]
    assert tab.copier.copy("jsonrpc")
    assert json.loads(QGuiApplication.clipboard().text())["params"]["name"] == "echo"


def test_copy_as_curl_on_a_stdio_session_says_why_not(sample_tab):
    _window, tab = sample_tab
    select_call(tab, "echo")
    QGuiApplication.clipboard().setText("unchanged")
    assert not tab.copier.copy("curl")
    assert "stdio" in tab.status.text() and QGuiApplication.clipboard().text() == "unchanged"


def test_the_timelines_copy_menu_disables_what_cannot_apply_and_says_why_in_its_tooltip(sample_tab):
    """Copy as curl was offered on a stdio session and then refused (issue 27): it is disabled, with the reason."""
    _window, tab = sample_tab
    select_call(tab, "echo")
    menu = tab.copier.menu(tab.table.rect().center())
    entries = {action.text(): (action.isEnabled(), action.toolTip()) for action in menu.actions()}
    menu.close()
    assert entries["Copy as curl"] == (False, "curl is for HTTP sessions; this one runs its server over stdio")
    assert entries["Copy as JSON-RPC"][0] and entries["Copy as mcp-inspector command"][0]
    tab.timeline.select_row(0)  # a lifecycle row: nothing to copy
    menu = tab.copier.menu(tab.table.rect().center())
    assert all(not action.isEnabled() and action.toolTip() == "select a message the inspector sent to copy it"
               for action in menu.actions())
    menu.close()


def test_export_writes_the_report_and_har_says_why_not_for_stdio(sample_tab, tmp_path):
    window, _tab = sample_tab
    assert "har" not in window.files.export_formats().values(), "HAR is not offered for a stdio session"
    assert {"html", "markdown", "jsonrpc"} <= set(window.files.export_formats().values())
    assert window.files.export_current(tmp_path / "report", "html") is None
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "&lt;img src=q&gt;" in page and "<img" not in page
    problem = window.files.export_current(tmp_path / "x.har", "har")
    assert problem is not None and "stdio" in problem and not (tmp_path / "x.har").exists()


def test_copy_server_as_config_offers_each_client(sample_tab):
    window, _tab = sample_tab
    window.files.copy_server_config()
    dialog = window.files.config_dialog
    dialog.client.setCurrentText("VS Code")
    entry = json.loads(dialog.text.toPlainText())["servers"]
    [(_name, server)] = entry.items()
    assert server == {"type": "stdio", "command": "python", "args": ["-m", "inspector.demo", "--banner",
                                                                     "demo server starting"],
                      "env": {"DEMO_API_TOKEN": "[redacted]"}}
    assert "replace each [redacted]" in dialog.note.text()
    dialog.client.setCurrentText("Claude Desktop")
    assert "mcpServers" in json.loads(dialog.text.toPlainText())
    dialog.copy()
    assert QGuiApplication.clipboard().text() == dialog.text.toPlainText()
    dialog.close()
