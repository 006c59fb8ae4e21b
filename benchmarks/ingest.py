"""Ingest benchmark: a stdio server floods notifications; how much does recording them cost?

Compares, in one run and on the same byte stream:
  baseline  a bare asyncio loop: readline() + json.loads() per line, nothing kept
  record    the `mcp-inspector record` path: framing decoder, events, correlation, capture file on disk
  rec+judge record plus the protocol judge, paced (JudgePacer.push), fed each batch's events with the decoder's
            parse: a recording that judges as it goes (no command does yet; issue 15: at most 1.2x record's time)
  retain    record plus every event kept in memory
  live      the window's live session: the record path kept in a LiveIndex (columns, offsets, a ring of recent
            events; older ones read back from the capture), no judge
  judge     live plus the window's protocol judge: the JudgePacer queues row ranges with the decoder's parse
            of each batch and judges them paced off the ingest path (issue 15: at most 1.2x live's time)

First, the whole process as a user runs it (issue 25): ``mcp-inspector record --handshake none --idle 60
--out F -- cat FLOOD`` (it ends when ``cat`` does) against ``python benchmarks/bare_reader.py cat FLOOD`` (the
bare loop, a process of its own), each timed from its start to its exit, interpreter start-up and imports
included; wall time and CPU time (user + system, the process and its ``cat``), median of --process-repeat
interleaved runs. Goal: the command at most 1.3x the bare process.

Then each path in process: each runs in its own fresh interpreter so peak memory (ru_maxrss) is its own, and
is timed from after its imports; times are the median of --repeat runs. Goals (issue 2 / 7): record at most
1.5x the baseline's time; peak memory of the retaining path at most 3x the raw bytes. Run:
python benchmarks/ingest.py [--count 200000] [--size 250] [--repeat 3] [--process-repeat 5] [--only-process]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))


def server_argv(stream: str) -> list[str]:
    """The flooding server: `cat` of a prepared file, so the server itself costs next to nothing and both
    paths read the same bytes as fast as the pipe allows."""
    return ["cat", stream]


def memory_kb(field: str) -> int:
    """VmRSS (now) or VmHWM (peak) of this process. Unlike ru_maxrss, VmHWM is not inherited across exec."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


async def run_baseline(stream: str) -> int:
    proc = await asyncio.create_subprocess_exec(*server_argv(stream), stdout=asyncio.subprocess.PIPE,
                                                limit=1 << 24)
    assert proc.stdout is not None
    n = 0
    while line := await proc.stdout.readline():
        json.loads(line)
        n += 1
    await proc.wait()
    return n


async def run_record(stream: str, retain: bool, judge: bool = False, live: bool = False,
                     record_judge: bool = False) -> int:
    from inspector.core.capture.writer import CaptureWriter, make_header
    from inspector.core.session.session import Session
    from inspector.core.transports.stdio import StdioTransport
    from inspector.core.wire.events import Kind

    argv = server_argv(stream)
    transport = StdioTransport(argv)
    transport.share_parses = judge or record_judge  # as the window sets it for the sessions it judges
    # the judge checks each notification as it is decoded and keeps only its verdict (ProtocolJudge.verdict), as
    # the window does; --hold-parses: the parses are held until the pacer judges them (the previous way)
    verdicts = (judge or record_judge) and not HOLD_PARSES
    with tempfile.TemporaryDirectory() as tmp:
        writer = CaptureWriter(Path(tmp, "bench.jsonl"), make_header({"transport": "stdio", "argv": argv}),
                               track_offsets=judge or live)
        pacer = None
        if live:  # the window's live session without the judge: the run judging is compared with
            from inspector.core.capture.live import LiveIndex

            session = Session(transport, capture=writer, keep_events=False, keeper=LiveIndex(writer))
        elif not judge:
            session = Session(transport, capture=writer, keep_events=retain)
            if record_judge:
                pacer = judge_listener(session, None)
                transport.keep_parse = pacer.judge.verdict if verdicts else None
        else:  # the window's live session and protocol judge (issue 15), without Qt: see judge_listener
            from inspector.core.capture.live import LiveIndex

            index = LiveIndex(writer)
            session = Session(transport, capture=writer, keep_events=False, keeper=index)
            pacer = judge_listener(session, index)
            transport.keep_parse = pacer.judge.verdict if verdicts else None
        await session.start()
        await session.wait_closed()
        await session.close()
        if pacer is not None:
            INGEST_DONE.append(time.perf_counter())
            pacer.drain()  # what the flood left waiting: the time until every message is judged
            assert pacer.judge.counts == {}, pacer.judge.counts  # the flood is valid: nothing to find
        writer.close()
        messages = session.counts["s2c"]
        if retain:
            assert sum(1 for e in session.events if e.kind == Kind.MESSAGE) == messages
    return messages


