"""``mcp-inspector tap``: record a real client's session with its server.

* stdio: ``tap [--capture FILE] [--name NAME] [--rules FILE] [--watch PATH] -- COMMAND ARGS``, the transparent
  relay a client runs in place of a server command (see :mod:`inspector.core.tap.relay`). It prints nothing of its
  own on stdout, ever (what intercept rules answer a client is a JSON-RPC message, on a line of its own); with
  ``--watch`` a change restarts the server behind the client (:mod:`inspector.core.tap.reloading`).
* HTTP: ``tap --url UPSTREAM [--listen 127.0.0.1:PORT] [--transport ...]``, a loopback reverse proxy the client
  is given as the server's URL (see :mod:`inspector.core.tap.http_proxy`). It prints its URL on stdout and runs
  until Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import sys

from inspector.cli.rules_option import rules_of

TAP_TRANSPORTS = ("auto", "streamable-http", "sse", "websocket")


def add_parser(sub: argparse._SubParsersAction) -> None:
    from inspector.cli.main import add_max_message_option, add_otlp_option, add_tls_options

    tap = sub.add_parser(
        "tap", help="record a real client's session: relay a stdio server (put it in the client's config), or an "
                    "HTTP server through a local URL (--url)",
        description="stdio: start the server (the command after --) and relay its stdin, stdout and stderr "
                    "unchanged, recording both directions and stderr to a capture and streaming them live to a "
                    "running mcp-inspector window; exits with the server's exit status (128+N for a death by signal "
                    "N). HTTP (--url): listen on 127.0.0.1 (or [::1]) and relay every request of the client that "
                    "is given the printed local URL to the server, and every response back, recording them the "
                    "same way; runs until Ctrl-C, then exits 0 with the capture complete.")
    tap.add_argument("--url", metavar="URL",
                     help="HTTP tap: the server's URL (http, https, ws or wss); the client is given the local URL "
                          "the tap prints instead")
    tap.add_argument("--listen", metavar="ADDRESS:PORT",
                     help="with --url: where the tap listens, 127.0.0.1:PORT or [::1]:PORT only (port 0 picks a "
                          "free one; default 127.0.0.1:0)")
    tap.add_argument("--transport", choices=TAP_TRANSPORTS, default=None,
                     help="with --url: what the server speaks; sse and auto rewrite an HTTP+SSE endpoint event "
                          "naming the server's address to the tap's, websocket prints a ws:// URL (default auto, "
                          "websocket for a ws:// URL)")
    add_tls_options(tap, oauth=False, lead="with --url: ")
    tap.add_argument("--capture", type=_path, metavar="FILE",
                     help="capture file to write (default: a timestamped file in the captures folder)")
    tap.add_argument("--name", metavar="NAME", help="the server's name in captures and in the window "
                                                    "(default: the command's name, or the URL's host)")
    tap.add_argument("--rules", metavar="FILE",
                     help="intercept rules (JSON): rewrite, delay, drop or answer with an error the messages they "
                          "match, both ways; a file that cannot be used, or a pause rule (the window's only), "
                          "exits 2 before the server starts")
    tap.add_argument("--watch", action="append", default=[], metavar="PATH",
                     help="stdio: a file or folder (repeatable); a change under it restarts the server behind the "
                          "client, which keeps its session and is told which lists changed; a missing path exits 2 "
                          "before the server starts")
    tap.add_argument("--watch-ignore", action="append", default=[], metavar="GLOB",
                     help="with --watch: changes to paths matching GLOB (a name or a whole path, repeatable) do not "
                          "restart the server (__pycache__, .git and editors' swap files never do)")
    tap.add_argument("--socket", type=_path, metavar="PATH",
                     help="the window's socket (default: $MCP_INSPECTOR_TAP_SOCKET, else a per-user one)")
    add_max_message_option(tap, help="the largest message the capture holds whole, e.g. 200M (the relay passes "
                                     "every message on, whatever its size; default 64M)")
    tap.add_argument("--no-live", action="store_true", help="do not stream to a window; only record")
    tap.add_argument("--no-redact", action="store_true",
                     help="keep secrets of the command line (stdio) or of headers and URLs (HTTP) in the capture")
    add_otlp_option(tap)


def _path(text: str) -> object:
    from pathlib import Path

    return Path(text).expanduser()


def _otlp_problem(endpoint: str | None) -> str | None:
    if endpoint is None:
        return None
    from inspector.core.otel.exporter import EndpointError, traces_url

    try:
        traces_url(endpoint)
    except EndpointError as exc:
        return str(exc)
    return None


def _usage(sentence: str) -> int:
    from inspector.core.exits import EXIT_BAD_INPUT

    print(f"mcp-inspector tap: {sentence}", file=sys.stderr)
    return EXIT_BAD_INPUT


def run_tap_command(args: argparse.Namespace, command: list[str], parser: argparse.ArgumentParser) -> int:
    from inspector.core.tap.options import EXIT_TAP_ERROR, TapOptions

    if not hasattr(os, "fork"):
        print("mcp-inspector tap: tap runs on Linux and macOS for now (it needs fork and Unix sockets)",
              file=sys.stderr)
        return EXIT_TAP_ERROR
    if args.capture is not None and str(args.capture) == "-":
        parser.error("--capture -: tap's stdout carries the server's messages (or the tap's URL); give a file")
    problem = _otlp_problem(args.otlp_endpoint)
    if problem:
        return _usage(problem)
    if args.url is not None:
        if args.watch or args.watch_ignore:
            return _usage("--watch restarts a stdio server the tap started; an HTTP tap (--url) relays to a server "
                          "it does not run")
        return _run_http(args, command)
    if args.listen is not None or args.transport is not None:
        return _usage("--listen and --transport go with --url (an HTTP tap); a stdio tap takes the server command "
                      "after --")
    if args.ca_file or args.insecure:
        return _usage("--ca-file and --insecure go with --url (an HTTP tap to an https server)")
    if not command:
        parser.error("tap needs the server command after --, for example: tap --name files -- npx -y "
                     "@modelcontextprotocol/server-filesystem ~/Documents (or --url URL for an HTTP server)")
    from inspector.core.connect.target import InputError

    try:
        rules = rules_of(args, "the tap")
    except InputError as exc:
        return _usage(str(exc))
    if args.watch_ignore and not args.watch:
        return _usage("--watch-ignore goes with --watch (the paths whose changes restart the server)")
    from inspector.core.watching import WatchError, check_paths

    try:
        watch = check_paths(args.watch)
    except WatchError as exc:
        return _usage(str(exc))
    from inspector.core.tap.relay import run_tap

    options = TapOptions(argv=command, name=args.name, capture=args.capture, socket=args.socket,
                         live=not args.no_live, redact=not args.no_redact, max_message=args.max_message,
                         otlp_endpoint=args.otlp_endpoint, rules=rules, watch=watch,
                         watch_ignore=list(args.watch_ignore), explain_failure=_doctor_says)
    try:
        return run_tap(options)
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        print(f"mcp-inspector tap: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_TAP_ERROR


def _doctor_says(argv: list[str], stderr: list[str]) -> str | None:
    """The doctor's first failing step for a server that failed to start after a change, from what costs nothing
    more: the ``command`` step (is the program there and runnable), else the ``start`` step's advice from the
    server's last stderr lines (``doctor`` itself would start the server again)."""
    from inspector.core.connect.target import Target
    from inspector.core.doctor.command import command_step, exit_fix
    from inspector.core.doctor.model import FAILED

    step = command_step(Target(argv=list(argv)))
    if step.status == FAILED:
        return f"doctor, step command: {step.detail} {step.fix}"
    return f"doctor, step start: the server exited. {exit_fix(stderr, argv[0] if argv else 'the server')}"


