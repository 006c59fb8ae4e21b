"""``mcp-inspector check``: active probes of a server, each a documented check (docs/server-checks.md), with a
report and the sessions saved as captures (beside ``--report``, else in the captures folder)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from inspector.core.exits import EXIT_BAD_INPUT, EXIT_INTERRUPTED, exits_help
from inspector.core.text import safe

#: ``--report`` file endings and the format they mean when ``--format`` is not given.
FORMAT_BY_SUFFIX = {".md": "markdown", ".markdown": "markdown", ".json": "json", ".xml": "junit", ".sarif": "sarif"}


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from inspector.cli.argtypes import positive
    from inspector.cli.main import EpilogFormatter, add_http_options, add_max_message_option
    from inspector.core.check.checks import (
        ALL_REVISIONS,
        CHECK_EXITS,
        CHECK_EXITS_ORDER,
        DEFAULT_CHECK_TIMEOUT,
        REQUIREMENT_REVISIONS,
    )

    check = sub.add_parser(
        "check", help="probe a server with the spec's rules and report what passes and fails",
        description="Launch a stdio server (the command after --) or connect to --url, and probe it: the handshake, "
                    "ping, unknown methods, malformed params and JSON, request ids, notifications, batches, "
                    "pagination, tool schemas, resources, prompts, cancellation, logging and subscriptions; at "
                    "2026-07-28 each request's _meta, server/discover, caching hints and a missing resource; and, "
                    "over Streamable HTTP, sessions, Origin, Host, Accept, the GET stream, concurrent requests, "
                    "404 for missing methods and the Mcp-* headers. Each check names its spec rule "
                    "(docs/server-checks.md, which also sets the checks beside the official conformance suite's). "
                    "Every session is saved as a capture.",
        epilog=exits_help(CHECK_EXITS, CHECK_EXITS_ORDER), formatter_class=EpilogFormatter)
    check.add_argument("--revision", metavar="R|all", choices=(*ALL_REVISIONS, "all"),
                       help="check at this protocol revision, or at every revision the server claims (all); "
                            "default: the one the handshake settles on")
    check.add_argument("--requirements", metavar="R", choices=REQUIREMENT_REVISIONS,
                       help=f"run exactly the checks revision R ({' or '.join(REQUIREMENT_REVISIONS)}) requires, as "
                            "the conformance suite's --requirements does: one session that speaks R, and only the "
                            "checks whose rule is part of R (less the HTTP rules on stdio); no other check is run "
                            "or reported. A server that answers with another revision leaves the set incomplete. "
                            "Replaces --revision")
    check.add_argument("--report", type=Path, metavar="FILE",
                       help="write the report here (default: standard output); captures go beside it")
    check.add_argument("--format", choices=("text", "markdown", "json", "junit", "sarif"),
                       help="report format (default: from --report's ending, .md .json .xml .sarif, else text); "
                            "sarif is SARIF 2.1.0: a result per failed check, and per incomplete one (kind open)")
    check.add_argument("--call-tools", action="store_true",
                       help="also call the tools annotated readOnlyHint, with arguments made from their schemas")
    check.add_argument("--call-all-tools", action="store_true",
                       help="call every tool, read-only or not (it may change things: use a test server)")
    check.add_argument("--handshake", choices=("auto", "legacy", "modern"), default="auto",
                       help="without --revision: auto (default: server/discover, else initialize), legacy or modern")
    check.add_argument("--timeout", type=positive, default=DEFAULT_CHECK_TIMEOUT, metavar="S",
                       help=f"wait for each answer (default {DEFAULT_CHECK_TIMEOUT:g})")
    add_max_message_option(check)
    check.add_argument("--cwd", metavar="DIR", help="working directory of the server")
    check.add_argument("--env", action="append", default=[], metavar="K=V", help="environment override (repeatable)")
    check.add_argument("--no-redact", action="store_true", help="keep secrets (tokens, keys, passwords) in captures")
    add_http_options(check, "check the server at this URL instead of launching a command",
                     "auto (default: Streamable HTTP, falling back to HTTP+SSE), streamable-http, sse")


def capture_base(report: Path | None, name: str) -> Path:
    """Where the captures go: beside the report (``report.md`` -> ``report-<label>.jsonl``), else in the
    captures folder, named after the server and the time."""
    if report is not None:
        return report.with_name(report.stem)
    from inspector.core.paths import capture_name, captures_dir

    return captures_dir() / capture_name(f"check-{name}").removesuffix(".jsonl")


def run_check(args: argparse.Namespace, command: list[str], parser: argparse.ArgumentParser) -> int:
    from inspector.cli.main import run_async
    from inspector.core.check.context import CheckOptions
    from inspector.core.check.report import render
    from inspector.core.check.runner import CheckRun, run_checks
    from inspector.core.connect.target import InputError, Target

    if args.url and command:
        parser.error("give either --url or a command after --, not both")
    if not args.url and not command and args.config is None and args.server is None:
        parser.error("check needs the server command after -- (or --url, or --config FILE --server NAME), for "
                     "example: check -- python server.py")
    if args.requirements and args.revision:
        parser.error("give either --requirements or --revision, not both: a requirement set already fixes the "
                     "revision")
    fmt = args.format or (FORMAT_BY_SUFFIX.get(args.report.suffix.lower(), "text") if args.report else "text")
    try:
        target = Target.from_args(args, command)
        base = capture_base(args.report, target.name or "server")
    except InputError as exc:
        print(f"mcp-inspector: {safe(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        print(f"mcp-inspector: cannot make the captures folder: {safe(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    run = CheckRun(target, base, revision=args.revision, requirements=args.requirements, timeout=args.timeout,
                   options=CheckOptions(call_tools=args.call_tools, call_all_tools=args.call_all_tools))
    try:
        report = run_async(run_checks(run))
    except KeyboardInterrupt:
        print("mcp-inspector: interrupted; the server was shut down", file=sys.stderr)
        return EXIT_INTERRUPTED
    text = render(report, fmt)
    if args.report is None:
        sys.stdout.write(text)
    else:
        try:
            args.report.write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"mcp-inspector: cannot write the report {args.report}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
        print(safe(f"{args.report}: {report.summary()}"))
        for path in report.captures:
            print(f"capture: {path}")
    if report.error:
        print(f"mcp-inspector: {safe(report.error)}", file=sys.stderr)
    return report.exit_code
