"""``mcp-inspector app``: call a tool, render its MCP App offscreen, play the host until the app is idle, report.

The parser is built with what parsing needs only. The run checks first that Chromium's sandbox can run (or that
the user turned it off: :mod:`inspector.core.apps.sandbox`), then imports Qt and the web engine
(:mod:`inspector.ui.apps.headless`): ``--help`` and a refusal load no Qt.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from inspector.core.exits import (
    APP_EXITS,
    APP_EXITS_ORDER,
    EXIT_BAD_INPUT,
    EXIT_CANNOT_RENDER,
    EXIT_INTERRUPTED,
    exits_help,
)
from inspector.core.text import safe

if TYPE_CHECKING:  # the job (and the target model under it) is imported when the command runs, not for --help
    from inspector.core.apps.job import AppJob

EXAMPLES = """examples:
  mcp-inspector app get-time --text -- npx -y @modelcontextprotocol/server-basic-vanillajs --stdio
  mcp-inspector app get-system-info --wait 5 --json -- npx -y @modelcontextprotocol/server-system-monitor --stdio
  mcp-inspector app show-chart --screenshot chart.png --out app.jsonl --url http://127.0.0.1:3001/mcp

"""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from inspector.cli.argtypes import positive, size_pair
    from inspector.cli.main import EpilogFormatter
    from inspector.cli.server_options import EACH_RESPONSE_TIMEOUT_HELP, add_server_options

    parser = sub.add_parser(
        "app", help="call a tool and render its MCP App headless: text, screenshot, policy report",
        description="Call a tool that has an MCP App (its _meta.ui.resourceUri), read the app's ui:// resource, "
                    "render it offscreen in a sandboxed web view with the policy its _meta.ui.csp declares, and "
                    "play the host (ui/initialize, the tool's input and result, the app's own tool calls and "
                    "reads passed to the server) until the app is idle, or for --wait seconds. Prints a summary "
                    "(or --text, the app's visible text; or --json, the report: the resource, its metadata checks, "
                    "the policy requested and effective, every blocked request, the messages each way). --timeout "
                    "also bounds how long the app may take to send ui/initialize; --max-message bounds the app's "
                    "messages too (a longer one is not passed on, only its size kept). Links the app asks to open "
                    "are never opened; WebRTC, preconnect and DNS-prefetch hints are refused. Needs Chromium's "
                    "sandbox, which cannot run as root unless QTWEBENGINE_DISABLE_SANDBOX=1 is set.",
        epilog=EXAMPLES + exits_help(APP_EXITS, APP_EXITS_ORDER), formatter_class=EpilogFormatter)
    parser.set_defaults(app_command=True)
    parser.add_argument("name", metavar="TOOL")
    parser.add_argument("words", nargs="*", metavar="KEY=VALUE",
                        help="an argument of the tool, typed by its inputSchema as call types it (repeatable)")
    parser.add_argument("--args", metavar="JSON", help="arguments as a JSON object; KEY=VALUE words go over it")
    output = parser.add_argument_group("output")
    shape = output.add_mutually_exclusive_group()
    shape.add_argument("--text", action="store_true", help="print the text the app shows, once it is idle")
    shape.add_argument("--json", action="store_true",
                       help="print the report as JSON (with the app's text in \"text\")")
    output.add_argument("--screenshot", type=Path, metavar="PNG", help="save what the app shows as a PNG image")
    output.add_argument("--out", type=Path, metavar="FILE",
                        help="save the session as a capture, the app's messages in its app lane")
    parser.add_argument("--wait", type=positive, metavar="S",
                        help="play the host for S seconds after the app is ready, instead of until it is idle")
    parser.add_argument("--size", type=size_pair, default=(800, 600), metavar="WxH",
                        help="the size of the view the app is rendered in (default 800x600); the screenshot is as "
                             "tall as the app says its content is, up to 4 times H")
    parser.add_argument("--theme", choices=("light", "dark"), default="light",
                        help="the theme the host tells the app (default light)")
    add_server_options(parser, roots=True, timeout_help=EACH_RESPONSE_TIMEOUT_HELP)


def run_app_command(args: argparse.Namespace, command: list[str]) -> int:
    """Run ``mcp-inspector app``; returns its exit status (:data:`inspector.core.exits.APP_EXITS`)."""
    from inspector.core.apps.sandbox import sandbox_refusal

    if args.url and command:
        return _fail("app takes either --url or a command after --, not both")
    if not args.url and not command and args.config is None and args.server is None:
        return _fail("app needs the server: a command after -- (for example: mcp-inspector app get-time -- npx -y "
                     "@modelcontextprotocol/server-basic-vanillajs --stdio) or --url URL")
    refusal = sandbox_refusal()
    if refusal is not None:
        print(f"mcp-inspector: {refusal}", file=sys.stderr)
        return EXIT_CANNOT_RENDER
    try:
        job = job_of(args, command)
    except ValueError as exc:
        return _fail(str(exc))
    try:
        import importlib

        importlib.import_module("PySide6.QtWebEngineWidgets")  # the engine itself, before anything is started
        from inspector.ui.apps.headless import run_headless
    except ImportError as exc:  # a build without Qt WebEngine (the frozen app leaves it out)
        print(f"mcp-inspector: apps cannot be rendered by this build of mcp-inspector: it has no Qt WebEngine "
              f"({exc})", file=sys.stderr)
        return EXIT_CANNOT_RENDER
    try:
        return run_headless(job)
    except KeyboardInterrupt:
        print("mcp-inspector: interrupted; the server was shut down", file=sys.stderr)
        return EXIT_INTERRUPTED


def job_of(args: argparse.Namespace, command: list[str]) -> AppJob:
    """The job the command line asks for; ValueError (a sentence) for what cannot be done."""
    from inspector.cli.oneshot_cmd import roots_of
    from inspector.cli.record_cmd import parse_answers
    from inspector.core.apps.job import AppJob
    from inspector.core.connect.target import InputError
    from inspector.core.connect.target import Target as _Target
    from inspector.core.explore.arguments import ArgumentError, parse_json_object, split_pair

    try:
        job = AppJob(_Target.from_args(args, command), args.name, list(args.words), text=args.text, json=args.json,
                     screenshot=args.screenshot, out=args.out, wait=args.wait, size=args.size, theme=args.theme,
                     roots=roots_of(args.root), answers=parse_answers(args.answer))
        for word in job.words:
            split_pair(word)
        if args.args is not None:
            job.base = parse_json_object(args.args, "--args")
    except (InputError, ArgumentError) as exc:
        raise ValueError(str(exc)) from None
    if job.screenshot is not None and job.screenshot.suffix.lower() != ".png":
        raise ValueError(f"--screenshot {job.screenshot}: the image is saved as PNG; name it .png")
    return job


def _fail(sentence: str) -> int:
    print(f"mcp-inspector: {safe(sentence)}", file=sys.stderr)
    return EXIT_BAD_INPUT
