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


ADD_TO_EPILOG = """\
examples:
  mcp-inspector add-to claude-code
  mcp-inspector add-to vscode --project --dry-run
  mcp-inspector add-to cursor --yes
  mcp-inspector add-to claude-desktop --remove

exit statuses:
  0  the seat was added or removed, was already there (or not there, with --remove), or --dry-run
  1  the config cannot be read or is not valid JSON (it is left untouched), or it changed while being edited
  2  usage: an unknown client, or the change was not confirmed (pass --yes where no one can answer)
"""


#: add-to's clients and default entry name, as inspector.core.seat.add_to has them (tests/cli/test_add_to.py checks
#: they agree): written here so that building the parser, at every start, does not import the config editing
ADD_TO_CLIENTS = ("claude-desktop", "claude-code", "cursor", "vscode", "vscode-insiders", "windsurf")
ADD_TO_NAME = "inspector"


def add_add_to_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from inspector.cli.main import EpilogFormatter

    add_to = sub.add_parser(
        "add-to", help="add the agent seat (mcp-inspector mcp) to a client's MCP config",
        description="Add an entry that runs the agent seat (this python -m inspector mcp, so it works from a "
                    "virtual environment) to a client's MCP config: the user's file, or with --project the "
                    "current folder's. The change is shown as a diff first and written after a confirmation (or "
                    "--yes), with a backup next to the file, as wrap does; every other byte of the file stays. "
                    "A seat already there is not added twice; --remove takes it out.",
        epilog=ADD_TO_EPILOG, formatter_class=EpilogFormatter)
    add_to.add_argument("client", choices=ADD_TO_CLIENTS, metavar="CLIENT",
                        help=f"the client: {', '.join(ADD_TO_CLIENTS)}")
    add_to.add_argument("--project", action="store_true",
                        help="the current folder's config (.mcp.json, .vscode/mcp.json, .cursor/mcp.json) instead "
                             "of the user's")
    add_to.add_argument("--config", type=Path, metavar="FILE",
                        help="edit this config file instead of the client's usual one")
    add_to.add_argument("--name", default=ADD_TO_NAME, metavar="NAME",
                        help=f"the entry's name (default: {ADD_TO_NAME})")
    add_to.add_argument("--remove", action="store_true", help="take the seat out of the config instead")
    add_to.add_argument("--dry-run", action="store_true", help="show the diff, change nothing")
    add_to.add_argument("--yes", action="store_true", help="write without asking")


def run_add_to(args: argparse.Namespace) -> int:
    import sys

    from inspector.core.seat.add_to import config_path, plan, write
    from inspector.core.tap.wrap import WrapError, tap_runs_anywhere

    def fail(message: str) -> int:
        print(f"mcp-inspector add-to: {message}", file=sys.stderr)
        return 1

    try:
        path = args.config if args.config is not None else config_path(args.client, project=args.project)
        change = plan(path, args.client, name=args.name, remove=args.remove)
    except WrapError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"{args.config}: {exc.strerror or exc}.")
    where = f"{change.client} config {change.path}"
    if change.action == "already":
        print(f"{where}: the seat is already there as {change.name!r} ({change.detail}); nothing to do.")
        return 0
    if change.action == "absent":
        print(f"{where}: the seat is not there; nothing to do.")
        return 0
    verb = "add the seat as" if change.action == "add" else "remove the seat"
    print(f"{where}: {verb} {change.name!r}" + ("" if change.exists else " (a new file)") + ":")
    sys.stdout.write(change.diff())
    if args.dry_run:
        print("Dry run: the file was not touched.")
        return 0
    if not args.yes:
        if not sys.stdin.isatty():
            print("mcp-inspector add-to: nothing was changed: pass --yes to write the change above.", file=sys.stderr)
            return 2
        sys.stdout.flush()
        try:
            answer = input(f"Write this to {change.path}? [y/N] ")
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            print("Nothing was changed.")
            return 2
    try:
        backup = write(change)
    except WrapError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"{change.path} cannot be written: {exc.strerror or exc}.")
    if backup is not None:
        print(f"Backup of the previous file: {backup}")
    else:
        print(f"Created {change.path}.")
    print(f"Restart {change.client} (or reload its MCP servers) so it "
          + ("starts the seat." if change.action == "add" else "drops the seat."))
    if change.action == "add" and not tap_runs_anywhere():
        print(f"Note: `{sys.executable} -m inspector` does not import this mcp-inspector from another folder; install "
              "it for that python (pip install .) or the client cannot start the seat.", file=sys.stderr)
    return 0
