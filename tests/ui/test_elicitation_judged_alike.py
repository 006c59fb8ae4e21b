"""The answer form and the timeline judge an elicitation answer alike (issue 27), in the window, against the real
server-everything: its requestedSchema has a number whose default is 3.14 (maximum 1000) and an email field.
A value out of range or a bad email is flagged as it is typed, in the field and in the footer, with Accept
disabled and its tooltip saying why; the server's own defaults accepted leave our answer's row unflagged."""

from __future__ import annotations

import json

import pytest
from explorer_support import everything_tab, shown_text, wait
from PySide6.QtCore import Qt

from inspector.core.wire.events import Direction, Kind

pytestmark = [pytest.mark.npm]  # server-everything (tests/npm_servers.py)


def answer_rows(tab):
    """The client's answers to the server's elicitation/create requests, as the timeline holds them."""
    return [e for e in tab.events if e.kind == Kind.MESSAGE and e.dir == Direction.C2S
            and e.data.get("request_method") == "elicitation/create"]


def test_the_servers_own_defaults_pass_both_and_what_breaks_its_schema_is_flagged_as_typed(qtbot, qloop, tmp_path):
    with everything_tab(qtbot, qloop, tmp_path) as tab:
        tab.explorer.tools.call_tool("trigger-elicitation-request", {})
        panel = tab.requests
        wait(qloop, lambda: panel.count() == 1 and panel.reply_form() is not None, "the elicitation")
        form = panel.reply_form()
        assert json.loads(panel.answer_editor.toPlainText())["content"]["number"] == 3.14, "the default, prefilled"
        assert not panel.accept_button.isEnabled(), "the required name is missing"
        qtbot.keyClicks(form.editor_at("arguments.name"), "Ada Lovelace")
        assert panel.accept_button.isEnabled() and panel.answer_status.text().startswith("valid"), \
            "3.14, the server's own default for a number field, is valid in the form"

        number = form.editor_at("arguments.number")
        number.selectAll()
        qtbot.keyClicks(number, "5000")  # no focus change: flagged while typing
        # the field and the footer name the answer alike (issue 39: the field said arguments.number)
        assert form.problem_at("arguments.number") == "result.content.number must be at most 1000, it is 5000."
        assert "result.content.number must be at most 1000, it is 5000" in panel.answer_status.text()
        assert not panel.accept_button.isEnabled()
        assert "at most 1000" in panel.accept_button.toolTip()
        assert panel.answer_button.isVisible() and panel.answer_button.text() == "Send as typed"
        assert not panel.elicitation_action("accept"), "Ctrl+Enter is refused alike"
        number.selectAll()
        qtbot.keyClicks(number, "3.14")

        email = form.editor_at("arguments.email")
        qtbot.keyClicks(email, "not-an-address")
        assert "format email" in form.problem_at("arguments.email")
        assert "format email" in panel.answer_status.text() and not panel.accept_button.isEnabled()
        email.clear()
        qtbot.keyClicks(email, "ada@example.com")
        assert panel.accept_button.isEnabled() and not panel.answer_button.isVisible()

        qtbot.mouseClick(panel.accept_button, Qt.MouseButton.LeftButton)
        wait(qloop, lambda: "User provided" in shown_text(tab.explorer.tools.tool_result), "the tool's result")
        wait(qloop, lambda: tab.feed.pacer.backlog == 0, "the judge caught up")
        [ours] = answer_rows(tab)
        assert ours.json()["result"]["content"]["number"] == 3.14
        assert tab.judge.of(ours.seq) == [], "the answer the form called valid is not flagged on the timeline"
        tab.model.catch_up()
        assert not tab.model.columns.is_problem(tab.model.row_of_seq(ours.seq))
