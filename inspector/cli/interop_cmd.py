"""``mcp-inspector export`` (a capture to HAR, Markdown, HTML or JSON-RPC lines) and ``import`` (a HAR file
of an MCP session to a capture)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from inspector.core.exits import EXIT_BAD_INPUT, EXIT_OK
from inspector.core.text import safe


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from inspector.core.interop import FORMATS

    export = sub.add_parser(
        "export", help="write a capture as HAR, a Markdown or HTML report, or JSON-RPC lines",
        description="Write a capture in another format: har (HTTP sessions: HAR 1.2 for a browser's network "
                    "panel), markdown or html (a readable report; the HTML is one self-contained file), jsonrpc "
                    "(the exact JSON-RPC lines, one message per line), otlp (OpenTelemetry traces, OTLP/JSON lines: a "
                    "span per request, a request's _meta traceparent honoured, notifications as span events).")
    export.add_argument("capture", type=Path, metavar="CAPTURE", help="the capture file (JSON Lines)")
    export.add_argument("--to", required=True, choices=tuple(FORMATS), help="the format to write")
    export.add_argument("--out", metavar="FILE", default="-", help="where to write it (default: - for stdout)")
    export.add_argument("--direction", choices=("both", "sent", "received"), default="both",
                        help="with --to jsonrpc: the client's messages, the server's, or both (default)")
    imp = sub.add_parser(
        "import", help="turn a HAR file or an MCP Inspector history into a capture",
        description="Read a HAR file saved from a browser's network panel (or written by export --to har), or the "
                    "official MCP Inspector's request history (a JSON list of {request, response}), and write "
                    "its MCP exchanges as a capture that opens in the window and replays (a history names no "
                    "server: replay it with --url or -- CMD).")
    imp.add_argument("file", type=Path, metavar="FILE", help="the HAR or history file")
    imp.add_argument("--out", required=True, type=Path, metavar="CAPTURE", help="the capture file to write")
    imp.add_argument("--no-redact", action="store_true",
                     help="keep the secrets of the HTTP exchanges (Authorization, Cookie, Set-Cookie, URL "
                          "credentials) in the capture")


def run_export(args: argparse.Namespace) -> int:
    from inspector.core.interop.convert import export_capture, first_and_rest
    from inspector.core.interop.har import ExportError

    try:  # the export streams (a capture of any size): a refusal comes with its first chunk, before any output
        first, rest = first_and_rest(export_capture(args.capture, args.to, args.direction))
    except ExportError as exc:
        print(f"mcp-inspector: {safe(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        if args.out == "-":
            sys.stdout.buffer.write(first)
            for chunk in rest:
                sys.stdout.buffer.write(chunk)
            sys.stdout.flush()
        else:
            with open(args.out, "wb") as handle:
                handle.write(first)
                handle.writelines(rest)
    except BrokenPipeError:
        sys.stderr.close()
    except ExportError as exc:  # the capture broke off past its start: what was written stays, the reason is said
        print(f"mcp-inspector: {safe(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        print(f"mcp-inspector: cannot write {args.out}: {exc.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK


def run_import(args: argparse.Namespace) -> int:
    from inspector.core.interop.convert import import_file
    from inspector.core.interop.har import ExportError

    try:
        count = import_file(args.file, args.out, redact=not args.no_redact)
    except ExportError as exc:
        print(f"mcp-inspector: {safe(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        print(f"mcp-inspector: cannot write {args.out}: {exc.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(safe(f"{args.out}: {count} events from {args.file}"), file=sys.stderr)
    return EXIT_OK
