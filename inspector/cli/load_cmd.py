"""``mcp-inspector load``: call one tool (or send one request) again and again, concurrently, and print the
throughput and latency percentiles; a progress line on stderr while it runs; the run saved as a capture. The
logic is :mod:`inspector.core.load`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from inspector.core.exits import EXIT_CANNOT_COMPARE, EXIT_DIFFERENT, EXIT_INTERRUPTED, EXIT_OK, LOAD_EXITS, exits_help
from inspector.core.text import safe, safe_json

EPILOG = """\
examples:
  mcp-inspector load echo message=hi --concurrency 10 --duration 10 -- python -m my_server
  mcp-inspector load --method ping --requests 10000 --concurrency 50 --url http://127.0.0.1:8000/mcp
  mcp-inspector load get-sum a=2 b=3 --rate 200 --duration 30 --format json -- npx -y \
      @modelcontextprotocol/server-everything

"""
#: Without --duration or --requests, a run lasts this long (as the official Inspector's --load).
DEFAULT_DURATION = 10.0


def add_parser(sub: Any) -> None:
    from inspector.cli.argtypes import positive
    from inspector.cli.main import EpilogFormatter
    from inspector.cli.server_options import add_server_options

    load = sub.add_parser(
        "load", help="load-test a tool or a request: throughput and latency percentiles",
        description="Call TOOL (its KEY=VALUE arguments typed by its inputSchema, as call does) or send --method "
                    "with --params again and again through one session, at most --concurrency at once, for "
                    "--duration seconds or --requests requests, at most --rate a second; then print the requests, "
                    "errors, throughput and latency (min, p50, p90, p99, max). A progress line goes to stderr "
                    "while it runs; the session is saved as a capture.",
        epilog=EPILOG + exits_help(LOAD_EXITS), formatter_class=EpilogFormatter)
    load.add_argument("tool", nargs="?", metavar="TOOL", help="the tool to call (or --method)")
    load.add_argument("words", nargs="*", metavar="KEY=VALUE", help="an argument of the tool (repeatable)")
    load.add_argument("--args", metavar="JSON", help="the tool's arguments as a JSON object; KEY=VALUE goes over it")
    load.add_argument("--method", metavar="METHOD", help="send this request instead of a tool call (e.g. ping)")
    load.add_argument("--params", metavar="JSON", help="with --method: its params, a JSON object")
    load.add_argument("--concurrency", type=int, default=10, metavar="N",
                      help="requests waiting for their answers at once at most (default 10)")
    load.add_argument("--duration", type=positive, metavar="S",
                      help=f"stop starting requests after S seconds (default {DEFAULT_DURATION:g} without --requests)")
    load.add_argument("--requests", type=int, metavar="N", help="stop after starting N requests")
    load.add_argument("--rate", type=positive, metavar="R", help="start at most R requests a second, spread evenly")
    load.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or one JSON object")
    load.add_argument("--out", type=Path, metavar="CAPTURE",
                      help="where to save the run's capture (default: a new file in the captures folder)")
    add_server_options(load, timeout_help="wait for the handshake, and for each request before it counts as "
                                          "unanswered (default 30)")


def run_load_command(args: argparse.Namespace, command: list[str]) -> int:
    from inspector.cli.compare_cmd import open_status
    from inspector.cli.main import run_async
    from inspector.cli.record_cmd import parse_answers
    from inspector.cli.server_options import fail, server_problem
    from inspector.core.connect.opened import CannotOpen
    from inspector.core.connect.target import InputError, Target
    from inspector.core.explore.arguments import ArgumentError, parse_json_object, split_pair
    from inspector.core.load.runner import LoadError, LoadPlan, ToolCall

    problem = server_problem(args, command, "load", "load TOOL KEY=VALUE")
    if problem:
        return fail(problem, EXIT_CANNOT_COMPARE)
    if (args.tool is None) == (args.method is None):
        return fail("load needs what to send: a TOOL (with KEY=VALUE arguments) or --method METHOD, one of them",
                    EXIT_CANNOT_COMPARE)
    if args.params is not None and args.method is None:
        return fail("--params goes with --method; a tool's arguments are KEY=VALUE or --args", EXIT_CANNOT_COMPARE)
    try:
        target = Target.from_args(args, command)
        call = None
        params = None
        if args.tool is not None:
            for word in args.words:
                split_pair(word)
            call = ToolCall(args.tool, list(args.words), parse_json_object(args.args, "--args") if args.args else None)
        elif args.params is not None:
            params = parse_json_object(args.params, "--params")
        duration = args.duration if args.duration is not None or args.requests is not None else DEFAULT_DURATION
        plan = LoadPlan(args.method or "tools/call", params, args.concurrency, duration, args.requests, args.rate)
        problem = plan.problem()
        if problem:
            raise LoadError(problem)
        out = args.out or default_out(target)
        progress = Progress(sys.stderr)
        runs: list[Any] = []
        figures = run_async(_run(target, plan, call, out, parse_answers(args.answer), progress, runs))
    except (InputError, ArgumentError, LoadError) as exc:
        return fail(str(exc), EXIT_CANNOT_COMPARE)
    except CannotOpen as exc:
        return fail(str(exc), open_status(exc.exit_code))
    except KeyboardInterrupt:
        if not runs:
            return fail("interrupted; the server was shut down", EXIT_INTERRUPTED)
        progress.done()
        figures = runs[0].figures()  # the figures so far: what an interrupted run is for
        waiting = figures["waiting"]
        _print_figures(args.format, figures, out, plan, call)
        return fail(f"interrupted after {figures['elapsed_s']:.1f} s; the figures so far are above"
                    + (f" ({waiting:,} requests still waiting were not counted)" if waiting else "")
                    + "; the server was shut down", EXIT_INTERRUPTED)
    progress.done()
    _print_figures(args.format, figures, out, plan, call)
    if figures.get("stopped"):
        print(f"mcp-inspector: the run stopped after {figures['elapsed_s']:.1f} s: {safe(figures['stopped'])}; the "
              "figures above are those gathered until then", file=sys.stderr)
    if figures.get("server_gone"):
        print(f"mcp-inspector: {safe(figures['server_gone'])}", file=sys.stderr)
    return EXIT_DIFFERENT if figures["errors"] or figures.get("server_gone") or figures.get("stopped") else EXIT_OK


def _print_figures(form: str, figures: dict[str, Any], out: Path, plan: Any, call: Any) -> None:
    figures["capture"] = str(out)
    try:
        if form == "json":
            print(safe_json(json.dumps(figures, ensure_ascii=False)))
        else:
            print("\n".join(text_lines(figures, plan.method if call is None else f"tools/call {call.tool}")))
        sys.stdout.flush()
    except BrokenPipeError:
        pass


async def _run(target: Any, plan: Any, call: Any, out: Path, answers: dict[str, str], progress: Progress,
               runs: list[Any]) -> dict[str, Any]:
    """The run's figures; ``runs`` gets the run once it starts, so that an interrupted one can give its figures
    so far."""
    from inspector.core.connect.opened import opened
    from inspector.core.load.runner import LoadRun, call_params

    async with opened(target, out, answers=answers, load=True) as session:
        if call is not None:
            plan.params = await call_params(session, call, target.timeout)
        run = LoadRun(session, plan, http=target.is_http, timeout=target.timeout, on_progress=progress.show)
        runs.append(run)
        figures = await run.run()
        if session.closed and not figures.get("stopped"):
            figures["server_gone"] = "the server went away during the run: " + (
                session.diagnosis() or "the connection closed")
        return figures


def default_out(target: Any) -> Path:
    """``load-<name>-<timestamp>.jsonl`` in the user's captures folder."""
    from inspector.core.paths import capture_name, captures_dir

    return captures_dir() / ("load-" + capture_name(target.name or "server"))


