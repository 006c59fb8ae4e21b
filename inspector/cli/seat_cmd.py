"""``mcp-inspector mcp``: the agent seat (issue 44), the inspector as an MCP server on stdio for coding agents.
Nothing listens on a port: the agent's client starts this command and speaks MCP on its stdin and stdout."""

from __future__ import annotations

import argparse
from pathlib import Path

SEAT_EPILOG = """\
examples:
  mcp-inspector mcp
  mcp-inspector tools -- mcp-inspector mcp
  claude mcp add inspector -- mcp-inspector mcp
"""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from inspector.cli.main import EpilogFormatter

    seat = sub.add_parser(
        "mcp", help="the agent seat: serve the inspector's tools to a coding agent as an MCP server on stdio",
        description="Serve MCP on standard input and output (2025-06-18 to 2026-07-28, both eras) with tools "
                    "that drive the inspector: list_servers, list_tools, call_tool, read_resource, check_server, "
                    "doctor, record_session, show_capture, diff and context_cost (docs/agents.md). Captures are "
                    "its resources (capture://NAME, newest first). Every server it starts is one the agent "
                    "named, by its argument list, without a shell; it never listens on a port.",
        epilog=SEAT_EPILOG, formatter_class=EpilogFormatter)
    seat.add_argument("--captures", type=Path, metavar="DIR",
                      help="keep the sessions' captures here and list them as resources (default: the user's "
                           "captures folder)")


def run_seat(args: argparse.Namespace) -> int:
    from inspector.core.paths import captures_dir
    from inspector.core.seat.server import serve_stdio

    folder = args.captures if args.captures is not None else captures_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return serve_stdio(folder)
