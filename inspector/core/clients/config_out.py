"""A server as an entry of each client's MCP config, for "Copy server as config": the other way round from
:mod:`inspector.core.clients.configs`, which reads these files, so that what is copied here imports back
(tests/core/test_config_out.py checks the round trip for every client).

Shapes (as each client documents its file):

- Claude Desktop (``claude_desktop_config.json``), Cursor (``.cursor/mcp.json``): ``{"mcpServers": {NAME:
  {"command", "args", "env"}}}``; a URL is ``{"url", "headers"}``.
- Windsurf (``mcp_config.json``): the same, with ``serverUrl`` for a URL.
- Claude Code (``.mcp.json``): ``mcpServers`` entries with ``"type"``: ``stdio``, ``http`` or ``sse``.
- VS Code (``.vscode/mcp.json``): ``{"servers": {NAME: {"type": "stdio"|"http"|"sse", ...}}}``.

A working directory is kept as ``cwd`` (Claude Code, VS Code, Cursor read it; the others ignore it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

CLIENTS = ("Claude Desktop", "Cursor", "VS Code", "Claude Code", "Windsurf")


def config_entry(client: str, *, argv: list[str] | None = None, env: Mapping[str, str] | None = None,
                 cwd: str | None = None, url: str = "", headers: Mapping[str, str] | None = None,
                 transport: str = "auto") -> dict[str, Any]:
    """The server's entry (the value under its name) in ``client``'s config."""
    if client not in CLIENTS:
        raise ValueError(f"{client!r} is not a client the inspector writes configs for: {', '.join(CLIENTS)}")
    typed = client in ("VS Code", "Claude Code")
    entry: dict[str, Any] = {}
    if url:
        if typed:
            entry["type"] = "sse" if transport == "sse" else "http"
        entry["serverUrl" if client == "Windsurf" else "url"] = url
        if headers:
            entry["headers"] = dict(headers)
        return entry
    if not argv:
        raise ValueError("the server has neither a command nor a URL")
    if typed:
        entry["type"] = "stdio"
    entry["command"] = argv[0]
    entry["args"] = list(argv[1:])
    if env:
        entry["env"] = dict(env)
    if cwd:
        entry["cwd"] = cwd
    return entry


def config_snippet(client: str, name: str, **server: Any) -> str:
    """The text to paste: the whole section (``mcpServers`` or ``servers``) holding this one server."""
    section = "servers" if client == "VS Code" else "mcpServers"
    return json.dumps({section: {name: config_entry(client, **server)}}, ensure_ascii=False, indent=2)