class Progress:
    """The progress line on stderr: rewritten in place on a terminal (every half second), else a line a second."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.last = -1.0
        self.shown = False

    def show(self, snap: Any) -> None:
        if not self.tty and snap.elapsed - self.last < 1.0:
            return
        self.last = snap.elapsed
        latency = f"p50 {snap.p50:.2f} ms  p99 {snap.p99:.2f} ms" if snap.answered else "no answer yet"
        line = (f"load: {snap.elapsed:5.1f} s  {snap.requests:,} requests  {snap.recent_throughput:,.0f}/s  "
                f"{latency}  {snap.errors:,} errors")
        try:
            self.stream.write(("\r" + line + "\x1b[K") if self.tty else line + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            return
        self.shown = True

    def done(self) -> None:
        if self.tty and self.shown:
            self.stream.write("\n")


def text_lines(figures: dict[str, Any], what: str) -> list[str]:
    from inspector.core.load.stats import latency_text

    lines = [safe(f"{what}: {figures['requests']:,} requests in {figures['elapsed_s']:.2f} s at concurrency "
                  f"{figures['concurrency']}: {figures['throughput']:,.1f} requests/s"),
             f"errors: {figures['errors']:,} ({figures['error_rate'] * 100:.2f}%)"
             + "".join(f", {kind} {n:,}" for kind, n in figures["error_kinds"].items() if n),
             latency_text(figures)]
    lines += [safe(f"  {m['count']:,} x {m['message']}") for m in figures["error_messages"]]
    lines.append(safe(f"capture: {figures['capture']}"))
    return lines
