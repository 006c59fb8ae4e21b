"""``mcp-inspector serve CAPTURE``: a recorded session served back as the server, on stdio (a client's config can
launch it as its server); the twin itself is :mod:`inspector.core.serve`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.cli.serve_faults import add_fault_options, faults_and_rules, summary_of
from inspector.core.exits import EXIT_BAD_INPUT, EXIT_CANNOT_CONNECT, EXIT_INTERRUPTED, EXIT_OK, SERVE_EXITS, exits_help
from inspector.core.text import counted, safe

if TYPE_CHECKING:
    from inspector.core.serve.stdio import ServedCapture


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from inspector.cli.main import EpilogFormatter, add_max_message_option

    serve = sub.add_parser(
        "serve", help="serve a capture back as the server: a twin of it that a client can use offline",
        description="Answer a client on stdin and stdout as the capture's server did: the handshake as recorded "
                    "(initialize, or server/discover for a 2026-07-28 capture), each request with its recorded "
                    "answer, the server's notifications where the capture had them. A request the capture has no "
                    "answer to gets a JSON-RPC error naming the closest recorded request and what differs; they "
                    "are listed on stderr at the end. Messages on stdout only; what serve says goes to stderr.",
        epilog=exits_help(SERVE_EXITS), formatter_class=EpilogFormatter)
    serve.add_argument("capture", type=Path, metavar="CAPTURE", help="the capture to serve")
    serve.add_argument("--match", choices=("auto", "sequential", "strict"), default="auto",
                       help="auto (default): a request gets the answer of the recorded request with the same method "
                            "and params (_meta and progress tokens aside), identical requests the recorded answers "
                            "in order, then the last again; sequential: the recorded answers in recorded order, "
                            "whatever comes; strict: as auto, and only in the recorded order")
    serve.add_argument("--out", type=Path, metavar="FILE",
                       help="record the served session to this capture: the client's messages and the twin's "
                            "answers, each with the recorded answer it came from, unmatched requests flagged")
    add_fault_options(serve)
    serve.add_argument("--live", action=argparse.BooleanOptionalAction, default=True,
                       help="stream the served session to a running window, which shows it in a tab of its own "
                            "(\"serve: CAPTURE\"), as tap does; --no-live: do not (default: --live, when a window "
                            "listens)")
    serve.add_argument("--socket", type=Path, metavar="PATH",
                       help="the window's socket (default: $MCP_INSPECTOR_TAP_SOCKET, else a per-user one)")
    add_max_message_option(serve, help="the largest message of the client's read whole, e.g. 200M; a longer line "
                                       "is answered as an invalid request (default 64M)")


def run_serve(args: argparse.Namespace) -> int:
    from inspector.cli.serve_faults import conductor_of
    from inspector.core.capture import CaptureError
    from inspector.core.serve.index import ServeIndex
    from inspector.core.serve.paced import serve_paced
    from inspector.core.serve.stdio import serve_stdio
    from inspector.core.serve.twin import Twin

    if args.out is not None and _same_file(args.out, args.capture):
        print(f"mcp-inspector: --out {safe(str(args.out))} is the capture being served: writing it would destroy "
              "it; give another file", file=sys.stderr)
        return EXIT_BAD_INPUT
    chosen = faults_and_rules(args)
    if chosen is None:
        return EXIT_BAD_INPUT
    try:
        index = ServeIndex(args.capture)
    except CaptureError as exc:
        print(f"mcp-inspector: {safe(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        for warning in index.warnings:
            print(f"mcp-inspector: warning: {safe(warning)}", file=sys.stderr)
        twin = Twin(index, args.match)
        if not len(index) and twin.handshake.missing:
            print(f"mcp-inspector: {safe(str(args.capture))} holds no request with an answer: nothing to serve",
                  file=sys.stderr)
            return EXIT_CANNOT_CONNECT
        if twin.handshake.missing:
            print(f"mcp-inspector: {safe(str(args.capture))} has no handshake: initialize is answered with the "
                  "capabilities its recorded requests show, and the rest as recorded", file=sys.stderr)
        conductor = conductor_of(twin, *chosen)
        record = None
        if args.out is not None or args.live:
            try:
                record = _record(args, index.capture.header)
            except OSError as exc:
                print(f"mcp-inspector: {safe(str(args.out))} cannot be written: {exc.strerror}", file=sys.stderr)
                return EXIT_BAD_INPUT
            record.note(f"serving {args.capture} (--match {args.match})")
        try:
            if conductor is None:
                serve_stdio(twin, max_message=args.max_message, record=record)
            else:
                serve_paced(conductor, max_message=args.max_message, record=record)
        except KeyboardInterrupt:
            return EXIT_INTERRUPTED
        finally:
            _summarize(twin, args.capture, record, conductor)
    finally:
        index.close()
    return EXIT_OK


def _record(args: argparse.Namespace, header: dict[str, Any]) -> ServedCapture:
    """The served session's record: to ``--out``, and with ``--live`` to a listening window too."""
    from inspector.core.serve.live import LiveCapture
    from inspector.core.serve.stdio import ServedCapture
    from inspector.core.tap.channel import TapFeed, default_socket_path

    if not args.live:
        return ServedCapture(args.out, args.capture, header, args.match)
    socket = args.socket or default_socket_path()
    return LiveCapture(args.out, args.capture, header, args.match, lambda hello: TapFeed(
        socket, hello, warn=lambda text: print(f"mcp-inspector serve: {safe(text)}", file=sys.stderr)))


def _summarize(twin: object, capture: Path, record: object, conductor: object = None) -> None:
    from inspector.core.serve.stdio import ServedCapture
    from inspector.core.serve.twin import Twin

    assert isinstance(twin, Twin)
    missed = twin.missed
    head = f"mcp-inspector: served {counted(twin.answered, 'request')} from {safe(str(capture))}"
    if missed:
        head += f"; {missed:,} had no recorded answer:"
    text = "\n".join([head, *(f"  {safe(line)}" for line in twin.summary()),
                      *(f"mcp-inspector: {safe(line)}" for line in summary_of(conductor))])
    if isinstance(record, ServedCapture):
        record.note("\n".join(line.removeprefix("mcp-inspector: ") for line in text.splitlines()))
        record.close()
    try:
        print(text, file=sys.stderr)
    except (BrokenPipeError, ValueError):
        pass


def _same_file(one: Path, other: Path) -> bool:
    try:
        return one.resolve() == other.resolve() or (one.exists() and other.exists() and one.samefile(other))
    except OSError:
        return False
