"""What ``mcp-inspector tap`` costs a client: added latency per message, and throughput against a direct pipe.

Latency: the client sends one JSON-RPC line to an echo server and waits for it to come back, N times, once
with the server started directly and once through ``tap`` (recording to a temporary capture, no window).
Printed: median and p99 round trip of both, the added time, and tap/direct. Goal: median added < 1 ms.

Throughput: a server floods SIZE MB of notifications (``cat`` of a prepared file, so the server costs next to
nothing); the client reads until EOF, directly and through ``tap``. Timed from the first byte to EOF (tap's
start-up is printed apart). Two clients: one that only counts bytes (the hardest baseline: a pipe at memory
speed) and one that splits lines and parses each as JSON, as a real client does. Goal: tap >= 90% of direct.
A third figure puts any relay's price apart from the tap's own: the same flood through one extra process
that copies (``cat FILE | cat``, a relay in C that records nothing); tap/hop is what the tap costs beyond
being a process in the middle.
The tap's recorder may still be writing the capture when the client has everything: the time until the tap
exits (capture complete) is printed too.

Each tap figure is measured on both relay paths in the same run (issue 17): ``zero-copy`` (Linux, pipes on
both sides: ``tee`` to the destination and ``splice`` into the recorder's spool, inspector/core/tap/splice.py)
and ``copying`` (``MCP_INSPECTOR_TAP_SPLICE=0``: the relay reads and writes the bytes itself, as on other
platforms or when the client's streams are not pipes). Runs alternate direct / hop / tap so that a change in
the machine's load hits all of them alike.

Run: python benchmarks/tap_latency.py [--messages 2000] [--mb 32,128] [--repeat 3] [--paths zero-copy,copying]
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
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

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

ECHO = "import sys\nout = sys.stdout.buffer\nfor line in sys.stdin.buffer:\n    out.write(line)\n    out.flush()\n"
PING = b'{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"_meta":{"progressToken":"bench"}}}\n'


PATH_ENV = {"zero-copy": "1", "copying": "0"}


def through_tap(argv: list[str], capture: Path) -> list[str]:
    return [sys.executable, "-m", "inspector", "tap", "--no-live", "--capture", str(capture), "--", *argv]


def env_for(path: str | None) -> dict[str, str] | None:
    """The environment of a tap on ``path`` (None: a direct run, the inherited environment)."""
    if path is None:
        return None
    return {**os.environ, "MCP_INSPECTOR_TAP_SPLICE": PATH_ENV[path]}


def round_trips(argv: list[str], count: int, warmup: int = 200, env: dict[str, str] | None = None) -> list[float]:
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT, bufsize=0, env=env)
    assert process.stdin is not None and process.stdout is not None
    out, inp = process.stdin.fileno(), process.stdout.fileno()
    times = []
    try:
        for i in range(warmup + count):
            line = PING % i
            start = time.perf_counter()
            os.write(out, line)
            got = b""
            while not got.endswith(b"\n"):
                chunk = os.read(inp, 65536)
                if not chunk:
                    raise RuntimeError("the echo server went away")
                got += chunk
            if i >= warmup:
                times.append(time.perf_counter() - start)
            assert got == line
    finally:
        process.stdin.close()
        process.wait(timeout=30)
        process.stdout.close()
    return times


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


#: The client's pipe, for every run: the tap enlarges the pipe it writes to (inspector/core/tap/relay.py,
#: PIPE_SIZE), so the direct run gets the same size, or the comparison would not be like with like.
CLIENT_PIPE = 1 << 20

#: Floors of any recording relay (--floors): minimal Python relays between the same pipes, without asyncio,
#: without a recorder. "splice" relays and records nothing; "tee" also copies every byte into an unlinked
#: file, as the tap's zero-copy path does for its spool.
MINI_RELAY = """
import ctypes, fcntl, os, subprocess, sys, tempfile
tee = ctypes.CDLL(None, use_errno=True).tee
tee.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_size_t, ctypes.c_uint]
tee.restype = ctypes.c_ssize_t
r, w = os.pipe()
for fd in (w, 1):
    fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)
server = subprocess.Popen(sys.argv[2:], stdout=w)
os.close(w)
spool, name = tempfile.mkstemp()
os.unlink(name)
while True:
    if sys.argv[1] == "splice":
        if os.splice(r, 1, 1 << 20) == 0:
            break
        continue
    size = tee(r, 1, 1 << 20, 0)
    if size <= 0:
        break
    while size:
        size -= os.splice(r, spool, size)
