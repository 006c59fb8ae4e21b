"""Entry point of ``mcp-inspector``: parses arguments and dispatches to a headless command (or, later, the GUI).

Everything after the first ``--`` is the server command, passed to exec as an argument list (never a shell).
Headless commands never import Qt, so they start fast and run on machines without a display. This module
imports only what parsing the arguments needs: asyncio, Qt, httpx and the rest are imported by the command
that uses them, so ``--version`` and ``--help`` cost little more than starting Python (benchmarks/startup.py).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import sys
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

from inspector import __version__
from inspector.cli.argtypes import non_negative, positive, size, timeout_or_none
from inspector.cli.rules_option import add_rules_option
from inspector.core.exits import RECORD_EXITS, RECORD_EXITS_ORDER, exits_help
from inspector.core.sizes import DEFAULT_MAX_MESSAGE

T = TypeVar("T")

EPILOG = """\
examples:
  mcp-inspector --demo
  mcp-inspector session.jsonl                    (the same as --open session.jsonl)
  mcp-inspector record --out session.jsonl -- python -m my_server
  mcp-inspector record --out s.jsonl --send calls.jsonl --timeout 20 -- npx -y @modelcontextprotocol/server-everything
  mcp-inspector show session.jsonl
  mcp-inspector call get-sum a=2 b=3 -- npx -y @modelcontextprotocol/server-everything
  mcp-inspector doctor --url https://localhost:8443/mcp
  mcp-inspector tap --name files -- npx -y @modelcontextprotocol/server-filesystem ~/Documents
  mcp-inspector tap --url https://mcp.example.com/mcp --listen 127.0.0.1:8765
  mcp-inspector wrap ~/.config/Claude/claude_desktop_config.json --all
"""


def split_command(argv: list[str]) -> tuple[list[str], list[str]]:
    """Split at the first ``--``: inspector options before it, the server command after it."""
    if "--" in argv:
        index = argv.index("--")
        return argv[:index], argv[index + 1 :]
    return argv, []


class _Unbuilt:
    """What a command's parser is when its arguments are not wanted (:func:`build_parser`'s ``only``): every
    call on it does nothing and gives another such object, so a command's ``add_parser`` code runs unchanged."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: _Unbuilt()


class _OnlyThese:
    """The subcommands action, building in full only the commands named in ``wanted``: every other command
    keeps its name and help (``--help`` lists it; argparse knows it is a command) but gets no arguments. Adding
    the arguments of all 31 commands costs about 15 ms of CPU, a tenth of a headless command's start."""

    def __init__(self, sub: Any, wanted: set[str]) -> None:
        self._sub, self._wanted = sub, wanted

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        if name in self._wanted:
            return self._sub.add_parser(name, **kwargs)
        self._sub.add_parser(name, help=kwargs.get("help"))
        return _Unbuilt()


_TRANSLATION_SWAP = threading.Lock()


@contextlib.contextmanager
def _argparse_words_translated_once() -> Iterator[None]:
    """While the parser is built, argparse's own words (``options``, ``show this help message and exit``) are
    each translated once. argparse asks gettext for them every time it makes a parser, 93 times here, and
    gettext searches the disk for a catalogue on each call when the locale has none: 11 ms of the 20 ms
    building took. The locale cannot change while the parser is built, so the answers are the same. One build
    at a time swaps the function, so two threads cannot leave the remembering one in place."""
    with _TRANSLATION_SWAP:
        translate = argparse._  # type: ignore[attr-defined]  # argparse's gettext, a module global it calls
        argparse._ = functools.cache(translate)  # type: ignore[attr-defined]  # the same, remembered
        try:
            yield
        finally:
            argparse._ = translate  # type: ignore[attr-defined]  # as it was, for any later parser


