"""``mcp-inspector serve CAPTURE --listen 127.0.0.1:PORT``: the twin over HTTP until Ctrl-C or SIGTERM (the
server itself is :mod:`inspector.core.serve.http`)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import socket
import sys
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from inspector.core.exits import EXIT_OK
from inspector.core.intercept.rules import Rules
from inspector.core.serve.faults import Faults
from inspector.core.serve.http import HttpTwin, serve_http, served_url
from inspector.core.serve.index import ServeIndex
from inspector.core.serve.stdio import ServedCapture
from inspector.core.serve.twin import Twin
from inspector.core.text import counted, safe

if TYPE_CHECKING:
    from inspector.core.serve.fault_link import FaultToggles

#: Signals that end the served capture (the capture of --out complete).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def listening_socket(host: str, port: int) -> socket.socket | None:
    """The listening socket, or None after a sentence on stderr (the port taken, say)."""
    from inspector.core.tap.http_guard import origin_text
    from inspector.core.tap.http_proxy import bind

    try:
        return bind(host, port)
    except OSError as exc:
        print(f"mcp-inspector: cannot listen on {origin_text(host, port)[7:]}: {exc.strerror or exc}",
              file=sys.stderr)
        return None


def run_http(index: ServeIndex, make_twin: Callable[[], Twin], listen: tuple[str, int, str], sock: socket.socket,
             args: argparse.Namespace, record: ServedCapture | None, summarize: Callable[..., None],
             faults: Faults | None = None, rules: Rules | None = None, toggles: FaultToggles | None = None) -> int:
    """Serve until SIGINT, SIGTERM or SIGHUP, or close-after; prints the URL on stdout first. Returns 0 (the
    stop is the end). Each session's conductor asks ``faults`` (one for all) and ``rules``; ``toggles``: the
    window's changes to ``faults``, made on the serving loop as they come."""
    host, port, transport = listen
    url = served_url(host, port, transport)
    server = HttpTwin(make_twin, port=port, transport=transport, max_message=args.max_message,
                      offers_stream=index.unprompted_notifications > 0, record=record, faults=faults, rules=rules)
    if record is not None:
        record.note(f"listening on {url} ({transport})")

    def say_url() -> None:  # once the stop signals are handled: a client may signal as soon as it has the URL
        with contextlib.suppress(OSError, ValueError):
            print(url, flush=True)
        print(f"mcp-inspector: serving {safe(str(args.capture))} at {url}; give the client that URL. Ctrl-C ends "
              "it", file=sys.stderr, flush=True)

    stopped_by: list[str] = []
    try:
        asyncio.run(_main(server, sock, stopped_by, say_url, toggles))
    finally:
        sock.close()
        if server.unsent():
            print(f"mcp-inspector: note: {counted(server.unsent(), 'notification')} the capture's server sent outside "
                  "requests went to no client: none had a GET stream open to take them (Streamable HTTP sends them "
                  "only there)", file=sys.stderr)
        totals = server.totals()
        summarize(totals, args.capture, record, totals)
    return EXIT_OK


async def _main(server: HttpTwin, sock: socket.socket, stopped_by: list[str], ready: Callable[[], None],
                toggles: FaultToggles | None = None) -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    if toggles is not None:  # the link's thread asks; the change is made on this loop, between two messages
        toggles.wake = partial(_wake, loop, toggles)
        server.after_flush = toggles.apply  # an oversize that padded an answer and cleared itself is said at once
        toggles.apply()

    def on_signal(sig: int) -> None:
        stopped_by.append(signal.Signals(sig).name)
        stop.set()

    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, on_signal, sig)
    ready()
    try:
        await serve_http(server, sock, stop)
    finally:
        if toggles is not None:
            toggles.wake = lambda: None
        for sig in STOP_SIGNALS:
            with contextlib.suppress(ValueError, RuntimeError):
                loop.remove_signal_handler(sig)


def _wake(loop: asyncio.AbstractEventLoop, toggles: FaultToggles) -> None:
    """The window changed the faults (the link's thread): made on the serving loop."""
    with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: serving is over
        loop.call_soon_threadsafe(toggles.apply)
