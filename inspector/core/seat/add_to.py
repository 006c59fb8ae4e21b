"""``mcp-inspector add-to CLIENT``: add the agent seat (``mcp-inspector mcp``) to a client's MCP config, or take
it out again (``--remove``).

Where: the client's own file, where :mod:`inspector.core.clients.configs` (and so ``wrap``) looks for it: the
user's file (Claude Desktop ``claude_desktop_config.json``, Claude Code ``~/.claude.json``'s top-level
``mcpServers``, its user scope; Cursor ``~/.cursor/mcp.json``, VS Code ``User/mcp.json``, Windsurf
``mcp_config.json``), or with ``project`` the workspace's (``.mcp.json``, ``.vscode/mcp.json``,
``.cursor/mcp.json``). A file that does not exist yet is created with only the seat in it.

What: an entry under ``mcpServers`` (VS Code: ``servers``) in the client's own shape
(:func:`inspector.core.clients.config_out.config_entry`) running ``PYTHON -m inspector mcp``, ``PYTHON`` being the
absolute path of the running interpreter (not resolved: a virtual environment's python stays the venv's), so the
client starts the same inspector from any folder.

How, as ``wrap`` does it (:mod:`inspector.core.tap.wrap`): the file is parsed with positions (JSON with comments
and trailing commas) and never re-serialized: the entry's text is inserted (or cut out), every other byte stays.
A file that cannot be read or parsed is refused with a sentence and left untouched. :func:`plan` says what would
change (the texts before and after, for a diff); :func:`write` backs the file up next to it
(``CONFIG.mcp-inspector-backup-YYYYmmdd-HHMMSS``) and replaces it atomically, with its mode, and only if nobody
changed it since it was read. An entry that already runs the seat, under any name, is not added twice.
"""

from __future__ import annotations

import difflib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspector.core.clients.config_out import config_entry
from inspector.core.clients.configs import config_locations
from inspector.core.tap.wrap import (
    Node,
    WrapError,
    apply_edits,
    backup_file,
    check_unchanged,
    parse_with_positions,
    replace_keeping_mode,
    write_atomically,
)

#: the clients by the word typed: (the client's name in configs.config_locations, its project file's name there,
#: the shape of its entries in config_out)
CLIENTS: dict[str, tuple[str, str | None, str]] = {
    "claude-desktop": ("Claude Desktop", None, "Claude Desktop"),
    "claude-code": ("Claude Code", "Claude Code (project)", "Claude Code"),
    "cursor": ("Cursor", "Cursor (project)", "Cursor"),
    "vscode": ("VS Code", "VS Code (workspace)", "VS Code"),
    "vscode-insiders": ("VS Code Insiders", "VS Code (workspace)", "VS Code"),
    "windsurf": ("Windsurf", None, "Windsurf"),
}
DEFAULT_NAME = "inspector"
SEAT_MODULE_ARGS = ["-m", "inspector", "mcp"]
_SEAT_PROGRAMS = ("mcp-inspector", "mcp-inspector.exe")


def seat_argv(python: str | None = None) -> list[str]:
    """The seat's command line for a client: this python (absolute, symlinks kept) ``-m inspector mcp``."""
    return [python or os.path.abspath(sys.executable), *SEAT_MODULE_ARGS]


def is_seat(entry: Any) -> bool:
    """Whether a config entry runs the seat: ``... -m inspector mcp`` or ``.../mcp-inspector mcp``."""
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    args = entry.get("args", [])
    if not isinstance(args, list):
        return False
    argv = [entry["command"], *(str(arg) for arg in args)]
    if len(argv) < 2 or argv[-1] != "mcp":
        return False
    return argv[-3:-1] == ["-m", "inspector"] or Path(argv[-2]).name.lower() in _SEAT_PROGRAMS


def config_path(client: str, *, project: bool = False, home: Path | None = None, cwd: Path | None = None) -> Path:
    """The file ``add-to CLIENT`` edits; raises WrapError for a client without a project file."""
    user_label, project_label, _shape = CLIENTS[client]
    label = project_label if project else user_label
    if label is None:
        raise WrapError(f"{user_label} has no project config file; leave out --project to use the user's.")
    return dict(config_locations(home, cwd=cwd))[label]


