"""Diagnose in the window (inspector/ui/panels/doctor.py): a live session that fails to connect offers it beside
its status line; it runs the doctor's steps in the background on the Qt loop and shows them as they come."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import until
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget
from qt_loop import open_test_window
from tls_support import closed_port

from inspector.core.connect.target import Target
from inspector.ui.panels.doctor import DoctorDialog
from inspector.ui.session.live import FAILED, READY

pytestmark = pytest.mark.integration


@pytest.fixture
def window(qapp, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        yield win


def test_a_session_to_a_closed_port_offers_diagnose_which_names_connect(window, qloop):
    port = closed_port()

    async def scenario():
        tab = window.open_live(Target(name="closed", url=f"http://127.0.0.1:{port}/mcp"))
        assert tab.diagnose.isHidden(), "nothing to diagnose while the session starts"
        await until(lambda: tab.live.state == FAILED and tab.live.finished, 15, "the failure")
        assert not tab.diagnose.isHidden(), "a failed connection offers Diagnose"
        tab.diagnose.click()
        dialog = tab.diagnose.dialog
        assert isinstance(dialog, DoctorDialog) and dialog.isVisible()
        # the doctor runs in the background: the click returned before any step was known
        assert dialog.report is None and dialog.table.rowCount() == 0 and dialog.running
        await until(lambda: dialog.report is not None, 15, "the diagnosis")
        return tab, dialog

    tab, dialog = qloop.run_until_complete(scenario())
    report = dialog.report
    rows = [(dialog.table.item(r, 0).text(), dialog.table.item(r, 1).text()) for r in range(dialog.table.rowCount())]
    assert rows == [("passed", "resolve"), ("failed", "connect"), ("skipped", "tls"), ("skipped", "http"),
                    ("skipped", "transport"), ("skipped", "auth"), ("skipped", "handshake")]
    assert dialog.table.item(1, 2).text() == f"connection refused: nothing is listening on 127.0.0.1:{port}"
    assert report.first_failure.step == "connect"
    assert dialog.summary.text() == "the first failing step is connect: fix it first"
    # the first failed step is explained below the table, its detail and fix, as plain text
    assert dialog.explained.toPlainText().startswith("connect: failed\n\nconnection refused")
    assert "fix: Start the server, or check the port in the URL" in dialog.explained.toPlainText()
    assert dialog.summary.textFormat() == Qt.TextFormat.PlainText
    dialog.table.selectRow(0)
    assert dialog.explained.toPlainText() == \
        "resolve: passed\n\n127.0.0.1 is an IP address: there is no name to resolve"
    dialog.copy.click()
    copied = QGuiApplication.clipboard().text()
    assert copied.startswith(f"mcp-inspector doctor: http://127.0.0.1:{port}/mcp\n")
    assert "failed   connect" in copied
    dialog.close()


def test_diagnose_stays_hidden_for_a_session_that_connects(window, qloop):
    async def scenario():
        tab = window.open_demo()
        await until(lambda: tab.live.state == READY, 30, "the demo handshake")
        return tab

    tab = qloop.run_until_complete(scenario())
    assert tab.diagnose.isHidden()


def test_closing_the_dialog_while_it_runs_stops_the_diagnosis_and_its_server(qapp, qloop, tmp_path):
    pid_file = tmp_path / "server.pid"
    silent = [sys.executable, "-c", f"import os, sys; open({str(pid_file)!r}, 'w').write(str(os.getpid())); "
                                    "sys.stdin.read()"]
    window = QWidget()  # the window it belongs to stays open, as the main window does
    window.show()
    dialog = DoctorDialog(Target(name="silent", argv=silent), timeout=60, parent=window)

    async def scenario():
        dialog.show()
        task = dialog.start()
        await until(lambda: pid_file.exists() and pid_file.read_text(), 15, "the server to start")
        assert dialog.running
        dialog.close()
        await until(task.done, 15, "the diagnosis to stop")
        return task, int(pid_file.read_text())

    task, pid = qloop.run_until_complete(scenario())
    assert task.cancelled() and dialog.report is None
    assert not Path(f"/proc/{pid}").exists(), "the doctor's server was shut down with it"
    window.close()
