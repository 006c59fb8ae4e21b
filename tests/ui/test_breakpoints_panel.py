"""The Breakpoints panel and the Intercepted queue without a server: rules added by hand, from a timeline row and
refused in one sentence; enabled, disabled, removed, imported and exported; a paused message in the queue, its
editor's live checks (JSON, the revision's schema) and the decisions that cannot be carried out."""

from __future__ import annotations

import asyncio
import json
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtWidgets import QMenu

from inspector.core.intercept.breakpoints import Breakpoints, PausedQueue
from inspector.core.intercept.engine import Interceptor
from inspector.core.wire.framing import decode_line
from inspector.ui.intercept.control import InterceptControl
from inspector.ui.intercept.hookup import row_menu
from inspector.ui.intercept.panel import BreakpointsPanel
from inspector.ui.intercept.queue import InterceptedQueue

CALL = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}'


@pytest.fixture
def control(qapp):
    interceptor = Interceptor()
    return InterceptControl(Breakpoints(interceptor), PausedQueue(interceptor))


@pytest.fixture
def panel(qtbot, control):
    widget = BreakpointsPanel(control)
    qtbot.addWidget(widget)
    return widget


def choose(box, value) -> None:
    box.setCurrentIndex(box.findData(value))


def test_a_breakpoint_added_by_hand_is_listed_enabled_and_matches(panel, control):
    choose(panel.direction, "c2s")
    panel.method.setText("tools/call")
    panel.tool.setText("echo")
    assert panel.add_from_form()
    assert panel.rules.count() == 1
    assert panel.rules.item(0).text() == "rule 1 (pause): c2s tools/call tool echo"
    assert control.queue.interceptor.decide("c2s", CALL).action == "pause"
    assert "added rule 1 (pause)" in panel.message.text()


def test_each_action_takes_its_values_from_the_form(panel, control):
    for action, fill in (("delay", lambda: panel.delay_ms.setValue(250)),
                         ("error", lambda: (panel.error_code.setValue(-32001), panel.error_message.setText("no"))),
                         ("rewrite", lambda: panel.set_text.setText('{"/params/arguments/text": "bye"}')),
                         ("drop", lambda: None)):
        choose(panel.action, action)
        fill()
        assert panel.add_from_form(), panel.message.text()
    assert [rule.to_json() for rule in control.breakpoints.rules.rules] == [
        {"when": {}, "do": "delay", "ms": 250},
        {"when": {}, "do": "error", "code": -32001, "message": "no"},
        {"when": {}, "do": "rewrite", "set": {"/params/arguments/text": "bye"}},
        {"when": {}, "do": "drop"}]


@pytest.mark.parametrize(("fill", "said"), [
    (lambda panel: panel.match.setText("(unclosed"), "the pattern \"(unclosed\" cannot be read"),
    (lambda panel: (choose(panel.action, "rewrite"), panel.set_text.setText("{nope")), "are not JSON"),
    (lambda panel: (choose(panel.action, "rewrite"), panel.set_text.setText('{"no-slash": 1}')),
     "is not a JSON Pointer"),
])
def test_a_breakpoint_that_cannot_be_used_is_one_red_sentence_and_nothing_is_added(panel, control, fill, said):
    fill(panel)
    assert not panel.add_from_form()
    assert said in panel.message.text()
    assert "\n" not in panel.message.text() and "Traceback" not in panel.message.text()
    assert panel.message.property("failure") is True
    assert len(control.breakpoints) == 0


def test_the_longest_pause_is_none_until_the_person_sets_one(panel, control):
    assert control.queue.max_wait is None and panel.longest.text() == "until you decide"
    panel.longest.setValue(30)
    assert control.queue.max_wait == 30.0
    panel.longest.setValue(0)
    assert control.queue.max_wait is None


