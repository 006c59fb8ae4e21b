"""Session > Check server in the window: the checks run against the current tab's stdio server in new
sessions, and the report opens in a tab of its own; a failed check shows its exchange when clicked."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest
from helpers import until
from qt_loop import open_test_window

from inspector.core.check.checks import FAILED, INCOMPLETE
from inspector.core.connect.target import Target
from inspector.ui.panels.check_report import CheckReportView
from inspector.ui.session.live import READY

pytestmark = pytest.mark.integration
BROKEN = Path(__file__).resolve().parent / "servers" / "broken_server.py"
#: a check of the broken server: two sessions of fast answers and one wait for the id it mangles
CHECK_BOUND = 60.0


def test_check_server_opens_a_report_tab_whose_failed_check_shows_its_exchange(qapp, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as window:
        async def scenario() -> CheckReportView:
            target = Target(name="broken", argv=[sys.executable, str(BROKEN)], timeout=2.0)
            tab = window.open_live(dataclasses.replace(target))
            await until(lambda: tab.live.state == READY, 30, "the broken server's handshake")
            assert window.menu_actions["check_server"].isEnabled()
            window.menu_actions["check_server"].trigger()
            await until(lambda: isinstance(window.tabs.currentWidget(), CheckReportView), CHECK_BOUND,
                        "the report tab")
            return window.tabs.currentWidget()

        view = qloop.run_until_complete(scenario())
        assert window.tabs.tabText(window.tabs.currentIndex()) == "check: broken"
        rows = [i for i, r in enumerate(view.report.results) if r.status == FAILED and r.check.id == "ping"]
        assert rows, view.report.summary()
        assert view.table.item(rows[0], 3).text() == FAILED
        view.select(rows[0])
        text = view.detail.toPlainText()
        assert '{"pong": true}' in text and "The receiver MUST respond promptly" in text
        assert "#" in text and "-> request ping" in text
        assert all(Path(c).parent == tmp_path / "captures" for c in view.report.captures)
        view.grab().save(str(tmp_path / "report.png"))
        # the window has no --call-tools (issue 39): a check skipped for it says how, as the command line's option
        skipped = [r.sentence for r in view.report.results if "--call-tools" in r.sentence]
        assert skipped and all("mcp-inspector check --call-tools (Check server here calls none)" in s
                               for s in skipped), skipped
        assert not any("with --call-tools" in r.check.title for r in view.report.results)


HOSTILE = [sys.executable, str(Path(__file__).resolve().parents[1] / "data" / "hostile" / "hs.py")]


def test_checks_a_crashed_server_could_not_run_are_incomplete_in_the_windows_report_and_say_why(qapp, qloop,
                                                                                               tmp_path):
    # the window's Check server used to stop checking once the server crashed, without saying which checks did
    # not run (issue 27): each is in the report, "incomplete", with the reason
    with open_test_window(qloop, tmp_path) as window:
        async def scenario() -> CheckReportView:
            target = Target(name="crashing", argv=[*HOSTILE, "c_exit", "4"], env={"HS_GOODVER": "1"}, timeout=2.0)
            tab = window.open_live(target)
            await until(lambda: tab.live.state == READY, 30, "the handshake")
            window.menu_actions["check_server"].trigger()
            await until(lambda: isinstance(window.tabs.currentWidget(), CheckReportView), CHECK_BOUND,
                        "the report tab")
            return window.tabs.currentWidget()

        view = qloop.run_until_complete(scenario())
        rows = [i for i, r in enumerate(view.report.results) if r.status == INCOMPLETE]
        assert len(rows) >= 15, view.report.summary()
        assert f"{len(rows)} incomplete" in view.summary.text()
        assert all(view.table.item(row, 3).text() == INCOMPLETE for row in rows)
        assert all("exited with code 3" in view.table.item(row, 4).text() for row in rows), "each says why"
        view.select(rows[0])
        assert "incomplete" in view.detail.toPlainText() and "exited with code 3" in view.detail.toPlainText()
        assert f"{len(rows)} incomplete" in window.statusBar().currentMessage()


def test_a_checks_detail_names_the_conformance_suites_checks_it_matches():
    from inspector.core.check.checks import CHECKS, PASSED, Result
    from inspector.ui.panels.check_report import detail_text

    by_id = {check.id: check for check in CHECKS}
    matched = detail_text(Result(by_id["http-session-ended-404"], PASSED, "the next request got 404"))
    assert "The conformance suite's checks: server-session-terminated-returns-404" in matched
    assert "conformance suite" not in detail_text(Result(by_id["batch"], PASSED, "answered"))
