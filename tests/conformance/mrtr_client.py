"""The client command for the official conformance suite's multi round-trip scenario
(``sep-2322-client-request-state``, spec 2026-07-28): ``mcp-inspector record --url URL --handshake modern`` calls
each of the scenario's tools, answering their elicitations with ``--answer elicitation=accept-defaults``. The suite
passes the server URL as the last argument; the capture is kept as for skills_client.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ("test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type")


def main() -> int:
    url = sys.argv[-1]
    with tempfile.TemporaryDirectory() as folder:
        calls = Path(folder) / "calls.jsonl"
        lines = [{"method": "tools/list"}] + [{"method": "tools/call", "params": {"name": t, "arguments": {}}}
                                              for t in TOOLS]
        calls.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        keep = os.environ.get("MCP_INSPECTOR_CONFORMANCE_KEEP")
        out = Path(keep) / "sep-2322-client-request-state.jsonl" if keep else Path(folder) / "s.jsonl"
        argv = [sys.executable, "-m", "inspector", "record", "--url", url, "--handshake", "modern",
                "--answer", "elicitation=accept-defaults", "--send", str(calls), "--out", str(out)]
        return subprocess.run(argv, cwd=ROOT, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
