"""The window's message size limit (Session > Message size limit…, and --max-message on its command line):
saved in the settings, applied to the sessions started afterwards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import warm_python
from helpers import until
from PySide6.QtCore import QSettings
from qt_loop import open_test_window

from inspector.core.clients.profiles import ProfileStore
from inspector.core.connect.target import Target
from inspector.core.wire.events import Kind
from inspector.ui.app import build_window
from inspector.ui.controllers.settings import MAX_MESSAGE_KEY
from inspector.ui.session.live import FAILED, READY

pytestmark = pytest.mark.integration
SIZE = 200_000


@pytest.fixture
def window(qapp, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        yield win


def big_call(tab) -> None:
    tab.composer.set_text(json.dumps({"jsonrpc": "2.0", "method": "tools/call",
                                      "params": {"name": "big_message", "arguments": {"size_bytes": SIZE}}}))
    assert tab.composer.send()


def test_a_limit_set_in_the_window_reads_a_longer_answer_as_a_framing_error_and_says_how_to_raise_it(window, qloop):
    assert window.session_settings.set_max_message("100K") is None
    assert window.session_settings.max_message() == 100 * 1024

    async def scenario():
        tab = window.open_live(Target(name="demo", argv=warm_python.module_command("inspector.demo"),
                                      handshake="legacy"))
        await until(lambda: tab.live.state in (READY, FAILED), 30, "the handshake")
        big_call(tab)
        await until(lambda: any(e.kind == Kind.FRAMING_ERROR for e in tab.events), 30, "the oversized answer")
        await until(lambda: "Message size limit" in tab.status.text(), 30, "the sentence in the status line")
        return tab

    tab = qloop.run_until_complete(scenario())
    [oversize] = [e for e in tab.events if e.kind == Kind.FRAMING_ERROR]
    assert oversize.data["oversize"]["total_bytes"] > SIZE
    assert "100 KiB per message" in (oversize.reason or "")


def test_the_default_limit_reads_the_same_answer_whole(window, qloop):
    async def scenario():
        tab = window.open_live(Target(name="demo", argv=warm_python.module_command("inspector.demo"),
                                      handshake="legacy"))
        await until(lambda: tab.live.state in (READY, FAILED), 30, "the handshake")
        big_call(tab)
        await until(lambda: any(e.data.get("request_method") == "tools/call" for e in tab.events), 30, "the answer")
        return tab

    tab = qloop.run_until_complete(scenario())
    assert not [e for e in tab.events if e.kind == Kind.FRAMING_ERROR]


def test_a_size_that_is_no_size_is_refused_with_a_sentence_and_nothing_is_saved(window):
    assert window.session_settings.set_max_message("lots") == \
        "'lots' is not a size: give bytes or a number with K, M or G, for example 64M or 200MB"
    assert window.settings.value(MAX_MESSAGE_KEY) is None
    assert window.session_settings.max_message() == 64 * 1024 * 1024


def test_the_command_lines_max_message_outranks_the_setting_until_the_user_sets_another(qapp, qloop,
                                                                                       tmp_path: Path):
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue(MAX_MESSAGE_KEY, 5000)
    window = build_window(settings=settings, store=ProfileStore(tmp_path / "profiles.json"), captures=tmp_path,
                        max_message=1000)
    try:
        assert window.session_settings.max_message() == 1000
        tab = window.open_live(Target(name="x", argv=["mcp-inspector-no-such-server"]))
        assert tab.live.target.max_message == 1000
        qloop.run_until_complete(tab.close())
        assert window.session_settings.set_max_message("2K") is None
        assert window.session_settings.max_message() == 2048
        assert QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat).value(MAX_MESSAGE_KEY) \
            in (2048, "2048")
    finally:
        window.deleteLater()
