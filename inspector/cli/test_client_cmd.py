"""``mcp-inspector test-client -- CLIENT ...``: run an MCP client against scenario servers and report a verdict per
scenario (docs/client-bench.md); ``scenario-server NAME``, the server the client launches (its argv is appended
to the client's command)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from inspector.core.exits import EXIT_BAD_INPUT, EXIT_INTERRUPTED, TEST_CLIENT_EXITS, exits_help
from inspector.core.text import safe

#: ``--report`` file endings and the format they mean when ``--format`` is not given (as ``check``'s).
FORMAT_BY_SUFFIX = {".json": "json", ".xml": "junit", ".sarif": "sarif"}


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from inspector.cli.argtypes import positive
    from inspector.cli.main import EpilogFormatter
    from inspector.core.clientbench.names import DEFAULT_SCENARIOS, DEFAULT_TIMEOUT, ENV_SCENARIO, SCENARIO_NAMES
    from inspector.core.protocol.revisions import HANDSHAKE_REVISIONS

    names = list(SCENARIO_NAMES)
    bench = sub.add_parser(
        "test-client", help="run an MCP client against scenario servers and say what it did right and wrong",
        description="Run the client's command once per scenario, with the scenario server's argv appended (python "
                    "-m inspector scenario-server NAME --out CAPTURE: the client launches it as its stdio server) "
                    f"and {ENV_SCENARIO}=NAME in its environment. Every message the client sends is recorded and "
                    "judged by the protocol judge of its revision; each scenario adds its own checks. The "
                    "captures go beside --report (REPORT-captures/), else in the captures folder. With "
                    "--transport http the scenario server listens on 127.0.0.1 and its URL is appended instead.",
        epilog=exits_help(TEST_CLIENT_EXITS) + "\nexamples:\n  mcp-inspector test-client -- python my_client.py\n"
               "  mcp-inspector test-client --scenario handshake --scenario ping --format junit --report out.xml "
               "-- node client.js --\n",
        formatter_class=EpilogFormatter)
    bench.add_argument("--scenario", action="append", choices=names, metavar="NAME",
                       help=f"run this scenario (repeat for more): {', '.join(names)} (default: all but "
                            f"{', '.join(n for n in names if n not in DEFAULT_SCENARIOS)})")
    bench.add_argument("--list-scenarios", action="store_true", help="list the scenarios and what each checks, "
                                                                     "then exit")
    bench.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                       help="how the client reaches the scenario server: stdio (default: the server's argv is "
                            "appended to the client's command) or http (Streamable HTTP on 127.0.0.1: the server's "
                            "URL is appended, as the official conformance suite does)")
    bench.add_argument("--revision", choices=list(HANDSHAKE_REVISIONS), metavar="R",
                       help="the revision the scenario servers answer initialize with, whatever the client asks, "
                            "and the judge assumes (default: the client's own when it asks for one of the initialize "
                            "era, else 2025-11-25; the modern scenario speaks 2026-07-28 whatever this says)")
    bench.add_argument("--timeout", type=positive, default=DEFAULT_TIMEOUT, metavar="S",
                       help=f"seconds each scenario may run before the client is stopped (default "
                            f"{DEFAULT_TIMEOUT:g})")
    bench.add_argument("--format", choices=("text", "json", "junit", "sarif"),
                       help="report format (default: from --report's ending, .json .xml .sarif, else text)")
    bench.add_argument("--report", type=Path, metavar="FILE", help="write the report here (default: standard "
                                                                   "output); the captures go beside it")

    server = sub.add_parser(
        "scenario-server", help="a scenario server of test-client (what the client under test launches)",
        description="Serve one scenario of test-client on stdin and stdout, recording every message to --out. "
                    "test-client appends this command to the client's; run it by hand only to try a scenario.")
    server.add_argument("name", choices=names, metavar="NAME", help="the scenario")
    server.add_argument("--out", type=Path, required=True, metavar="FILE", help="the capture to record")
    server.add_argument("--revision", choices=list(HANDSHAKE_REVISIONS), metavar="R",
                        help="the revision the server speaks")


def run_test_client(args: argparse.Namespace, command: list[str], parser: argparse.ArgumentParser) -> int:
    from inspector.cli.main import run_async
    from inspector.core.clientbench.bench import ScenarioResult, run_bench
    from inspector.core.clientbench.names import DEFAULT_SCENARIOS
    from inspector.core.clientbench.report import exit_status, render
    from inspector.core.clientbench.scenarios import SCENARIOS

    if args.list_scenarios:
        for name, cls in SCENARIOS.items():
            print(f"{name:16} {cls.summary}")
        return 0
    if not command:
        parser.error("test-client needs the client's command after --, for example: test-client -- python "
                     "my_client.py")
    names = list(dict.fromkeys(args.scenario or DEFAULT_SCENARIOS))
    fmt = args.format or (FORMAT_BY_SUFFIX.get(args.report.suffix.lower(), "text") if args.report else "text")
    captures = _captures_dir(args.report)

    def progress(result: ScenarioResult) -> None:
        print(f"mcp-inspector: {result.name}: {result.status}", file=sys.stderr)

    try:
        results = run_async(run_bench(names, command, captures, timeout=args.timeout, revision=args.revision,
                                      transport=args.transport, progress=progress))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except OSError as exc:
        print(f"mcp-inspector: the captures folder {safe(str(captures))} cannot be written: {exc.strerror}",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    text = render(results, fmt, command)
    if args.report is not None:
        try:
            args.report.write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"mcp-inspector: {safe(str(args.report))} cannot be written: {exc.strerror}", file=sys.stderr)
            return EXIT_BAD_INPUT
        print(f"mcp-inspector: report written to {safe(str(args.report))}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return exit_status(results)


def _captures_dir(report: Path | None) -> Path:
    if report is not None:
        return report.with_name(f"{report.stem}-captures")
    from inspector.core.paths import capture_name, captures_dir

    return captures_dir() / capture_name("test-client").removesuffix(".jsonl")


def run_scenario_server(args: argparse.Namespace) -> int:
    from inspector.core.clientbench.scenarios import make
    from inspector.core.clientbench.server import Recorder, serve_scenario

    try:
        record = Recorder(args.out, args.name, sys.argv)
    except OSError as exc:
        print(f"mcp-inspector: {safe(str(args.out))} cannot be written: {exc.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return serve_scenario(make(args.name, args.revision), record)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