os.close(1)
server.wait()
"""


def flood(argv: list[str], parse: bool, env: dict[str, str] | None = None) -> tuple[float, float, float, int]:
    """(seconds to first byte, seconds first byte -> EOF, seconds start -> exit, bytes)."""
    start = time.perf_counter()
    fd, write_end = os.pipe()
    with contextlib.suppress(OSError, AttributeError):
        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, CLIENT_PIPE)
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=write_end, cwd=ROOT, bufsize=0, env=env)
    os.close(write_end)
    first = None
    total = 0
    if parse:
        reader = os.fdopen(os.dup(fd), "rb")
        for line in reader:
            if first is None:
                first = time.perf_counter()
            json.loads(line)
            total += len(line)
        reader.close()
    else:
        while chunk := os.read(fd, 1 << 20):
            if first is None:
                first = time.perf_counter()
            total += len(chunk)
    end = time.perf_counter()
    process.wait(timeout=600)
    exited = time.perf_counter()
    os.close(fd)
    assert first is not None
    return first - start, end - first, exited - start, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=2000, help="round trips per latency run (default 2000)")
    parser.add_argument("--mb", default="32,128", help="flood sizes in MB, comma-separated (default 32,128)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure; the median is printed (default 3)")
    parser.add_argument("--paths", default="zero-copy,copying",
                        help="tap relay paths to measure, comma-separated (default zero-copy,copying)")
    parser.add_argument("--floors", action="store_true",
                        help="also measure minimal Python relays (no asyncio, no recorder): one that records "
                             "nothing and one that copies each byte into a file, as the tap's spool does")
    parser.add_argument("--clients", default="counting,parsing",
                        help="throughput clients, comma-separated (default counting,parsing)")
    args = parser.parse_args()
    paths = [p.strip() for p in args.paths.split(",") if p.strip()]
    unknown = [p for p in paths if p not in PATH_ENV]
    if unknown:
        parser.error(f"unknown relay path {unknown[0]!r}: say zero-copy or copying")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        echo = tmpdir / "echo.py"
        echo.write_text(ECHO)
        echo_argv = [sys.executable, str(echo)]

        print(f"latency: {args.messages} ping-pong round trips with an echo server, median of {args.repeat} runs")
        medians: dict[str | None, list[float]] = {None: [], **{p: [] for p in paths}}
        p99s: dict[str | None, list[float]] = {None: [], **{p: [] for p in paths}}
        for run in range(args.repeat):
            for path in [None, *paths]:
                argv = echo_argv if path is None else through_tap(echo_argv, tmpdir / f"lat-{run}-{path}.jsonl")
                times = round_trips(argv, args.messages, env=env_for(path))
                medians[path].append(statistics.median(times))
                p99s[path].append(percentile(times, 0.99))
        dm, dp = statistics.median(medians[None]), statistics.median(p99s[None])
        for path in paths:
            tm, tp = statistics.median(medians[path]), statistics.median(p99s[path])
            print(f"  {path}: median  direct {dm * 1e6:8.1f} us   tap {tm * 1e6:8.1f} us   added "
                  f"{(tm - dm) * 1e6:8.1f} us   tap/direct {tm / dm:5.2f}x   (goal: added < 1000 us)")
            print(f"  {path}: p99     direct {dp * 1e6:8.1f} us   tap {tp * 1e6:8.1f} us   added "
                  f"{(tp - dp) * 1e6:8.1f} us   tap/direct {tp / dp:5.2f}x")

        for size_mb in [int(x) for x in args.mb.split(",") if x.strip()]:
            stream = tmpdir / f"flood-{size_mb}.jsonl"
            data = payload(size_mb * 1_000_000 // 250, 250)
            stream.write_bytes(data)
            cat = ["cat", str(stream)]
            hop = ["sh", "-c", f"cat '{stream}' | cat"]
            clients = [c.strip() for c in args.clients.split(",")]
            for parse in [p for p, name in ((False, "counting"), (True, "parsing")) if name in clients]:
                label = "parsing client" if parse else "byte-counting client"
                goal = "95%" if parse else "90%"
                direct_rate, hop_rate = [], []
                floors: dict[str, list[float]] = {"splice": [], "tee": []} if args.floors else {}
                tap_rate: dict[str, list[float]] = {p: [] for p in paths}
                startup: dict[str, list[float]] = {p: [] for p in paths}
                exit_after: dict[str, list[float]] = {p: [] for p in paths}
                for run in range(args.repeat):
                    d_first, d_body, _, d_bytes = flood(cat, parse)
                    _, h_body, _, h_bytes = flood(hop, parse)
                    assert d_bytes == h_bytes == len(data)
                    direct_rate.append(d_bytes / d_body / 1e6)
                    hop_rate.append(h_bytes / h_body / 1e6)
                    for mode, rates in floors.items():
                        _, f_body, _, f_bytes = flood([sys.executable, "-c", MINI_RELAY, mode, *cat], parse)
                        assert f_bytes == len(data)
                        rates.append(f_bytes / f_body / 1e6)
                    for path in paths:
                        capture = tmpdir / f"flood-{run}-{path}.jsonl"
                        t_first, t_body, t_exit, t_bytes = flood(through_tap(cat, capture), parse, env_for(path))
                        assert t_bytes == len(data)
                        tap_rate[path].append(t_bytes / t_body / 1e6)
                        startup[path].append(t_first - d_first)
                        exit_after[path].append(t_exit - t_first)
                        capture.unlink()
                dr, hr = statistics.median(direct_rate), statistics.median(hop_rate)
                print(f"throughput, {size_mb} MB of 250-byte notifications, {label}:")
                print(f"  direct {dr:8.1f} MB/s;   one extra hop (cat | cat) {hr:8.1f} MB/s = {hr / dr:6.1%} of direct")
                for mode, rates in floors.items():
                    fr = statistics.median(rates)
                    what = "records nothing" if mode == "splice" else "tee + splice into a file"
                    print(f"  floor: minimal Python relay, {what}: {fr:8.1f} MB/s = {fr / dr:6.1%} of direct")
                for path in paths:
                    tr = statistics.median(tap_rate[path])
                    print(f"  tap {path:9} {tr:8.1f} MB/s   tap/direct {tr / dr:6.1%}   (goal: >= {goal});   "
                          f"tap/hop {tr / hr:6.1%};   start-up +{statistics.median(startup[path]) * 1e3:.0f} ms; "
                          f"capture complete {statistics.median(exit_after[path]):.2f} s after the first byte")


if __name__ == "__main__":
    main()
