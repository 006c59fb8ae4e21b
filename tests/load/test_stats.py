"""The figures of a load run (inspector.core.load.stats): nearest-rank percentiles, the result object, the
snapshot since the last one, and the histogram's log-scale bins."""

from __future__ import annotations

from inspector.core.load.stats import NO_ANSWER, TOOL_ERROR, LoadStats, histogram, percentile


def test_percentiles_are_nearest_rank() -> None:
    ordered = [float(n) for n in range(1, 101)]
    assert (percentile(ordered, 0.5), percentile(ordered, 0.9), percentile(ordered, 0.99)) == (50.0, 90.0, 99.0)
    assert percentile([7.0], 0.99) == 7.0 and percentile([], 0.5) == 0.0


def test_the_result_counts_unanswered_requests_as_requests_and_errors() -> None:
    stats = LoadStats(latencies=[0.001, 0.002, 0.003])
    stats.failed(TOOL_ERROR, "the tool answered isError: true")
    stats.failed(NO_ANSWER, "no answer within 1 s")
    result = stats.result(elapsed=2.0, concurrency=4)
    assert (result["requests"], result["errors"], result["throughput"]) == (4, 2, 2.0)
    assert result["latency_ms"] == {"min": 1.0, "p50": 2.0, "p90": 3.0, "p99": 3.0, "max": 3.0, "mean": 2.0}
    assert result["error_kinds"] == {"rpc_error": 0, "tool_error": 1, "no_answer": 1}


def test_a_snapshot_has_the_latencies_since_the_previous_one() -> None:
    stats = LoadStats(latencies=[0.001, 0.001])
    assert stats.snapshot(1.0).recent == [0.001, 0.001]
    stats.latencies.append(0.005)
    later = stats.snapshot(2.0)
    assert later.recent == [0.005] and later.recent_throughput == 1.0 and later.requests == 3


def test_the_histogram_puts_every_latency_in_a_bin() -> None:
    edges, counts = histogram([0.0001, 0.001, 0.01, 0.1], buckets=4)
    assert len(edges) == len(counts) == 4 and sum(counts) == 4
    assert edges[-1] >= 100.0 and counts[0] == 1 and counts[-1] == 1
    assert histogram([]) == ([], [])
