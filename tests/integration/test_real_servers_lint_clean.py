"""The real servers of the suite break no MUST rule: mcp-server-time and the SDK's MCPServer (2026-07-28), and
server-everything on stdio at each revision of the handshake era (so each revision's schema judges real
traffic). A real violation they raise would be written down in docs/protocol-checks.md with its spec text."""

from __future__ import annotations

import json
import sys

import pytest
import warm_python
from integration_support import SERVERS
from npm_servers import install_everything
from test_protocol_rules import inspector

CALLS = [{"jsonrpc": "2.0", "method": m, "params": {}} for m in ("tools/list", "prompts/list", "resources/list")]
EVERYTHING_CALLS = [*CALLS, {"jsonrpc": "2.0", "method": "resources/templates/list", "params": {}},
                    {"jsonrpc": "2.0", "method": "tools/call",
                     "params": {"name": "echo", "arguments": {"message": "hi"}}},
                    {"jsonrpc": "2.0", "method": "logging/setLevel", "params": {"level": "debug"}}]


def lint_run(tmp_path, name: str, calls: list[dict], *argv: str, options: tuple[str, ...] = ()) -> dict:
    send = tmp_path / f"{name}-send.jsonl"
    send.write_text("".join(json.dumps(c) + "\n" for c in calls))
    out = tmp_path / f"{name}.jsonl"
    done = inspector("record", "--out", str(out), "--send", str(send), *options, "--", *argv)
    assert done.returncode == 0, done.stderr
    status = inspector("lint", str(out), "--format", "json")
    return {"status": status.returncode, **json.loads(status.stdout)}


@pytest.mark.integration
def test_mcp_server_time_breaks_no_must(tmp_path):
    report = lint_run(tmp_path, "time", CALLS, sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC")
    assert (report["status"], report["must_broken"], report["revision"]) == (0, 0, "2026-07-28"), report


@pytest.mark.integration
def test_the_sdk_mcpserver_breaks_no_must(tmp_path):
    report = lint_run(tmp_path, "sdk", CALLS, *warm_python.command(SERVERS / "sdk_server.py"))
    assert (report["status"], report["must_broken"], report["revision"]) == (0, 0, "2026-07-28"), report


@pytest.mark.integration
@pytest.mark.npm
@pytest.mark.parametrize("revision", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_server_everything_on_stdio_breaks_no_must_at_each_revision(tmp_path, revision):
    node, entry = install_everything()
    report = lint_run(tmp_path, f"everything-{revision}", EVERYTHING_CALLS, str(node), str(entry), "stdio",
                      options=("--handshake", "legacy", "--protocol-version", revision, "--progress"))
    assert (report["status"], report["must_broken"], report["revision"]) == (0, 0, revision), report
