"""``mcp-inspector wrap`` / ``unwrap``: make a client's stdio servers run through ``mcp-inspector tap``, and back.

Files: the ones :mod:`inspector.core.clients.configs` reads (Claude Desktop, Cursor and Windsurf
``mcpServers``; VS Code ``servers`` and ``settings.json`` ``mcp.servers``; Claude Code ``.mcp.json`` and
``~/.claude.json``, its ``projects`` included), with the same detection and the same reasons for skipping an
entry. A wrapped stdio entry keeps every field but two::

    "command": "<absolute path of this python>",
    "args": ["-m", "inspector", "tap", "--name", NAME, "--", ORIGINAL_COMMAND, *ORIGINAL_ARGS]

so ``env``, ``cwd``, ``type`` and anything else the client reads still apply (the client passes them to the
tap, the tap to the server).

A wrapped URL entry keeps every field but its URL (``url``, ``serverUrl`` or ``httpUrl``), which becomes the
address of an HTTP tap (:mod:`inspector.core.tap.http_proxy`) on 127.0.0.1 and a port free when it was wrapped,
with the same path and query. The client does not start that tap: the user runs it while the client runs
(``mcp-inspector tap --url ORIGINAL --listen 127.0.0.1:PORT --name NAME``, said by ``wrap`` and kept in the
sidecar), as the tap must listen only while the user wants it to. ``headers`` stay in the entry: the client sends
them to the tap, which relays them. A URL with placeholders the client fills in (``${input:...}``) is skipped.

How the file is changed: the file is never re-serialized. It is parsed with positions (JSON with comments
and trailing commas, as VS Code writes it) and only the text of ``command`` and ``args`` is replaced (an
``args`` is inserted after ``command`` when there was none). Comments, order, indentation, line endings and
every other byte stay as they were, so VS Code files with comments are wrapped too.

Where the original goes: a sidecar file next to the config, ``CONFIG.mcp-inspector.json`` (mode 0600: entries
hold ``env`` secrets), keeps the exact text of each original entry and the wrapped entry as written.
``unwrap`` puts that text back, so wrap then unwrap gives a byte-identical file. We chose the sidecar over a
marker key inside the entry because the clients do not all tolerate unknown keys: VS Code validates
``mcp.json`` against a schema and flags unknown properties, Claude Code validates server entries against its
own schema and rewrites ``~/.claude.json`` itself, so a marker could be rejected or silently dropped. Without
the sidecar (deleted, or an entry edited since it was wrapped) ``unwrap`` still works: the wrapped ``args``
hold the original command line after ``--``; then only those two fields are restored, and the report says so.
A URL entry's original URL is only in the sidecar: without it, ``unwrap`` cannot tell a wrapped URL entry from any
other, and leaves it (an entry edited since it was wrapped gets back its URL alone, if it still names the tap).

Before writing, a backup of the file goes next to it (``CONFIG.mcp-inspector-backup-YYYYmmdd-HHMMSS``). The
new content replaces the file atomically, with its mode kept, and only if nobody changed the file meanwhile.
Wrapping a wrapped entry changes nothing.
"""

from __future__ import annotations

import contextlib
import json
import json.decoder
import os
import re
import shlex
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.core.clients.configs import ConfigError, read_config
from inspector.core.clients.profiles import PLACEHOLDER
from inspector.core.redaction import redact_argv, redact_url
from inspector.core.tap.http_guard import local_url

TAP_PREFIX = ["-m", "inspector", "tap"]
SIDECAR_SUFFIX = ".mcp-inspector.json"
BACKUP_INFIX = ".mcp-inspector-backup-"
SIDECAR_FORMAT = "mcp-inspector-wrap"
SIDECAR_VERSION = 1


class WrapError(Exception):
    """The file cannot be wrapped or unwrapped; the message is one sentence for the user."""


# -- JSON (with comments) that remembers where everything is --------------------------------------------------


@dataclass
class Node:
    start: int
    end: int
    value: Any
    #: for an object: (key, where the key starts, value node), in file order, duplicates included
    members: list[tuple[str, int, Node]] | None = None

    def member(self, key: str) -> tuple[int, Node] | None:
        """The last member named ``key`` (the one a JSON parser keeps)."""
        found = None
        for name, key_start, node in self.members or ():
            if name == key:
                found = (key_start, node)
        return found


