"""The client command for the official conformance suite's authorization scenarios: it runs
``mcp-inspector record --url URL --oauth --oauth-authorize follow`` (a fresh interpreter, as a user would).

    npx @modelcontextprotocol/conformance client --command "python tests/auth/conformance_client.py" \\
        --scenario auth/metadata-default

On node 20 (the suite wants 22), run its dist/index.js with ``node --import tests/auth/conformance/node20.mjs``,
which also binds the suite's servers to 127.0.0.1 only. Measured: the 19 non-extension ``auth/`` scenarios
pass (2025-03-26, 2025-06-18, 2025-11-25 and draft); the 3 extension ones (client credentials, cross-app
access) are not implemented.

The suite passes the server URL as the last argument and, for some scenarios, a context in
``MCP_CONFORMANCE_CONTEXT`` (JSON: a pre-registered ``client_id`` and ``client_secret``). The Client ID
Metadata Document URL is the one the suite's scenarios expect. Tokens stay in memory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

#: The client_id URL the suite's CIMD scenarios look for.
CIMD_URL = "https://conformance-test.local/client-metadata.json"
CALLS = [{"method": "tools/list"}, {"method": "tools/call", "params": {"name": "test-tool", "arguments": {}}}]


def main() -> int:
    url = sys.argv[-1]
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    with tempfile.TemporaryDirectory() as folder:
        calls = Path(folder) / "calls.jsonl"
        calls.write_text("".join(json.dumps(c) + "\n" for c in CALLS), encoding="utf-8")
        argv = [sys.executable, "-m", "inspector", "record", "--url", url, "--oauth", "--oauth-authorize", "follow",
                "--client-metadata-url", CIMD_URL, "--handshake", "legacy", "--send", str(calls),
                "--out", str(Path(folder) / "s.jsonl")]
        if context.get("client_id"):
            argv += ["--client-id", context["client_id"]]
        if context.get("client_secret"):
            argv += ["--client-secret", context["client_secret"]]
        env = {**os.environ, "MCP_INSPECTOR_TOKEN_STORE": "memory"}
        return subprocess.run(argv, env=env, cwd=Path(__file__).resolve().parents[2], check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
