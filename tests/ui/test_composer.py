"""The composer widget: templates, live checks, sending (parsed and raw), history, untrusted names."""

from __future__ import annotations

import json
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette

from inspector.core.session import compose
from inspector.core.wire.events import Direction
from inspector.core.wire.framing import decode_line
from inspector.ui.json_highlighter import JsonHighlighter
from inspector.ui.panels.composer import HISTORY_LIMIT, Composer

TOOLS = [{"name": "add", "inputSchema": {"type": "object", "properties": {
    "a": {"type": "number"}, "b": {"type": "number", "default": 2}}, "required": ["a"]}}]
EVIL = "<b>x</b><img src=q>"


@pytest.fixture
def composer(qtbot):
    widget = Composer()
    qtbot.addWidget(widget)
    widget.set_revision("2025-11-25")
    widget.resize(420, 420)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _choose(composer: Composer, method: str) -> None:
    index = composer.method_box.findData(method)
    assert index >= 0, method
    composer.method_box.setCurrentIndex(index)


def test_the_method_picker_offers_the_revisions_client_methods(composer):
    offered = [composer.method_box.itemData(i) for i in range(composer.method_box.count())]
    assert [m for m in offered if m] == compose.client_methods("2025-11-25")
    composer.set_revision("2026-07-28")
    offered = [composer.method_box.itemData(i) for i in range(composer.method_box.count())]
    assert "server/discover" in offered and "initialize" not in offered


def test_choosing_a_method_puts_its_template_in_the_editor(composer):
    composer.set_catalog(tools=TOOLS)
    _choose(composer, "tools/call")
    assert json.loads(composer.text()) == compose.template("tools/call", "2025-11-25", tools=TOOLS)
    assert json.loads(composer.text())["params"] == {"name": "add", "arguments": {"a": 0, "b": 2}}
    assert composer.status.text() == "valid request tools/call add (id added at send)"
    assert composer.send_button.isEnabled()


def test_choosing_another_method_keeps_the_edited_text_in_the_history(composer):
    _choose(composer, "tools/list")
    edited = '{"jsonrpc": "2.0", "method": "tools/list", "params": {"cursor": "abc"}}'
    composer.set_text(edited)
    _choose(composer, "ping")
    assert json.loads(composer.text()) == {"jsonrpc": "2.0", "method": "ping"}
    assert [entry.text for entry in composer.history()] == [edited]
    assert not composer.history()[0].sent


def test_an_untouched_template_follows_the_catalog_and_the_revision(composer):
    _choose(composer, "tools/call")
    assert json.loads(composer.text())["params"]["name"] == "tool-name"
    composer.set_catalog(tools=TOOLS)
    assert json.loads(composer.text())["params"]["name"] == "add"
    _choose(composer, "initialize")
    composer.set_revision("2025-06-18")
    assert json.loads(composer.text())["params"]["protocolVersion"] == "2025-06-18"


def test_an_edited_text_is_not_replaced_when_the_catalog_arrives(composer):
    _choose(composer, "tools/call")
    composer.set_text('{"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "mine"}}')
    composer.set_catalog(tools=TOOLS)
    assert json.loads(composer.text())["params"]["name"] == "mine"


def test_invalid_json_shows_where_it_breaks_and_disables_send(composer, qtbot):
    composer.set_text('{\n  "jsonrpc": "2.0",\n  "method": "ping" "id": 1\n}')
    assert composer.status.text() == "line 3, column 20: Expecting ',' delimiter"
    assert composer.status.property("severity") == "error"
    assert not composer.send_button.isEnabled()
    assert composer.error_marks(), "the editor marks the place of the error"
    with qtbot.assertNotEmitted(composer.send_requested, wait=0):
        assert not composer.send()
    composer.set_text('{"jsonrpc": "2.0", "method": "ping"}')
    assert composer.send_button.isEnabled() and composer.error_marks() == []


def test_the_status_line_is_green_when_valid_and_red_when_not(composer):
    _choose(composer, "ping")
    valid = composer.status_colour()
    composer.set_text("{")
    invalid = composer.status_colour()
    assert valid.green() > valid.red() and invalid.red() > invalid.green()


