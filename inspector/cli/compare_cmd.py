"""``mcp-inspector diff`` (two captures, or a capture and a live server: interfaces and answers) and
``mcp-inspector baseline save|check`` (tool definitions approved once, and what drifted since). The logic is
:mod:`inspector.core.compare`; this module parses, connects and prints."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from inspector.core.exits import (
    BASELINE_EXITS,
    DIFF_EXITS,
    EXIT_CANNOT_COMPARE,
    EXIT_DIFFERENT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_RPC_ERROR,
    EXIT_SERVER_FAILED,
    exits_help,
)
from inspector.core.text import safe_json

DIFF_EPILOG = """\
examples:
  mcp-inspector diff before.jsonl after.jsonl --exit-code
  mcp-inspector diff session.jsonl --against -- python -m my_server
  mcp-inspector diff session.jsonl --against --url http://127.0.0.1:8000/mcp --format json
  mcp-inspector diff a.jsonl b.jsonl --ignore '$.result.content[*].text' --latency-threshold 200

"""
BASELINE_EPILOG = """\
examples:
  mcp-inspector baseline save tools.baseline.json -- npx -y @modelcontextprotocol/server-everything
  mcp-inspector baseline check tools.baseline.json -- npx -y @modelcontextprotocol/server-everything
  mcp-inspector baseline check tools.baseline.json --url http://127.0.0.1:8000/mcp --format json
  mcp-inspector baseline check tools.baseline.json --capture session.jsonl

"""


def add_parsers(sub: Any) -> None:
    from inspector.cli.argtypes import milliseconds
    from inspector.cli.main import EpilogFormatter
    from inspector.cli.server_options import add_server_options

    diff = sub.add_parser(
        "diff", help="compare two captures, or a capture with a live server: interface and answers",
        description="Compare what two servers offer (tools, resources, resource templates, prompts: added, "
                    "removed, changed, and which fields) and how they answer the same requests (status, isError, "
                    "content; latency with --latency-threshold). A is a capture; B is a second capture, or, with "
                    "--against, the live server after -- or at --url, which is listed and asked A's requests "
                    "again.",
        epilog=DIFF_EPILOG + exits_help(DIFF_EXITS), formatter_class=EpilogFormatter)
    diff.add_argument("a", type=Path, metavar="A", help="the first capture (the old, the recording)")
    diff.add_argument("b", type=Path, nargs="?", metavar="B", help="the second capture (leave out with --against)")
    diff.add_argument("--against", action="store_true",
                      help="compare A with the live server named by the command after -- or by --url")
    diff.add_argument("--exit-code", action="store_true", help="exit with status 1 when there are differences")
    diff.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or one JSON object")
    diff.add_argument("--ignore", action="append", default=[], metavar="PATH",
                      help="a JSON path whose differences in the answers do not count, e.g. "
                           "'$.result.content[*].text' (repeatable; as replay's)")
    diff.add_argument("--latency-threshold", type=milliseconds, metavar="MS",
                      help="report a request whose latency moved by more than MS milliseconds (default: latency "
                           "is not compared)")
    diff.add_argument("--out", type=Path, metavar="FILE", help="--against: save the live session as a capture")
    add_server_options(diff)

    baseline = sub.add_parser(
        "baseline", help="keep a hash of each tool's definition; check later what drifted",
        description="save: list the server's tools, prompts and resource templates and keep a SHA-256 of each "
                    "definition, with the definition, and of the server's instructions, in FILE. check: list them "
                    "again and name each one added, removed or changed since, and which fields changed (a "
                    "description, a schema, an annotation); exits 1 on drift.",
        epilog=BASELINE_EPILOG + exits_help(BASELINE_EXITS), formatter_class=EpilogFormatter)
    baseline.add_argument("action", choices=("save", "check"), help="save a baseline, or check a server against one")
    baseline.add_argument("file", type=Path, metavar="FILE", help="the baseline file (JSON)")
    baseline.add_argument("--capture", type=Path, metavar="CAPTURE",
                          help="take the tools from this capture's tools/list instead of a live server")
    baseline.add_argument("--format", choices=("text", "json"), default="text", help="check: text (default) or JSON")
    baseline.add_argument("--out", type=Path, metavar="CAPTURE", help="save the live session as a capture")
    add_server_options(baseline)


# -- diff -------------------------------------------------------------------------------------------------


def run_diff(args: argparse.Namespace, command: list[str]) -> int:
    from inspector.cli.main import run_async
    from inspector.cli.record_cmd import parse_answers
    from inspector.cli.server_options import fail, names_server, server_problem
    from inspector.core.compare.against import probe_server
    from inspector.core.compare.differ import compare
    from inspector.core.compare.sessions import CompareError, read_server
    from inspector.core.connect.opened import CannotOpen
    from inspector.core.connect.target import InputError, Target
    from inspector.core.replay.diff import PathError, parse_paths

    if args.against and args.b is not None:
        return fail("give either a second capture B or --against with a server, not both", EXIT_CANNOT_COMPARE)
    if not args.against and args.b is None:
        return fail("diff needs a second capture B, or --against with a server (-- CMD or --url URL)",
                    EXIT_CANNOT_COMPARE)
    if not args.against and names_server(args, command):
        return fail("a server (-- CMD or --url) is compared with --against; leave it out to compare two captures",
                    EXIT_CANNOT_COMPARE)
    try:
        ignore = parse_paths(args.ignore)
        a = read_server(args.a)
        if args.against:
            problem = server_problem(args, command, "diff --against", "diff A.jsonl --against")
            if problem:
                return fail(problem, EXIT_CANNOT_COMPARE)
            target = Target.from_args(args, command)
            b = run_async(probe_server(target, a.exchanges, args.out, answers=parse_answers(args.answer)))
        else:
            b = read_server(args.b)
    except (PathError, CompareError, InputError) as exc:
        return fail(str(exc), EXIT_CANNOT_COMPARE)
    except CannotOpen as exc:
        return fail(str(exc), open_status(exc.exit_code))
    except KeyboardInterrupt:
        return fail("interrupted; the server was shut down", EXIT_INTERRUPTED)
    threshold = None if args.latency_threshold is None else args.latency_threshold / 1000
    result = compare(a, b, ignore=ignore, latency_threshold=threshold)
    _print_result(result, args.format)
    return EXIT_DIFFERENT if args.exit_code and not result.same else EXIT_OK


def _print_result(result: Any, shape: str) -> None:
    from inspector.core.compare.report import text_lines, to_json

    try:
        if shape == "json":
            print(safe_json(json.dumps(to_json(result), ensure_ascii=False)))
        else:
            print("\n".join(text_lines(result)))
        sys.stdout.flush()
    except BrokenPipeError:
        pass


def open_status(code: int) -> int:
    """A connection failure's status as diff and baseline number them (1 and 5 mean other things there)."""
    return EXIT_CANNOT_COMPARE if code in (EXIT_SERVER_FAILED, EXIT_RPC_ERROR) else code


