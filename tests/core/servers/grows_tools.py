"""An SDK server (mcp 2.x ``MCPServer``, stdio) whose tool ``grow`` adds a tool ``grown`` and says so with
``notifications/tools/list_changed`` (legacy era: a 2026-07-28 server sends it only on subscriptions/listen);
``slow`` reports progress twice before it answers. It declares ``tools.listChanged``, as a server that sends
the notification must (``MCPServer.run`` declares false: the inspector would rightly not list again).
"""

import anyio
from mcp.server import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.stdio import stdio_server

server = MCPServer("inspector-test-grows-tools", version="1.0.0")


@server.tool()
async def grow(ctx: Context) -> str:
    """Add the tool `grown` and tell the client its tool list changed."""

    def grown() -> str:
        """A tool that did not exist at first."""
        return "grown"

    server.add_tool(grown)
    await ctx.session.send_tool_list_changed()  # the legacy notification (2026-07-28: notify_tools_changed)
    return "added grown"


@server.tool()
async def slow(ctx: Context) -> str:
    """Report progress twice, then answer."""
    await ctx.report_progress(1, 2, "half way")
    await ctx.report_progress(2, 2, "done")
    return "slow done"


async def run_declaring_list_changed() -> None:
    """``MCPServer.run_stdio_async`` with ``tools.listChanged: true`` in its capabilities (the lowlevel server's
    own option: MCPServer offers no way to pass it)."""
    lowlevel = server._lowlevel_server  # private, but the SDK's only way to declare listChanged for MCPServer
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream,
                           lowlevel.create_initialization_options(NotificationOptions(tools_changed=True)))


if __name__ == "__main__":
    anyio.run(run_declaring_list_changed)
