"""The explorer's Resources and Prompts pages against the real server-everything: a template read with a
completion suggestion used, a resource link clicked in a tool result read, a prompt's messages shown, and
the roots edited in the window answered to roots/list with the server told."""

from __future__ import annotations

import json

import pytest
from explorer_support import everything_tab, rows, shown_text, wait
from PySide6.QtCore import Qt

pytestmark = [pytest.mark.integration, pytest.mark.npm]

TEXT_TEMPLATE = "demo://resource/dynamic/text/{resourceId}"


def test_a_template_is_read_with_a_completion_suggestion_used(qtbot, qloop, tmp_path):
    with everything_tab(qtbot, qloop, tmp_path) as tab:
        explorer = tab.explorer
        wait(qloop, lambda: explorer.resources.template_list.count() == 2, "the templates")
        templates = explorer.resources.template_list
        row = next(r for r in range(templates.count())
                   if TEXT_TEMPLATE in templates.item(r).data(Qt.ItemDataRole.UserRole)["uriTemplate"])
        explorer.pages.setCurrentWidget(explorer.resources)
        explorer.resources.template_list.setCurrentRow(row)
        field = explorer.resources._fields["resourceId"]
        field.setFocus()
        qtbot.keyClicks(field, "1")  # typing asks the server (after a pause) for completions
        wait(qloop, lambda: field.suggestions.stringList() == ["1"], "the server's suggestion")
        assert rows(tab, "completion/complete"), "the completion request is a row of the timeline"
        asked = rows(tab, "completion/complete")[0].json()["params"]
        assert asked["ref"] == {"type": "ref/resource", "uri": TEXT_TEMPLATE}
        field.setText(field.suggestions.stringList()[0])  # the suggestion, chosen
        assert explorer.resources.template_uri.text() == "demo://resource/dynamic/text/1"
        explorer.resources.read_template()
        wait(qloop, lambda: "Resource 1" in shown_text(explorer.resources.resource_result), "the resource's text")
        read = rows(tab, "resources/read")
        assert read[0].json()["params"]["uri"] == "demo://resource/dynamic/text/1" and len(read) == 2


def test_a_resource_link_in_a_tool_result_is_read_when_clicked(qtbot, qloop, tmp_path):
    with everything_tab(qtbot, qloop, tmp_path) as tab:
        explorer = tab.explorer
        explorer.tools.select_tool("get-resource-links")
        explorer.tools.arguments_editor.set_arguments({"count": 2})
        explorer.tools.call()
        from PySide6.QtWidgets import QPushButton

        def links() -> list[QPushButton]:
            return [b for b in explorer.tools.tool_result.findChildren(QPushButton) if b.text().startswith("↗")]

        wait(qloop, lambda: len(links()) == 2, "the two resource links")
        qtbot.mouseClick(links()[1], Qt.MouseButton.LeftButton)
        wait(qloop, lambda: "Resource 2" in shown_text(explorer.resources.resource_result), "the linked resource")
        assert rows(tab, "resources/read")[0].json()["params"]["uri"] == "demo://resource/dynamic/text/2"


def test_a_prompt_is_got_and_its_messages_shown(qtbot, qloop, tmp_path):
    with everything_tab(qtbot, qloop, tmp_path) as tab:
        explorer = tab.explorer
        wait(qloop, lambda: explorer.prompts.prompt_list.count() >= 2, "the prompts")
        row = next(r for r in range(explorer.prompts.prompt_list.count())
                   if explorer.prompts.prompt_list.item(r).text().startswith("args-prompt"))
        explorer.prompts.prompt_list.setCurrentRow(row)
        explorer.prompts._prompt_fields["city"].setText("Lyon")
        explorer.prompts.get_prompt()
        wait(qloop, lambda: "Lyon" in shown_text(explorer.prompts.prompt_result), "the prompt's message")
        assert json.loads(rows(tab, "prompts/get")[0].raw)["params"]["arguments"] == {"city": "Lyon"}


def test_roots_edited_in_the_window_are_announced_and_answered(qtbot, qloop, tmp_path):
    with everything_tab(qtbot, qloop, tmp_path) as tab:
        initialize = rows(tab, "initialize")[0].json()
        assert initialize["params"]["capabilities"]["roots"] == {"listChanged": True}
        tab.explorer.roots.set_roots([str(tmp_path)])
        wait(qloop, lambda: bool(rows(tab, "notifications/roots/list_changed")), "the list_changed notification")
        # server-everything asks for the roots again when told they changed: the answer names the folder
        answers = lambda: [e for e in rows(tab, "roots/list") if e.dir == "c2s"]  # noqa: E731 - a short probe
        wait(qloop, lambda: any(tmp_path.as_uri() in e.raw.decode() for e in answers()),
             "roots/list answered with the folder")
