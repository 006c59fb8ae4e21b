"""``python -m inspector`` is the ``mcp-inspector`` command."""

from inspector.cli.main import main

if __name__ == "__main__":  # the window's worker process (inspector/core/offload.py) imports this module again
    raise SystemExit(main())
