"""``mcp-inspector doctor``: why a connection to a server fails, step by step (:mod:`inspector.core.doctor`).

Text: one line per step as soon as it is known (``failed   connect    connection refused: ...``), a failed
step's fix on the line under it, and a last line naming the first failed step. JSON (``--format json``): the
report's ``{"steps": [{"step", "status", "detail", "fix"}]}`` once it is complete. Exit 0 when no step failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from inspector.core.exits import DOCTOR_EXITS, EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OK, EXIT_STEP_FAILED, exits_help
from inspector.core.sizes import DEFAULT_MAX_MESSAGE
from inspector.core.text import safe, safe_json

if TYPE_CHECKING:  # the doctor is imported only when it runs, not for --help
    from inspector.core.doctor.model import Step

#: The handshake's bound unless --timeout says otherwise (the same as inspector.core.doctor.runner's, kept here so
#: that --help does not import the doctor).
DEFAULT_TIMEOUT = 10.0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from inspector.cli.argtypes import positive
    from inspector.cli.main import EpilogFormatter, add_http_options

    doctor = sub.add_parser(
        "doctor", help="explain why a connection to a server fails, step by step, with the fix",
        description="Connect to a server the way record does and say, step by step, what works and what does not: "
                    "for a command after -- (command, start, stdout, handshake) or for --url (resolve, connect, "
                    "tls, http, transport, auth, handshake). Each step is passed, failed, warning or skipped, with "
                    "a detail and, for a failure, the fix in one sentence; the steps after a failure are skipped.",
        epilog=exits_help(DOCTOR_EXITS), formatter_class=EpilogFormatter)
    doctor.add_argument("--format", choices=("text", "json"), default="text",
                        help="text: a line per step as it is known (default); json: {\"steps\": [{\"step\", "
                             "\"status\", \"detail\", \"fix\"}]} at the end")
    doctor.add_argument("--timeout", type=positive, default=DEFAULT_TIMEOUT, metavar="S",
                        help=f"wait this long for the handshake (default {DEFAULT_TIMEOUT:g}); --connect-timeout "
                             "bounds resolving, connecting and TLS")
    doctor.add_argument("--handshake", choices=("auto", "legacy", "modern"), default="auto",
                        help="auto: probe server/discover (2026-07-28), else initialize (default)")
    doctor.add_argument("--protocol-version", metavar="V", help="protocol revision to ask for")
    doctor.add_argument("--cwd", metavar="DIR", help="working directory of the server")
    doctor.add_argument("--env", action="append", default=[], metavar="K=V", help="environment override "
                                                                                   "(repeatable)")
    doctor.set_defaults(max_message=DEFAULT_MAX_MESSAGE, no_redact=False)
    add_http_options(doctor, "diagnose the server at this URL instead of a command",
                     "auto (default: Streamable HTTP, falling back to HTTP+SSE), streamable-http, sse, websocket, "
                     "or a plug-in transport")


def run_doctor(args: argparse.Namespace, command: list[str], parser: argparse.ArgumentParser) -> int:
    from inspector.cli.main import run_async
    from inspector.core.connect.target import InputError, Target
    from inspector.core.doctor.runner import diagnose
    from inspector.core.doctor.text import heading, step_text

    if args.url and command:
        parser.error("give either --url or a command after --, not both")
    if not args.url and not command and args.config is None and args.server is None:
        parser.error("doctor needs the server command after -- (or --url, or --config FILE --server NAME), for "
                     "example: doctor -- python server.py")
    try:
        target = Target.from_args(args, command)
    except InputError as exc:
        print(f"mcp-inspector: {safe(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    as_text = args.format == "text"
    if as_text:
        sys.stdout.write(heading(target.describe()))
        sys.stdout.flush()

    def show(step: Step) -> None:
        if as_text:
            sys.stdout.write(step_text(step))
            sys.stdout.flush()

    try:
        report = run_async(diagnose(target, timeout=args.timeout, on_step=show))
    except KeyboardInterrupt:
        print("mcp-inspector: interrupted; the server was shut down", file=sys.stderr)
        return EXIT_INTERRUPTED
    if as_text:
        print(safe(report.summary(), lines=False))
    else:
        print(safe_json(json.dumps(report.as_json(), ensure_ascii=False, indent=2)))
    return EXIT_OK if report.ok else EXIT_STEP_FAILED
