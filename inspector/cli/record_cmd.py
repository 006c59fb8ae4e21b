"""``mcp-inspector record``: a headless session saved to a capture, with a one-line summary or one-sentence error."""

from __future__ import annotations

import argparse
import os
import sys

from inspector.cli.main import run_async
from inspector.core.session.record import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    InputError,
    RecordOptions,
    load_messages,
    record,
)
from inspector.core.transports.base import TransportError
from inspector.core.transports.http_common import HttpOptions, check_url, parse_header


def parse_env(pairs: list[str]) -> dict[str, str]:
    env = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise InputError(f"--env {pair!r} must look like NAME=VALUE")
        env[name] = value
    return env


def parse_answers(pairs: list[str]) -> dict[str, str]:
    answers = {}
    for pair in pairs:
        kind, sep, policy = pair.partition("=")
        if not sep:
            raise InputError(f"--answer {pair!r} must look like KIND=POLICY, for example elicitation=decline")
        answers[kind] = policy
    return answers


def http_options(args: argparse.Namespace) -> HttpOptions:
    headers = {}
    for text in args.header:
        try:
            name, value = parse_header(text)
        except ValueError as exc:
            raise InputError(str(exc)) from None
        headers[name] = value
    bearer = args.bearer
    if args.bearer_env:
        bearer = os.environ.get(args.bearer_env)
        if not bearer:
            raise InputError(f"--bearer-env {args.bearer_env}: that environment variable is not set or empty")
    try:
        check_url(args.url)
    except TransportError as exc:
        raise InputError(str(exc)) from None
    return HttpOptions(url=args.url, headers=headers, bearer=bearer, origin=args.origin,
                       # the session's --timeout says "no response to X within S"; httpx's own bound is a backstop
                       connect_timeout=args.connect_timeout, response_timeout=args.timeout + 5.0,
                       redact=not args.no_redact)


def run_record(args: argparse.Namespace, command: list[str], parser: argparse.ArgumentParser) -> int:
    if args.url and command:
        parser.error("give either --url or a command after --, not both")
    if not args.url and not command:
        parser.error("record needs the server command after -- (or --url), for example: "
                     "record --out s.jsonl -- python server.py")
    try:
        options = RecordOptions(
            argv=command, out=args.out, handshake=args.handshake, protocol_version=args.protocol_version,
            timeout=args.timeout, idle=args.idle, cwd=args.cwd, env=parse_env(args.env), redact=not args.no_redact,
            roots=[{"uri": uri, "name": uri.rsplit("/", 1)[-1] or uri} for uri in args.root],
            messages=load_messages(args.send) if args.send else [],
            http=http_options(args) if args.url else None, transport=args.transport,
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
