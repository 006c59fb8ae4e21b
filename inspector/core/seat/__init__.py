"""The agent seat (issue 44): the inspector as an MCP server on stdio, whose tools drive the inspector's own
commands for a coding agent. :mod:`.tools` names the tools and runs them; :mod:`.server` answers MCP in both
eras. Nothing here listens on a port."""