@dataclass
class Plan:
    """What ``add-to`` would do to one file."""

    client: str  #: the client's name, for a person
    path: Path  #: the file (symlinks resolved)
    #: add (the seat goes in), remove (it comes out), already (it is there: nothing to do), absent (``--remove``
    #: and it is not there: nothing to do)
    action: str
    name: str  #: the entry's name: the one added or removed, or the one already there
    before: str  #: the file's text now ("" when it does not exist)
    after: str  #: its text after the change (the same as ``before`` for already and absent)
    exists: bool
    raw: bytes = b""  #: the bytes read, to refuse writing over a file changed meanwhile
    detail: str = ""  #: for already: the entry's command line

    def diff(self) -> str:
        """The change as a unified diff (empty when nothing changes)."""
        name = str(self.path)
        lines = difflib.unified_diff(self.before.splitlines(keepends=True), self.after.splitlines(keepends=True),
                                     fromfile=name if self.exists else "/dev/null", tofile=name)
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def plan(path: Path, client: str, *, name: str = DEFAULT_NAME, remove: bool = False,
         python: str | None = None) -> Plan:
    """What adding the seat to (or, with ``remove``, taking it out of) the config file at ``path`` would change.

    Raises WrapError with one sentence when the file cannot be read, is not JSON, is not shaped like an MCP
    config, or has an entry called ``name`` that is something else."""
    display, _project, shape = CLIENTS[client]
    given = Path(path).expanduser()
    real = given.resolve()
    exists = real.exists()
    raw = b""
    text = ""
    if exists:
        if real.is_dir():
            raise WrapError(f"{given} is a folder, not a config file.")
        try:
            raw = real.read_bytes()
        except OSError as exc:
            raise WrapError(f"{given} cannot be read: {exc.strerror or exc}.") from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise WrapError(f"{given} is not UTF-8 text (byte {exc.start} is not valid UTF-8).") from None
    section_key = "servers" if shape == "VS Code" else "mcpServers"
    if not text.strip():
        entry = config_entry(shape, argv=seat_argv(python))
        if remove:
            return Plan(display, real, "absent", name, text, text, exists, raw)
        after = json.dumps({section_key: {name: entry}}, indent=2, ensure_ascii=False) + "\n"
        return Plan(display, real, "add", name, text, after, exists, raw)
    root = parse_with_positions(text, str(given))
    if not isinstance(root.value, dict):
        raise WrapError(f"{given} should contain a JSON object.")
    if section_key == "servers" and root.member("servers") is None and root.member("mcpServers") is not None:
        section_key = "mcpServers"  # a VS Code-shaped client given a file of the other shape keeps its shape
    found = root.member(section_key)
    section = found[1] if found is not None else None
    if section is not None and not isinstance(section.value, dict):
        raise WrapError(f'{given}: "{section_key}" should be an object of servers by name.')
    members = (section.members or []) if section is not None else []
    seats = [(index, key) for index, (key, _, node) in enumerate(members) if is_seat(node.value)]
    if remove:
        chosen = [(index, key) for index, key in seats if key == name] or seats
        if section is None or not chosen:
            return Plan(display, real, "absent", name, text, text, exists, raw)
        index, key = chosen[0]  # one at a time: as many as were added (add-to adds one)
        return Plan(display, real, "remove", key, text, apply_edits(text, [_cut_member(section, index)]), exists, raw)
    if seats:
        index, key = seats[0]
        value = members[index][2].value
        return Plan(display, real, "already", key, text, text, exists, raw,
                    detail=" ".join([value["command"], *(str(a) for a in value.get("args", []))]))
    if any(key == name for key, _, _ in members):
        raise WrapError(f"{given} already has a server named {name!r} that is not the seat; pick another name with "
                        "--name.")
    entry = config_entry(shape, argv=seat_argv(python))
    if section is None:
        edit = _insert_member(text, root, section_key, {name: entry})
    else:
        edit = _insert_member(text, section, name, entry)
    after = apply_edits(text, [edit])
    parse_with_positions(after, str(given))  # the text made is JSON (with comments) again, or nothing is written
    return Plan(display, real, "add", name, text, after, exists, raw)


def write(change: Plan) -> Path | None:
    """Write a planned add or remove: back the file up (returned; None for a file created), then replace it
    atomically with its mode kept, only if it is still as it was read. Raises WrapError with a sentence."""
    if change.action not in ("add", "remove"):
        return None
    path = change.path
    data = change.after.encode("utf-8")
    if not change.exists:
        if path.exists():
            raise WrapError(f"{path} was created while it was being edited (is the client writing it?); nothing "
                            "was changed, try again.")
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, data, 0o600)  # a client's config may come to hold secrets (env, headers)
        return None
    check_unchanged(path, change.raw)
    backup = backup_file(path)
    replace_keeping_mode(path, data)
    return backup


# -- text edits ----------------------------------------------------------------------------------------------


def _line_indent(text: str, pos: int) -> str:
    """The whitespace that opens the line holding ``pos``."""
    start = text.rfind("\n", 0, pos) + 1
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def _insert_member(text: str, obj: Node, key: str, value: Any) -> tuple[int, int, str]:
    """The edit that adds ``"key": value`` as the last member of the object ``obj``, indented as its members are
    (or, in an empty object, one step in from the object's line)."""
    members = obj.members or []
    outer = _line_indent(text, obj.start)
    newline = "\r\n" if "\r\n" in text else "\n"
    if members:
        _last_key, last_key_start, last_node = members[-1]
        first_key_start = members[0][1]
        if "\n" not in text[obj.start:first_key_start]:  # an object on one line: the member on that line too
            return (last_node.end, last_node.end, f", {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
        indent = _line_indent(text, last_key_start)
        step = indent[len(outer):] if indent.startswith(outer) and len(indent) > len(outer) else "  "
        rendered = _render(value, step, indent, newline)
        return (last_node.end, last_node.end, f",{newline}{indent}{json.dumps(key)}: {rendered}")
    step = "\t" if outer.startswith("\t") else "  "
    indent = outer + step
    rendered = _render(value, step, indent, newline)
    return (obj.start, obj.end, f"{{{newline}{indent}{json.dumps(key)}: {rendered}{newline}{outer}}}")


def _render(value: Any, step: str, indent: str, newline: str) -> str:
    """``value`` as indented JSON, its inner lines starting at ``indent``."""
    lines = json.dumps(value, indent=step, ensure_ascii=False).split("\n")
    return (newline + indent).join(lines)


def _cut_member(obj: Node, index: int) -> tuple[int, int, str]:
    """The edit that takes the ``index``-th member out of ``obj``, with the comma that joined it."""
    members = obj.members or []
    _key, key_start, node = members[index]
    if len(members) == 1:
        return (obj.start, obj.end, "{}")
    if index > 0:
        return (members[index - 1][2].end, node.end, "")
    return (key_start, members[1][1], "")

