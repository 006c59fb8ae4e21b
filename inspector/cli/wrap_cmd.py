"""``mcp-inspector wrap CONFIG [--server NAME | --all]`` and ``unwrap CONFIG``: route a client's servers through
``mcp-inspector tap`` (stdio servers: the client starts the tap; URL servers: an HTTP tap the user runs) and back
(see :mod:`inspector.core.tap.wrap`). Prints what changed, and the command of each HTTP tap to run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXIT_PROBLEM = 1
EXIT_USAGE = 2

ACTION_WORDS = {
    "wrapped": "now runs through tap",
    "already": "already runs through tap",
    "wrapped-url": "now goes through an HTTP tap; run it while the client runs",
    "already-url": "already goes through an HTTP tap; run it while the client runs",
    "skipped": "skipped",
    "unwrapped": "restored as it was",
    "restored-from-args": "restored from its tap command line",
    "restored-url": "got its URL back",
    "not-wrapped": "does not run through tap; left as it is",
}


def add_parsers(sub: argparse._SubParsersAction) -> None:
    wrap = sub.add_parser(
        "wrap", help="make a client's servers go through mcp-inspector tap",
        description="Rewrite the server entries of a Claude Desktop, Cursor, VS Code or Claude Code config file so "
                    "that they go through `mcp-inspector tap` (recorded, and live in the window). A stdio entry's "
                    "command and args change: the client starts the tap. A URL entry's URL becomes an HTTP tap's "
                    "on 127.0.0.1: wrap prints the `mcp-inspector tap --url ...` command to run while the client "
                    "runs. A backup is written next to the file and `unwrap` puts the entries back exactly.")
    wrap.add_argument("config", type=Path, metavar="CONFIG", help="the client's config file")
    which = wrap.add_mutually_exclusive_group()
    which.add_argument("--server", action="append", metavar="NAME", help="wrap this server (repeatable)")
    which.add_argument("--all", action="store_true", help="wrap every server of the file (stdio and URL)")
    wrap.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")

    unwrap = sub.add_parser("unwrap", help="undo wrap: the servers run directly again",
                            description="Put the entries `wrap` changed back as they were.")
    unwrap.add_argument("config", type=Path, metavar="CONFIG", help="the client's config file")
    unwrap.add_argument("--server", action="append", metavar="NAME", help="only this server (repeatable)")
    unwrap.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")


def run_wrap_command(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from inspector.core.paths import captures_dir
    from inspector.core.tap.wrap import (
        WrapError,
        load,
        tap_command_text,
        tap_runs_anywhere,
        unwrap_config,
        wrap_config,
    )

    try:
        if args.command == "wrap" and not args.server and not args.all:
            config = load(args.config)
            print(f"{config.client} config {config.path}:")
            for entry in config.entries:
                if entry.kind == "stdio":
                    state = "runs through tap" if entry.wrapped else "stdio, can be wrapped"
                elif entry.kind == "url":
                    state = (f"goes through an HTTP tap: {tap_command_text(entry.tap)}" if entry.tap is not None
                             else "URL, can be wrapped (through an HTTP tap you run while the client runs)")
                else:
                    state = f"skipped: {entry.reason}"
                print(f"  {entry.display}: {state}")
            print("Nothing was changed: name the servers with --server NAME (repeatable), or pass --all.",
                  file=sys.stderr)
            return EXIT_USAGE
        if args.command == "wrap":
            report = wrap_config(args.config, args.server if not args.all else None, dry_run=args.dry_run)
        else:
            report = unwrap_config(args.config, args.server, dry_run=args.dry_run)
    except WrapError as exc:
        print(f"mcp-inspector {args.command}: {exc}", file=sys.stderr)
        return EXIT_PROBLEM
    except OSError as exc:
        print(f"mcp-inspector {args.command}: {args.config}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_PROBLEM

    print(f"{report.client} config {report.path}:")
    for change in report.changes:
        detail = f": {change.detail}" if change.detail else ""
        print(f"  {change.entry} {ACTION_WORDS.get(change.action, change.action)}{detail}")
    changed = report.count("wrapped", "wrapped-url", "unwrapped", "restored-from-args", "restored-url")
    if not report.changes:
        print("  no entry runs through tap; nothing to do" if args.command == "unwrap" else "  no servers")
    if args.dry_run:
        print(f"Dry run: {changed} entr{'y' if changed == 1 else 'ies'} would change; the file was not touched.")
    elif report.written:
        print(f"Backup of the previous file: {report.backup}")
        if args.command == "wrap":
            print(f"The original entries are kept in {report.sidecar} (for unwrap).")
            print(f"Restart {report.client} so it starts them through tap; captures go to {captures_dir()}.")
            if report.count("wrapped-url"):
                print(f"Run the tap command of each URL server above while {report.client} runs: until it runs, "
                      f"{report.client} cannot reach that server.")
            if not tap_runs_anywhere():
                print(f"Note: `{sys.executable} -m inspector` does not import this mcp-inspector from another "
                      "folder; install it for that python (pip install .) or the client cannot start the servers.",
                      file=sys.stderr)
        else:
            print(f"Restart {report.client} so it starts them directly again.")
    else:
        print("Nothing changed.")
    wanted_failed = args.server and report.count("skipped")
    return EXIT_PROBLEM if wanted_failed else 0