#: objects and arrays nested deeper than this are refused with a sentence (the parser recurses, about three
#: Python frames a level; client configs nest five or six levels)
MAX_NESTING = 200
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}


class _Parser:
    def __init__(self, text: str, name: str) -> None:
        self.text = text
        self.name = name
        self.i = 0
        self.depth = 0

    def parse(self) -> Node:
        node = self.value()
        self.skip()
        if self.i != len(self.text):
            raise self.fail("unexpected text after the end of the JSON value")
        return node

    def fail(self, what: str, pos: int | None = None) -> WrapError:
        pos = self.i if pos is None else pos
        line = self.text.count("\n", 0, pos) + 1
        column = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        return WrapError(f"{self.name} is not valid JSON: {what} at line {line}, column {column}.")

    def skip(self) -> None:
        text, n = self.text, len(self.text)
        i = self.i
        while i < n:
            c = text[i]
            if c in " \t\r\n\ufeff":
                i += 1
            elif text.startswith("//", i):
                j = text.find("\n", i)
                i = n if j < 0 else j
            elif text.startswith("/*", i):
                j = text.find("*/", i + 2)
                if j < 0:
                    raise self.fail("a comment that never ends", i)
                i = j + 2
            else:
                break
        self.i = i

    def value(self) -> Node:
        self.skip()
        text, i = self.text, self.i
        if i >= len(text):
            raise self.fail("the file ends where a value was expected")
        c = text[i]
        if c in "{[":
            self.depth += 1
            if self.depth > MAX_NESTING:
                raise WrapError(f"{self.name} is nested too deep to read (deeper than {MAX_NESTING} levels).")
            node = self.object() if c == "{" else self.array()
            self.depth -= 1
            return node
        if c == '"':
            return self.string()
        match = _NUMBER.match(text, i)
        if match:
            self.i = match.end()
            number = match.group()
            return Node(i, self.i, float(number) if any(ch in number for ch in ".eE") else int(number))
        for word, value in _LITERALS.items():
            if text.startswith(word, i):
                self.i = i + len(word)
                return Node(i, self.i, value)
        raise self.fail("expected a value")

    def string(self) -> Node:
        start = self.i
        try:
            value, end = json.decoder.scanstring(self.text, start + 1, True)  # type: ignore[attr-defined]  # missing from typeshed
        except json.JSONDecodeError as exc:
            raise self.fail(exc.msg, exc.pos) from None
        self.i = end
        return Node(start, end, value)

    def object(self) -> Node:
        start = self.i
        self.i += 1
        members: list[tuple[str, int, Node]] = []
        value: dict[str, Any] = {}
        while True:
            self.skip()
            if self.text.startswith("}", self.i):
                self.i += 1
                break
            if not self.text.startswith('"', self.i):
                raise self.fail("expected a property name in double quotes")
            key_start = self.i
            key = self.string().value
            self.skip()
            if not self.text.startswith(":", self.i):
                raise self.fail("expected ':' after a property name")
            self.i += 1
            node = self.value()
            members.append((key, key_start, node))
            value[key] = node.value
            self.skip()
            if self.text.startswith(",", self.i):
                self.i += 1
            elif self.text.startswith("}", self.i):
                self.i += 1
                break
            else:
                raise self.fail("expected ',' or '}'")
        return Node(start, self.i, value, members)

    def array(self) -> Node:
        start = self.i
        self.i += 1
        items: list[Any] = []
        while True:
            self.skip()
            if self.text.startswith("]", self.i):
                self.i += 1
                break
            items.append(self.value().value)
            self.skip()
            if self.text.startswith(",", self.i):
                self.i += 1
            elif self.text.startswith("]", self.i):
                self.i += 1
                break
            else:
                raise self.fail("expected ',' or ']'")
        return Node(start, self.i, items)


def parse_with_positions(text: str, name: str = "the file") -> Node:
    """Parse JSON, or JSON with comments and trailing commas, keeping where each value is in ``text``."""
    return _Parser(text, name).parse()


# -- entries -----------------------------------------------------------------------------------------------


