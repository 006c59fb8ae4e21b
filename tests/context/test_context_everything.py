"""``mcp-inspector context`` on the npm reference server, @modelcontextprotocol/server-everything (issue 43's
"done when"): every tool costed, the total their sum plus the rest, no finding, --budget 50 fails with a
sentence, and the same from a capture of the session; and server-filesystem, whose tools read files, gets no
finding."""

from __future__ import annotations

import json

import pytest
from helpers import cli
from npm_servers import install_everything, install_filesystem

from inspector.core.exits import EXIT_OK, EXIT_OVER_BUDGET

pytestmark = [pytest.mark.npm]


@pytest.fixture(scope="module")
def everything() -> list[str]:
    node, entry = install_everything()
    return [node, str(entry), "stdio"]


def test_server_everything_has_every_tool_costed_no_finding_and_the_same_costs_from_its_capture(everything,
                                                                                              tmp_path):
    capture = tmp_path / "everything.jsonl"
    live = cli("context", "--format", "json", "--out", str(capture), "--", *everything)
    assert live.returncode == EXIT_OK, live.stderr
    doc = json.loads(live.stdout)
    assert doc["findings"] == []
    assert len(doc["tools"]) >= 10 and all(t["tokens"] > 0 and t["bytes"] > 0 for t in doc["tools"])
    rest = doc["prompts"] + doc["resourceTemplates"] + ([doc["instructions"]] if doc["instructions"] else [])
    assert doc["totals"]["tokens"] == sum(t["tokens"] for t in doc["tools"] + rest)
    assert doc["totals"]["bytes"] == sum(t["bytes"] for t in doc["tools"] + rest)
    offline = cli("context", "--format", "json", "--capture", str(capture))
    assert offline.returncode == EXIT_OK, offline.stderr
    assert json.loads(offline.stdout)["totals"] == doc["totals"]


def test_server_everything_over_a_budget_of_50_tokens_exits_10_with_one_sentence(everything):
    done = cli("context", "--budget", "50", "--", *everything)
    assert done.returncode == EXIT_OVER_BUDGET
    [line] = done.stderr.splitlines()
    assert "over the budget of 50" in line


def test_server_filesystem_gets_no_finding_though_its_tools_read_files(tmp_path):
    node, entry = install_filesystem()
    done = cli("context", "--format", "json", "--", node, str(entry), str(tmp_path))
    assert done.returncode == EXIT_OK, done.stderr
    doc = json.loads(done.stdout)
    assert doc["findings"] == [] and len(doc["tools"]) >= 10
