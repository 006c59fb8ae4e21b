"""``mcp-inspector record``: a headless session saved to a capture, with a one-line summary or one-sentence error."""

from __future__ import annotations

import argparse
import sys

from inspector.cli.main import run_async
from inspector.core.session.record import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    RecordOptions,
    load_messages,
    record,
)
from inspector.core.session.target import InputError, Target


def parse_answers(pairs: list[str]) -> dict[str, str]:
    answers = {}
    for pair in pairs:
        kind, sep, policy = pair.partition("=")
        if not sep:
            raise InputError(f"--answer {pair!r} must look like KIND=POLICY, for example elicitation=decline")
        answers[kind] = policy
    return answers


def run_record(args: argparse.Namespace, command: list[str], parser: argparse.ArgumentParser) -> int:
    if args.url and command:
        parser.error("give either --url or a command after --, not both")
    if not args.url and not command:
        parser.error("record needs the server command after -- (or --url), for example: "
                     "record --out s.jsonl -- python server.py")
    try:
        options = RecordOptions(
            target=Target.from_args(args, command), out=args.out,
            roots=[{"uri": uri, "name": uri.rsplit("/", 1)[-1] or uri} for uri in args.root],
            messages=load_messages(args.send) if args.send else [],
            answers=parse_answers(args.answer), progress=args.progress, max_time=args.max_time,
        )
    except InputError as exc:
        print(f"mcp-inspector: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        result = run_async(record(options))
    except KeyboardInterrupt:
        print(f"mcp-inspector: interrupted; the server was shut down and the capture so far is in {options.out}",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    if result.summary:
        print(result.summary)
    if result.error:
        print(f"mcp-inspector: {result.error}", file=sys.stderr)
    return result.exit_code
