"""The options that name and reach a server, for the commands that connect to one (the one-shot commands,
``app``, ``diff --against``, ``baseline``, ``run``, ``load``): the same ``-- CMD``, ``--url`` (with every HTTP
and OAuth option of :func:`inspector.cli.main.add_http_options`), ``--config``/``--server``, ``--handshake``,
``--timeout`` and the rest as ``record``, read by :meth:`Target.from_args`.
"""

from __future__ import annotations

import argparse
import sys

from inspector.core.exits import EXIT_BAD_INPUT
from inspector.core.text import safe

#: ``--timeout``'s help for the commands that wait for one answer (the one-shot commands, ``app``).
EACH_RESPONSE_TIMEOUT_HELP = "wait for each response, and for the whole handshake (default 30)"


def add_server_options(parser: argparse.ArgumentParser, *, roots: bool = False,
                       timeout_help: str = "wait for the handshake and each response (default 30)") -> None:
    """The options that reach a server and say what the client declares: ``--handshake``,
    ``--protocol-version``, ``--timeout``, ``--max-message``, ``--cwd``, ``--env``, ``--no-redact``,
    ``--answer`` and every HTTP, OAuth and config option. ``roots``: also ``--root`` (repeatable), for the
    commands whose session declares the roots capability (the one-shot commands, ``app``); a command
    that would not pass them to its session does not offer it."""
    from inspector.cli.argtypes import positive
    from inspector.cli.main import add_http_options, add_max_message_option

    parser.add_argument("--handshake", choices=("auto", "legacy", "modern", "none"), default="auto",
                        help="auto: probe server/discover (2026-07-28), else initialize (default)")
    parser.add_argument("--protocol-version", metavar="V",
                        help="protocol revision to ask for (legacy default 2025-11-25)")
    parser.add_argument("--timeout", type=positive, default=30.0, metavar="S", help=timeout_help)
    add_max_message_option(parser)
    parser.add_argument("--cwd", metavar="DIR", help="working directory of the server")
    parser.add_argument("--env", action="append", default=[], metavar="K=V", help="environment override (repeatable)")
    if roots:
        parser.add_argument("--root", action="append", default=[], metavar="DIR",
                            help="declare the roots capability and answer roots/list with this folder (a file:// "
                                 "URI; repeatable; default: no roots)")
    parser.add_argument("--no-redact", action="store_true", help="keep secrets in the capture")
    parser.add_argument("--answer", action="append", default=[], metavar="KIND=POLICY",
                        help="answer server requests: elicitation=accept-defaults|decline|cancel, "
                             "sampling=error|text:TEXT (repeatable)")
    add_http_options(parser, "connect to this URL instead of launching a command",
                     "auto (default: Streamable HTTP, falling back to HTTP+SSE), streamable-http, sse, "
                     "or a plug-in transport")


def names_server(args: argparse.Namespace, command: list[str]) -> bool:
    """Whether the command line names a server: a command after --, --url, or --config/--server."""
    return bool(command or args.url or args.config is not None or args.server)


def server_problem(args: argparse.Namespace, command: list[str], name: str, example: str) -> str | None:
    """Why the server the command line names cannot be used (none named, or two ways at once), or None."""
    if args.url and command:
        return f"{name} takes either --url or a command after --, not both"
    if not names_server(args, command):
        return f"{name} needs the server: a command after -- (for example: mcp-inspector {example} -- python " \
               "-m my_server) or --url URL"
    return None


def fail(sentence: str, code: int = EXIT_BAD_INPUT) -> int:
    """Say ``sentence`` on stderr as the inspector's errors are said, and return ``code``."""
    print(f"mcp-inspector: {safe(sentence)}", file=sys.stderr)
    return code