def _run_http(args: argparse.Namespace, command: list[str]) -> int:
    from inspector.core.tap.http_guard import ListenError, parse_listen
    from inspector.core.tap.options import EXIT_TAP_ERROR, TapOptions
    from inspector.core.transports.http_common import UrlError, check_url

    if command:
        return _usage("give either --url (an HTTP tap) or a server command after -- (a stdio tap), not both")
    try:
        check_url(args.url)
    except UrlError as exc:
        return _usage(f"--url {exc.url!r} {exc.detail}")
    try:
        listen = parse_listen(args.listen if args.listen is not None else "127.0.0.1:0")
    except ListenError as exc:
        return _usage(str(exc))
    transport = args.transport or ("websocket" if args.url.startswith(("ws://", "wss://")) else "auto")
    if args.url.startswith(("ws://", "wss://")) and transport != "websocket":
        return _usage(f"--url {args.url!r} is a WebSocket URL; --transport {transport} cannot reach it")
    from inspector.core.connect.target import InputError, tls_from_args

    try:
        ca_file, insecure = tls_from_args(args.ca_file, args.insecure)
    except InputError as exc:
        return _usage(str(exc))
    try:
        rules = rules_of(args, "the tap")
    except InputError as exc:
        return _usage(str(exc))
    from inspector.core.tap.http_proxy import run_http_tap

    options = TapOptions(url=args.url, listen=listen, transport=transport, name=args.name, capture=args.capture,
                         socket=args.socket, live=not args.no_live, redact=not args.no_redact,
                         max_message=args.max_message, ca_file=ca_file, insecure=insecure,
                         otlp_endpoint=args.otlp_endpoint, rules=rules)
    try:
        return run_http_tap(options)
    except OSError as exc:
        print(f"mcp-inspector tap: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_TAP_ERROR
