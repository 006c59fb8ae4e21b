"""Refresh tests/data/everything-tools.json: python scripts/refresh_everything_tools.py

Starts the pinned npm server-everything over stdio (installed by tests/npm_servers.py into the test cache),
does the handshake, lists every tool (following nextCursor) through the inspector's own session, and writes
``{"note": ..., "server": ..., "tools": [...]}``. The form tests (tests/core/forms/) build a form for each tool.
Run it again after changing ``EVERYTHING_VERSION`` in tests/npm_servers.py.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from npm_servers import EVERYTHING_PACKAGE, EVERYTHING_VERSION, install_everything  # noqa: E402 - after the path setup

from inspector.core.explore.listing import list_all  # noqa: E402 - after the path setup
from inspector.core.session.session import Session  # noqa: E402 - after the path setup
from inspector.core.transports.stdio import StdioTransport  # noqa: E402 - after the path setup

OUT = ROOT / "tests" / "data" / "everything-tools.json"
#: bound on the whole run (npm's server starts in about a second)
TIMEOUT = 60.0


class _Asks:
    """Declares roots, sampling and elicitation (form and URL), as the window does: server-everything lists
    its elicitation and sampling tools only to a client that can answer them. Nothing is asked while listing."""

    def capabilities(self) -> dict:
        return {"sampling": {}, "elicitation": {"form": {}, "url": {}}}

    async def __call__(self, method: str, params: object) -> object:
        return {}


async def fetch() -> list[dict]:
    node, entry = install_everything()
    session = Session(StdioTransport([node, str(entry), "stdio"], cwd=str(ROOT)),
                      roots=[{"uri": ROOT.as_uri(), "name": "mcp-inspector"}], server_request_handler=_Asks())
    await session.start()
    try:
        await session.handshake("legacy")
        return (await list_all(session, "tools")).items
    finally:
        await session.close()


def main() -> int:
    tools = asyncio.run(asyncio.wait_for(fetch(), TIMEOUT))
    data = {"note": f"tools/list of {EVERYTHING_PACKAGE}@{EVERYTHING_VERSION} over stdio, made by "
                    "scripts/refresh_everything_tools.py; do not edit by hand",
            "server": f"{EVERYTHING_PACKAGE}@{EVERYTHING_VERSION}", "tools": tools}
    OUT.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(tools)} tools written to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
