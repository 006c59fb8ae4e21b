"""What intercept rules (``tap --rules FILE``, issue 40) cost the stdio tap.

Throughput: a server floods SIZE MB of ~250-byte notifications (``cat`` of a prepared file); a client reads until
EOF through the tap without rules (the relay never looks at a line; zero-copy where both ends are pipes) and
through the tap with rules loaded that match none of them (the relay frames every line and asks the engine).
Three rule sets: ``method`` (the issue's example rules, pause left out: they name methods and tools), ``match``
(literal patterns over the raw text and a direction) and ``pattern`` (a pattern that is no literal: the bounded
matcher runs on every line). The relay asks the engine only about lines that hold a method a rule names, a
literal pattern, ``"id"`` or a backslash (inspector/core/tap/intercepting.py, ``needles``): the flood's
notifications hold none of them for the first two sets. Two clients: one
that only counts bytes and one that parses each line, as a real client does. Goal: with rules, at least 95% of
the tap without rules. Also measured: the tap without rules on its copying path (``MCP_INSPECTOR_TAP_SPLICE=0``),
which reads and writes every byte in the relay as the tap with rules must (no zero-copy splice then).

Rewrite: a client sends a request of SIZE bytes to an echo server and waits for it to come back, N times: through
the tap without rules, and with a rule that rewrites every echoed message (``/params/tag``). The added median
round trip is what a matching rewrite costs per message (both directions: the relay frames the request too).
Goal: at most 1 ms per message up to 64 KB.

Runs alternate between the paths so that a change in the machine's load hits all of them alike; figures are
medians of ``--repeat`` runs.

Run: python benchmarks/tap_rules.py [--mb 32] [--repeat 3] [--messages 500] [--sizes 1024,16384,65536]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from flood_server import payload
from tap_latency import flood

ROOT = Path(__file__).resolve().parent.parent
#: inspector/core/tap/splice.py's switch: 0 makes the tap without rules read and write every byte itself.
SPLICE_ENV = "MCP_INSPECTOR_TAP_SPLICE"

ECHO = "import sys\nout = sys.stdout.buffer\nfor line in sys.stdin.buffer:\n    out.write(line)\n    out.flush()\n"

#: The issue's example rules without the pause (headless taps refuse it): none matches a notification.
METHOD_RULES = {"rules": [
    {"when": {"dir": "s2c", "method": "tools/call", "tool": "get-sum"}, "do": "rewrite",
     "set": {"/result/content/0/text": "forty-two"}},
    {"when": {"dir": "c2s", "method": "tools/list"}, "do": "delay", "ms": 800},
    {"when": {"dir": "s2c", "method": "tools/call", "match": "secret"}, "do": "drop"},
    {"when": {"dir": "s2c", "method": "tools/call"}, "do": "error", "code": -32000, "message": "injected"},
]}
#: Rules the engine decides without parsing: a direction and a pattern that is not in the flood.
MATCH_RULES = {"rules": [{"when": {"dir": "s2c", "match": "secret"}, "do": "drop"},
                         {"when": {"dir": "c2s", "match": "tools/list"}, "do": "delay", "ms": 800}]}
#: A pattern that is no literal: every line is decoded and searched by the bounded matcher.
PATTERN_RULES = {"rules": [{"when": {"dir": "s2c", "match": "secre[t]"}, "do": "drop"}]}
REWRITE_RULES = {"rules": [{"when": {"dir": "s2c", "method": "bench/echo"}, "do": "rewrite",
                            "set": {"/params/tag": "rewritten"}}]}


def through_tap(argv: list[str], capture: Path, rules: Path | None) -> list[str]:
    extra = ["--rules", str(rules)] if rules is not None else []
    return [sys.executable, "-m", "inspector", "tap", "--no-live", "--capture", str(capture), *extra, "--", *argv]


def round_trips(argv: list[str], line: bytes, count: int, warmup: int = 50) -> list[float]:
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT, bufsize=0)
    assert process.stdin is not None and process.stdout is not None
    out, inp = process.stdin.fileno(), process.stdout.fileno()
    times = []
    try:
        for i in range(warmup + count):
            start = time.perf_counter()
            os.write(out, line)
            got = b""
            while not got.endswith(b"\n"):
                chunk = os.read(inp, 1 << 20)
                if not chunk:
                    raise RuntimeError("the echo server went away")
                got += chunk
            if i >= warmup:
                times.append(time.perf_counter() - start)
    finally:
        process.stdin.close()
        process.wait(timeout=60)
        process.stdout.close()
    return times


def request(size: int) -> bytes:
    base = {"jsonrpc": "2.0", "id": 1, "method": "bench/echo", "params": {"tag": "original", "data": ""}}
    pad = size - len(json.dumps(base, separators=(",", ":"))) - 1
    base["params"]["data"] = "x" * max(0, pad)
    return json.dumps(base, separators=(",", ":")).encode() + b"\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", default="32", help="flood sizes in MB, comma-separated (default 32)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure; the median is printed (default 3)")
    parser.add_argument("--messages", type=int, default=500, help="round trips per rewrite run (default 500)")
    parser.add_argument("--sizes", default="1024,16384,65536", help="rewrite message sizes in bytes")
    parser.add_argument("--clients", default="counting,parsing", help="throughput clients (default both)")
    parser.add_argument("--skip", default="", help="parts to leave out: throughput, rewrite")
    args = parser.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        files = {}
        for name, rules in (("method", METHOD_RULES), ("match", MATCH_RULES), ("pattern", PATTERN_RULES),
                            ("rewrite", REWRITE_RULES)):
            files[name] = tmpdir / f"{name}.json"
            files[name].write_text(json.dumps(rules))
        capture = tmpdir / "c.jsonl"
        if "throughput" not in args.skip:
            for size_mb in [int(x) for x in args.mb.split(",") if x.strip()]:
                stream = tmpdir / f"flood-{size_mb}.jsonl"
                data = payload(size_mb * 1_000_000 // 250, 250)
                stream.write_bytes(data)
                cat = ["cat", str(stream)]
                for parse in [p for p, n in ((False, "counting"), (True, "parsing")) if n in args.clients]:
                    rates: dict[str, list[float]] = {"no rules": [], "copying": [], "method": [], "match": [],
                                                     "pattern": []}
                    for _ in range(args.repeat):
                        for name in rates:
                            rules = None if name in ("no rules", "copying") else files[name]
                            env = {**os.environ, SPLICE_ENV: "0"} if name == "copying" else None
                            _, body, _, got = flood(through_tap(cat, capture, rules), parse, env)
                            assert got == len(data)
                            rates[name].append(got / body / 1e6)
                            capture.unlink()
                    base = statistics.median(rates["no rules"])
                    label = "parsing client" if parse else "byte-counting client"
                    print(f"throughput, {size_mb} MB of 250-byte notifications, {label}: tap without rules "
                          f"{base:8.1f} MB/s")
                    copying = statistics.median(rates["copying"])
                    print(f"  no rules, copying path ({SPLICE_ENV}=0, the relay reads and writes every byte as it "
                          f"does with rules): {copying:8.1f} MB/s = {copying / base:6.1%}; runs: "
                          f"{', '.join(f'{r:.0f}' for r in rates['copying'])}")
                    for name in ("method", "match", "pattern"):
                        rate = statistics.median(rates[name])
                        print(f"  rules ({name}), none matching: {rate:8.1f} MB/s = {rate / base:6.1%} of the tap "
                              f"without rules (goal >= 95%), {rate / copying:6.1%} of the copying path; runs: "
                              f"{', '.join(f'{r:.0f}' for r in rates[name])} against "
                              f"{', '.join(f'{r:.0f}' for r in rates['no rules'])}")
        if "rewrite" not in args.skip:
            echo = tmpdir / "echo.py"
            echo.write_text(ECHO)
            echo_argv = [sys.executable, str(echo)]
            for size in [int(x) for x in args.sizes.split(",") if x.strip()]:
                line = request(size)
                medians: dict[str, list[float]] = {"no rules": [], "rewrite": []}
                for _ in range(args.repeat):
                    for name in medians:
                        rules = None if name == "no rules" else files[name]
                        times = round_trips(through_tap(echo_argv, capture, rules), line, args.messages)
                        medians[name].append(statistics.median(times))
                        capture.unlink()
                base, rewrite = statistics.median(medians["no rules"]), statistics.median(medians["rewrite"])
                print(f"rewrite, {len(line)}-byte messages: round trip without rules {base * 1e6:8.1f} us, with a "
                      f"matching rewrite {rewrite * 1e6:8.1f} us: added {(rewrite - base) * 1e6:8.1f} us "
                      f"= {rewrite / base:5.2f}x (goal: added <= 1000 us)")


if __name__ == "__main__":
    main()
