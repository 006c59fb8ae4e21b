"""A small, well-behaved MCP server built with the official Python SDK (mcp 2.x ``MCPServer``), over stdio.

Tools ``add`` and ``echo``, one static resource and one prompt: enough for the integration tests to see a
real SDK's handshake, listings and tool results on the wire.
"""

from mcp.server.mcpserver import MCPServer

server = MCPServer("inspector-test-sdk-server", version="1.0.0")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def echo(message: str) -> str:
    """Return the message unchanged."""
    return message


@server.resource("test://greeting", name="greeting", mime_type="text/plain")
def greeting() -> str:
    """A fixed greeting."""
    return "hello from the test server"


@server.prompt()
def review(code: str) -> str:
    """Ask for a review of some code."""
    return f"Please review this code:\n{code}"


if __name__ == "__main__":
    server.run("stdio")
