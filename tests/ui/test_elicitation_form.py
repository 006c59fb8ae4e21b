"""Server requests answered through forms, against the real server-everything over stdio: its elicitation
through the form of its requestedSchema, its URL-mode elicitation shown as a link, its sampling request through
the reply form; each answer checked on the wire."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from npm_servers import install_everything
from PySide6.QtCore import Qt
from PySide6.QtGui import QDesktopServices, QGuiApplication

from inspector.core.session.outcomes import result_of
from inspector.core.session.session import Session
from inspector.core.transports.stdio import StdioTransport
from inspector.core.wire.events import Direction, Kind
from inspector.ui.panels.server_requests import ServerRequestsPanel

pytestmark = [pytest.mark.npm]  # server-everything (tests/npm_servers.py)

ROOT = Path(__file__).resolve().parents[2]
#: bound on one scenario: start node, handshake, one tool call waiting on the user (typing is immediate)
SCENARIO_TIMEOUT = 60.0


@pytest.fixture
def panel(qtbot, loop):
    widget = ServerRequestsPanel(loop=loop)
    qtbot.addWidget(widget)
    widget.resize(520, 900)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    widget.cancel_all()


def _run(loop, qtbot, panel, tool: str, arguments: dict[str, Any], answer) -> tuple[dict, dict, Any]:
    """Call ``tool``; when its server request is listed, ``answer(pending)`` answers it as a user does.
    Returns the tool's result, the client's answer to the server request as sent, and what answer returned."""
    node, entry = install_everything()

    async def scenario() -> tuple[dict, dict, Any]:
        arrived = asyncio.Event()
        panel.pending_changed.connect(lambda count: arrived.set() if count else None)
        session = Session(StdioTransport([node, str(entry), "stdio"], cwd=str(ROOT)),
                          server_request_handler=panel.handler())
        await session.start()
        try:
            await session.handshake("legacy")
            call = asyncio.ensure_future(session.request("tools/call", {"name": tool, "arguments": arguments}))
            await arrived.wait()
            # this plain asyncio loop runs no Qt events: let the panel lay out the request as the app's loop would
            qtbot.waitUntil(lambda: panel.reply_forms.currentWidget().height() > 0, timeout=5000)
            asked = answer(panel.current())
            result, error = result_of(await call)
            assert error is None, error
            question = next(e for e in session.events if e.kind == Kind.MESSAGE and e.dir == Direction.S2C
                            and e.method in ("elicitation/create", "sampling/createMessage"))
            reply = next(e.json() for e in session.events if e.kind == Kind.MESSAGE and e.dir == Direction.C2S
                         and e.json().get("id") == question.rpc.id and "method" not in e.json())
            return result, reply, asked
        finally:
            await session.close()

    return loop.run_until_complete(asyncio.wait_for(scenario(), SCENARIO_TIMEOUT))


def test_an_elicitation_is_answered_by_typing_into_its_form(panel, loop, qtbot, tmp_path):
    def answer(pending) -> dict:
        assert pending.method == "elicitation/create"
        form = panel.reply_form()
        assert form is not None and form.isVisible()
        assert form.problem_at("arguments.name") == "result.content.name is required."
        name = form.editor_at("arguments.name")
        name.setFocus()
        qtbot.keyClicks(name, "Ada Lovelace")
        check = form.editor_at("arguments.check")
        check.setCurrentIndex(1)
        check.activated.emit(1)  # "true"
        qtbot.keyClicks(form.editor_at("arguments.integer"), "0")  # the default 42 becomes 420: out of range
        assert form.problem_at("arguments.integer") == "result.content.integer must be at most 100, it is 420."
        integer = form.editor_at("arguments.integer")
        qtbot.keyClick(integer, Qt.Key.Key_Backspace)
        assert form.problem_at("arguments.integer") == ""
        assert json.loads(panel.answer_editor.toPlainText())["content"]["name"] == "Ada Lovelace", \
            "the raw answer follows the form"
        panel.grab().save(str(tmp_path / "elicitation-form.png"))
        qtbot.mouseClick(panel.accept_button, Qt.MouseButton.LeftButton)
        return form.arguments()

    result, reply, sent = _run(loop, qtbot, panel, "trigger-elicitation-request", {}, answer)
    assert reply["result"]["action"] == "accept"
    content = reply["result"]["content"]
    assert content == sent
    assert content["name"] == "Ada Lovelace" and content["check"] is True and content["integer"] == 42
    assert content["titledSingleSelectEnum"] == "hero-1", "defaults are sent as prefilled"
    assert "email" not in content, "an optional field left empty is not sent"
    text = "\n".join(block.get("text", "") for block in result["content"])
    assert "- Name: Ada Lovelace" in text and "- Agreed to terms: true" in text
    assert panel.count() == 0


def test_an_elicitation_declined_from_its_form_sends_only_the_action(panel, loop, qtbot):
    def answer(_pending) -> None:
        qtbot.keyClicks(panel.reply_form().editor_at("arguments.name"), "typed, then declined")
        qtbot.mouseClick(panel.decline_button, Qt.MouseButton.LeftButton)

    result, reply, _ = _run(loop, qtbot, panel, "trigger-elicitation-request", {}, answer)
    assert reply["result"] == {"action": "decline"}
    assert "declined" in json.dumps(result)


def test_a_url_elicitation_is_shown_as_a_link_never_opened_and_accepted(panel, loop, qtbot, monkeypatch):
    opened: list[Any] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    url = "https://example.com/connect?step=1"

    def answer(pending) -> str:
        assert pending.params["mode"] == "url"
        assert panel.reply_form() is None and panel.url_edit.isVisible() and panel.url_edit.isReadOnly()
        qtbot.mouseClick(panel.copy_url_button, Qt.MouseButton.LeftButton)
        copied = QGuiApplication.clipboard().text()
        qtbot.mouseClick(panel.accept_button, Qt.MouseButton.LeftButton)
        return copied

    _result, reply, copied = _run(loop, qtbot, panel, "trigger-url-elicitation", {"url": url}, answer)
    assert copied == url
    assert reply["result"] == {"action": "accept"}
    assert opened == [], "the inspector never opens a server's URL"


def test_a_sampling_request_is_answered_through_the_reply_form(panel, loop, qtbot):
    def answer(pending) -> None:
        assert pending.method == "sampling/createMessage"
        assert panel.sampling_text.isVisible()
        panel.sampling_text.setFocus()
        qtbot.keyClicks(panel.sampling_text, "Paris")
        panel.sampling_model.selectAll()
        qtbot.keyClicks(panel.sampling_model, "by-hand-1")
        panel.sampling_stop.setCurrentText("maxTokens")
        assert json.loads(panel.answer_editor.toPlainText())["content"]["text"] == "Paris"
        qtbot.keyClick(panel.sampling_text, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

    result, reply, _ = _run(loop, qtbot, panel, "trigger-sampling-request", {"prompt": "Capital of France?"}, answer)
    assert reply["result"] == {"role": "assistant", "content": {"type": "text", "text": "Paris"},
                               "model": "by-hand-1", "stopReason": "maxTokens"}
    assert "Paris" in json.dumps(result)


def test_the_raw_answer_edited_by_hand_moves_the_form_and_still_sends_odd_answers(panel, loop, qtbot):
    def answer(_pending) -> None:
        panel.answer_editor.setPlainText('{"action": "accept", "content": {"name": "From JSON", "extra": 1}}')
        form = panel.reply_form()
        assert form.editor_at("arguments.name").text() == "From JSON"
        qtbot.mouseClick(panel.accept_button, Qt.MouseButton.LeftButton)

    _result, reply, _ = _run(loop, qtbot, panel, "trigger-elicitation-request", {}, answer)
    assert reply["result"] == {"action": "accept", "content": {"name": "From JSON", "extra": 1}}
