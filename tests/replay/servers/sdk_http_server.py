"""A small MCP server built with the official Python SDK (mcp 2.x ``MCPServer``), over Streamable HTTP on
127.0.0.1 at the port given as the only argument: ``echo`` and ``add``, for replays over ``--url``."""

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("replay-test-http-server", version="1.0.0")


@server.tool()
def echo(message: str) -> str:
    """Return the message unchanged."""
    return message


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


if __name__ == "__main__":
    server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
