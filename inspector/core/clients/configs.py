"""Import servers from the MCP config files people already have (Claude Desktop, Cursor, VS Code, Claude Code).

:func:`read_config` reads one file and returns an :class:`ImportPreview`: the servers that became profiles
(each with a note when something needs the user's eye, such as a ``${input:...}`` placeholder) and the entries
that were skipped, with the reason. Nothing is saved here; the caller adds what the user picked.

Formats:

* Claude Desktop ``claude_desktop_config.json``, Cursor ``mcp.json``, Windsurf ``mcp_config.json``:
  ``{"mcpServers": {name: {"command", "args", "env", "cwd"} | {"url", "headers"}}}``;
* VS Code ``mcp.json``: ``{"servers": {name: {"type": "stdio"|"http"|"sse", ...}}, "inputs": [...]}``
  (JSON with comments and trailing commas), and ``settings.json`` with ``{"mcp": {"servers": ...}}``;
* Claude Code ``.mcp.json`` (``mcpServers``, entries may have ``type``) and ``~/.claude.json`` (top-level
  ``mcpServers`` and ``projects[path].mcpServers``; project entries are named ``name (project path)``).

Placeholders (``${input:id}``, ``${env:NAME}``, ``${NAME}``) are kept as text: the inspector does not expand them.
Environment values and headers are imported as they are: they are the user's own secrets, needed to connect.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from inspector.core.clients.profiles import PLACEHOLDER, ServerProfile
from inspector.core.wire.json_types import json_type_phrase


class ConfigError(Exception):
    """A config file cannot be read; the message is a sentence naming the file and what is wrong."""


@dataclass
class ImportCandidate:
    profile: ServerProfile
    note: str | None = None


@dataclass
class ImportPreview:
    source: Path
    client: str
    candidates: list[ImportCandidate] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (name, reason)


# -- JSON with comments ----------------------------------------------------------------------------------


def _string_end(text: str, start: int) -> int:
    """Where the JSON string that opens at ``start`` ends (just after its closing quote, or the text's end)."""
    j, n = start + 1, len(text)
    while j < n and text[j] != '"':
        j += 2 if text[j] == "\\" else 1
    return min(j + 1, n)


def strip_json_comments(text: str) -> str:
    """JSONC to JSON: ``//`` and ``/* */`` comments become spaces (line numbers stay right) and trailing
    commas before ``}`` or ``]`` are dropped; nothing inside strings is touched."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = _string_end(text, i)
            out.append(text[i:j])
            i = j
        elif c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch in "\r\n" else " " for ch in text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return _drop_trailing_commas("".join(out))


def _drop_trailing_commas(text: str) -> str:
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = _string_end(text, i)
            out.append(text[i:j])
            i = j
            continue
        if c == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] in "}]":
                out.append(" ")
                i += 1
                continue
        out.append(c)
        i += 1
    return "".join(out)


def _load_json(path: Path) -> Any:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path} does not exist.") from None
    except IsADirectoryError:
        raise ConfigError(f"{path} is a folder, not a config file.") from None
    except OSError as exc:
        raise ConfigError(f"{path} cannot be read: {exc.strerror or exc}.") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text (byte {exc.start} is not valid UTF-8).") from None
    if not text.strip():
        raise ConfigError(f"{path} is empty.")
    try:
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass
        try:
            return json.loads(strip_json_comments(text))
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}.") \
                from None
    except RecursionError:  # Python's json reads about a thousand levels: the stack ends there
        raise ConfigError(f"{path} is nested too deep to read (JSON deeper than about a thousand levels).") from None


# -- formats ---------------------------------------------------------------------------------------------


def read_config(path: Path | str) -> ImportPreview:
    """Read one MCP config file; raises ConfigError when it is not JSON or not shaped like an MCP config."""
    path = Path(path)
    data = _load_json(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{path} should contain a JSON object, but it contains {json_type_phrase(data)}.")
    file_name = path.name.lower()

    if "projects" in data or file_name == ".claude.json":
        return _claude_code_user(path, data)
    if "mcpServers" in data:
        preview = ImportPreview(path, _mcp_servers_client(path))
        _read_servers(preview, path, data["mcpServers"], "mcpServers")
        return preview
    if "servers" in data:
        preview = ImportPreview(path, "VS Code")
        _read_servers(preview, path, data["servers"], "servers", inputs=_vscode_inputs(data))
        return preview
    if isinstance(data.get("mcp"), dict) and "servers" in data["mcp"]:
        preview = ImportPreview(path, "VS Code settings")
        _read_servers(preview, path, data["mcp"]["servers"], "mcp.servers", inputs=_vscode_inputs(data["mcp"]))
        return preview
    raise ConfigError(f'{path} has no "mcpServers" or "servers" section, so it does not look like an MCP config file.')


def _mcp_servers_client(path: Path) -> str:
    name = path.name.lower()
    parent = path.parent.name.lower()
    if name == "claude_desktop_config.json":
        return "Claude Desktop"
    if name == ".mcp.json":
        return "Claude Code"
    if parent == ".cursor":
        return "Cursor"
    if name == "mcp_config.json" and parent == "windsurf":
        return "Windsurf"
    return "MCP config"


def _claude_code_user(path: Path, data: dict[str, Any]) -> ImportPreview:
    preview = ImportPreview(path, "Claude Code")
    if "mcpServers" in data:
        _read_servers(preview, path, data["mcpServers"], "mcpServers")
    projects = data.get("projects", {})
    if not isinstance(projects, dict):
        raise ConfigError(f'{path}: "projects" should be an object of projects by folder, '
                          f'not {json_type_phrase(projects)}.')
    for project, settings in projects.items():
        if not isinstance(settings, dict) or "mcpServers" not in settings:
            continue
        _read_servers(preview, path, settings["mcpServers"], f"projects[{project!r}].mcpServers",
                      suffix=f" ({project})")
    return preview


def _vscode_inputs(section: dict[str, Any]) -> dict[str, str]:
    """``inputs`` by id -> a short description for notes (only used to explain placeholders)."""
    inputs = section.get("inputs")
    found: dict[str, str] = {}
    if isinstance(inputs, list):
        for item in inputs:
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                description = item.get("description")
                found[item["id"]] = description if isinstance(description, str) else ""
    return found


def _read_servers(preview: ImportPreview, path: Path, servers: object, where: str, *, suffix: str = "",
                  inputs: Mapping[str, str] | None = None) -> None:
    if not isinstance(servers, dict):
        raise ConfigError(f"{path}: {where} should be an object of servers by name, not {json_type_phrase(servers)}.")
    for name, entry in servers.items():
        display = f"{name}{suffix}"
        if not name.strip():
            preview.skipped.append((display or "(no name)", "it has an empty name"))
            continue
        try:
            profile, notes = _entry_to_profile(display, entry, inputs or {})
        except _Skip as skip:
            preview.skipped.append((display, str(skip)))
            continue
        profile.source = str(path)
        preview.candidates.append(ImportCandidate(profile, "; ".join(notes) or None))


class _Skip(Exception):
    """Why one entry cannot become a profile."""


def profile_of_entry(name: str, entry: object) -> ServerProfile:
    """One server entry of a config (``{"command", ...}`` or ``{"url", ...}``) as a profile, read as
    :func:`read_config` reads it; raises ConfigError saying why when it names no usable server."""
    try:
        profile, _ = _entry_to_profile(name, entry, {})
    except _Skip as skip:
        raise ConfigError(f"The server {name!r} cannot be used: {skip}.") from None
    return profile


STDIO_TYPES = {"stdio"}
HTTP_TYPES = {"http", "streamable-http", "streamablehttp", "streamable_http", "sse", "ws", "websocket"}


def _entry_to_profile(name: str, entry: object, inputs: Mapping[str, str]) -> tuple[ServerProfile, list[str]]:
    if not isinstance(entry, dict):
        raise _Skip(f"it is {json_type_phrase(entry)}, not an object with a command or a url")
    notes: list[str] = []
    kind_field = entry.get("type", entry.get("transport"))
    if kind_field is not None and not isinstance(kind_field, str):
        raise _Skip(f'its "type" is {json_type_phrase(kind_field)}, not a string')
    declared = kind_field.lower() if isinstance(kind_field, str) else None
    url = entry.get("url", entry.get("serverUrl", entry.get("httpUrl")))
    command = entry.get("command")

    if declared is not None and declared not in STDIO_TYPES | HTTP_TYPES:
        raise _Skip(f'its type {kind_field!r} is not one the inspector knows (stdio, http, sse)')
    if declared in STDIO_TYPES or (declared is None and command is not None):
        profile = _stdio_profile(name, entry, notes)
        if url is not None:
            notes.append("it also has a url, which was left out")
    elif declared in HTTP_TYPES or (declared is None and url is not None):
        profile = _http_profile(name, entry, url, declared, notes)
        if command is not None:
            notes.append("it also has a command, which was left out")
    else:
        raise _Skip("it has neither a command nor a url")

    placeholders = _placeholders(profile)
    if placeholders:
        described = [f"{p} ({inputs[p[8:-1]]})" if p.startswith("${input:") and inputs.get(p[8:-1]) else p
                     for p in placeholders]
        notes.insert(0, "replace the placeholders before connecting (they are kept as text): " + ", ".join(described))
    if entry.get("disabled") is True or entry.get("enabled") is False:
        notes.append("it is disabled in this config")
    if isinstance(entry.get("envFile"), str):
        notes.append(f"its envFile {entry['envFile']} is not read; add those variables by hand")
    return profile, notes


def _stdio_profile(name: str, entry: dict[str, Any], notes: list[str]) -> ServerProfile:
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        raise _Skip("its command is missing or empty" if command in (None, "") else
                    f"its command is {json_type_phrase(command)}, not a string")
    args_field = entry.get("args", [])
    if args_field is None:
        args_field = []
    if isinstance(args_field, str):
        try:
            args = shlex.split(args_field)
        except ValueError as exc:
            raise _Skip(f"its args are one string that cannot be split ({exc})") from None
        notes.append("its args were one string and were split like a shell would")
    elif isinstance(args_field, list):
        args = []
        for arg in args_field:
            if isinstance(arg, (dict, list)) or arg is None:
                raise _Skip(f"its args contain {json_type_phrase(arg)}; they must be strings")
            args.append(_scalar_text(arg))
    else:
        raise _Skip(f"its args are {json_type_phrase(args_field)}, not a list of strings")
    cwd = entry.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise _Skip(f"its cwd is {json_type_phrase(cwd)}, not a string")
    return ServerProfile(name=name, kind="stdio", command=command, args=args,
                         env=_string_map(entry.get("env"), "env"), cwd=cwd or None)


def _http_profile(name: str, entry: dict[str, Any], url: object, declared: str | None,
                  notes: list[str]) -> ServerProfile:
    if not isinstance(url, str) or not url.strip():
        raise _Skip("its url is missing or empty" if url in (None, "")
                    else f"its url is {json_type_phrase(url)}, not a string")
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        scheme = ""
    if declared == "sse":
        transport = "sse"
    elif declared in ("ws", "websocket") or scheme in ("ws", "wss"):
        transport = "websocket"
    else:
        transport = "auto"
    if scheme not in ("http", "https", "ws", "wss") and not PLACEHOLDER.match(url):
        notes.append("its url does not start with http://, https://, ws:// or wss://")
    return ServerProfile(name=name, kind="http", url=url, transport=transport,
                         headers=_string_map(entry.get("headers"), "headers"))


def _string_map(value: object, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _Skip(f"its {what} is {json_type_phrase(value)}, not an object of names and values")
    out: dict[str, str] = {}
    for key, item in value.items():
        if isinstance(item, (dict, list)):
            raise _Skip(f"its {what} value for {key!r} is {json_type_phrase(item)}, not a string")
        if item is None:
            continue
        out[key] = _scalar_text(item)
    return out


def _scalar_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value)


def _placeholders(profile: ServerProfile) -> list[str]:
    texts = [profile.command, *profile.args, *profile.env.values(), profile.cwd or "", profile.url,
             *profile.headers.values()]
    found: list[str] = []
    for text in texts:
        for match in PLACEHOLDER.findall(text):
            if match not in found:
                found.append(match)
    return found


# -- where the files are ---------------------------------------------------------------------------------


def known_config_files(home: Path | None = None, *, cwd: Path | None = None, platform: str | None = None,
                       environ: Mapping[str, str] | None = None) -> list[tuple[str, Path]]:
    """The standard MCP config files that exist, as (client, path), user files first, then the workspace's.

    With ``home`` given, everything per-user is looked up under it (the environment is not consulted unless
    ``environ`` is given too), so tests never touch the real home folder.
    """
    found: list[tuple[str, Path]] = []
    seen: set[Path] = set()
    for client, path in config_locations(home, cwd=cwd, platform=platform, environ=environ):
        try:
            if not path.is_file():
                continue
            key = path.resolve()
        except OSError:
            continue
        if key not in seen:
            seen.add(key)
            found.append((client, path))
    return found


def config_locations(home: Path | None = None, *, cwd: Path | None = None, platform: str | None = None,
                     environ: Mapping[str, str] | None = None) -> list[tuple[str, Path]]:
    """Where each client keeps its MCP config, whether the file exists or not (``add-to`` creates it), as
    (client, path); the arguments as for :func:`known_config_files`."""
    platform = platform or sys.platform
    if home is None:
        home = Path.home()
        environ = os.environ if environ is None else environ
    environ = environ or {}
    cwd = Path.cwd() if cwd is None else cwd

    if platform == "win32":
        app_config = Path(environ.get("APPDATA") or home / "AppData" / "Roaming")
    elif platform == "darwin":
        app_config = home / "Library" / "Application Support"
    else:
        app_config = Path(environ.get("XDG_CONFIG_HOME") or home / ".config")

    candidates = [
        ("Claude Desktop", app_config / "Claude" / "claude_desktop_config.json"),
        ("Claude Code", home / ".claude.json"),
        ("Cursor", home / ".cursor" / "mcp.json"),
        ("VS Code", app_config / "Code" / "User" / "mcp.json"),
        ("VS Code Insiders", app_config / "Code - Insiders" / "User" / "mcp.json"),
        ("Windsurf", home / ".codeium" / "windsurf" / "mcp_config.json"),
        ("Claude Code (project)", cwd / ".mcp.json"),
        ("VS Code (workspace)", cwd / ".vscode" / "mcp.json"),
        ("Cursor (project)", cwd / ".cursor" / "mcp.json"),
    ]
    return candidates
