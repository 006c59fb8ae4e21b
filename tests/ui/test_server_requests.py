"""The server requests panel: pending requests answered by the user, through asyncio futures.

Futures live on a plain event loop that each test creates and drives with ``run_until_complete`` (bounded
by ``wait_for``) after clicking, so nothing here can hang waiting for a Qt event loop.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import Qt

from inspector.core.present.server_requests import summary
from inspector.core.session.outcomes import RpcError, result_of
from inspector.core.session.session import Session
from inspector.core.transports.stdio import StdioTransport
from inspector.core.wire.events import Direction, Kind
from inspector.ui.panels.server_requests import CAPABILITIES, ServerRequestsPanel

ROOT = Path(__file__).resolve().parents[2]
#: Bound on any wait for a future in these tests.
TIMEOUT = 5.0

SAMPLING = {"messages": [{"role": "user", "content": {"type": "text", "text": "Capital of France?"}}],
            "maxTokens": 50}
ELICIT = {"message": "Who are you?", "requestedSchema": {
    "type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}, "required": ["name"]}}


@pytest.fixture
def clock():
    return [1000.0]


@pytest.fixture
def panel(qtbot, loop, clock):
    widget = ServerRequestsPanel(loop=loop, clock=lambda: clock[0])
    qtbot.addWidget(widget)
    widget.resize(440, 600)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    widget.cancel_all()


def _outcome(loop: asyncio.AbstractEventLoop, future: asyncio.Future) -> object:
    return loop.run_until_complete(asyncio.wait_for(future, TIMEOUT))


def _click(qtbot, button) -> None:
    assert button.isVisible() and button.isEnabled(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def test_an_empty_panel_says_what_will_appear_in_it(panel):
    assert panel.header.text().startswith("No pending server requests.")
    assert not panel.details.isVisible()


def test_a_request_is_listed_with_its_method_summary_and_waiting_time(panel, clock):
    panel.add_request(3, "sampling/createMessage", SAMPLING)
    item = panel.list.topLevelItem(0)
    assert item.text(0) == "sampling/createMessage"
    assert "Capital of France?" in item.text(2) and "max 50 tokens" in item.text(2)
    assert item.text(1) == "0 s"
    clock[0] += 75
    panel._tick()
    assert item.text(1) == "1 min 15 s"


def test_selecting_a_request_shows_its_params_and_a_prefilled_answer(panel):
    panel.add_request(3, "sampling/createMessage", SAMPLING)
    assert json.loads(panel.params_view.toPlainText()) == SAMPLING
    assert panel.params_view.isReadOnly()
    assert json.loads(panel.answer_editor.toPlainText()) == {
        "role": "assistant", "content": {"type": "text", "text": ""}, "model": "mcp-inspector",
        "stopReason": "endTurn"}
    assert panel.answer_button.isVisible() and not panel.accept_button.isVisible()


def test_pressing_answer_resolves_the_future_with_the_edited_json(panel, loop, qtbot):
    future = panel.add_request(3, "sampling/createMessage", SAMPLING)
    reply = json.loads(panel.answer_editor.toPlainText())
    reply["content"]["text"] = "Paris"
    panel.answer_editor.setPlainText(json.dumps(reply))
    with qtbot.waitSignal(panel.pending_changed, timeout=2000) as changed:
        _click(qtbot, panel.answer_button)
    assert changed.args == [0]
    assert _outcome(loop, future) == reply
    assert panel.count() == 0 and panel.list.topLevelItemCount() == 0


def test_broken_json_in_the_answer_blocks_answering_and_says_where(panel, loop, qtbot):
    future = panel.add_request(1, "roots/list", None)
    panel.answer_editor.setPlainText('{"roots": [}')
    assert panel.answer_status.text().startswith("line 1, column 12: ")
    assert not panel.answer_button.isEnabled()
    assert not panel.answer()
    assert not future.done()
    panel.answer_editor.setPlainText('{"roots": [{"uri": "file:///tmp"}]}')
    _click(qtbot, panel.answer_button)
    assert _outcome(loop, future) == {"roots": [{"uri": "file:///tmp"}]}


def test_answering_with_an_error_raises_rpc_error_with_the_sampling_default(panel, loop, qtbot):
    future = panel.add_request(3, "sampling/createMessage", SAMPLING)
    assert (panel.error_code.value(), panel.error_message.text()) == (-1, "User rejected sampling request")
    _click(qtbot, panel.error_button)
    with pytest.raises(RpcError) as caught:
        _outcome(loop, future)
    assert (caught.value.code, caught.value.message) == (-1, "User rejected sampling request")


def test_the_error_code_and_message_can_be_changed_before_answering(panel, loop, qtbot):
    future = panel.add_request("a", "x/custom", {"q": 1})
    assert panel.error_code.value() == -32603
    panel.error_code.setValue(-32001)
    panel.error_message.setText("not today")
    _click(qtbot, panel.error_button)
    with pytest.raises(RpcError) as caught:
        _outcome(loop, future)
    assert (caught.value.code, caught.value.message) == (-32001, "not today")


def test_an_elicitation_is_accepted_declined_or_cancelled(panel, loop, qtbot):
    accepted = panel.add_request(1, "elicitation/create", ELICIT)
    declined = panel.add_request(2, "elicitation/create", ELICIT)
    cancelled = panel.add_request(3, "elicitation/create", ELICIT)
    assert not panel.accept_button.isEnabled() and "name" in panel.accept_button.toolTip(), \
        "the required name is missing: Accept waits, and says why"
    assert panel.answer_button.isVisible() and panel.answer_button.text() == "Send as typed", \
        "the raw way out stays open, for an answer broken on purpose"
    assert panel.message.text() == "The server asks: Who are you?"
    assert json.loads(panel.answer_editor.toPlainText()) == {"action": "accept", "content": {}}, \
        "the answer starts as the form's content: nothing typed yet, no defaults"
    assert panel.reply_form() is not None and panel.reply_form().isVisible()
    panel.answer_editor.setPlainText('{"action": "accept", "content": {"name": "Ada", "age": 36}}')
    assert panel.accept_button.isEnabled() and not panel.answer_button.isVisible()
    _click(qtbot, panel.accept_button)
    assert _outcome(loop, accepted) == {"action": "accept", "content": {"name": "Ada", "age": 36}}
    assert panel.current().request_id == 2, "the next pending request is shown"
    _click(qtbot, panel.decline_button)
    assert _outcome(loop, declined) == {"action": "decline"}
    _click(qtbot, panel.cancel_button)
    assert _outcome(loop, cancelled) == {"action": "cancel"}


def test_ctrl_enter_in_the_answer_editor_answers(panel, loop, qtbot):
    future = panel.add_request(5, "roots/list", {})
    qtbot.keyClick(panel.answer_editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert _outcome(loop, future) == {"roots": []}


def test_the_server_cancelling_a_request_removes_it_and_cancels_its_future(panel, loop, qtbot):
    first = panel.add_request(7, "sampling/createMessage", SAMPLING)
    second = panel.add_request("7", "sampling/createMessage", SAMPLING)
    with qtbot.waitSignal(panel.pending_changed, timeout=2000) as changed:
        assert panel.cancel(7)
    assert changed.args == [1]
    assert first.cancelled() and not second.done()
    assert not panel.cancel(7), "already gone; the string id \"7\" is a different request"
    assert [p.request_id for p in panel.pending()] == ["7"]


def test_pending_changed_counts_up_and_down(panel, qtbot):
    counts: list[int] = []
    panel.pending_changed.connect(counts.append)
    panel.add_request(1, "roots/list", {})
    panel.add_request(2, "x/one", {})
    panel.add_request(3, "x/two", {})
    panel.answer({"roots": []}, key=panel.pending()[0].key)
    panel.cancel(3)
    panel.cancel_all()
    assert counts == [1, 2, 3, 2, 1, 0]
    assert "No pending server requests" in panel.header.text()
    assert not panel.details.isVisible()


def test_edits_to_one_answer_survive_looking_at_another_request(panel):
    first = panel.add_request(1, "x/one", {})
    panel.add_request(2, "x/two", {})
    panel.answer_editor.setPlainText('{"kept": true}')
    panel.select(panel.pending()[1].key)
    assert panel.answer_editor.toPlainText() == "{}"
    panel.select(panel.pending()[0].key)
    assert panel.answer_editor.toPlainText() == '{"kept": true}'
    assert panel.current().future is first


def test_the_handler_waits_for_the_users_answer(panel, loop, qtbot):
    handler = panel.handler()
    assert handler.capabilities() == CAPABILITIES

    async def scenario() -> object:
        task = asyncio.ensure_future(handler("sampling/createMessage", SAMPLING))
        while panel.count() == 0:  # one loop turn: the handler lists the request, then awaits the user
            await asyncio.sleep(0)
        assert panel.current().has_id is False
        panel.answer_editor.setPlainText('{"role": "assistant", "content": {"type": "text", "text": "Paris"}, '
                                         '"model": "m"}')
        _click(qtbot, panel.answer_button)
        return await task

    result = loop.run_until_complete(asyncio.wait_for(scenario(), TIMEOUT))
    assert result["content"]["text"] == "Paris"


def test_a_cancelled_handler_call_takes_its_request_off_the_list(panel, loop):
    handler = panel.handler()

    async def scenario() -> None:
        task = asyncio.ensure_future(handler("x/slow", {}))
        while panel.count() == 0:
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        while panel.count():  # the future's done callback runs on the next loop turn
            await asyncio.sleep(0)

    loop.run_until_complete(asyncio.wait_for(scenario(), TIMEOUT))
    assert panel.list.topLevelItemCount() == 0


def test_server_text_with_markup_is_shown_literally(panel):
    evil = "<b>x</b><img src=q>"
    panel.add_request(1, "elicitation/create", {"message": evil, "requestedSchema": {"type": "object",
                                                                                      "properties": {}}})
    assert panel.message.text() == f"The server asks: {evil}"
    assert panel.message.textFormat() == Qt.TextFormat.PlainText
    assert panel.title.textFormat() == Qt.TextFormat.PlainText
    assert evil in panel.list.topLevelItem(0).text(2)
    assert panel.list.topLevelItem(0).toolTip(2) == ""


def test_summaries_say_what_the_server_asks_for_in_one_line():
    assert summary("roots/list", None) == "the client's root directories"
    assert summary("elicitation/create", {"mode": "url", "url": "https://e.x/a", "message": "Sign\nin"}) == \
        "open https://e.x/a · Sign in"
    assert summary("x/y", {"long": "z" * 1000}).endswith("…")
    assert summary("sampling/createMessage", {"messages": [{"role": "user", "content": [
        {"type": "text", "text": "a"}, {"type": "image", "data": "..."}]}]}) == "“a [image]”"


def test_a_real_session_sends_the_users_answer_to_the_servers_sampling_request(panel, loop, qtbot):
    """End to end over stdio: tests/core/servers/asks_back.py asks for sampling after the handshake."""
    server = [sys.executable, str(ROOT / "tests" / "core" / "servers" / "asks_back.py")]

    async def scenario() -> tuple[dict, dict]:
        arrived = asyncio.Event()
        panel.pending_changed.connect(lambda count: arrived.set() if count else None)
        session = Session(StdioTransport(server, cwd=str(ROOT)), server_request_handler=panel.handler())
        await session.start()
        try:
            await session.handshake("legacy")
            await arrived.wait()
            assert panel.current().method == "sampling/createMessage"
            panel.answer_editor.setPlainText('{"role": "assistant", "content": {"type": "text", "text": "hi"}, '
                                             '"model": "by-hand"}')
            _click(qtbot, panel.answer_button)
            while "s3" not in (result_of(await session.request("report"))[0] or {}):
                pass  # each report is one round trip to the server: it has the answer once it read it
            report = result_of(await session.request("report"))[0]
            initialize = next(e.json() for e in session.events
                              if e.kind == Kind.MESSAGE and e.dir == Direction.C2S
                              and e.json().get("method") == "initialize")
            return report, initialize
        finally:
            await session.close()

    report, initialize = loop.run_until_complete(asyncio.wait_for(scenario(), 30))
    assert report["s3"]["result"] == {"role": "assistant", "content": {"type": "text", "text": "hi"},
                                      "model": "by-hand"}
    assert initialize["params"]["capabilities"]["sampling"] == {}
    assert panel.count() == 0


def test_in_a_short_panel_a_lone_request_is_not_listed_and_its_form_gets_the_lines(panel):
    # issue 39: at 2x on a 1920x1080 screen the list and its header left the answer form about one field
    line = panel.fontMetrics().lineSpacing()
    panel.add_request(1, "elicitation/create", ELICIT)
    assert panel.list.isVisible() and panel.header.isVisible(), "a tall panel lists it"
    panel.setMinimumSize(1, 1)  # as in the window, whose own minimum lets a small screen squeeze the panel
    panel.resize(440, 10 * line)
    assert not panel.list.isVisible() and not panel.header.isVisible(), "a short one does not"
    assert panel.title.text() and panel.reply_form() is not None, "its title and form say what it is"
    panel.add_request(2, "roots/list", {})
    assert panel.list.isVisible() and panel.header.isVisible(), "two are listed, to choose between"
    panel.resize(440, 600)
    assert panel.list.isVisible()