@dataclass
class Entry:
    """One server entry of a config file."""

    section: list[str]  #: JSON path of the servers object: ["mcpServers"], ["projects", DIR, "mcpServers"], ...
    name: str
    display: str  #: ``name``, or ``name (project dir)`` for a Claude Code project entry
    node: Node
    kind: str  #: ``stdio``, ``url`` or ``skip``
    reason: str = ""  #: why it is skipped, or what URL it has
    argv: list[str] = field(default_factory=list)  #: the command line, for a stdio entry
    url: str = ""  #: the URL, for a URL entry
    transport: str = "auto"  #: what a URL entry's server speaks, as the client reads the entry
    #: a wrapped URL entry: its tap as the sidecar keeps it ({"url", "listen", "transport", "name", "local",
    #: "command"}); None otherwise
    tap: dict[str, Any] | None = None

    @property
    def path(self) -> list[str]:
        return [*self.section, self.name]

    @property
    def wrapped(self) -> bool:
        if self.kind == "url":
            return self.tap is not None
        return self.kind == "stdio" and is_wrapped(self.node.value)

    @property
    def url_key(self) -> str | None:
        """Which field holds a URL entry's URL (the one the client reads: ``url``, then ``serverUrl``,
        ``httpUrl``)."""
        for key in ("url", "serverUrl", "httpUrl"):
            if self.node.member(key) is not None:
                return key
        return None


def is_wrapped(entry: Any) -> bool:
    """Whether a server entry already runs through ``mcp-inspector tap``."""
    if not isinstance(entry, dict):
        return False
    args = entry.get("args")
    return isinstance(args, list) and args[:3] == TAP_PREFIX and "--" in args


def tap_args(name: str, argv: list[str]) -> list[str]:
    return [*TAP_PREFIX, "--name", name, "--", *argv]


def original_argv(wrapped_args: list[Any]) -> list[str]:
    """The server command line inside wrapped ``args``: everything after the first ``--``."""
    index = wrapped_args.index("--")
    return [str(arg) for arg in wrapped_args[index + 1:]]


def _sections(data: dict[str, Any], root: Node, file_name: str) -> list[tuple[list[str], Node, str]]:
    """The servers objects of a config, as ``client_configs.read_config`` finds them: (path, node, suffix)."""
    def child(node: Node, key: str) -> Node | None:
        found = node.member(key) if node.members is not None else None
        return found[1] if found else None

    def present(node: Node, key: str) -> Node:
        """A member that ``data``, parsed from the same text, is known to have."""
        found = child(node, key)
        assert found is not None
        return found

    out: list[tuple[list[str], Node, str]] = []
    if "projects" in data or file_name == ".claude.json":
        top = child(root, "mcpServers")
        if top is not None:
            out.append((["mcpServers"], top, ""))
        projects = child(root, "projects")
        for project, _, settings in (projects.members or []) if projects is not None else []:
            servers = child(settings, "mcpServers") if settings.members is not None else None
            if servers is not None:
                out.append((["projects", project, "mcpServers"], servers, f" ({project})"))
    elif "mcpServers" in data:
        out.append((["mcpServers"], present(root, "mcpServers"), ""))
    elif "servers" in data:
        out.append((["servers"], present(root, "servers"), ""))
    elif isinstance(data.get("mcp"), dict) and "servers" in data["mcp"]:
        out.append((["mcp", "servers"], present(present(root, "mcp"), "servers"), ""))
    return out


@dataclass
class ConfigFile:
    path: Path  #: the real file (symlinks resolved)
    raw: bytes
    text: str
    root: Node
    client: str
    entries: list[Entry]


def load(path: str | os.PathLike[str]) -> ConfigFile:
    """Read a config file with positions and classify its entries; raises WrapError with a sentence."""
    given = Path(path).expanduser()
    real = given.resolve()
    try:
        preview = read_config(real)
    except ConfigError as exc:
        raise WrapError(str(exc)) from None
    raw = real.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WrapError(f"{given} is not UTF-8 text (byte {exc.start} is not valid UTF-8).") from None
    root = parse_with_positions(text, str(given))
    if not isinstance(root.value, dict):
        raise WrapError(f"{given} should contain a JSON object.")
    by_display = {c.profile.name: c.profile for c in preview.candidates}
    skipped = dict(preview.skipped)
    entries: list[Entry] = []
    for section, servers, suffix in _sections(root.value, root, real.name.lower()):
        for name, _, node in servers.members or []:
            display = f"{name}{suffix}"
            profile = by_display.get(display)
            if profile is None:
                entries.append(Entry(section, name, display, node, "skip", skipped.get(display, "it cannot be read")))
            elif profile.kind == "stdio":
                entries.append(Entry(section, name, display, node, "stdio", argv=[profile.command, *profile.args]))
            else:
                entries.append(Entry(section, name, display, node, "url", redact_url(profile.url), url=profile.url,
                                     transport=profile.transport))
    records = {json.dumps(r.get("path")): r for r in _read_sidecar(real)["entries"] if isinstance(r, dict)}
    for entry in entries:
        record = records.get(json.dumps(entry.path))
        if entry.kind == "url" and record is not None and isinstance(record.get("tap"), dict) \
                and record.get("wrapped") == entry.node.value:
            entry.tap = record["tap"]
    return ConfigFile(real, raw, text, root, preview.client, entries)


