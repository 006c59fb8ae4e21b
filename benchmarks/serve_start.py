"""Serve start: how long `mcp-inspector serve` takes to answer its first requests from a capture of 1,000,000
events, and its peak memory (issue 41: under 2 s and under 150 MB; "index it, do not load it").

Generates (once, then reused; --fresh to write it again) a capture of --count events with a realistic mix: a
handshake (initialize, notifications/initialized, tools/list), then tools/call requests, each with two progress
notifications, a log notification half the time, a stderr line a third of the time, and its answer paired as the
recorder pairs them (``data.reply_to``), 200-400 bytes a line. The lines are the real writer's
(``format.event_to_line``) for one exchange, repeated with new seqs, ids and arguments, so writing a million takes
a few seconds, not the minute the writer takes event by event.

Then, each run in fresh processes, interleaved:

  lines     baseline: `python -c` reading the file line by line (`for line in file`), the raw cost of a pass
  count     baseline: `python -c` counting the file's newlines a megabyte at a time (`bytes.count`)
  serve     `mcp-inspector serve CAPTURE` on pipes: until it answers `initialize` (start), then a recorded
            `tools/call` from the middle of the capture (first call); its peak RSS (ru_maxrss after it exits:
            stdin is closed once both answers came). Each run is a first start: serve's cache folder
            (MCP_INSPECTOR_CACHE) is a new, empty one, so the capture is indexed as if never served before
  again     the same, started again with the cache the first start left (serve keeps a big capture's index there):
            a later start of the same capture

The figure the goal is about is "first call": the process started, indexed the capture and answered a request
whose answer it had to find. Each figure is the median of --repeat runs, and its ratio against the `lines`
baseline of the same runs.
Run: python benchmarks/serve_start.py [--count 1000000] [--repeat 3] [--fresh] [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

if TYPE_CHECKING:
    from inspector.core.wire.events import Event

GOAL_SECONDS = 2.0
GOAL_MB = 150


def _template(line: str, fields: dict[str, int | str]) -> str:
    """A writer's line made a format string: each value of ``fields`` (as the line spells it) becomes ``{name}``."""
    text = line.replace("{", "{{").replace("}", "}}")
    for name, value in fields.items():
        spelled = str(value)
        assert spelled in text, (spelled, text)
        text = text.replace(spelled, "{" + name + "}")
    return text


def templates() -> tuple[list[str], dict[str, str]]:
    """The handshake's lines (ready) and one exchange's line templates, written by the real writer."""
    from inspector.core.capture.format import event_to_line
    from inspector.core.wire.events import Direction
    from inspector.core.wire.framing import decode_line

    def message(obj: object, direction: str, seq: int, t: float, **data: object) -> str:
        event = decode_line(json.dumps(obj, separators=(",", ":")).encode(), direction)
        event.seq, event.t, event.wall = seq, t, 1.8e9 + t
        if data:
            event.put(**data)
        return event_to_line(event)

    handshake = [
        message({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}},
            Direction.C2S, 1, 0.001),
        message({"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": True}, "logging": {}},
            "serverInfo": {"name": "bench-server", "version": "1.0"}}}, Direction.S2C, 2, 0.002,
            reply_to=1, latency=0.001, request_method="initialize"),
        message({"jsonrpc": "2.0", "method": "notifications/initialized"}, Direction.C2S, 3, 0.003),
        message({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, Direction.C2S, 4, 0.004),
        message({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
            {"name": name, "description": f"The {name} tool.", "inputSchema": {"type": "object", "properties": {
                "query": {"type": "string"}, "limit": {"type": "integer"}}}}
            for name in ("search", "read_file", "echo", "fetch")]}}, Direction.S2C, 5, 0.005,
            reply_to=4, latency=0.001, request_method="tools/list"),
    ]
    # placeholders spelled so that they occur nowhere else in the lines
    seq, rseq, rid, t = 7770001, 7770003, 8880001, 5555.25
    fields: dict[str, int | str] = {"times": '"t":5555.250000,"wall":1800005555.250000', "seq": seq}
    exchange = {
        "request": _template(message({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {
            "name": "TOOLNAME", "arguments": {"query": "QUERY", "limit": 4444444},
            "_meta": {"progressToken": rid}}}, Direction.C2S, seq, t),
            {**fields, "id": rid, "tool": "TOOLNAME", "query": "QUERY", "limit": 4444444}),
        "progress": _template(message({"jsonrpc": "2.0", "method": "notifications/progress", "params": {
            "progressToken": rid, "progress": 6666661, "total": 2, "message": "step PROGRESSTEXT"}},
            Direction.S2C, seq, t), {**fields, "id": rid, "step": 6666661, "text": "PROGRESSTEXT"}),
        "log": _template(message({"jsonrpc": "2.0", "method": "notifications/message", "params": {
            "level": "info", "logger": "bench", "data": "log LOGTEXT"}}, Direction.S2C, seq, t),
            {**fields, "text": "LOGTEXT"}),
        "stderr": _template(event_to_line(_stderr(seq, t)),
                            {**fields, "id": rid, "text": "STDERRTEXT"}),
        "response": _template(message({"jsonrpc": "2.0", "id": rid, "result": {
            "content": [{"type": "text", "text": "RESULTTEXT"}], "isError": False}}, Direction.S2C, seq, t,
            reply_to=rseq, latency=0.25, request_method="tools/call"),
            {**fields, "id": rid, "rseq": rseq, "text": "RESULTTEXT"}),
    }
    return handshake, exchange