def judge_listener(session, index):  # type: ignore[no-untyped-def]
    """The window's judging path (inspector/ui/session/tab.py and live.py): the live index keeps the rows
    (recent events in memory, older ones read back from the capture), the JudgePacer queues row ranges with the
    decoder's parse of each batch (framing.Batch) and judges them paced off the ingest path; ``loop.call_later``
    stands in for the window's single-shot timer."""
    from inspector.core.protocol.judge import ProtocolJudge
    from inspector.core.protocol.pacer import JudgePacer
    from inspector.core.wire.framing import Batch

    loop = asyncio.get_running_loop()
    pacer = JudgePacer(ProtocolJudge("2025-11-25"))

    def pace() -> None:
        delay = pacer.step()
        if delay is not None:
            loop.call_later(delay, pace)

    def arrived(events: list) -> None:
        parsed = events.values() if type(events) is Batch else None
        if index is None:  # no index: the events themselves are queued (a recording that judges as it goes)
            if pacer.push(events, parsed):
                loop.call_soon(pace)
            return
        stop = len(index)
        if pacer.push_rows(stop - len(events), stop, index.event, parsed):
            loop.call_soon(pace)

    session.listeners.append(arrived)
    return pacer


#: --hold-parses: judged paths hold the decoder's parses for the pacer instead of verdicts (for comparison)
HOLD_PARSES = os.environ.get("INGEST_HOLD_PARSES") == "1"
#: when ingest ended, in judge mode (judging may go on after it: the pacer keeps judging off the ingest path)
INGEST_DONE: list[float] = []


def child(mode: str, stream: str) -> None:
    if mode != "baseline":
        import inspector.core.session.session  # noqa: F401 - import cost is not ingest cost
    imported = time.perf_counter()
    if mode in ("rec+judge", "judge"):  # nor the judge's (jsonschema, ~0.06 s here): once a process, not a message
        for module in ("inspector.core.protocol.judge", "inspector.core.protocol.pacer"):
            importlib.import_module(module)
    import_seconds = time.perf_counter() - imported
    rss_start = memory_kb("VmRSS")
    start = time.perf_counter()
    if mode == "baseline":
        n = asyncio.run(run_baseline(stream))
    else:
        n = asyncio.run(run_record(stream, retain=(mode == "retain"), judge=(mode == "judge"), live=(mode == "live"),
                                   record_judge=(mode == "rec+judge")))
    judged = time.perf_counter() - start
    seconds = INGEST_DONE[0] - start if INGEST_DONE else judged
    rss_peak = memory_kb("VmHWM")
    print(json.dumps({"mode": mode, "messages": n, "seconds": seconds, "judged_seconds": judged,
                      "import_seconds": import_seconds,
                      "rss_start_kb": rss_start, "rss_peak_kb": rss_peak}))


def record_command(stream: str, out: str) -> list[str]:
    """``mcp-inspector record`` as a user types it: the installed console script when there is one."""
    script = Path(sys.executable).with_name("mcp-inspector")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "inspector"]
    # --idle 60: wait for the server to end (it does at the end of its file); with --idle 0 the command closes
    # the server's stdin at once and ends it after the 2 s shutdown grace, which cuts the flood on a busy machine
    return [*command, "record", "--handshake", "none", "--idle", "60", "--out", out, "--", *server_argv(stream)]


