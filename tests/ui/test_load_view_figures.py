"""The Load view's final line (inspector/ui/load/view.py) from the figures alone, no server: a run in which nothing
was answered says so instead of a latency of 0.00, and a run the transport stopped says why (issue 39)."""

from __future__ import annotations

from inspector.core.load.stats import NO_ANSWER, LoadStats
from inspector.ui.load.view import LoadView


def test_the_final_line_says_no_request_was_answered_and_why_the_run_stopped(qapp):
    stats = LoadStats()
    for _ in range(3):
        stats.failed(NO_ANSWER, "not answered")
    figures = {**stats.result(elapsed=10.0, concurrency=100_000),
               "stopped": "the server stopped reading its stdin: 8,788,910 bytes could not be written within 10 s"}
    view = LoadView("load test")
    view.finished(figures)
    text = view.figures.text()
    assert "latency: none, since no request was answered" in text and "0.00" not in text.split("latency")[1]
    assert text.endswith(". The run stopped early: the server stopped reading its stdin: 8,788,910 bytes could not "
                         "be written within 10 s")
