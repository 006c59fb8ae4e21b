"""The explorer against the real server-everything: the tools appear on connect without typing anything,
get-sum is called in three actions (select, fill, Ctrl+Enter) and shows 5, both messages are timeline rows,
the image tool's picture is shown, and the call is kept in the history with its command line."""

from __future__ import annotations

import json
import shlex

import pytest
from explorer_support import everything_tab, rows, shown_text, wait
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

pytestmark = [pytest.mark.integration, pytest.mark.npm]


def test_get_sum_is_called_in_three_actions_and_shows_5_with_both_messages_in_the_timeline(qtbot, qloop, tmp_path):
    with everything_tab(qtbot, qloop, tmp_path) as tab:
        explorer = tab.explorer
        assert explorer.isVisible()
        names = [explorer.tools.tool_list.item(r).text() for r in range(explorer.tools.tool_list.count())]
        assert any(n.startswith("get-sum") and "[read-only]" in n for n in names), names
        assert rows(tab, "tools/list"), "the listing is a row of the timeline"

        # 1. select the tool
        row = next(r for r, n in enumerate(names) if n.startswith("get-sum"))
        explorer.tools.tool_list.setCurrentRow(row)
        form = explorer.tools.arguments_editor
        # 2. fill the arguments: the form generated from get-sum's inputSchema, a field per number
        qtbot.keyClicks(form.editor_at("arguments.a"), "2")
        qtbot.keyClicks(form.editor_at("arguments.b"), "3")
        assert form.problems() == []
        # 3. Ctrl+Enter
        qtbot.keyClick(form.editor_at("arguments.b"), Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

        wait(qloop, lambda: "5" in shown_text(explorer.tools.tool_result), "5 in the result")
        assert "The sum of 2 and 3 is 5" in shown_text(explorer.tools.tool_result)
        calls = rows(tab, "tools/call")
        assert [e.dir for e in calls] == ["c2s", "s2c"]
        assert calls[0].json()["params"]["arguments"] == {"a": 2, "b": 3}
        assert calls[1].data["reply_to"] == calls[0].seq

        wait(qloop, lambda: explorer.history.history_list.count() == 1, "the call in the history")
        first = explorer.history.history_list.item(0).text()
        assert "get-sum" in first and "5" in first
        explorer.history.history_list.setCurrentRow(0)
        explorer.copy(explorer.history.history_text(command=True))
        words = shlex.split(QGuiApplication.clipboard().text())
        assert words[:5] == ["mcp-inspector", "call", "get-sum", "a=2", "b=3"] and words[5] == "--"
        explorer.copy(explorer.history.history_text(command=False))
        message = json.loads(QGuiApplication.clipboard().text())
        assert message["method"] == "tools/call" and message["params"]["arguments"] == {"a": 2, "b": 3}

        explorer.history.rerun()
        wait(qloop, lambda: len(rows(tab, "tools/call")) == 4, "the call run again")
        saved = json.loads((tmp_path / "explorer-history.json").read_text(encoding="utf-8"))
        assert [c["tool"] for c in saved["everything"]] == ["get-sum"] * 2


def test_the_tiny_image_tool_shows_its_picture(qtbot, qloop, tmp_path):
    with everything_tab(qtbot, qloop, tmp_path) as tab:
        explorer = tab.explorer
        assert explorer.tools.select_tool("get-tiny-image")
        explorer.tools.call()
        wait(qloop, lambda: bool(explorer.tools.tool_result.images), "the picture")
        pixmap = explorer.tools.tool_result.images[0].pixmap()
        assert not pixmap.isNull() and pixmap.width() > 0


def test_structured_content_is_checked_against_the_output_schema(qtbot, qloop, tmp_path):
    with everything_tab(qtbot, qloop, tmp_path) as tab:
        explorer = tab.explorer
        assert explorer.tools.select_tool("get-structured-content")
        explorer.tools.arguments_editor.set_arguments({"location": "Chicago"})
        explorer.tools.call()
        wait(qloop, lambda: "temperature" in shown_text(explorer.tools.tool_result), "the structured content")
        assert explorer.tools.tool_result.findings == []
        # the same result against a schema it breaks: a finding sentence
        result = json.loads(rows(tab, "tools/call")[-1].raw)["result"]
        explorer.tools.tool_result.clear()
        explorer.tools.tool_result.show_call("get-structured-content", result,
                                       {"type": "object", "required": ["pressure"]})
        assert explorer.tools.tool_result.findings and "pressure" in explorer.tools.tool_result.findings[0]
