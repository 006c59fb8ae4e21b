"""The ``mcp-inspector`` command: argument parsing and the headless subcommands. Qt is imported only for the GUI."""
