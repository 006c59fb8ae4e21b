"""A subscription's status line (inspector/core/explore/subscriptions.py), without a server."""

from __future__ import annotations

import pytest

from inspector.core.explore.subscriptions import Subscription


@pytest.mark.report("faults", "one notification on a subscription", surface="core", group="window")
def test_a_subscriptions_line_counts_one_notification_in_the_singular(report):
    heard = Subscription(3, {"toolsListChanged": True}, acknowledged={"toolsListChanged": True})
    assert heard.line().endswith("; 0 notifications")
    heard.notifications = 1
    assert heard.line().endswith("; 1 notification")  # issue 39: it said "1 notifications"
    heard.notifications = 2
    assert heard.line().endswith("; 2 notifications")
    report.saw("…; 1 notification")
