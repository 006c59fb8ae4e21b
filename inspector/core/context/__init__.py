"""What the model sees of a server (issue 43): its listing costed in tokens offline (``tokenizers``, ``cost``) and
linted for tool poisoning (``lint``, docs/context-rules.md), from a capture or a live server (``sources``), with
text, JSON and SARIF reports (``report``). ``mcp-inspector context`` and the window's Model's view use it."""