def _stderr(seq: int, t: float) -> Event:
    from inspector.core.wire.events import Direction, Event, Kind

    event = Event(Kind.STDERR, raw=b"[bench] INFO handled request 8880001 STDERRTEXT", dir=Direction.S2C, eol=b"\n")
    event.seq, event.t, event.wall = seq, t, 1.8e9 + t
    return event


def generate(path: Path, count: int) -> dict[str, object]:
    """Write a capture of ``count`` events; returns a recorded tools/call from its middle (its arguments)."""
    from inspector.core.capture.format import dumps_json
    from inspector.core.capture.writer import make_header

    handshake, x = templates()
    rnd = random.Random(41)
    tools = ["search", "read_file", "echo", "fetch"]
    header = make_header({"transport": "stdio", "argv": ["python", "-m", "bench_server"], "cwd": None, "env": {},
                          "redacted": True})
    middle: dict[str, object] = {}
    seq = len(handshake)
    request_id = 1
    lines: list[str] = []
    with open(path, "w", encoding="ascii", newline="\n") as out:
        out.write(dumps_json(header) + "\n")
        out.writelines(handshake)
        while seq < count:
            request_id += 1
            seq += 1
            request_seq = seq
            tool = tools[request_id % 4]
            query = f"q{request_id}-" + "q" * rnd.randint(40, 120)
            limit = request_id % 50 + 1
            lines.append(x["request"].format(seq=seq, id=request_id, tool=tool, query=query, limit=limit,
                                             times=_times(seq)))
            if not middle and seq >= count // 2:
                middle = {"name": tool, "arguments": {"query": query, "limit": limit}}
            for step in (1, 2):
                seq += 1
                lines.append(x["progress"].format(seq=seq, id=request_id, step=step, times=_times(seq),
                                                  text="p" * rnd.randint(60, 140)))
            if rnd.random() < 0.5:
                seq += 1
                lines.append(x["log"].format(seq=seq, times=_times(seq), text="l" * rnd.randint(100, 200)))
            if rnd.random() < 0.3:
                seq += 1
                lines.append(x["stderr"].format(seq=seq, id=request_id, times=_times(seq),
                                                text="s" * rnd.randint(40, 120)))
            seq += 1
            lines.append(x["response"].format(seq=seq, id=request_id, rseq=request_seq, times=_times(seq),
                                              text="r" * rnd.randint(150, 250)))
            if len(lines) >= 20000:
                out.writelines(lines)
                lines.clear()
        out.writelines(lines)
    meta = {"count": seq, "call": middle}
    Path(str(path) + ".json").write_text(json.dumps(meta))
    return meta


def _times(seq: int) -> str:
    t = seq / 1000
    return f'"t":{t:.6f},"wall":{1.8e9 + t:.6f}'


def baseline(path: Path, how: str) -> float:
    code = {
        "lines": "import sys\nwith open(sys.argv[1], 'rb') as f:\n    for line in f: pass\n",
        "count": "import sys\nn = 0\nwith open(sys.argv[1], 'rb') as f:\n"
                 "    while chunk := f.read(1 << 20): n += chunk.count(b'\\n')\n",
    }[how]
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, str(path)], check=True)
    return time.perf_counter() - started


