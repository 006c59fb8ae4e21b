"""Shell completions for bash, zsh and fish, by argcomplete: ``mcp-inspector completions SHELL`` prints the
script to load (``eval "$(mcp-inspector completions bash)"``), and :func:`complete` answers the shell when it
asks (argcomplete sets ``_ARGCOMPLETE``; otherwise nothing of this is imported, so start-up stays fast).

Subcommands and options complete from the parser itself; capture files (``*.jsonl``) and HAR files complete
from the folder; ``call``'s tool names complete from the newest capture in the captures folder that listed
tools, where that is cheap (:func:`recent_tool_names`).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

SHELLS = ("bash", "zsh", "fish")
#: only the newest few captures are looked at, and only their first lines, so a Tab press stays instant
RECENT_CAPTURES = 5
HEAD_BYTES = 4 << 20

#: argument destinations that name a capture (completed from *.jsonl files) or a HAR file
_CAPTURE_DESTS = frozenset({"file", "capture", "open"})
_HAR_DESTS = frozenset({"har"})


def add_parser(sub: argparse._SubParsersAction) -> None:
    cmd = sub.add_parser("completions", help="print the shell completion script for bash, zsh or fish",
                         description="Print the script that makes the shell complete mcp-inspector's commands, "
                                     "options, capture files and tool names. Load it from your shell's startup "
                                     "file:\n  bash: eval \"$(mcp-inspector completions bash)\"   (~/.bashrc)\n"
                                     "  zsh:  eval \"$(mcp-inspector completions zsh)\"    (~/.zshrc)\n"
                                     "  fish: mcp-inspector completions fish | source   "
                                     "(~/.config/fish/config.fish)",
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    cmd.add_argument("shell", choices=SHELLS, help="the shell to print the script for")


def run_completions(shell: str) -> int:
    import sys

    import argcomplete

    try:
        sys.stdout.write(argcomplete.shellcode(["mcp-inspector"], shell=shell) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `completions bash | head`
        sys.stderr.close()
    return 0


def complete(parser: argparse.ArgumentParser) -> None:
    """Answer a completion request from the shell (and exit), after attaching the file completers."""
    import argcomplete
    from argcomplete.completers import FilesCompleter

    for action in _all_actions(parser):
        if action.dest in _CAPTURE_DESTS:
            action.completer = FilesCompleter(("jsonl",))  # type: ignore[attr-defined]  # argcomplete's hook
        elif action.dest in _HAR_DESTS:
            action.completer = FilesCompleter(("har",))  # type: ignore[attr-defined]  # argcomplete's hook
        elif action.dest == "tool":
            action.completer = _tool_completer  # type: ignore[attr-defined]  # argcomplete's hook
    argcomplete.autocomplete(parser)


def _all_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    found = list(parser._actions)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                found += _all_actions(child)
    return found


def _tool_completer(prefix: str, **_: Any) -> list[str]:
    return [name for name in recent_tool_names() if name.startswith(prefix)]


def recent_tool_names(folder: Path | None = None) -> list[str]:
    """Tool names from the newest captures (of any server) that hold a tools/list answer; [] when none."""
    if folder is None:
        from inspector.core.paths import captures_dir

        folder = captures_dir()
    try:
        captures = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return []
    for path in captures[:RECENT_CAPTURES]:
        names = _tools_in(path)
        if names:
            return names
    return []


def _tools_in(path: Path) -> list[str]:
    try:
        with open(path, "rb") as handle:
            head = handle.read(HEAD_BYTES)
    except OSError:
        return []
    for line in head.splitlines():
        if b'\\"tools\\"' not in line or b'\\"result\\"' not in line:
            continue
        try:
            raw = json.loads(line).get("raw", "")
            tools = json.loads(raw).get("result", {}).get("tools", [])
        except (ValueError, AttributeError):
            continue
        names = [t["name"] for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]
        if names:
            return names
    return []


def requested() -> bool:
    """Whether the shell is asking for completions (argcomplete's protocol)."""
    return "_ARGCOMPLETE" in os.environ