def test_unticking_a_breakpoint_disables_it_and_remove_takes_it_away(panel, control):
    control.add({"when": {}, "do": "pause"})
    control.add({"when": {"dir": "s2c"}, "do": "drop"})
    panel.rules.item(0).setCheckState(panel.rules.item(0).checkState().Unchecked)
    assert not control.breakpoints.rules.rules[0].enabled
    assert control.queue.interceptor.decide("c2s", CALL).passes
    panel.rules.setCurrentRow(0)
    panel.remove_button.click()
    assert [rule.label() for rule in control.breakpoints.rules.rules] == ["rule 1 (drop)"]


def test_breakpoints_are_exported_and_imported_as_a_rules_file(panel, control, tmp_path):
    control.add({"when": {"dir": "c2s", "method": "tools/call"}, "do": "pause"})
    path = tmp_path / "rules.json"
    panel.choose_export = lambda: str(path)
    panel.export_button.click()
    assert json.loads(path.read_text()) == {"rules": [{"when": {"dir": "c2s", "method": "tools/call"},
                                                       "do": "pause"}]}
    control.remove(0)
    panel.choose_import = lambda: str(path)
    panel.import_button.click()
    assert panel.rules.count() == 1 and "imported 1 rule from" in panel.message.text()
    (tmp_path / "bad.json").write_text('{"rules": [{"do": "explode"}]}')
    panel.choose_import = lambda: str(tmp_path / "bad.json")
    panel.import_button.click()
    assert "unknown action \"explode\"" in panel.message.text() and panel.message.property("failure") is True
    assert panel.rules.count() == 1


def test_the_timeline_menu_breaks_on_messages_like_the_selected_row(control, qapp):
    request = decode_line(CALL, "c2s")
    answer = decode_line(b'{"jsonrpc":"2.0","id":7,"result":{"content":[]}}', "s2c")
    answer.put(request_method="tools/call")
    menu = QMenu()
    row_menu(control, lambda: answer, lambda: request)(menu)
    action = next(a for a in menu.actions() if a.text() == "Break on messages like this")
    assert action.isEnabled()
    action.trigger()
    assert control.breakpoints.rules.rules[0].when.to_json() == {"dir": "s2c", "method": "tools/call", "tool": "echo"}
    empty = QMenu()
    row_menu(control, lambda: None, lambda: None)(empty)
    assert not next(a for a in empty.actions() if a.text() == "Break on messages like this").isEnabled()


def test_the_queue_shows_a_paused_message_with_the_composers_live_checks(qtbot, control, qloop):
    queue = InterceptedQueue(control)
    qtbot.addWidget(queue)
    queue.set_revision("2025-11-25")
    control.add({"when": {}, "do": "pause"})

    async def scenario():
        task = asyncio.ensure_future(control.queue("c2s", CALL, control.queue.interceptor.decide("c2s", CALL)))
        await asyncio.sleep(0)
        shown = (queue.list.count(), queue.list.item(0).text(), queue.editor.toPlainText(),
                 queue.status.property("severity"))
        queue.editor.setPlainText('{"jsonrpc": "2.0", "id": 7, ')
        broken = (queue.status.property("severity"), queue.status.text(), queue.forward_edited_button.isEnabled(),
                  len(queue.editor.extraSelections()))
        queue.editor.setPlainText('{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"arguments": {}}}')
        schema = (queue.status.property("severity"), queue.status.text())
        refused = queue.decide("error")  # allowed for a request; the next one is not
        return shown, broken, schema, refused, await task

    shown, broken, schema, refused, verdict = qloop.run_until_complete(scenario())
    assert shown[0] == 1 and shown[1].startswith("→ request tools/call echo #7 · rule 1 (pause)")
    assert json.loads(shown[2]) == json.loads(CALL) and shown[3] == "ok"
    assert broken[0] == "error" and broken[1].startswith("line 1, column") and not broken[2]
    assert broken[3] >= 1  # the composer's mark on the line where the JSON breaks
    assert schema[0] == "warning" and "against the 2025-11-25 schema" in schema[1] and "name" in schema[1]
    assert refused and verdict.answer is not None
    assert queue.list.count() == 0 and not queue.forward_button.isEnabled()