def serve(path: Path, call: dict[str, object], profile: Path | None = None, root: Path = ROOT,
          cache: Path | None = None) -> dict[str, float]:
    """Start serve (the code under ``root``, its cache folder ``cache``), ask initialize then the recorded tools/call;
    seconds to each answer and the peak RSS."""
    env = dict(os.environ, PYTHONPATH=str(root))
    if cache is not None:
        env["MCP_INSPECTOR_CACHE"] = str(cache)
    argv = [sys.executable, "-m", "inspector", "serve", str(path)]
    if profile is not None:
        argv[1:1] = ["-m", "cProfile", "-o", str(profile)]
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=root)
    assert proc.stdin is not None and proc.stdout is not None
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
    ]
    times = []
    for request in requests:
        proc.stdin.write(json.dumps(request).encode() + b"\n")
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit(f"serve ended early: {proc.stderr.read().decode() if proc.stderr else ''}")
            answer = json.loads(line)
            if answer.get("id") == request["id"]:
                break
        if "result" not in answer:
            raise SystemExit(f"serve did not answer {request['method']} with a result: {line[:300]!r}")
        times.append(time.perf_counter() - started)
    proc.stdin.close()
    proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.stderr is not None:
        proc.stderr.read()
        proc.stderr.close()
    proc.stdout.close()
    return {"start": times[0], "first_call": times[1], "peak_mb": usage.ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--fresh", action="store_true", help="write the capture again")
    parser.add_argument("--profile", action="store_true", help="one serve run under cProfile; prints the top")
    parser.add_argument("--capture", type=Path, help="where the capture is kept (default: the temp directory)")
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="also serve with the code of another checkout (e.g. `git archive main inspector | tar -x "
                             "-C DIR`), interleaved: before and after in the same run")
    args = parser.parse_args()

    path = args.capture or Path(tempfile.gettempdir(), f"mcpi-serve-start-{args.count}.jsonl")
    meta_path = Path(str(path) + ".json")
    if args.fresh or not path.exists() or not meta_path.exists():
        started = time.perf_counter()
        meta = generate(path, args.count)
        print(f"wrote {path} ({meta['count']:,} events, {path.stat().st_size / 1e6:.0f} MB) in "
              f"{time.perf_counter() - started:.1f} s")
    else:
        meta = json.loads(meta_path.read_text())
        print(f"using {path} ({meta['count']:,} events, {path.stat().st_size / 1e6:.0f} MB)")
    call = meta["call"]
    assert isinstance(call, dict)

    if args.profile:
        import pstats

        out = Path(tempfile.gettempdir(), "mcpi-serve-start.prof")
        with tempfile.TemporaryDirectory(prefix="mcpi-serve-cache-") as cache:
            figures = serve(path, call, out, cache=Path(cache))
        print(f"under the profiler: first call {figures['first_call']:.2f} s")
        pstats.Stats(str(out)).sort_stats("cumulative").print_stats(25)
        pstats.Stats(str(out)).sort_stats("tottime").print_stats(15)
        return

    runs: dict[str, list[float]] = {"lines": [], "count": [], "start": [], "first_call": [], "peak_mb": [],
                                    "again_start": [], "again_first_call": [], "again_peak_mb": [],
                                    "other_start": [], "other_first_call": [], "other_peak_mb": []}
    for _ in range(args.repeat):
        runs["lines"].append(baseline(path, "lines"))
        runs["count"].append(baseline(path, "count"))
        with tempfile.TemporaryDirectory(prefix="mcpi-serve-cache-") as cache:
            for key, value in serve(path, call, cache=Path(cache)).items():  # a first start: an empty cache
                runs[key].append(value)
            for key, value in serve(path, call, cache=Path(cache)).items():  # a later one: the cache it left
                runs["again_" + key].append(value)
        if args.against is not None:
            with tempfile.TemporaryDirectory(prefix="mcpi-serve-cache-") as cache:
                for key, value in serve(path, call, root=args.against.resolve(), cache=Path(cache)).items():
                    runs["other_" + key].append(value)
    median = {key: statistics.median(values) for key, values in runs.items() if values}
    base = median["lines"]
    print(f"\nmedian of {args.repeat} runs (load average {os.getloadavg()[0]:.1f}); ratios against `lines`")
    print(f"{'what':<34}{'s':>8}{'x lines':>9}")
    for key, label in (("lines", "baseline: python reads every line"), ("count", "baseline: bytes.count(b'\\n')"),
                       ("start", "serve: initialize answered"), ("first_call", "serve: first tools/call answered"),
                       ("again_start", "again (cached): initialize"),
                       ("again_first_call", "again (cached): first tools/call")):
        print(f"{label:<34}{median[key]:>8.2f}{median[key] / base:>9.2f}")
    if args.against is not None:
        for key, label in (("other_start", f"{args.against.name}: initialize"),
                           ("other_first_call", f"{args.against.name}: first tools/call")):
            print(f"{label:<34}{median[key]:>8.2f}{median[key] / base:>9.2f}")
        print(f"{args.against.name} peak RSS: {median['other_peak_mb']:.0f} MB")
    print(f"serve peak RSS: {median['peak_mb']:.0f} MB (runs: {', '.join(f'{v:.0f}' for v in runs['peak_mb'])})")
    print(f"again (cached) peak RSS: {median['again_peak_mb']:.0f} MB")
    print(f"initialize, runs: {', '.join(f'{v:.2f}' for v in runs['start'])} s")
    print(f"first call, runs: {', '.join(f'{v:.2f}' for v in runs['first_call'])} s; again (cached): "
          f"{', '.join(f'{v:.2f}' for v in runs['again_first_call'])} s")
    peak = max(median["peak_mb"], median["again_peak_mb"])
    started = median["start"] < GOAL_SECONDS and peak < GOAL_MB
    print(f"start (initialize answered under {GOAL_SECONDS:.0f} s on a first start, under {GOAL_MB} MB): "
          f"{'met' if started else 'NOT met'}")
    met = median["first_call"] < GOAL_SECONDS and peak < GOAL_MB
    print(f"goal (first answer under {GOAL_SECONDS:.0f} s, under {GOAL_MB} MB): {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
