"""``mcp-inspector tap [--capture FILE] [--name NAME] -- COMMAND ARGS``: the transparent relay a client runs in
place of a server command (see :mod:`inspector.core.tap.relay`). It prints nothing of its own on stdout, ever."""

from __future__ import annotations

import argparse
import os
import sys


def add_parser(sub: argparse._SubParsersAction) -> None:
    from inspector.cli.main import add_max_message_option

    tap = sub.add_parser(
        "tap", help="relay a stdio server for a real client, recording the session (put it in the client's config)",
        description="Start the server (the command after --) and relay its stdin, stdout and stderr unchanged, "
                    "recording both directions and stderr to a capture and streaming them live to a running "
                    "mcp-inspector window. Exits with the server's exit status (128+N for a death by signal N).")
    tap.add_argument("--capture", type=_path, metavar="FILE",
                     help="capture file to write (default: a timestamped file in the captures folder)")
    tap.add_argument("--name", metavar="NAME", help="the server's name in captures and in the window "
                                                    "(default: the command's name)")
    tap.add_argument("--socket", type=_path, metavar="PATH",
                     help="the window's socket (default: $MCP_INSPECTOR_TAP_SOCKET, else a per-user one)")
    add_max_message_option(tap, help="the largest message the capture holds whole, e.g. 200M (the relay passes "
                                     "every message on, whatever its size; default 64M)")
    tap.add_argument("--no-live", action="store_true", help="do not stream to a window; only record")
    tap.add_argument("--no-redact", action="store_true", help="keep secrets of the command line in the capture")


def _path(text: str) -> object:
    from pathlib import Path

    return Path(text).expanduser()


def run_tap_command(args: argparse.Namespace, command: list[str], parser: argparse.ArgumentParser) -> int:
    from inspector.core.tap.options import EXIT_TAP_ERROR, TapOptions
    from inspector.core.tap.relay import run_tap

    if not hasattr(os, "fork"):
        print("mcp-inspector tap: tap runs on Linux and macOS for now (it needs fork and Unix sockets)",
              file=sys.stderr)
        return EXIT_TAP_ERROR
    if args.capture is not None and str(args.capture) == "-":
        parser.error("--capture -: tap's stdout carries the server's messages to the client; give a file")
    if not command:
        parser.error("tap needs the server command after --, for example: tap --name files -- npx -y "
                     "@modelcontextprotocol/server-filesystem ~/Documents")
    options = TapOptions(argv=command, name=args.name, capture=args.capture, socket=args.socket,
                         live=not args.no_live, redact=not args.no_redact, max_message=args.max_message)
    try:
        return run_tap(options)
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        print(f"mcp-inspector tap: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_TAP_ERROR
