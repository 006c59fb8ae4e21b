"""``python -m inspector`` is the ``mcp-inspector`` command."""

from inspector.cli.main import main

raise SystemExit(main())
