"""``mcp-inspector run COLLECTION``: send a collection's saved requests to a server and judge each answer against
its expectations; text, JSON or JUnit XML on stdout. The logic is :mod:`inspector.core.collections`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from inspector.core.exits import EXIT_CANNOT_COMPARE, EXIT_DIFFERENT, EXIT_INTERRUPTED, EXIT_OK, RUN_EXITS, exits_help
from inspector.core.text import safe, safe_json

EPILOG = """\
examples:
  mcp-inspector run smoke.collection.json -- python -m my_server
  mcp-inspector run smoke.collection.json --format junit --url http://127.0.0.1:8000/mcp > report.xml

The collection file's format is in docs/collections.md.

"""


def add_parser(sub: Any) -> None:
    from inspector.cli.main import EpilogFormatter
    from inspector.cli.server_options import add_server_options

    run = sub.add_parser(
        "run", help="run a collection of saved calls and check each answer against its expectations",
        description="Send each request of a collection file to the server, in order, in one session, and judge "
                    "its answer: the status, isError, text it contains, values at JSON pointers, structuredContent "
                    "against the tool's outputSchema, latency. Exits 1 when an expectation fails.",
        epilog=EPILOG + exits_help(RUN_EXITS), formatter_class=EpilogFormatter)
    run.add_argument("collection", type=Path, metavar="COLLECTION", help="the collection file (JSON)")
    run.add_argument("--format", choices=("text", "json", "junit"), default="text",
                     help="text (default), one JSON object, or JUnit XML for CI")
    run.add_argument("--out", type=Path, metavar="CAPTURE", help="save the run's session as a capture")
    add_server_options(run)


def run_collection_command(args: argparse.Namespace, command: list[str]) -> int:
    from inspector.cli.compare_cmd import open_status
    from inspector.cli.main import run_async
    from inspector.cli.record_cmd import parse_answers
    from inspector.cli.server_options import fail, server_problem
    from inspector.core.collections.format import CollectionError, load
    from inspector.core.collections.runner import run_collection
    from inspector.core.connect.opened import CannotOpen
    from inspector.core.connect.target import InputError, Target

    problem = server_problem(args, command, "run", "run COLLECTION")
    if problem:
        return fail(problem, EXIT_CANNOT_COMPARE)
    try:
        collection = load(args.collection)
        target = Target.from_args(args, command)
        live = args.format == "text" and sys.stdout.isatty()
        run = run_async(run_collection(collection, target, args.out, answers=parse_answers(args.answer),
                                       on_result=_print_result if live else None))
    except (CollectionError, InputError) as exc:
        return fail(str(exc), EXIT_CANNOT_COMPARE)
    except CannotOpen as exc:
        return fail(str(exc), open_status(exc.exit_code))
    except KeyboardInterrupt:
        return fail("interrupted; the server was shut down", EXIT_INTERRUPTED)
    try:
        if args.format == "junit":
            from inspector.core.collections.junit import to_junit

            sys.stdout.buffer.write(to_junit(run))
        elif args.format == "json":
            print(safe_json(json.dumps(run_json(run), ensure_ascii=False)))
        else:
            if not live:
                for result in run.results:
                    _print_result(result)
            print(safe(run.summary()))
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return EXIT_OK if run.passed else EXIT_DIFFERENT


def _print_result(result: Any) -> None:
    took = f" ({result.latency * 1000:.1f} ms)" if result.latency is not None else ""
    if result.passed:
        print(safe(f"PASS {result.request.name}{took}"), flush=True)
        return
    print(safe(f"FAIL {result.request.name}{took}"), flush=True)
    for outcome in result.failures():
        print(safe(f"     {outcome.expectation}: {outcome.sentence}"), flush=True)


def run_json(run: Any) -> dict[str, Any]:
    """The run as one JSON object: ``{collection, passed, capture, seconds, results: [{name, method, passed,
    latencyMs, seq, outcomes: [{expectation, passed, sentence}]}]}``."""
    return {
        "collection": run.collection.name, "passed": run.passed, "summary": run.summary(),
        "capture": str(run.capture) if run.capture is not None else None, "seconds": round(run.seconds, 3),
        "results": [{"name": r.request.name, "method": r.request.method, "passed": r.passed,
                     "latencyMs": None if r.latency is None else round(r.latency * 1000, 3), "seq": r.seq,
                     "outcomes": [{"expectation": o.expectation, "passed": o.passed, "sentence": o.sentence}
                                  for o in r.outcomes]} for r in run.results],
    }
