"""``mcp-inspector serve CAPTURE``: a recorded session served back as the server, on stdio (a client's config can
launch it as its server) or over HTTP on loopback (``--listen``, :mod:`inspector.cli.serve_http`); the twin itself
is :mod:`inspector.core.serve`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.cli.serve_faults import add_fault_options, faults_and_rules, summary_of
from inspector.core.exits import EXIT_BAD_INPUT, EXIT_CANNOT_CONNECT, EXIT_INTERRUPTED, EXIT_OK, SERVE_EXITS, exits_help
from inspector.core.text import counted, safe

if TYPE_CHECKING:
    from inspector.core.intercept.rules import Rules
    from inspector.core.serve.conduct import Conductor
    from inspector.core.serve.early import EarlyStart
    from inspector.core.serve.fault_link import FaultLink
    from inspector.core.serve.faults import Faults
    from inspector.core.serve.index import ServeIndex
    from inspector.core.serve.stdio import ServedCapture
    from inspector.core.serve.twin import Twin


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from inspector.cli.main import EpilogFormatter, add_max_message_option

    serve = sub.add_parser(
        "serve", help="serve a capture back as the server: a twin of it that a client can use offline",
        description="Answer a client on stdin and stdout as the capture's server did: the handshake as recorded "
                    "(initialize, or server/discover for a 2026-07-28 capture), each request with its recorded "
                    "answer, the server's notifications where the capture had them. A request the capture has no "
                    "answer to gets a JSON-RPC error naming the closest recorded request and what differs; they "
                    "are listed on stderr at the end. Messages on stdout only; what serve says goes to stderr. "
                    "With --listen, the same over HTTP on loopback: the URL to give the client is the one line on "
                    "stdout, each session gets a twin of its own, and Ctrl-C or SIGTERM ends it.",
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
                            "(\"serve: CAPTURE\"), as tap does, and lets that tab turn the faults on and off while "
                            "it runs (over HTTP for all its sessions); --no-live: do not (default: --live, when a "
                            "window listens)")
    serve.add_argument("--socket", type=Path, metavar="PATH",
                       help="the window's socket (default: $MCP_INSPECTOR_TAP_SOCKET, else a per-user one)")
    add_max_message_option(serve, help="the largest message of the client's read whole, e.g. 200M; a longer line "
                                       "is answered as an invalid request (default 64M)")
    serve.add_argument("--listen", metavar="127.0.0.1:PORT",
                       help="serve over HTTP on this loopback address instead of stdio (127.0.0.1 or [::1] only; "
                            "PORT 0 picks a free one); the URL to give the client is printed on stdout, and "
                            "Ctrl-C or SIGTERM ends it")
    serve.add_argument("--transport", choices=("streamable-http", "sse", "websocket"), default=None,
                       help="with --listen: streamable-http (default; the URL ends in /mcp), sse, the HTTP+SSE "
                            "transport of 2024-11-05 (/sse, messages POSTed to the endpoint it names), or websocket "
                            "(ws://.../mcp, a message a text frame; needs the websocket extra)")


def run_serve(args: argparse.Namespace) -> int:
    from inspector.cli.serve_faults import conductor_of
    from inspector.core.capture import CaptureError
    from inspector.core.serve.early import EarlyStart
    from inspector.core.serve.http import served_url
    from inspector.core.serve.index import ServeIndex
    from inspector.core.serve.twin import Twin

    listen = _listen(args)
    if isinstance(listen, int):
        return listen
    if args.out is not None and _same_file(args.out, args.capture):
        print(f"mcp-inspector: --out {safe(str(args.out))} is the capture being served: writing it would destroy "
              "it; give another file", file=sys.stderr)
        return EXIT_BAD_INPUT
    chosen = faults_and_rules(args)
    if chosen is None:
        return EXIT_BAD_INPUT
    faults, rules = chosen
    try:
        early = EarlyStart.begin(args.capture, args.match, on_ready=_warn) \
            if listen is None and not faults and not (rules and rules.rules) else None
        if early is not None:
            return _serve_early(args, early, faults, rules)
        index = ServeIndex(args.capture)
    except CaptureError as exc:
        print(f"mcp-inspector: {safe(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        _warn(index)
        twin = Twin(index, args.match)
        if not len(index) and twin.handshake.missing:
            print(f"mcp-inspector: {safe(str(args.capture))} holds no request with an answer: nothing to serve",
                  file=sys.stderr)
            return EXIT_CANNOT_CONNECT
        if twin.handshake.missing:
            print(f"mcp-inspector: {safe(str(args.capture))} has no handshake: initialize is answered with the "
                  "capabilities its recorded requests show, and the rest as recorded", file=sys.stderr)
        sock = None
        if listen is not None:
            from inspector.cli.serve_http import listening_socket

            sock = listening_socket(*listen[:2])
            if sock is None:
                return EXIT_BAD_INPUT
            listen = (listen[0], sock.getsockname()[1], listen[2])
        record = _open_record(args, index.capture.header,
                              None if listen is None else (listen[2], served_url(*listen)))
        if isinstance(record, int):
            if sock is not None:
                sock.close()
            return record
        link = _window_link(args, record, faults)
        if listen is not None:
            from inspector.cli.serve_http import run_http

            assert sock is not None
            try:  # every session's conductor asks the one faults, which the window's toggles change
                return run_http(index, lambda: Twin(index, args.match), listen, sock, args, record, _summarize,
                                faults, rules, link.toggles if link is not None else None)
            finally:
                if link is not None:
                    link.close()
        conductor = conductor_of(twin, faults, rules, toggled=link is not None)
        try:
            _serve_on_stdio(twin, conductor, link, record, args.max_message)
        except KeyboardInterrupt:
            return EXIT_INTERRUPTED
        finally:
            if link is not None:
                link.close()
            _summarize(twin, args.capture, record, conductor)
    finally:
        index.close()
    return EXIT_OK


def _serve_early(args: argparse.Namespace, early: EarlyStart, faults: Faults, rules: Rules | None) -> int:
    """Serve on stdio with the handshake answered while the capture is indexed (:mod:`inspector.core.serve.early`;
    no faults nor rules), then as :func:`run_serve` does."""
    from inspector.cli.serve_faults import conductor_of

    twin: Twin = early.early
    conductor = None
    link = None
    try:
        record = _open_record(args, early.header, None)
        if isinstance(record, int):
            return record
        try:
            link = _window_link(args, record, faults)
            pending = early.serve_handshake(max_message=args.max_message, record=record)
            if pending is not None:
                twin = early.twin()
                conductor = conductor_of(twin, faults, rules, toggled=link is not None)
                if conductor is not None:
                    conductor.answered_before(early.answered)
                _serve_on_stdio(twin, conductor, link, record, args.max_message, pending)
        except KeyboardInterrupt:
            return EXIT_INTERRUPTED
        finally:
            if link is not None:
                link.close()
            _summarize(twin, args.capture, record, conductor)
    finally:
        if twin is not early.early:
            twin.index.close()
        early.close()
    return EXIT_OK


def _warn(index: ServeIndex) -> None:
    """Say on stderr what the index skipped of the capture (from the thread that built it, when it was built while
    the handshake was served)."""
    for warning in index.warnings:
        print(f"mcp-inspector: warning: {safe(warning)}", file=sys.stderr)


def _open_record(args: argparse.Namespace, header: dict[str, Any],
                 url: tuple[str, str] | None) -> ServedCapture | int | None:
    """The served session's record (:func:`_record`), None when neither ``--out`` nor ``--live`` asks for one;
    EXIT_BAD_INPUT, after a sentence, when ``--out`` cannot be written."""
    if args.out is None and not args.live:
        return None
    try:
        record = _record(args, header, url)
    except OSError as exc:
        print(f"mcp-inspector: {safe(str(args.out))} cannot be written: {exc.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    record.note(f"serving {args.capture} (--match {args.match})")
    return record


def _window_link(args: argparse.Namespace, record: ServedCapture | None, faults: Faults) -> FaultLink | None:
    """With ``--live``, the link through which a window that took the feed toggles the faults (None without)."""
    if not args.live:
        return None
    from inspector.cli.serve_faults import window_toggles
    from inspector.core.tap.channel import default_socket_path

    return window_toggles(record, faults, args.capture, args.socket or default_socket_path())


def _serve_on_stdio(twin: Twin, conductor: Conductor | None, link: FaultLink | None, record: ServedCapture | None,
                    max_message: int, pending: bytes = b"") -> None:
    """Serve on stdio: by the twin alone, or paced by ``conductor`` when faults, rules or a window's toggles act."""
    from inspector.core.serve.paced import serve_paced
    from inspector.core.serve.stdio import serve_stdio

    if conductor is None:
        serve_stdio(twin, max_message=max_message, record=record, pending=pending)
    else:
        serve_paced(conductor, max_message=max_message, record=record,
                    toggles=link.toggles if link is not None else None, pending=pending)


