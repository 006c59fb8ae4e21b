"""A small MCP server built with the official Python SDK (mcp 2.x ``MCPServer``), served over HTTP.

``python sdk_http_server.py streamable-http|sse PORT`` serves on 127.0.0.1 only: Streamable HTTP at ``/mcp``,
or HTTP+SSE (2024-11-05) at ``/sse`` with messages POSTed to ``/messages/``.

Tools: ``add``, ``echo``, ``work`` (sends progress and log notifications before its result, on the
request's own SSE response stream) and ``ask`` (asks the client for input with elicitation). One resource.
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

server = MCPServer("inspector-test-sdk-http-server", version="1.0.0")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def echo(message: str) -> str:
    """Return the message unchanged."""
    return message


@server.tool()
async def work(steps: int, ctx: Context) -> str:
    """Report progress for each step and log a line per step, then finish."""
    for step in range(1, steps + 1):
        await ctx.info(f"step {step} of {steps}")
        await ctx.report_progress(step, steps, f"step {step}")
    return f"done after {steps} steps"


class Favourite(BaseModel):
    colour: str = Field(default="teal", description="Your favourite colour")


@server.tool()
async def ask(ctx: Context) -> str:
    """Ask the client for a favourite colour (elicitation) and say what came back."""
    answer = await ctx.elicit("What is your favourite colour?", Favourite)
    if answer.action == "accept":
        return f"accepted: {answer.data.colour}"
    return f"no colour: {answer.action}"


@server.resource("test://greeting", name="greeting", mime_type="text/plain")
def greeting() -> str:
    """A fixed greeting."""
    return "hello from the HTTP test server"


if __name__ == "__main__":
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode not in ("streamable-http", "sse"):
        raise SystemExit(f"usage: {sys.argv[0]} streamable-http|sse PORT")
    server.run(mode, host="127.0.0.1", port=port)
