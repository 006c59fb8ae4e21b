"""export --to markdown, html and jsonrpc of a real stdio session with the demo server: the report names the
session, lists the framing errors with their bytes, pairs each request with its response, and never lets
server text out of its escaping (issue 18)."""

from __future__ import annotations

import html.parser
import json
import re
import sys
from pathlib import Path

import pytest
from integration.integration_support import run_inspector

from inspector.core.capture import read_capture
from inspector.core.interop.report import to_html, to_markdown
from inspector.core.wire.events import Direction, Kind

SCRIPT = "<script>alert('pwned')</script>``` | ] ) <img src=http://127.0.0.1:9/x>"


@pytest.fixture(scope="module")
def demo_capture(tmp_path_factory) -> Path:
    """A demo session with a banner, junk on stdout and an echo of hostile text."""
    folder = tmp_path_factory.mktemp("report")
    send = folder / "send.jsonl"
    send.write_text("\n".join(json.dumps(m) for m in [
        {"method": "tools/call", "params": {"name": "junk_stdout", "arguments": {}}},
        {"method": "tools/call", "params": {"name": "echo", "arguments": {"text": SCRIPT}}},
    ]) + "\n")
    out = folder / "demo.jsonl"
    done = run_inspector(["record", "--out", str(out), "--send", str(send), "--",
                          sys.executable, "-m", "inspector.demo", "--banner", "demo server starting"])
    assert done.returncode == 6, done.stderr  # the demo's junk is a protocol violation
    return out


def test_the_markdown_report_names_the_session_lists_framing_errors_with_bytes_and_pairs_exchanges(demo_capture):
    capture = read_capture(demo_capture)
    text = to_markdown(capture.header, capture.events)
    assert "- **Server:** mcp-inspector-demo" in text and "- **Protocol revision:** 2026-07-28" in text
    assert "## Problems" in text and "plain text, not JSON" in text
    assert "0000  64 65 6d 6f 20 73 65 72 76 65 72" in text  # "demo server" as hex, in a fence
    assert "not valid UTF-8" in text and "ff fe 20 62 61 64" in text
    requests = [e for e in capture.events if e.kind == Kind.MESSAGE and e.dir == Direction.C2S and e.rpc.has_id]
    assert text.count("### #") >= len(requests) + 3
    for request in requests:
        assert f"### #{request.seq} " in text
    # every timeline row is one table line: hostile text cannot break the table or close a fence
    table = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| #")]
    assert len(table) == len(capture.events)
    assert all(len(re.findall(r"(?<!\\)\|", line)) == 9 for line in table), "8 cells, 9 unescaped pipes"
    assert "<script>" not in text.split("## Exchanges")[0]


class _Collector(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append(tag)

    def handle_data(self, data) -> None:
        self.text.append(data)


def test_the_html_report_escapes_a_servers_script_and_loads_nothing(demo_capture):
    capture = read_capture(demo_capture)
    page = to_html(capture.header, capture.events)
    parsed = _Collector()
    parsed.feed(page)
    assert "script" not in parsed.tags and "img" not in parsed.tags
    assert any("<script>alert('pwned')</script>" in chunk for chunk in parsed.text), "shown as text"
    assert "default-src 'none'" in page and "http://" not in page.split("<body>")[0]
    assert 'class="problem"' in page


def test_jsonrpc_export_is_the_exact_message_bytes_each_way(demo_capture, tmp_path):
    capture = read_capture(demo_capture)
    out = tmp_path / "sent.jsonl"
    done = run_inspector(["export", str(demo_capture), "--to", "jsonrpc", "--direction", "sent", "--out", str(out)])
    assert done.returncode == 0, done.stderr
    sent = [e.raw + b"\n" for e in capture.events if e.kind == Kind.MESSAGE and e.dir == Direction.C2S]
    assert out.read_bytes() == b"".join(sent)
    done = run_inspector(["export", str(demo_capture), "--to", "jsonrpc"])
    assert len(done.stdout.splitlines()) == sum(1 for e in capture.events if e.kind == Kind.MESSAGE)


def test_export_of_a_missing_or_broken_file_is_a_sentence(tmp_path):
    done = run_inspector(["export", str(tmp_path / "nope.jsonl"), "--to", "markdown"])
    assert done.returncode == 2 and "no such file" in done.stderr and "Traceback" not in done.stderr
    bad = tmp_path / "bad.har"
    bad.write_text('{"log": {"entries": [{"request": {"method": "GET", "url": "http://127.0.0.1/"}}]}}')
    done = run_inspector(["import", str(bad), "--out", str(tmp_path / "c.jsonl")])
    assert done.returncode == 2 and "no MCP exchange" in done.stderr


def test_an_mcp_inspector_history_imports_to_a_capture_that_replays_against_a_server(tmp_path):
    history = tmp_path / "history.json"
    history.write_text(json.dumps([
        {"request": json.dumps({"method": "tools/list", "params": {}}), "response": json.dumps({"tools": []})},
        {"request": {"method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}},
         "response": {"content": [{"type": "text", "text": "5"}]}},
    ]))
    capture = tmp_path / "history.jsonl"
    done = run_inspector(["import", str(history), "--out", str(capture)])
    assert done.returncode == 0, done.stderr
    events = [e for e in read_capture(capture).events if e.kind == Kind.MESSAGE]
    assert [(e.dir, e.method) for e in events] == [(Direction.C2S, "tools/list"), (Direction.S2C, None),
                                                   (Direction.C2S, "tools/call"), (Direction.S2C, None)]
    assert events[3].data["reply_to"] == events[2].seq and events[3].data["request_method"] == "tools/call"
    replayed = tmp_path / "replayed.jsonl"
    done = run_inspector(["replay", str(capture), "--out", str(replayed), "--", sys.executable, "-m", "inspector.demo"])
    assert done.returncode == 1, done.stderr  # the demo lists its tools: the answers differ, and say how
    assert "tools/call" in done.stdout and "structuredContent" in done.stdout
    sums = [e for e in read_capture(replayed).events if e.kind == Kind.MESSAGE and b'"sum":5' in e.raw]
    assert sums, "the replayed call reached the server and got its answer"


def test_the_report_lists_the_protocol_judges_findings_too(tmp_path):
    server = Path(__file__).resolve().parents[1] / "integration" / "servers" / "broken_protocol_server.py"
    send = tmp_path / "send.jsonl"
    send.write_text(json.dumps({"method": "tools/list", "params": {}}) + "\n")
    out = tmp_path / "broken.jsonl"
    run_inspector(["record", "--handshake", "legacy", "--out", str(out), "--send", str(send), "--",
                   sys.executable, str(server)])
    capture = read_capture(out)
    text = to_markdown(capture.header, capture.events)
    problems = text.split("## Timeline")[0]
    assert "inputSchema" in problems and "(schema)" in problems, problems
    assert "revision-other" in problems
