"""``python -m inspector.demo``: run the demo MCP server on stdio."""

from inspector.demo.server import main

if __name__ == "__main__":
    raise SystemExit(main())
