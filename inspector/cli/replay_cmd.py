"""``mcp-inspector replay``: send a capture's messages to a server again and print how the answers differ.

Exit status: 0 when everything matches the recording, 1 when something differs, 2 when the replay could not
be done (one sentence on stderr says why). A capture names a command; it is never run without the user
seeing it and passing ``--yes`` (a capture may come from someone else).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from inspector.core.exits import EXIT_CANNOT_REPLAY, EXIT_INTERRUPTED, REPLAY_EXITS, exits_help
from inspector.core.text import safe

EPILOG = """\
examples:
  mcp-inspector replay session.jsonl -- python -m my_server
  mcp-inspector replay session.jsonl --ignore '$.result.content[*].text' -- python -m my_server
  mcp-inspector replay session.jsonl --url http://127.0.0.1:8000/mcp
  mcp-inspector replay session.jsonl --yes          (runs the command the capture names, shown first)

--ignore paths (a JSONPath subset, matched against each whole response):
  $  .name  ["name"]  [N]  [*]  .*  ..name      e.g. $.result._meta["io.modelcontextprotocol/serverInfo"]

""" + exits_help(REPLAY_EXITS)


def add_parser(sub: Any) -> None:
    """Register ``replay`` on the main parser's subcommands."""
    from inspector.cli.argtypes import non_negative, positive
    from inspector.cli.main import EpilogFormatter, add_http_options, add_max_message_option

    rep = sub.add_parser(
        "replay", help="send a capture's messages to a server again and show what changed",
        description="Send the messages of a capture to a server again, in order (the handshake included), answer "
                    "the server's requests as the capture did, and compare every answer with the recorded one. "
                    "The capture is only read; the replay is saved as a new capture.",
        epilog=EPILOG, formatter_class=EpilogFormatter)
    rep.add_argument("capture", type=Path, metavar="CAPTURE", help="the capture to replay")
    rep.add_argument("--out", type=Path, metavar="FILE",
                     help="where to save the replay (default: a new file in the captures folder)")
    rep.add_argument("--ignore", action="append", default=[], metavar="PATH",
                     help="a JSON path whose differences do not count, e.g. '$.result.content[*].text' (repeatable)")
    rep.add_argument("--timeout", type=positive, default=30.0, metavar="S", help="wait for each answer (default 30)")
    add_max_message_option(rep)
    rep.add_argument("--idle", type=non_negative, default=0.5, metavar="S",
                     help="after the last message, collect trailing server messages this long (default 0.5)")
    rep.add_argument("--yes", action="store_true",
                     help="without a target: run the server the capture names (it is shown first)")
    rep.add_argument("--cwd", metavar="DIR", help="working directory of the server")
    rep.add_argument("--env", action="append", default=[], metavar="K=V", help="environment override (repeatable)")
    rep.add_argument("--no-redact", action="store_true", help="keep secrets in the replay's capture")
    add_http_options(rep, "replay to this URL", "auto (default), streamable-http, sse, or a plug-in transport")


def fail(sentence: str) -> int:
    print(f"mcp-inspector: {safe(sentence)}", file=sys.stderr)
    return EXIT_CANNOT_REPLAY


def default_out(source: Path) -> Path:
    """``<source-stem>-replay-<timestamp>.jsonl`` in the user's captures folder, never an existing file."""
    from inspector.core.paths import captures_dir

    folder = captures_dir()
    stem = f"{source.stem}-replay-{time.strftime('%Y%m%d-%H%M%S')}"
    path = folder / f"{stem}.jsonl"
    number = 2
    while path.exists():
        path = folder / f"{stem}-{number}.jsonl"
        number += 1
    return path


def run_replay(args: argparse.Namespace, command: list[str], parser: argparse.ArgumentParser) -> int:
    from dataclasses import replace as with_changes

    from inspector.cli.main import run_async
    from inspector.core.connect.target import (
        InputError,
        Target,
        make_transport,
        no_tls_options,
        parse_env,
    )
    from inspector.core.replay.diff import PathError, parse_paths
    from inspector.core.replay.engine import ReplayError, ReplayOptions, ReplayPlan, replay
    from inspector.core.transports.base import TransportError

    if args.url and command:
        parser.error("give either --url or a command after --, not both")
    try:
        ignore = parse_paths(args.ignore)
    except PathError as exc:
        return fail(f"--ignore: {exc}")
    try:
        plan, warnings = ReplayPlan.load(args.capture)
    except ReplayError as exc:
        return fail(str(exc))
    for warning in warnings:
        print(f"mcp-inspector: warning: {safe(warning)}", file=sys.stderr)
    if args.out is not None and str(args.out) == "-":
        return fail("--out -: replay prints its comparison on stdout, so the replay's capture cannot go there "
                    "too; give a file")
    out = args.out or default_out(args.capture)
    if out.resolve() == args.capture.resolve():
        return fail(f"--out {out} is the capture being replayed; a replay never overwrites it: choose another file")

    try:
        if command or args.url or args.config is not None or args.server is not None:
            target = Target.from_args(args, command)
        else:
            env = parse_env(args.env)
            recorded = Target.from_capture_header(plan.header)
            why_not = recorded.rerun_problem()
            if why_not is not None:
                return fail(f"{why_not}; give the target explicitly: -- COMMAND ARGS, or --url URL")
            print("the capture was recorded against:")
            for line in recorded.describe_lines():
                print(f"  {line}")
            if not args.yes:
                return fail("a capture's own command is never run without confirmation: pass --yes to run it, or "
                            "give a target: -- COMMAND ARGS, or --url URL")
            target = with_changes(recorded, cwd=args.cwd or recorded.cwd, env={**recorded.env, **env},
                                  timeout=args.timeout, max_message=args.max_message, redact=not args.no_redact)
            if target.is_http:  # -H, --bearer, --origin, --oauth...: on top of what the capture recorded
                target = target.with_url_args(args)
            else:
                no_tls_options(args)
    except InputError as exc:
        return fail(str(exc))
    try:
        transport = make_transport(target)
    except (TransportError, ValueError) as exc:
        return fail(f"cannot replay: {exc}")

    try:
        result = run_async(replay(plan, transport, ReplayOptions(out, args.timeout, args.idle, ignore)))
    except KeyboardInterrupt:
        print(f"mcp-inspector: interrupted; the server was shut down and the replay so far is in {out}",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    if result.error is None:
        for line in result.lines():
            print(safe(line))
    for note in result.notes:
        print(f"note: {safe(note)}")
    print(safe(result.summary))
    if result.error is not None:
        print(f"mcp-inspector: cannot replay: {safe(result.error)}", file=sys.stderr)
    return result.exit_code
