"""``mcp-inspector record``: a headless session saved to a capture, with a one-line summary or one-sentence error.

``--out -`` puts the capture on standard output: then stdout carries the capture's lines and nothing else
(the summary goes to stderr with the errors), so ``record --out - ... | jq`` and ``> file`` both work.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys

from inspector.cli.main import run_async
from inspector.cli.rules_option import rules_of
from inspector.core.connect.target import InputError, Target
from inspector.core.exits import EXIT_BAD_INPUT, EXIT_INTERRUPTED
from inspector.core.record.run import STDIO_NAME, RecordOptions, load_messages, record
from inspector.core.text import safe


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
    if not args.url and not command and args.config is None and args.server is None:
        parser.error("record needs the server command after -- (or --url, or --config FILE --server NAME), "
                     "for example: "
                     "record --out s.jsonl -- python server.py")
    to_stdout = os.fspath(args.out) == STDIO_NAME
    # the capture's lines, UTF-8 and LF whatever the platform's console wants; detached (not closed) afterwards
    stream = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n") if to_stdout else None
    try:
        options = RecordOptions(
            target=Target.from_args(args, command), out=args.out,
            roots=[{"uri": uri, "name": uri.rsplit("/", 1)[-1] or uri} for uri in args.root],
            messages=load_messages(args.send) if args.send else [],
            answers=parse_answers(args.answer), progress=args.progress, max_time=args.max_time, idle=args.idle,
            stream=stream, otlp_endpoint=otlp_endpoint_of(args), rules=rules_of(args, "record"),
        )
    except InputError as exc:
        print(f"mcp-inspector: {safe(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        result = run_async(record(options))
    except KeyboardInterrupt:
        where = "went to stdout" if to_stdout else f"is in {options.out}"
        print(f"mcp-inspector: interrupted; the server was shut down and the capture so far {where}",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if stream is not None:
            _release(stream)
    if result.summary:
        print(safe(result.summary), file=sys.stderr if to_stdout else sys.stdout)
    if result.error:
        print(f"mcp-inspector: {safe(result.error)}", file=sys.stderr)
    for warning in result.warnings:
        print(f"mcp-inspector: {safe(warning)}", file=sys.stderr)
    return result.exit_code


def otlp_endpoint_of(args: argparse.Namespace) -> str | None:
    """``--otlp-endpoint``, checked (an http or https URL); raises InputError with a sentence."""
    endpoint: str | None = getattr(args, "otlp_endpoint", None)
    if endpoint is None:
        return None
    from inspector.core.otel.exporter import EndpointError, traces_url

    try:
        traces_url(endpoint)
    except EndpointError as exc:
        raise InputError(str(exc)) from None
    return endpoint


def _release(stream: io.TextIOWrapper) -> None:
    """Hand standard output back: flushed, and detached so that closing the wrapper leaves stdout open. When
    its reader went away, stdout is pointed at the null device, so Python's own flush at exit cannot fail."""
    try:
        stream.flush()
        stream.detach()
    except (BrokenPipeError, ValueError):
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            stream.detach()  # what was left in the wrapper goes to the null device now
