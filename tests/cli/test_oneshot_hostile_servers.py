"""The one-shot commands and `lint` against issue 26's hostile servers (tests/data/hostile/hs.py, copied
verbatim): an answer inside a JSON-RPC batch completes its request, a server with hundreds of pages of tools is
listed whole, and a structuredContent that breaks its tool's outputSchema is reported."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from helpers import ROOT, cli

from inspector.core.check.lint import lint_capture
from inspector.core.exits import EXIT_OK, EXIT_PROTOCOL

HOSTILE = [sys.executable, str(ROOT / "tests" / "data" / "hostile" / "hs.py")]
TIMEOUT = 5.0


@pytest.mark.report("faults", "tools: the answer comes inside a JSON-RPC batch (2025-03-26)", surface="CLI",
                    group="hostile", advice="Nothing to do: 2025-03-26 allows batches and the answer is taken.")
def test_an_answer_inside_a_batch_at_2025_03_26_completes_its_request(report):
    started = time.monotonic()
    done = cli("tools", "--json", "--protocol-version", "2025-03-26", "--handshake", "legacy", "--timeout",
               str(TIMEOUT), "--", *HOSTILE, "batchans", "2", timeout=60)
    elapsed = time.monotonic() - started
    assert done.returncode == EXIT_OK, done.stderr
    assert [t["name"] for t in json.loads(done.stdout)["tools"]] == ["t"]
    assert elapsed < TIMEOUT, "the request waited for its timeout: the batch's answer did not complete it"
    report.saw(f"the tools of the batch's answer are listed: {done.stdout.strip()[:80]}", seconds=elapsed)


@pytest.mark.report("faults", "tools: a server with 300 pages of tools", surface="CLI", group="hostile",
                    advice="Nothing to do: every page is followed.")
def test_a_server_with_hundreds_of_pages_of_tools_is_listed_whole(report):
    started = time.monotonic()
    done = cli("tools", "--json", "--timeout", str(TIMEOUT), "--", *HOSTILE, "pages", "30000", timeout=120)
    elapsed = time.monotonic() - started
    assert done.returncode == EXIT_OK, done.stderr
    names = [t["name"] for t in json.loads(done.stdout)["tools"]]
    assert names == [f"t{i}" for i in range(30000)]
    report.saw(f"{len(names):,} tools listed from 300 pages", seconds=elapsed)


def test_a_server_that_pages_forever_with_megabyte_cursors_is_stopped_with_a_sentence():
    done = cli("tools", "--json", "--timeout", str(TIMEOUT), "--", *HOSTILE, "pages", "big2", timeout=60)
    assert done.returncode != EXIT_OK
    assert "gave a nextCursor of 2,000,001 characters, over the 1 MiB a cursor may have here; stopped after " \
           "1 page" in done.stderr, done.stderr


@pytest.mark.report("faults", "call: structuredContent breaks the tool's outputSchema", surface="CLI",
                    group="hostile", advice="Return structuredContent that conforms to the tool's outputSchema.")
def test_call_says_when_the_structured_content_breaks_the_output_schema(report):
    started = time.monotonic()
    done = cli("call", "s", "--", *HOSTILE, "outschema", timeout=60)
    elapsed = time.monotonic() - started
    assert done.returncode == EXIT_PROTOCOL
    assert json.loads(done.stdout)["structuredContent"] == {"n": "not a number"}  # the result is still shown
    sentence = done.stderr.strip().splitlines()[0]
    assert sentence == ('mcp-inspector: the result of s breaks its outputSchema: structuredContent.n must be an '
                        'integer, it is the string "not a number" (a client that validates it rejects the result)')
    report.saw(sentence, seconds=elapsed)


def test_lint_reports_a_structured_content_that_breaks_the_output_schema(tmp_path: Path):
    send = tmp_path / "send.jsonl"
    send.write_text('{"method": "tools/list"}\n{"method": "tools/call", "params": {"name": "s", "arguments": {}}}\n')
    capture = tmp_path / "out.jsonl"
    recorded = cli("record", "--out", str(capture), "--send", str(send), "--", *HOSTILE, "outschema", timeout=60)
    assert recorded.returncode == EXIT_OK, recorded.stderr
    found = [f for f in lint_capture(capture).findings if f.rule == "tool-output-schema"]
    assert [f.text for f in found] == ['the result of s breaks its outputSchema: structuredContent.n must be an '
                                       'integer, it is the string "not a number"']
    assert found[0].level == "MUST"  # the tools page: "Servers MUST provide structured results that conform"
    linted = cli("lint", str(capture))
    assert "tool-output-schema" in linted.stdout
