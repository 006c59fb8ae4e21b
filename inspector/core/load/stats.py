"""The figures of a load run: how many requests, how many failed and how, the throughput, and latency
percentiles (nearest-rank, as the official Inspector's ``--load`` reports them: p50, p90, p99 over every
answered request, in milliseconds). :meth:`LoadStats.snapshot` gives what a progress line or the window's live
chart shows since the last one; :func:`histogram` buckets latencies for the chart.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

RPC_ERROR = "rpc_error"  #: the server answered with a JSON-RPC error
TOOL_ERROR = "tool_error"  #: a tool result with isError: true
NO_ANSWER = "no_answer"  #: no answer before the run's end (its timeout)
#: How many different error messages are kept (the rest are counted under the first ones).
MAX_ERROR_MESSAGES = 10


def percentile(ordered: list[float], fraction: float) -> float:
    """The nearest-rank percentile of an ascending list (0 for an empty one)."""
    if not ordered:
        return 0.0
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


@dataclass
class Snapshot:
    """The run so far, for a progress line or the live chart."""

    elapsed: float  #: seconds since the first request
    requests: int  #: answered (or given up on) so far
    errors: int
    throughput: float  #: answers a second over the whole run so far
    recent_throughput: float  #: answers a second since the previous snapshot
    recent: list[float]  #: latencies (seconds) of the answers since the previous snapshot
    p50: float  #: milliseconds, over the whole run so far
    p99: float
    answered: int = 0  #: answers so far (the percentiles mean nothing without one)


@dataclass
class LoadStats:
    """Latencies and failures as they come; :meth:`result` at the end."""

    latencies: list[float] = field(default_factory=list)  #: seconds, of every answered request
    kinds: Counter[str] = field(default_factory=Counter)  #: failures by kind
    messages: Counter[str] = field(default_factory=Counter)  #: failure sentences (at most MAX_ERROR_MESSAGES)
    started: int = 0  #: requests sent
    _seen: int = 0
    _seen_at: float = 0.0

    @property
    def answered(self) -> int:
        return len(self.latencies)

    @property
    def errors(self) -> int:
        return sum(self.kinds.values())

    def failed(self, kind: str, message: str) -> None:
        self.kinds[kind] += 1
        if message in self.messages or len(self.messages) < MAX_ERROR_MESSAGES:
            self.messages[message] += 1

    def snapshot(self, elapsed: float) -> Snapshot:
        recent = self.latencies[self._seen:]
        span = max(elapsed - self._seen_at, 1e-9)
        self._seen, self._seen_at = len(self.latencies), elapsed
        ordered = sorted(self.latencies[-20_000:])  # the recent past: cheap enough twice a second
        done = self.answered + self.kinds[NO_ANSWER]
        return Snapshot(elapsed, done, self.errors, done / elapsed if elapsed > 0 else 0.0, len(recent) / span,
                        recent, percentile(ordered, 0.5) * 1000, percentile(ordered, 0.99) * 1000, self.answered)

    def result(self, elapsed: float, concurrency: int) -> dict[str, Any]:
        """The run as ``load --format json`` prints it: ``{requests, answered, errors, throughput, latency_ms:
        {min, p50, p90, p99, max, mean}, ...}``; the latencies are null when no request was answered."""
        ordered = sorted(self.latencies)
        requests = self.answered + self.kinds[NO_ANSWER]

        def ms(value: float) -> float:
            return round(value * 1000, 3)

        return {
            "requests": requests,
            "answered": self.answered,
            "errors": self.errors,
            "error_rate": round(self.errors / requests, 6) if requests else 0.0,
            "throughput": round(requests / elapsed, 2) if elapsed > 0 else 0.0,
            "elapsed_s": round(elapsed, 3),
            "concurrency": concurrency,
            # no answer, no latency: null, not a latency of 0
            "latency_ms": {
                "min": ms(ordered[0]),
                "p50": ms(percentile(ordered, 0.5)), "p90": ms(percentile(ordered, 0.9)),
                "p99": ms(percentile(ordered, 0.99)),
                "max": ms(ordered[-1]),
                "mean": ms(sum(ordered) / len(ordered)),
            } if ordered else dict.fromkeys(("min", "p50", "p90", "p99", "max", "mean")),
            "error_kinds": {kind: self.kinds[kind] for kind in (RPC_ERROR, TOOL_ERROR, NO_ANSWER)},
            "error_messages": [{"message": m, "count": n} for m, n in self.messages.most_common()],
        }


def latency_text(figures: dict[str, Any]) -> str:
    """The latency line of ``figures`` (:meth:`LoadStats.result`): its percentiles in milliseconds, or that no
    request was answered (then there is no latency to give, not a latency of 0)."""
    if not figures["answered"]:
        return "latency: none, since no request was answered"
    latency = figures["latency_ms"]
    return (f"latency ms: min {latency['min']:.2f}  p50 {latency['p50']:.2f}  p90 {latency['p90']:.2f}  "
            f"p99 {latency['p99']:.2f}  max {latency['max']:.2f}")


def histogram(latencies: list[float], buckets: int = 20) -> tuple[list[float], list[int]]:
    """Latencies (seconds) counted into ``buckets`` bins on a log scale from the smallest to the largest: the
    bins' upper edges in milliseconds, and the counts. Empty lists for no latencies."""
    if not latencies:
        return [], []
    low = max(min(latencies) * 1000, 1e-3)
    high = max(max(latencies) * 1000, low * 1.0001)
    ratio = (high / low) ** (1 / buckets)
    edges = [low * ratio ** (i + 1) for i in range(buckets)]
    counts = [0] * buckets
    scale = math.log(ratio)
    for latency in latencies:
        value = max(latency * 1000, low)
        index = min(buckets - 1, int(math.log(value / low) / scale)) if scale > 0 else 0
        counts[index] += 1
    return edges, counts
