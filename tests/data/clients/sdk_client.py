"""A tiny MCP client on the Python SDK (mcp 2.x ``Client``), for test-client's tests: it launches the server argv
it is given (after an optional ``--``) over stdio, or connects to the URL it is given over Streamable HTTP,
initializes, lists the tools, calls the first and exits.

Its environment is passed on to the server (the SDK passes only a few variables by default), so the scenario
server imports the same inspector as the bench.
"""

import asyncio
import os
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters


async def main(argv: list[str]) -> int:
    if argv and argv[0] == "--":
        argv = argv[1:]
    if len(argv) == 1 and argv[0].startswith("http"):
        server: StdioServerParameters | str = argv[0]
    else:
        server = StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))
    async with Client(server, read_timeout_seconds=20) as client:
        tools = await client.list_tools()
        if tools.tools:
            await client.call_tool(tools.tools[0].name, {"text": "hello"})
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