def measure_process(argv: list[str]) -> dict[str, float]:
    """Wall and CPU seconds (user + system, with the process's own children) of one whole run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu}


def whole_processes(stream: str, repeat: int, tmp: str) -> None:
    """The headline comparison: the bare process against the record command, interleaved, median of ``repeat``."""
    runs: dict[str, list[dict[str, float]]] = {"bare process": [], "record command": []}
    bare = [sys.executable, str(HERE / "bare_reader.py"), *server_argv(stream)]
    record = record_command(stream, str(Path(tmp, "record.jsonl")))
    for _ in range(repeat):
        runs["bare process"].append(measure_process(bare))
        runs["record command"].append(measure_process(record))
    base_wall = statistics.median(r["wall"] for r in runs["bare process"])
    base_cpu = statistics.median(r["cpu"] for r in runs["bare process"])
    print(f"whole processes, median of {repeat} interleaved runs (goal: the command at most 1.3x the bare process):")
    print(f"{'process':<16}{'wall s':>8}{'x bare':>8}{'cpu s':>8}{'x bare':>8}")
    for name, measured in runs.items():
        wall = statistics.median(r["wall"] for r in measured)
        cpu = statistics.median(r["cpu"] for r in measured)
        print(f"{name:<16}{wall:>8.2f}{wall / base_wall:>8.2f}{cpu:>8.2f}{cpu / base_cpu:>8.2f}")
    print()


def measure(mode: str, stream: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, __file__, "--child", mode, "--stream", stream],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=200_000)
    parser.add_argument("--size", type=int, default=250)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--process-repeat", type=int, default=5, help="runs of the whole-process comparison")
    parser.add_argument("--only-process", action="store_true", help="only the whole-process comparison")
    parser.add_argument("--child", choices=("baseline", "record", "rec+judge", "retain", "live", "judge"))
    parser.add_argument("--stream", help=argparse.SUPPRESS)
    parser.add_argument("--hold-parses", action="store_true",
                        help="judged paths hold the decoder's parses until judged, without verdicts (the previous way)")
    args = parser.parse_args()
    if args.hold_parses:
        os.environ["INGEST_HOLD_PARSES"] = "1"  # the children read it
    if args.child:
        child(args.child, args.stream)
        return
    sys.path.insert(0, str(HERE))
    from flood_server import payload

    results: dict[str, list[dict[str, float]]] = {"baseline": [], "record": [], "rec+judge": [], "retain": [],
                                                "live": [], "judge": []}
    with tempfile.TemporaryDirectory() as tmp:
        stream = str(Path(tmp, "flood.jsonl"))
        data = payload(args.count, args.size)
        raw_bytes = len(data)
        Path(stream).write_bytes(data)
        del data
        print(f"{args.count:,} notifications of ~{args.size} bytes = {raw_bytes / 1e6:.1f} MB raw; "
              f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
        whole_processes(stream, args.process_repeat, tmp)
        if args.only_process:
            return
        for _ in range(args.repeat):
            for mode in results:  # interleaved, so drift in machine load hits every mode alike
                results[mode].append(measure(mode, stream))
    base_time = statistics.median(r["seconds"] for r in results["baseline"])
    print(f"{args.count:,} notifications of ~{args.size} bytes = {raw_bytes / 1e6:.1f} MB raw; "
          f"median of {args.repeat} runs; python {sys.version.split()[0]}, {os.cpu_count()} cores")
    print(f"{'path':<10}{'time s':>9}{'x baseline':>12}{'peak RSS MB':>13}{'RSS growth MB':>15}{'growth / raw':>14}")
    for mode, runs in results.items():
        seconds = statistics.median(r["seconds"] for r in runs)
        assert all(r["messages"] == args.count for r in runs), runs
        peak = statistics.median(r["rss_peak_kb"] for r in runs) / 1024
        growth = statistics.median(r["rss_peak_kb"] - r["rss_start_kb"] for r in runs) * 1024
        print(f"{mode:<10}{seconds:>9.2f}{seconds / base_time:>12.2f}{peak:>13.1f}{growth / 1e6:>15.1f}"
              f"{growth / raw_bytes:>14.2f}")
    for base, judged_mode in (("live", "judge"), ("record", "rec+judge")):
        base_time = statistics.median(r["seconds"] for r in results[base])
        ingest = statistics.median(r["seconds"] for r in results[judged_mode])
        total = statistics.median(r["judged_seconds"] for r in results[judged_mode])
        imports = statistics.median(r["import_seconds"] for r in results[judged_mode])
        print(f"{judged_mode} / {base}: ingest {ingest / base_time:.2f}x, every message judged "
              f"{total / base_time:.2f}x ({total - ingest:.2f} s after the flood ended; with the judge's import, "
              f"{(total + imports) / base_time:.2f}x); goal at most 1.2x")


if __name__ == "__main__":
    main()
