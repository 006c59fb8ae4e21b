"""Copy server as config: each client's entry reads back, through the import reader, as the same server."""

from __future__ import annotations

import pytest

from inspector.core.clients.config_out import CLIENTS, config_snippet
from inspector.core.clients.configs import read_config

FILE_NAMES = {"Claude Desktop": "claude_desktop_config.json", "Cursor": "mcp.json", "VS Code": "mcp.json",
              "Claude Code": ".mcp.json", "Windsurf": "mcp_config.json"}


@pytest.mark.parametrize("client", CLIENTS)
def test_a_stdio_server_copied_for_each_client_imports_back_the_same(tmp_path, client):
    path = tmp_path / FILE_NAMES[client]
    path.write_text(config_snippet(client, "time", argv=["uvx", "mcp-server-time", "--local-timezone=UTC"],
                                   env={"TZ": "UTC"}))
    [candidate] = read_config(path).candidates
    profile = candidate.profile
    assert (profile.name, profile.kind, profile.argv(), profile.env) == \
        ("time", "stdio", ["uvx", "mcp-server-time", "--local-timezone=UTC"], {"TZ": "UTC"})


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("transport", ["auto", "sse"])
def test_a_url_server_copied_for_each_client_imports_back_the_same(tmp_path, client, transport):
    path = tmp_path / FILE_NAMES[client]
    path.write_text(config_snippet(client, "remote", url="http://127.0.0.1:3001/mcp",
                                   headers={"X-Team": "a"}, transport=transport))
    [candidate] = read_config(path).candidates
    profile = candidate.profile
    assert (profile.kind, profile.url, profile.headers) == ("http", "http://127.0.0.1:3001/mcp", {"X-Team": "a"})
    if client in ("VS Code", "Claude Code"):  # the clients whose entries say their transport
        assert profile.transport == transport
