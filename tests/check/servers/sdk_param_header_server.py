"""An MCP server built with the official Python SDK (mcp 2.x ``MCPServer``) whose one tool mirrors an argument
into a header: ``region`` (read-only) takes ``region``, a string marked ``x-mcp-header: Region``, so a
2026-07-28 client sends it as ``Mcp-Param-Region`` too, and the SDK compares the two.

``python sdk_param_header_server.py PORT`` serves Streamable HTTP at ``/mcp`` on 127.0.0.1 only.
"""

from __future__ import annotations

import sys
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

server = MCPServer("inspector-test-sdk-param-header-server", version="1.0.0")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def region(region: Annotated[str, Field(description="Where to route", json_schema_extra={"x-mcp-header": "Region"})]
           ) -> str:
    """Say which region was asked for."""
    return f"region {region}"


if __name__ == "__main__":
    server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