def test_ctrl_enter_sends_the_parsed_message_without_an_id(composer, qtbot):
    composer.set_catalog(tools=TOOLS)
    _choose(composer, "tools/call")
    composer.editor.setFocus()
    with qtbot.waitSignal(composer.send_requested, timeout=2000) as blocker:
        qtbot.keyClick(composer.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert blocker.args == [{"jsonrpc": "2.0", "method": "tools/call",
                             "params": {"name": "add", "arguments": {"a": 0, "b": 2}}}]
    assert list(blocker.args[0]) == ["jsonrpc", "method", "params"], "key order is kept"


def test_ctrl_enter_sends_once_from_any_part_of_an_active_composer(qtbot):
    composer = Composer()
    qtbot.addWidget(composer)
    with qtbot.waitActive(composer, timeout=5000):
        composer.show()
        composer.activateWindow()
    sent: list[object] = []
    composer.send_requested.connect(sent.append)
    composer.editor.setFocus()
    qtbot.keyClick(composer.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert len(sent) == 1
    qtbot.keyClick(composer.raw, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert len(sent) == 2
    composer.set_text('{"draft": 1}')
    qtbot.keyClick(composer.method_box, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    assert composer.text() == composer.history()[-1].text != '{"draft": 1}'


def test_ctrl_enter_on_the_keypad_and_the_send_button_send_too(composer, qtbot):
    _choose(composer, "ping")
    with qtbot.waitSignal(composer.send_requested, timeout=2000):
        qtbot.keyClick(composer.editor, Qt.Key.Key_Enter,
                       Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.KeypadModifier)
    with qtbot.waitSignal(composer.send_requested, timeout=2000):
        qtbot.mouseClick(composer.send_button, Qt.MouseButton.LeftButton)


def test_big_integers_and_key_order_reach_the_signal_unchanged(composer, qtbot):
    text = '{"method": "x/y", "jsonrpc": "2.0", "id": 12345678901234567890123, "params": {"z": 1, "a": 2}}'
    composer.set_text(text)
    with qtbot.waitSignal(composer.send_requested, timeout=2000) as blocker:
        composer.send()
    assert json.dumps(blocker.args[0]) == text


def test_raw_mode_sends_the_exact_bytes_even_with_a_newline_and_broken_json(composer, qtbot):
    composer.raw.setChecked(True)
    text = '{"jsonrpc": "2.0",\n "method": "ping", "id": 1'
    composer.set_text(text)
    assert composer.status.text().startswith("raw: sent exactly as typed (")
    assert composer.send_button.isEnabled()
    with qtbot.assertNotEmitted(composer.send_requested, wait=0):
        with qtbot.waitSignal(composer.send_raw_requested, timeout=2000) as blocker:
            qtbot.keyClick(composer.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert blocker.args == [text.encode("utf-8")]
    assert b"\n" in blocker.args[0]


def test_raw_mode_keeps_non_ascii_text_as_utf8(composer, qtbot):
    composer.raw.setChecked(True)
    composer.set_text('{"t": "żółw 🐢"}\n')
    with qtbot.waitSignal(composer.send_raw_requested, timeout=2000) as blocker:
        composer.send()
    assert blocker.args == ['{"t": "żółw 🐢"}\n'.encode()]


def test_a_batch_is_sent_compact_as_typed_since_ids_are_never_added_to_batches(composer, qtbot):
    composer.set_text('[\n {"jsonrpc": "2.0", "id": 1, "method": "ping"},\n'
                      ' {"jsonrpc": "2.0", "id": 2, "method": "ping"}\n]')
    with qtbot.waitSignal(composer.send_raw_requested, timeout=2000) as blocker:
        composer.send()
    assert blocker.args == [b'[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]']


def test_alt_up_and_alt_down_walk_the_history_and_come_back_to_the_draft(composer, qtbot):
    sent = []
    composer.send_requested.connect(sent.append)
    for method in ("ping", "tools/list", "prompts/list"):
        composer.set_text(json.dumps({"jsonrpc": "2.0", "method": method}))
        assert composer.send()
    composer.set_text('{"draft": true}')
    qtbot.keyClick(composer.editor, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    assert json.loads(composer.text())["method"] == "prompts/list"
    qtbot.keyClick(composer.editor, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    qtbot.keyClick(composer.editor, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    qtbot.keyClick(composer.editor, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    assert json.loads(composer.text())["method"] == "ping"
    qtbot.keyClick(composer.editor, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    assert json.loads(composer.text())["method"] == "tools/list"
    qtbot.keyClick(composer.editor, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    qtbot.keyClick(composer.editor, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    assert composer.text() == '{"draft": true}'
    assert len(sent) == 3


def test_the_history_combo_recalls_a_sent_message_newest_first(composer):
    composer.raw.setChecked(True)
    composer.set_text("first\n")
    composer.send()
    composer.raw.setChecked(False)
    composer.set_text('{"jsonrpc": "2.0", "method": "ping"}')
    composer.send()
    assert composer.history_box.count() == 2
    assert composer.history_box.itemText(0).endswith("ping")
    assert composer.history_box.itemText(1).endswith("raw, 6 bytes")
    composer.history_box.activated.emit(1)
    assert composer.text() == "first\n" and composer.raw.isChecked()


def test_the_history_keeps_the_last_hundred_messages(composer):
    for n in range(HISTORY_LIMIT + 5):
        composer.set_text(json.dumps({"jsonrpc": "2.0", "method": "ping", "params": {"n": n}}))
        composer.send()
    history = composer.history()
    assert len(history) == HISTORY_LIMIT == composer.history_box.count()
    assert json.loads(history[0].text)["params"]["n"] == 5
    composer.history_box.activated.emit(HISTORY_LIMIT - 1)
    assert json.loads(composer.text())["params"]["n"] == 5


def test_a_tool_name_with_markup_is_shown_literally(composer):
    composer.set_catalog(tools=[{"name": EVIL, "inputSchema": {"type": "object"}}])
    _choose(composer, "tools/call")
    assert json.loads(composer.text())["params"]["name"] == EVIL
    assert EVIL in composer.status.text()
    assert composer.status.textFormat() == Qt.TextFormat.PlainText
    composer.send()
    assert EVIL in composer.history_box.itemText(0)
    for i in range(composer.method_box.count()):
        assert "<" not in composer.method_box.itemText(i)


def test_a_read_only_session_cannot_send(composer, qtbot):
    _choose(composer, "ping")
    composer.set_enabled_for_session(False)
    assert not composer.send_button.isEnabled() and not composer.raw.isEnabled()
    assert "nothing can be sent" in composer.status.text()
    with qtbot.assertNotEmitted(composer.send_requested, wait=0):
        qtbot.keyClick(composer.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    composer.set_enabled_for_session(True)
    assert composer.send_button.isEnabled()


def test_a_notification_with_an_id_is_a_warning_that_can_still_be_sent(composer, qtbot):
    composer.set_text('{"jsonrpc": "2.0", "id": 9, "method": "notifications/initialized"}')
    assert composer.status.property("severity") == "warning"
    assert composer.send_button.isEnabled()
    assert composer.current_method() == "notifications/initialized", "the picker follows the text"


def test_the_highlighter_picks_readable_colours_for_light_and_dark_palettes(qapp):
    light, dark = QPalette(), QPalette()
    light.setColor(QPalette.ColorRole.Base, QColor("white"))
    dark.setColor(QPalette.ColorRole.Base, QColor("#1e1e1e"))
    highlighter = JsonHighlighter(None, light)
    on_light = highlighter.format_for("key").foreground().color()
    highlighter.set_palette(dark)
    on_dark = highlighter.format_for("key").foreground().color()
    assert highlighter.dark
    assert on_light.lightness() < 128 < on_dark.lightness()


def test_sending_twice_sends_the_same_message_even_if_a_receiver_changed_the_first(composer, qtbot):
    _choose(composer, "tools/call")
    received: list[dict] = []

    def receive(message: dict) -> None:
        received.append(json.loads(json.dumps(message)))
        message["params"]["name"] = "changed"

    composer.send_requested.connect(receive)
    composer.send()
    composer.send()
    assert received[0] == received[1] and received[0]["params"]["name"] == "tool-name"



def test_a_message_over_the_highlighting_limit_switches_colours_off_and_back_without_re_entering(
        composer, monkeypatch):
    # Detaching the highlighter clears its formats, which the editor reports as a change of the text: the
    # change handler must not run again inside itself (it recursed until RecursionError, then crashed).
    from inspector.ui.panels.composer import HIGHLIGHT_LIMIT

    checked: list[int] = []
    validate = compose.validate
    monkeypatch.setattr(compose, "validate", lambda text: checked.append(len(text)) or validate(text))
    big = json.dumps({"jsonrpc": "2.0", "method": "tools/call",
                      "params": {"name": "echo", "arguments": {"text": "y" * HIGHLIGHT_LIMIT}}})
    composer.set_text(big)
    assert composer.highlighter.document() is None and composer.validation.kind == "request"
    composer.set_text('{"jsonrpc":"2.0","method":"ping"}')
    assert composer.highlighter.document() is composer.editor.document()
    assert len(checked) <= 4, f"the change handler ran {len(checked)} times for two edits"


# -- raw text without a final newline ------------------------------------------------------------------------


def test_raw_text_without_a_final_newline_says_the_server_will_wait_and_one_click_adds_it(composer, qtbot):
    composer.raw.setChecked(True)
    composer.set_text('{"jsonrpc": "2.0", "method": "ping", "id": 1}')
    assert "no final newline: the server will wait for the rest of the line" in composer.status.text()
    assert composer.status.property("severity") == "warning"
    assert composer.add_newline.isVisible()
    qtbot.mouseClick(composer.add_newline, Qt.MouseButton.LeftButton)
    assert composer.text() == '{"jsonrpc": "2.0", "method": "ping", "id": 1}\n'
    assert "newline" not in composer.status.text().split(")")[-1], composer.status.text()
    assert composer.status.property("severity") == "raw" and not composer.add_newline.isVisible()


def test_over_http_raw_text_needs_no_final_newline(composer):
    composer.set_line_framed(False)  # a POST body or a WebSocket frame: nothing waits for a newline
    composer.raw.setChecked(True)
    composer.set_text('{"jsonrpc": "2.0", "method": "ping", "id": 1}')
    assert "newline" not in composer.status.text() and not composer.add_newline.isVisible()


def test_after_a_raw_send_without_newline_the_next_send_is_said_to_join_that_line(composer, qtbot):
    composer.raw.setChecked(True)
    composer.set_text('{"jsonrpc": "2.0", "method": "ping"')
    composer.send()
    assert "the server still holds 35 bytes sent without a final newline: this text continues their line" \
        in composer.status.text()
    composer.raw.setChecked(False)
    composer.set_text('{"jsonrpc": "2.0", "method": "ping"}')
    assert composer.status.text().endswith(", but the server still holds 35 bytes sent raw without a final "
                                           "newline: this message would join their line")
    composer.raw.setChecked(True)
    composer.set_text("}\n")
    composer.send()  # the line is complete now
    composer.raw.setChecked(False)
    composer.set_text('{"jsonrpc": "2.0", "method": "ping"}')
    assert composer.status.text() == "valid request ping (id added at send)"


# -- ids: resend, keep the id, in flight -------------------------------------------------------------------------


RESENT = '{\n  "jsonrpc": "2.0",\n  "id": 3,\n  "method": "tools/call",\n  "params": {"name": "add"}\n}'


def test_a_resent_request_gets_a_fresh_id_unless_keep_the_id_is_ticked(composer, qtbot):
    composer.resend(RESENT)
    assert composer.keep_id.isVisible() and not composer.keep_id.isChecked()
    assert composer.status.text().endswith('(a fresh id replaces 3 at send; tick "keep the id" to send it as '
                                           'written)')
    with qtbot.waitSignal(composer.send_requested, timeout=2000) as blocker:
        composer.send()
    assert "id" not in blocker.args[0], "the session adds the next id of its own"
    assert blocker.args[0]["params"] == {"name": "add"}
    composer.keep_id.setChecked(True)
    with qtbot.waitSignal(composer.send_requested, timeout=2000) as blocker:
        composer.send()
    assert blocker.args[0]["id"] == 3


def test_a_typed_id_is_sent_as_written_and_a_template_has_no_id_to_keep(composer, qtbot):
    _choose(composer, "tools/list")
    assert not composer.keep_id.isVisible()
    composer.set_text('{"jsonrpc": "2.0", "id": "mine", "method": "tools/list"}')
    assert composer.keep_id.isVisible() and composer.keep_id.isChecked()
    with qtbot.waitSignal(composer.send_requested, timeout=2000) as blocker:
        composer.send()
    assert blocker.args[0]["id"] == "mine"


def test_recalling_a_resent_message_recalls_that_its_id_was_replaced(composer):
    composer.resend(RESENT)
    composer.send()
    composer.set_text('{"jsonrpc": "2.0", "id": 9, "method": "ping"}')
    composer.keep_id.setChecked(True)
    composer.recall_previous()
    assert composer.text() == RESENT and not composer.keep_id.isChecked()


def test_an_id_still_waiting_for_its_answer_is_warned_about_with_its_type(composer):
    waiting = decode_line(b'{"jsonrpc":"2.0","id":3,"method":"tools/call"}', Direction.C2S)
    waiting.seq = 12
    composer.in_flight = lambda: [waiting]
    composer.resend(RESENT)
    assert "in flight" not in composer.status.text(), "a fresh id is no duplicate"
    composer.keep_id.setChecked(True)
    assert composer.status.text().endswith("; id 3 (a number) is already in flight (request #12 has no answer "
                                           "yet): the server gets a duplicate id")
    assert composer.status.property("severity") == "warning"
    composer.set_text(RESENT.replace('"id": 3', '"id": "3"'))
    assert "in flight" not in composer.status.text(), '"3" is another id than 3'
    composer.set_text(RESENT)
    composer.in_flight = list  # answered since
    composer.refresh()
    assert "in flight" not in composer.status.text()