# -- baseline ---------------------------------------------------------------------------------------------


def run_baseline(args: argparse.Namespace, command: list[str]) -> int:
    from inspector.cli.main import run_async
    from inspector.cli.record_cmd import parse_answers
    from inspector.cli.server_options import fail, names_server, server_problem
    from inspector.core.compare.against import probe_server
    from inspector.core.compare.baseline import PINNED_KINDS, Baseline, BaselineError, check
    from inspector.core.compare.sessions import CompareError, read_server
    from inspector.core.connect.opened import CannotOpen
    from inspector.core.connect.target import InputError, Target

    try:
        approved = Baseline.load(args.file) if args.action == "check" else None
        if args.capture is not None:
            if names_server(args, command):
                return fail("--capture names where the tools come from; leave out -- CMD and --url",
                            EXIT_CANNOT_COMPARE)
            record = read_server(args.capture)
        else:
            problem = server_problem(args, command, f"baseline {args.action}", f"baseline {args.action} FILE")
            if problem:
                return fail(problem, EXIT_CANNOT_COMPARE)
            record = run_async(probe_server(Target.from_args(args, command), [], args.out,
                                            answers=parse_answers(args.answer), kinds=("tools", *PINNED_KINDS)))
        if approved is None:
            baseline = Baseline.of(_listed(record))
            baseline.save(args.file)
            count = len(baseline.tools)
            print(safe_json(f"{args.file}: {count} tool{'' if count == 1 else 's'} of {record.describe()}"),
                  file=sys.stderr)
            return EXIT_OK
        drift = check(approved, _listed(record))
    except (BaselineError, CompareError, InputError) as exc:
        return fail(str(exc), EXIT_CANNOT_COMPARE)
    except CannotOpen as exc:
        return fail(str(exc), open_status(exc.exit_code))
    except KeyboardInterrupt:
        return fail("interrupted; the server was shut down", EXIT_INTERRUPTED)
    _print_drift(drift, args.format)
    return EXIT_DIFFERENT if drift.drifted else EXIT_OK


def _listed(record: Any) -> Any:
    """``record``, or a BaselineError naming why its tools are unknown (the server's tools/list failed)."""
    from inspector.core.compare.baseline import BaselineError

    if record.interface.get("tools") is None and record.notes:
        raise BaselineError(f"no tools/list from {record.source}: {'; '.join(record.notes)}")
    return record


def _print_drift(drift: Any, shape: str) -> None:
    from inspector.core.compare.report import MARKS
    from inspector.core.text import safe

    try:
        if shape == "json":
            print(safe_json(json.dumps(drift.to_json(), ensure_ascii=False)))
            return
        print(safe(f"{drift.record.describe()} against the baseline of {drift.baseline.created}"))
        for change in drift.changes:
            print(safe(f"  {MARKS[change.change]} {change.describe()}"))
            for diff in change.diffs[:10]:
                print(f"      {diff.describe()}")
        print(safe(drift.summary()))
    except BrokenPipeError:
        pass
