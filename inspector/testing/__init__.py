"""The pytest plugin for MCP server developers (docs/pytest-plugin.md): the ``mcp_server`` and ``mcp_cassette``
markers and the ``mcp_client`` fixture, on the inspector's own sessions and captures.

It sits beside the window above the core (it imports :mod:`inspector.core`, never Qt, the window or the command
line). :mod:`inspector.testing.plugin` is what pytest loads (the ``pytest11`` entry point); it imports nothing of
the inspector until a test asks for ``mcp_client``, so loading it costs a test run nothing.
"""
