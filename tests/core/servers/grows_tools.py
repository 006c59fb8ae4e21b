"""An SDK server (mcp 2.x ``MCPServer``, stdio) whose tool ``grow`` adds a tool ``grown`` and says so with
``notifications/tools/list_changed`` (legacy era: a 2026-07-28 server sends it only on subscriptions/listen);
``slow`` reports progress twice before it answers."""

from mcp.server.mcpserver import Context, MCPServer

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


if __name__ == "__main__":
    server.run("stdio")
