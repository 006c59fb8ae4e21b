"""The window's live judge checks each notification while the decoder's parse is fresh and keeps only a verdict
(issue 15's held-parse cost): with a real demo server flooding log notifications, the flood's notifications are
checked as they are decoded, every message is judged, and the valid flood raises no schema finding."""

from __future__ import annotations

import pytest
from helpers import DEMO, until
from qt_loop import call_tool, open_test_window

from inspector.core.connect.target import Target
from inspector.core.protocol.judge import ProtocolJudge, Verdict
from inspector.ui.session.live import READY

pytestmark = pytest.mark.integration
FLOOD = 500


def test_a_live_stdio_sessions_notifications_are_checked_as_decoded_and_all_judged(qapp, qloop, tmp_path,
                                                                                    monkeypatch):
    kept: list = []
    verdict = ProtocolJudge.verdict

    def counting(self, event, value):
        answer = verdict(self, event, value)
        kept.append(answer)
        return answer

    monkeypatch.setattr(ProtocolJudge, "verdict", counting)

    async def scenario(window):
        tab = window.open_live(Target(name="demo", argv=DEMO))
        await until(lambda: tab.live.state == READY, 60, "the demo's handshake")
        await call_tool(tab, "flood", {"count": FLOOD})
        await until(lambda: tab.live.session.counts["s2c"] > FLOOD + 1, 60, "the flood and its answer")
        await until(lambda: tab.feed.pacer.backlog == 0, 30, "every message judged")
        return tab

    with open_test_window(qloop, tmp_path) as window:
        tab = qloop.run_until_complete(scenario(window))
        verdicts = [v for v in kept if type(v) is Verdict]
        assert len(verdicts) >= FLOOD  # each flood notification kept a verdict, not its parse
        assert {v.revision for v in verdicts} <= {None, tab.judge.revision}
        assert tab.judge.counts.get("schema", 0) == 0, tab.judge.counts
