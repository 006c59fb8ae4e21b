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


SKILL_FILE_EPILOG = """\
examples:
  mcp-inspector skill-file .claude/skills
  mcp-inspector skill-file ~/.codex/skills
"""


def add_skill_file_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from inspector.cli.main import EpilogFormatter

    skill_file = sub.add_parser(
        "skill-file", help="write the seat's Skill (debug-mcp-server/SKILL.md) for agents that load skills from disk",
        description="Write DIR/debug-mcp-server/SKILL.md: the Skill that teaches a coding agent to debug an MCP "
                    "server with the tools of mcp-inspector mcp (which also serves it over the Skills "
                    "extension). An existing copy is replaced.",
        epilog=SKILL_FILE_EPILOG, formatter_class=EpilogFormatter)
    skill_file.add_argument("dir", type=Path, nargs="?", default=Path("."), metavar="DIR",
                            help="the skills folder to write into (default: the current folder)")


def run_skill_file(args: argparse.Namespace) -> int:
    import sys

    from inspector.core.exits import EXIT_BAD_INPUT, EXIT_OK
    from inspector.core.seat.skill import write_skill

    try:
        path = write_skill(args.dir)
    except OSError as exc:
        print(f"mcp-inspector: the Skill cannot be written in {args.dir}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(path)
    return EXIT_OK


def run_seat(args: argparse.Namespace) -> int:
    from inspector.core.paths import captures_dir
    from inspector.core.seat.server import serve_stdio

    folder = args.captures if args.captures is not None else captures_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return serve_stdio(folder)
