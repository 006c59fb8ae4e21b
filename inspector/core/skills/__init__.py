"""Skills served over MCP (the ``io.modelcontextprotocol/skills`` extension, SEP-2640): list them, load one and
verify every file it reads against the listing (:mod:`.entries`, :mod:`.frontmatter`, :mod:`.loader`)."""
