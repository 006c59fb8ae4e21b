"""Demo MCP server bundled with mcp-inspector (stdio, standard library only).

Run it with ``python -m inspector.demo``; see :mod:`inspector.demo.server`.
"""