# -- reports -----------------------------------------------------------------------------------------------


@dataclass
class Change:
    entry: str  #: the entry's display name
    #: wrapped, already, wrapped-url, already-url, skipped, unwrapped, restored-from-args, restored-url,
    #: not-wrapped
    action: str
    detail: str = ""


@dataclass
class Report:
    path: Path
    client: str
    changes: list[Change] = field(default_factory=list)
    backup: Path | None = None
    sidecar: Path | None = None
    written: bool = False

    def count(self, *actions: str) -> int:
        return sum(1 for change in self.changes if change.action in actions)


# -- wrap / unwrap -----------------------------------------------------------------------------------------


def sidecar_path(config: Path) -> Path:
    return config.with_name(config.name + SIDECAR_SUFFIX)


def _select(entries: list[Entry], servers: list[str] | None) -> list[Entry]:
    if servers is None:
        return entries
    missing = [name for name in servers if not any(name in (e.name, e.display) for e in entries)]
    if missing:
        known = ", ".join(e.display for e in entries) or "none"
        raise WrapError(f"no server named {', '.join(missing)} in this file (its servers: {known}).")
    return [e for e in entries if e.name in servers or e.display in servers]


def wrap_config(path: str | os.PathLike[str], servers: list[str] | None = None, *, python: str | None = None,
                dry_run: bool = False) -> Report:
    """Make the selected stdio entries (all when ``servers`` is None) run through tap."""
    config = load(path)
    python = python or os.path.abspath(sys.executable)
    report = Report(config.path, config.client)
    edits: list[tuple[int, int, str]] = []
    records: list[dict[str, Any]] = []
    for entry in _select(config.entries, servers):
        if entry.kind == "url":
            _wrap_url(config, entry, python, edits, records, report)
        elif entry.kind == "skip":
            report.changes.append(Change(entry.display, "skipped", entry.reason))
        elif entry.wrapped:
            report.changes.append(Change(entry.display, "already", _show(original_argv(entry.node.value["args"]))))
        else:
            entry_edits = _wrap_edits(config.text, entry, python)
            wrapped_text = apply_edits(config.text[entry.node.start:entry.node.end],
                                  [(s - entry.node.start, e - entry.node.start, r) for s, e, r in entry_edits])
            records.append({"path": entry.path, "original": config.text[entry.node.start:entry.node.end],
                            "wrapped": parse_with_positions(wrapped_text).value,
                            "when": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
            edits.extend(entry_edits)
            report.changes.append(Change(entry.display, "wrapped", _show(entry.argv)))
    if edits and not dry_run:
        sidecar = _read_sidecar(config.path)
        kept = [r for r in sidecar["entries"] if r.get("path") not in [n["path"] for n in records]]
        sidecar["entries"] = kept + records
        report.backup = backup_file(config.path)
        _write_sidecar(config.path, sidecar)
        report.sidecar = sidecar_path(config.path)
        _replace(config, apply_edits(config.text, edits))
        report.written = True
    return report


def _wrap_url(config: ConfigFile, entry: Entry, python: str, edits: list[tuple[int, int, str]],
              records: list[dict[str, Any]], report: Report) -> None:
    """A URL entry: its URL becomes an HTTP tap's, on a port free now; the tap's command goes to the report."""
    if entry.tap is not None:
        report.changes.append(Change(entry.display, "already-url", tap_command_text(entry.tap)))
        return
    key = entry.url_key
    if key is None or PLACEHOLDER.search(entry.url):
        report.changes.append(Change(entry.display, "skipped", "its url has placeholders the client fills in, so "
                                                               "the tap could not be given it"))
        return
    port = free_loopback_port()
    local = local_url(entry.url, "127.0.0.1", port, entry.transport)
    value = entry.node.member(key)
    assert value is not None  # url_key found it
    entry_edits = [(value[1].start, value[1].end, _dumps(local))]
    wrapped_text = apply_edits(config.text[entry.node.start:entry.node.end],
                          [(s - entry.node.start, e - entry.node.start, r) for s, e, r in entry_edits])
    command = [python, *TAP_PREFIX, "--url", entry.url, "--listen", f"127.0.0.1:{port}", "--name", entry.name]
    if entry.transport != "auto":
        command += ["--transport", entry.transport]
    tap = {"url": entry.url, "listen": f"127.0.0.1:{port}", "transport": entry.transport, "name": entry.name,
           "local": local, "command": command}
    records.append({"path": entry.path, "original": config.text[entry.node.start:entry.node.end],
                    "wrapped": parse_with_positions(wrapped_text).value, "tap": tap,
                    "when": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    edits.extend(entry_edits)
    report.changes.append(Change(entry.display, "wrapped-url", tap_command_text(tap)))


def tap_command_text(tap: dict[str, Any]) -> str:
    """The command that runs a wrapped URL entry's tap, as a person may see it (a secret in the URL left out)."""
    command = [str(arg) for arg in tap.get("command", [])]
    shown = [redact_url(arg) if arg == tap.get("url") else arg for arg in command]
    text = shlex.join(shown)
    if shown != command:
        text += " (the URL's secret is left out here; the sidecar keeps the whole command)"
    return text


def free_loopback_port() -> int:
    """A port free on 127.0.0.1 now (the kernel's choice; bound and released, never listened on)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def unwrap_config(path: str | os.PathLike[str], servers: list[str] | None = None, *, dry_run: bool = False) -> Report:
    """Put the selected wrapped entries (all when ``servers`` is None) back as they were."""
    config = load(path)
    report = Report(config.path, config.client)
    sidecar = _read_sidecar(config.path)
    records = {json.dumps(r.get("path")): r for r in sidecar["entries"] if isinstance(r, dict)}
    edits: list[tuple[int, int, str]] = []
    restored: list[str] = []
    for entry in _select(config.entries, servers):
        key = json.dumps(entry.path)
        record = records.get(key)
        if entry.kind == "url" and not entry.wrapped and record is not None and isinstance(record.get("tap"), dict):
            url_edits = _unwrap_url_edits(entry, record["tap"])
            if url_edits:  # edited since it was wrapped, but still naming the tap: its URL alone goes back
                edits.extend(url_edits)
                report.changes.append(Change(entry.display, "restored-url", f"{redact_url(record['tap']['url'])}; it "
                                                                            "changed since it was wrapped, so only its "
                                                                            "URL was restored"))
                restored.append(key)
                continue
        if not entry.wrapped:
            if servers is not None:
                report.changes.append(Change(entry.display, "not-wrapped"))
            continue
        if entry.kind == "url":
            assert record is not None  # a wrapped URL entry is one the sidecar knows
            edits.append((entry.node.start, entry.node.end, record["original"]))
            report.changes.append(Change(entry.display, "unwrapped", redact_url(entry.url if entry.tap is None
                                                                                 else entry.tap["url"])))
            restored.append(key)
            continue
        argv = original_argv(entry.node.value["args"])
        if record is not None and record.get("wrapped") == entry.node.value and isinstance(record.get("original"), str):
            edits.append((entry.node.start, entry.node.end, record["original"]))
            report.changes.append(Change(entry.display, "unwrapped", _show(argv)))
        else:
            edits.extend(_unwrap_edits(entry, argv))
            why = ("it changed since it was wrapped" if record is not None else
                   "its original was not kept (no sidecar record)")
            report.changes.append(Change(entry.display, "restored-from-args",
                                         f"{_show(argv)}; {why}, so only command and args were restored "
                                         "and its other fields stay as they are now"))
        restored.append(key)
    if edits and not dry_run:
        report.backup = backup_file(config.path)
        _replace(config, apply_edits(config.text, edits))
        report.written = True
        sidecar["entries"] = [r for r in sidecar["entries"] if json.dumps(r.get("path")) not in restored]
        if sidecar["entries"]:
            _write_sidecar(config.path, sidecar)
        else:
            with_sidecar = sidecar_path(config.path)
            if with_sidecar.exists():
                with_sidecar.unlink()
    return report


def _wrap_edits(text: str, entry: Entry, python: str) -> list[tuple[int, int, str]]:
    command = entry.node.member("command")
    assert command is not None  # a stdio entry has one
    new_args = _dumps(tap_args(entry.name, entry.argv))
    edits = [(command[1].start, command[1].end, _dumps(python))]
    args = entry.node.member("args")
    if args is not None:
        edits.append((args[1].start, args[1].end, new_args))
    else:
        key_start = command[0]
        line_start = text.rfind("\n", 0, key_start) + 1
        indent = text[line_start:key_start]
        if "\n" in text[entry.node.start:key_start] and not indent.strip():
            edits.append((command[1].end, command[1].end, f',\n{indent}"args": {new_args}'))
        else:
            edits.append((command[1].end, command[1].end, f', "args": {new_args}'))
    return edits


def _unwrap_url_edits(entry: Entry, tap: dict[str, Any]) -> list[tuple[int, int, str]]:
    key = entry.url_key
    value = entry.node.member(key) if key is not None else None
    if value is None or value[1].value != tap.get("local") or not isinstance(tap.get("url"), str):
        return []  # its URL is no longer the tap's: the user pointed it elsewhere
    return [(value[1].start, value[1].end, _dumps(tap["url"]))]


def _unwrap_edits(entry: Entry, argv: list[str]) -> list[tuple[int, int, str]]:
    command = entry.node.member("command")
    args = entry.node.member("args")
    assert command is not None and args is not None
    return [(command[1].start, command[1].end, _dumps(argv[0] if argv else "")),
            (args[1].start, args[1].end, _dumps(argv[1:]))]


def apply_edits(text: str, edits: list[tuple[int, int, str]]) -> str:
    """``text`` with each (start, end, replacement) edit made; the edits may not overlap."""
    out = text
    last = len(text) + 1
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        if end > last:
            raise WrapError("internal error: overlapping edits")  # pragma: no cover - entries never overlap
        out = out[:start] + replacement + out[end:]
        last = start
    return out


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _show(argv: list[str]) -> str:
    return " ".join(redact_argv(argv))


# -- files -------------------------------------------------------------------------------------------------


def _read_sidecar(config: Path) -> dict[str, Any]:
    path = sidecar_path(config)
    empty = {"format": SIDECAR_FORMAT, "version": SIDECAR_VERSION, "config": str(config), "entries": []}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return empty
    except (OSError, ValueError):
        return empty  # unreadable: unwrap falls back to the tap command lines
    if not isinstance(data, dict) or data.get("format") != SIDECAR_FORMAT or not isinstance(data.get("entries"), list):
        return empty
    return data


def _write_sidecar(config: Path, data: dict[str, Any]) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    write_atomically(sidecar_path(config), text.encode("utf-8"), 0o600)


def backup_file(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}{BACKUP_INFIX}{stamp}")
    n = 2
    while target.exists():
        target = path.with_name(f"{path.name}{BACKUP_INFIX}{stamp}-{n}")
        n += 1
    shutil.copy2(path, target)  # the mode too: the file may hold secrets
    return target


def _replace(config: ConfigFile, text: str) -> None:
    check_unchanged(config.path, config.raw)
    replace_keeping_mode(config.path, text.encode("utf-8"))


def check_unchanged(path: Path, raw: bytes) -> None:
    """WrapError, with a sentence, unless ``path`` still holds ``raw`` (what was read before the edit)."""
    try:
        now = path.read_bytes()
    except OSError as exc:
        raise WrapError(f"{path} cannot be read again: {exc.strerror or exc}.") from None
    if now != raw:
        raise WrapError(f"{path} changed while it was being edited (is the client writing it?); "
                        "nothing was changed, try again.")


def replace_keeping_mode(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically, keeping its mode (and owner, where that may be given)."""
    info = path.stat()
    write_atomically(path, data, stat.S_IMODE(info.st_mode), owner=(info.st_uid, info.st_gid))


def write_atomically(path: Path, data: bytes, mode: int, owner: tuple[int, int] | None = None) -> None:
    """Replace ``path`` atomically (a temporary file in the same folder, then rename), with ``mode``."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        if owner is not None and hasattr(os, "chown"):
            try:
                os.chown(tmp, *owner)
            except (PermissionError, OSError):
                pass  # not ours to give away: the file stays ours
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def tap_runs_anywhere(python: str | None = None) -> bool:
    """Whether ``PYTHON -m inspector tap`` works outside this folder (a client starts it from its own)."""
    python = python or sys.executable
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    try:
        result = subprocess.run([python, "-c", "import inspector.core.tap.relay"], cwd=tempfile.gettempdir(), env=env,
                                capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0