def _record(args: argparse.Namespace, header: dict[str, Any], url: tuple[str, str] | None) -> ServedCapture:
    """The served session's record: to ``--out``, and with ``--live`` to a listening window too (``url``: the
    transport and URL it is served on over HTTP, None on stdio)."""
    from inspector.core.serve.live import LiveCapture
    from inspector.core.serve.stdio import ServedCapture
    from inspector.core.tap.channel import TapFeed, default_socket_path

    if not args.live:
        return ServedCapture(args.out, args.capture, header, args.match, url)
    socket = args.socket or default_socket_path()
    return LiveCapture(args.out, args.capture, header, args.match, lambda hello: TapFeed(
        socket, hello, warn=lambda text: print(f"mcp-inspector serve: {safe(text)}", file=sys.stderr)), url)


def _listen(args: argparse.Namespace) -> tuple[str, int, str] | int | None:
    """(address, port, transport) of ``--listen``; None for stdio; an exit status after a sentence when the
    options cannot be served."""
    from inspector.core.tap.http_guard import ListenError, parse_listen

    if args.listen is None:
        if args.transport is not None:
            print("mcp-inspector: --transport is for --listen: without it serve speaks stdio", file=sys.stderr)
            return EXIT_BAD_INPUT
        return None
    transport = args.transport or "streamable-http"
    if transport == "websocket":
        from inspector.core.serve.websocket import available

        missing = available()
        if missing is not None:
            print(f"mcp-inspector: {missing}", file=sys.stderr)
            return EXIT_BAD_INPUT
    try:
        host, port = parse_listen(args.listen, who="serve")
    except ListenError as exc:
        print(f"mcp-inspector: {safe(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return host, port, transport


def _summarize(twin: object, capture: Path, record: object, conductor: object = None) -> None:
    """Say on stderr (and in ``--out``) how many requests were answered and which had no recorded answer;
    ``twin`` is the :class:`~inspector.core.serve.twin.Twin`, or the totals of an HTTP twin's sessions."""
    from inspector.core.serve.stdio import ServedCapture

    assert hasattr(twin, "missed") and hasattr(twin, "answered") and hasattr(twin, "summary")
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
