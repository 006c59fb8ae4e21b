"""What an intercept rule costs a message (issue 40's bar: a matching rewrite adds at most 1 ms per message up to
64 KB): the engine's verdict and what its host records for it (inspector.core.intercept), per message, for
answers of 1, 16 and 64 KB in two shapes (one long text; many small members, the worst for JSON), against the same
message with no rules (the hosts' fast path) and with a rule that parses the message and does not match.

    python benchmarks/intercept_rewrite.py [--repeat 5] [--count 300]

Prints the median of ``--repeat`` runs of ``--count`` messages each, in microseconds a message.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from inspector.core.intercept.engine import Interceptor
from inspector.core.intercept.records import records
from inspector.core.intercept.rules import parse_rules

REWRITE = [{"when": {"dir": "s2c", "method": "tools/call"}, "do": "rewrite", "set": {"/result/content/0/text": "42"}}]
NO_MATCH = [{"when": {"dir": "s2c", "method": "tools/list"}, "do": "drop"}]
CALL = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{}}}'


def answer(size: int, shape: str) -> bytes:
    """A tools/call answer of about ``size`` bytes: one long text, or a text and many small members."""
    if shape == "text":
        body = {"content": [{"type": "text", "text": "x" * size}]}
    else:
        body = {"content": [{"type": "text", "text": "3"}],
                "structuredContent": {"items": [{"k": i, "v": "abcde"} for i in range(size // 23)]}}
    raw = json.dumps({"jsonrpc": "2.0", "id": 1, "result": body}, separators=(",", ":")).encode()
    return raw


def per_message(rules: list[dict], raw: bytes, count: int) -> float:
    """Microseconds a message: the request goes by (remembered), then its answer is decided and recorded."""
    interceptor = Interceptor(parse_rules(rules))
    started = time.perf_counter()
    for _ in range(count):
        interceptor.decide("c2s", CALL)
        verdict = interceptor.decide("s2c", raw)
        records("s2c", raw, verdict, arrived=0.0)
    return (time.perf_counter() - started) / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--count", type=int, default=300)
    args = parser.parse_args()
    print("| answer | no rules µs | rule not matching µs | matching rewrite µs | rewrite adds ms |")
    print("|---|---|---|---|---|")
    for shape in ("text", "members"):
        for size in (1024, 16 * 1024, 64 * 1024):
            raw = answer(size, shape)
            runs = {name: [] for name in ("none", "no match", "rewrite")}
            for _ in range(args.repeat):  # interleaved: a busy moment of the machine falls on all three
                runs["none"].append(per_message([], raw, args.count))
                runs["no match"].append(per_message(NO_MATCH, raw, args.count))
                runs["rewrite"].append(per_message(REWRITE, raw, args.count))
            none, no_match, rewrite = (statistics.median(runs[name]) for name in ("none", "no match", "rewrite"))
            print(f"| {len(raw) / 1024:.0f} KB, {shape} | {none:.1f} | {no_match:.1f} | {rewrite:.1f} | "
                  f"{(rewrite - none) / 1000:.3f} |")


if __name__ == "__main__":
    main()