def build_parser(only: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser. With ``only`` (the words typed before ``--``), only the commands among those
    words get their arguments (the one argparse will pick is the first word that names a command, so it is
    among them); the others are names and help. Without it, every command is built (the reference, the
    completions, the tests)."""
    with _argparse_words_translated_once():
        return _build_parser(only)


def _build_parser(only: list[str] | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcp-inspector",
        description="Inspect and debug Model Context Protocol servers: every byte on the wire, explained.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"mcp-inspector {__version__}")
    parser.add_argument("--demo", action="store_true", help="open a session with the bundled demo server")
    parser.add_argument("--open", type=Path, metavar="FILE", help="open a capture read-only in the window")
    parser.add_argument("--url", dest="gui_url", metavar="URL", help="open a session with this HTTP server")
    parser.add_argument("--transport", dest="gui_transport", default="auto", metavar="NAME",
                        help="with --url: auto, streamable-http, sse, websocket")
    parser.add_argument("-H", "--header", dest="gui_headers", action="append", default=[], metavar="'NAME: VALUE'",
                        help="with --url: an extra header (repeatable)")
    parser.add_argument("--oauth", dest="gui_oauth", action="store_true",
                        help="with --url: on 401, sign in with OAuth 2.1 in the system browser (the Auth tab shows "
                             "each step)")
    add_tls_options(parser, dest_prefix="gui_", lead="with --url: ")
    add_config_options(parser, dest_prefix="gui_")
    parser.add_argument("--timeout", dest="gui_timeout", type=timeout_or_none, metavar="S",
                        help="the window's sessions without a profile wait S seconds for the handshake and each "
                             "response ('none': no timeout; default: Session > Request timeout…, 30)")
    add_otlp_option(parser, dest="gui_otlp_endpoint")
    parser.add_argument("--headless", action="store_true",
                        help="with --demo: record and print the session instead of opening a window")
    add_max_message_option(parser, default=None,
                           help="the largest message read whole in this run's sessions, e.g. 200M (default: the "
                                "window's setting, Session > Message size limit, else 64M)")
    parser.add_argument("--watch", dest="gui_watch", action="append", default=[], metavar="PATH",
                        help="with a server command after --: reload on save, a change to this file or folder "
                             "(repeatable) restarting the server in the same tab and rerunning the pinned calls")
    parser.add_argument("--watch-ignore", dest="gui_watch_ignore", action="append", default=[], metavar="GLOB",
                        help="with --watch: changes to paths matching this glob do not reload (repeatable)")
    # for benchmarks/startup.py and the start-up test: print "shown" once the window has painted, then quit
    parser.add_argument("--exit-when-shown", action="store_true", help=argparse.SUPPRESS)
    sub: Any = parser.add_subparsers(dest="command", metavar="COMMAND")
    if only is not None:
        sub = _OnlyThese(sub, set(only))

    rec = sub.add_parser("record", help="launch a server, run a session, save it as a capture",
                         description="Launch a stdio server (the command after --), do the handshake, send the "
                                     "messages of --send in order, wait for the answers, shut the server down and "
                                     "save everything that crossed the wire to --out.",
                         epilog=exits_help(RECORD_EXITS, RECORD_EXITS_ORDER), formatter_class=EpilogFormatter)
    rec.add_argument("--out", required=True, type=Path, metavar="FILE",
                     help="capture file to write (JSON Lines); - writes it to stdout (the summary line then goes "
                          "to stderr)")
    rec.add_argument("--send", type=Path, metavar="MESSAGES.jsonl",
                     help="JSON objects to send after the handshake, one per line (requests without id get one); "
                          "- reads them from stdin")
    rec.add_argument("--handshake", choices=("auto", "legacy", "modern", "none"), default="auto",
                     help="auto: probe server/discover (2026-07-28), else initialize (default)")
    rec.add_argument("--protocol-version", metavar="V", help="protocol revision to ask for (legacy default 2025-11-25)")
    rec.add_argument("--timeout", type=positive, default=30.0, metavar="S",
                     help="wait for each response, and for the whole handshake, probe and retries included "
                          "(default 30)")
    rec.add_argument("--progress", action="store_true",
                     help="ask for progress on each request of --send (a progressToken); progress restarts --timeout")
    rec.add_argument("--max-time", type=positive, default=600.0, metavar="S",
                     help="however much progress a request reports, stop waiting for it after S (default 600)")
    add_max_message_option(rec)
    rec.add_argument("--idle", type=non_negative, default=0.5, metavar="S",
                     help="after the last response, wait this long for trailing notifications (default 0.5)")
    rec.add_argument("--cwd", metavar="DIR", help="working directory of the server")
    rec.add_argument("--env", action="append", default=[], metavar="K=V", help="environment override (repeatable)")
    rec.add_argument("--root", action="append", default=[], metavar="URI",
                     help="answer roots/list with this root (repeatable; default: no roots)")
    rec.add_argument("--no-redact", action="store_true", help="keep secrets (tokens, keys, passwords) in the capture")
    rec.add_argument("--answer", action="append", default=[], metavar="KIND=POLICY",
                     help="answer server requests headless: elicitation=accept-defaults|decline|cancel, "
                          "sampling=error|text:TEXT (repeatable)")
    add_otlp_option(rec)
    add_rules_option(rec)
    add_http_options(rec, "connect to this URL instead of launching a command",
                     "auto (default: Streamable HTTP, falling back to HTTP+SSE), streamable-http, sse, "
                     "or a plug-in transport")

    show = sub.add_parser("show", help="print a capture as a timeline")
    show.add_argument("file", type=Path, metavar="FILE")
    show.add_argument("--json", action="store_true", help="one JSON object per event instead of text")

    from inspector.cli.app_cmd import add_parser as add_app
    from inspector.cli.check_cmd import add_parser as add_check
    from inspector.cli.compare_cmd import add_parsers as add_compare
    from inspector.cli.completions import add_parser as add_completions
    from inspector.cli.context_cmd import add_parser as add_context
    from inspector.cli.desktop_cmd import add_parser as add_desktop
    from inspector.cli.doctor_cmd import add_parser as add_doctor
    from inspector.cli.interop_cmd import add_parsers as add_interop
    from inspector.cli.lint_cmd import add_parser as add_lint
    from inspector.cli.load_cmd import add_parser as add_load
    from inspector.cli.oneshot_cmd import add_parsers as add_oneshot
    from inspector.cli.replay_cmd import add_parser as add_replay_parser
    from inspector.cli.run_cmd import add_parser as add_run
    from inspector.cli.seat_cmd import add_add_to_parser as add_add_to
    from inspector.cli.seat_cmd import add_parser as add_seat
    from inspector.cli.seat_cmd import add_skill_file_parser as add_skill_file
    from inspector.cli.serve_cmd import add_parser as add_serve
    from inspector.cli.tap_cmd import add_parser as add_tap
    from inspector.cli.test_client_cmd import add_parsers as add_test_client
    from inspector.cli.wrap_cmd import add_parsers as add_wrap

    add_replay_parser(sub)
    add_tap(sub)
    add_wrap(sub)
    add_desktop(sub)
    add_interop(sub)
    add_completions(sub)
    add_lint(sub)
    add_oneshot(sub)
    add_check(sub)
    add_doctor(sub)
    add_compare(sub)
    add_context(sub)
    add_run(sub)
    add_load(sub)
    add_app(sub)
    add_serve(sub)
    add_test_client(sub)
    add_seat(sub)
    add_skill_file(sub)
    add_add_to(sub)
    return parser


def capture_as_open(own: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """``mcp-inspector FILE`` is ``mcp-inspector --open FILE`` (a desktop entry's ``Exec=mcp-inspector %f``, a
    file manager's Open With): a first argument that is no command and names an existing file."""
    if not own or own[0].startswith("-"):
        return own
    commands = next((a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction)), {})
    if own[0] in commands or not Path(own[0]).is_file():
        return own
    return ["--open", own[0], *own[1:]]


def add_http_options(parser: argparse.ArgumentParser, url_help: str, transport_help: str) -> None:
    """The options that reach an HTTP server, shared by record and replay (read by Target.from_args)."""
    http = parser.add_argument_group("HTTP servers (instead of a command after --)")
    http.add_argument("--url", metavar="URL", help=url_help)
    http.add_argument("--transport", default="auto", metavar="NAME", help=transport_help)
    http.add_argument("-H", "--header", action="append", default=[], metavar="'NAME: VALUE'",
                      help="extra HTTP header (repeatable)")
    http.add_argument("--bearer", metavar="TOKEN", help="send Authorization: Bearer TOKEN (redacted in captures)")
    http.add_argument("--bearer-env", metavar="VAR", help="read the bearer token from this environment variable")
    http.add_argument("--origin", metavar="ORIGIN", help="send this Origin header")
    http.add_argument("--connect-timeout", type=positive, default=10.0, metavar="S",
                      help="bound on connecting (default 10)")
    add_tls_options(http)
    add_oauth_options(parser)
    add_config_options(parser)


def add_tls_options(group: argparse._ActionsContainer, dest_prefix: str = "", *, oauth: bool = True,
                    lead: str = "") -> None:
    """``--ca-file FILE`` and ``--insecure``: how https certificates are trusted, for every command that
    connects to a URL (read by Target.from_args, tap's TapOptions and Target.from_window_args). ``oauth``: the
    command signs in with OAuth too (its requests are trusted the same way); ``lead`` starts each help text."""
    also = "; the OAuth flow's requests too" if oauth else ""
    group.add_argument("--ca-file", dest=f"{dest_prefix}ca_file", metavar="FILE",
                       help=f"{lead}also trust the certificates in this PEM file for https (a self-signed server "
                            f"certificate, or a private CA){also}")
    group.add_argument("--insecure", dest=f"{dest_prefix}insecure", action="store_true",
                       help=f"{lead}do not verify https certificates at all (a test server only: anyone on the way "
                            "can read and change the traffic); said on stderr and in the capture's header")


INSECURE_WARNING = ("mcp-inspector: warning: --insecure: TLS certificates are not verified, so anyone between here "
                    "and the server can read and change this traffic")


def insecure_for_a_url(args: argparse.Namespace, command: list[str]) -> bool:
    """``--insecure`` was given for a server reached by URL (not with a command after ``--``, which the command
    refuses with its own sentence): its warning is then said once, before any connection."""
    asked = getattr(args, "insecure", False) or getattr(args, "gui_insecure", False)
    return bool(asked) and not (command and not (getattr(args, "url", None) or getattr(args, "gui_url", None)))


def add_config_options(parser: argparse.ArgumentParser, dest_prefix: str = "") -> None:
    """``--config FILE --server NAME``: a server of a client's MCP config (Claude Desktop, Cursor, VS Code,
    Claude Code, Windsurf), instead of ``-- CMD`` or ``--url`` (read by Target.from_args)."""
    config = parser.add_argument_group("a server from a client's MCP config (instead of -- CMD or --url)")
    config.add_argument("--config", dest=f"{dest_prefix}config", type=Path, metavar="FILE",
                        help="a client config file: claude_desktop_config.json, .cursor/mcp.json, .vscode/mcp.json, "
                             ".mcp.json, ~/.claude.json, Windsurf's mcp_config.json")
    config.add_argument("--server", dest=f"{dest_prefix}server", metavar="NAME",
                        help="the server of --config to use (may be left out when the file has only one)")


def add_oauth_options(parser: argparse.ArgumentParser) -> None:
    """``--oauth`` and its options, for every command that connects to a URL (read by
    ``inspector.core.connect.target.oauth_from_args``, which Target.from_args calls)."""
    oauth = parser.add_argument_group("OAuth (HTTP servers that answer 401)")
    oauth.add_argument("--oauth", action="store_true",
                       help="on 401, run the OAuth 2.1 flow (discovery, registration, PKCE) and retry with its token")
    oauth.add_argument("--oauth-authorize", choices=("browser", "paste", "follow"), default="browser",
                       help="browser: system browser and a loopback listener on 127.0.0.1 during the login "
                            "(default); paste: paste the redirect URL on stdin; follow: fetch the authorization URL "
                            "without a person (test servers that approve at once)")
    oauth.add_argument("--client-id", metavar="ID", help="a pre-registered OAuth client id (implies --oauth)")
    oauth.add_argument("--client-secret", metavar="SECRET", help="its secret (redacted in captures)")
    oauth.add_argument("--client-metadata-url", metavar="URL",
                       help="our Client ID Metadata Document (https), used as client_id when the server supports it")
    oauth.add_argument("--scope", metavar="'A B'", help="the scopes to ask for (default: the server's challenge, "
                                                        "else its scopes_supported, else none)")
    oauth.add_argument("--oauth-grant", choices=("authorization-code", "client-credentials", "jwt-bearer", "id-jag"),
                       default="authorization-code",
                       help="how the token is got: authorization-code (a person signs in; default); without a "
                            "person: client-credentials (--client-id with --client-secret or --client-key), "
                            "jwt-bearer (--client-id and --assertion or --assertion-file: workload identity), id-jag "
                            "(enterprise-managed: --id-token and the --idp-* options, then --client-id and "
                            "--client-secret)")
    oauth.add_argument("--client-key", metavar="PEMFILE",
                       help="a PEM private key for private_key_jwt client authentication (RFC 7523): read, never "
                            "copied into a capture")
    oauth.add_argument("--client-key-alg", metavar="ALG",
                       help="the key's JWS algorithm: ES256, ES384, ES512, RS256, PS256, Ed25519... (default: from "
                            "the key)")
    oauth.add_argument("--assertion", metavar="JWT", help="jwt-bearer: the JWT authorization grant (redacted)")
    oauth.add_argument("--assertion-file", metavar="FILE",
                       help="jwt-bearer: a file holding it, read at each token request (a rotated workload token)")
    oauth.add_argument("--id-token", metavar="JWT", help="id-jag: the user's ID token from the enterprise IdP "
                                                         "(redacted)")
    oauth.add_argument("--id-token-file", metavar="FILE", help="id-jag: a file holding it")
    oauth.add_argument("--idp-token-endpoint", metavar="URL",
                       help="id-jag: the IdP's token endpoint, where the ID token is exchanged for an ID-JAG")
    oauth.add_argument("--idp-client-id", metavar="ID", help="id-jag: the client's id at the IdP")
    oauth.add_argument("--idp-issuer", metavar="URL",
                       help="id-jag: the IdP's issuer (its metadata names the token endpoint when "
                            "--idp-token-endpoint is not given)")
    oauth.add_argument("--dpop", action="store_true",
                       help="send DPoP proofs (RFC 9449) even when neither server asks for them (they are sent "
                            "anyway when the server challenges with DPoP or its metadata lists "
                            "dpop_signing_alg_values_supported)")


def add_otlp_option(parser: argparse.ArgumentParser, dest: str = "otlp_endpoint") -> None:
    """``--otlp-endpoint URL``: a span per request sent live to an OpenTelemetry collector (record, tap, the
    window)."""
    parser.add_argument("--otlp-endpoint", dest=dest, metavar="URL",
                        help="send an OpenTelemetry span per request, live, to this OTLP/HTTP collector (POST "
                             "URL/v1/traces, protobuf), e.g. http://127.0.0.1:4318")


def add_max_message_option(parser: argparse.ArgumentParser, default: int | None = DEFAULT_MAX_MESSAGE,
                           help: str = "the largest message read whole, e.g. 200M; a longer line is recorded as "
                                       "a framing error keeping its first and last 64 KiB, a longer HTTP body is "
                                       "not read past it (default 64M)") -> None:
    """``--max-message SIZE``: the largest message read whole (record, replay, tap and the window)."""
    parser.add_argument("--max-message", type=size, default=default, metavar="SIZE", help=help)


class EpilogFormatter(argparse.HelpFormatter):
    """Descriptions and help wrapped to the terminal; an epilog (examples, exit statuses: text with line
    breaks) kept exactly as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def main(argv: list[str] | None = None) -> int:
    _utf8_output()
    args_list = list(sys.argv[1:] if argv is None else argv)
    own, command = split_command(args_list)
    from inspector.cli.completions import complete, requested

    if requested():  # the shell asks for completions (bash, zsh, fish): answer and exit
        complete(build_parser())
    parser = build_parser(only=own)
    args = parser.parse_args(capture_as_open(own, parser))
    if insecure_for_a_url(args, command):
        print(INSECURE_WARNING, file=sys.stderr)  # once, whatever the command, however many sessions it opens
    if getattr(args, "client_key", None):
        from inspector.core.auth.assertions import exposed_key_file

        exposed = exposed_key_file(args.client_key)
        if exposed:  # as ssh does, but a warning: the key is the user's to protect
            print(f"mcp-inspector: warning: {exposed}", file=sys.stderr)
    if getattr(args, "app_command", False):
        from inspector.cli.app_cmd import run_app_command

        return run_app_command(args, command)
    if getattr(args, "oneshot", None):
        from inspector.cli.oneshot_cmd import run_oneshot_command

        return run_oneshot_command(args, command, exit_now=argv is None)
    if args.command == "record":
        from inspector.cli.record_cmd import run_record

        return run_record(args, command, parser)
    if args.command == "show":
        from inspector.cli.show_cmd import run_show

        return run_show(args.file, as_json=args.json)
    if args.command == "tap":
        from inspector.cli.tap_cmd import run_tap_command

        return run_tap_command(args, command, parser)
    if args.command in ("wrap", "unwrap"):
        from inspector.cli.wrap_cmd import run_wrap_command

        return run_wrap_command(args, parser)
    if args.command == "replay":
        from inspector.cli.replay_cmd import run_replay

        return run_replay(args, command, parser)
    if args.command == "completions":
        from inspector.cli.completions import run_completions

        return run_completions(args.shell)
    if args.command in ("export", "import"):
        from inspector.cli.interop_cmd import run_export, run_import

        return run_export(args) if args.command == "export" else run_import(args)
    if args.command == "lint":
        from inspector.cli.lint_cmd import run_lint

        return run_lint(args)
    if args.command == "check":
        from inspector.cli.check_cmd import run_check

        return run_check(args, command, parser)
    if args.command == "doctor":
        from inspector.cli.doctor_cmd import run_doctor

        return run_doctor(args, command, parser)
    if args.command in ("diff", "baseline"):
        from inspector.cli.compare_cmd import run_baseline, run_diff

        return run_diff(args, command) if args.command == "diff" else run_baseline(args, command)
    if args.command == "context":
        from inspector.cli.context_cmd import run_context

        return run_context(args, command)
    if args.command == "load":
        from inspector.cli.load_cmd import run_load_command

        return run_load_command(args, command)
    if args.command == "run":
        from inspector.cli.run_cmd import run_collection_command

        return run_collection_command(args, command)
    if args.command == "serve":
        from inspector.cli.serve_cmd import run_serve

        return run_serve(args)
    if args.command in ("test-client", "scenario-server"):
        from inspector.cli.test_client_cmd import run_scenario_server, run_test_client

        return run_test_client(args, command, parser) if args.command == "test-client" else run_scenario_server(args)
    if args.command == "mcp":
        from inspector.cli.seat_cmd import run_seat

        return run_seat(args)
    if args.command == "skill-file":
        from inspector.cli.seat_cmd import run_skill_file

        return run_skill_file(args)
    if args.command == "add-to":
        from inspector.cli.seat_cmd import run_add_to

        return run_add_to(args)
    if args.command == "install-desktop":
        from inspector.cli.desktop_cmd import run_install_desktop

        return run_install_desktop(args)
    return run_window(args, command, parser)


def has_display() -> bool:
    """Whether a window can be shown (on Linux: an X11 or Wayland display, or a Qt platform chosen)."""
    import os

    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or os.environ.get("QT_QPA_PLATFORM"))


def run_window(args: argparse.Namespace, command: list[str], parser: argparse.ArgumentParser) -> int:
    if args.demo and (args.headless or not has_display()):
        from inspector.cli.demo_cmd import run_demo

        if not args.headless:
            print("mcp-inspector: no display here, so the demo runs headless (the window needs X11 or Wayland)",
                  file=sys.stderr)
        return run_demo()
    from inspector.core.connect.target import InputError, Target

    try:  # what the user typed is checked before anything else, the display included
        target = Target.from_window_args(args, command)
        watch = _watched(args, target)
        if args.gui_otlp_endpoint is not None:
            from inspector.cli.record_cmd import otlp_endpoint_of

            otlp_endpoint_of(argparse.Namespace(otlp_endpoint=args.gui_otlp_endpoint))
    except InputError as exc:
        print(f"mcp-inspector: {exc}", file=sys.stderr)
        return 2
    if not has_display():
        print("mcp-inspector: no display (DISPLAY or WAYLAND_DISPLAY) for the window; headless commands work: "
              "mcp-inspector record, show, --demo --headless", file=sys.stderr)
        return 2
    from inspector.ui.app import run_gui

    return run_gui(demo=args.demo, target=target, open_file=args.open, exit_when_shown=args.exit_when_shown,
                   timeout=args.gui_timeout, max_message=args.max_message, otlp_endpoint=args.gui_otlp_endpoint,
                   watch=watch, watch_ignore=args.gui_watch_ignore)


def _watched(args: argparse.Namespace, target: Any) -> list[Path] | None:
    """``--watch``'s paths, each checked to exist; raises InputError (one sentence) for a missing one, and for
    --watch without a server command to restart."""
    from inspector.core.connect.target import InputError
    from inspector.core.watching import WatchError, check_paths

    if not args.gui_watch:
        if args.gui_watch_ignore:
            raise InputError("--watch-ignore needs --watch PATH.")
        return None
    if target is None or target.is_http:
        raise InputError("--watch needs a server command after -- (it restarts that server on a change).")
    try:
        return check_paths(args.gui_watch)
    except WatchError as exc:
        raise InputError(str(exc)) from None


def _utf8_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="replace")
            except (ValueError, OSError):
                pass


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion on a fresh event loop (headless commands)."""
    import asyncio

    return asyncio.run(coro)
