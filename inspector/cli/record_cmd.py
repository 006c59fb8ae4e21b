"""``mcp-inspector record``: a headless session saved to a capture, with a one-line summary or one-sentence error."""

from __future__ import annotations

import argparse
import sys

from ..core.record import EXIT_BAD_INPUT, InputError, RecordOptions, load_messages, record
from .main import run_async


def parse_env(pairs: list[str]) -> dict[str, str]:
    env = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise InputError(f"--env {pair!r} must look like NAME=VALUE")
        env[name] = value
    return env


def run_record(args: argparse.Namespace, command: list[str], parser: argparse.ArgumentParser) -> int:
    if not command:
        parser.error("record needs the server command after --, for example: record --out s.jsonl -- python server.py")
    try:
        options = RecordOptions(
            argv=command, out=args.out, handshake=args.handshake, protocol_version=args.protocol_version,
            timeout=args.timeout, idle=args.idle, cwd=args.cwd, env=parse_env(args.env), redact=not args.no_redact,
            roots=[{"uri": uri, "name": uri.rsplit("/", 1)[-1] or uri} for uri in args.root],
            messages=load_messages(args.send) if args.send else [],
        )
    except InputError as exc:
        print(f"mcp-inspector: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    result = run_async(record(options))
    if result.summary:
        print(result.summary)
    if result.error:
        print(f"mcp-inspector: {result.error}", file=sys.stderr)
    return result.exit_code
