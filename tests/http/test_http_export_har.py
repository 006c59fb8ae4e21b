"""export --to har of real HTTP captures (the SDK's MCPServer over Streamable HTTP, in both eras), checked
against the HAR 1.2 structure, and imported back to the same messages (issue 18)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from http_support import record_url
from integration.integration_support import run_inspector

from inspector.core.capture import read_capture
from inspector.core.wire.events import Kind

#: The HAR 1.2 structure (http://www.softwareishard.com/blog/har-12-spec/): the objects and fields the spec
#: marks required, with their types. Browsers' importers (Chromium, Firefox) refuse files that lack them.
_NV = {"type": "object", "required": ["name", "value"],
       "properties": {"name": {"type": "string"}, "value": {"type": "string"}}}
HAR_12 = {
    "type": "object", "required": ["log"],
    "properties": {"log": {
        "type": "object", "required": ["version", "creator", "entries"],
        "properties": {
            "version": {"const": "1.2"},
            "creator": {"type": "object", "required": ["name", "version"]},
            "entries": {"type": "array", "minItems": 1, "items": {
                "type": "object",
                "required": ["startedDateTime", "time", "request", "response", "cache", "timings"],
                "properties": {
                    "startedDateTime": {"type": "string", "format": "date-time",
                                        "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$"},
                    "time": {"type": "number", "minimum": 0},
                    "request": {"type": "object", "required": ["method", "url", "httpVersion", "cookies", "headers",
                                                               "queryString", "headersSize", "bodySize"],
                                "properties": {"headers": {"type": "array", "items": _NV},
                                               "queryString": {"type": "array", "items": _NV},
                                               "postData": {"type": "object", "required": ["mimeType", "text"]}}},
                    "response": {"type": "object", "required": ["status", "statusText", "httpVersion", "cookies",
                                                                "headers", "content", "redirectURL", "headersSize",
                                                                "bodySize"],
                                 "properties": {"status": {"type": "integer"},
                                                "headers": {"type": "array", "items": _NV},
                                                "content": {"type": "object", "required": ["size", "mimeType"]}}},
                    "cache": {"type": "object"},
                    "timings": {"type": "object", "required": ["send", "wait", "receive"],
                                "properties": {k: {"type": "number", "minimum": -1}
                                               for k in ("send", "wait", "receive", "connect", "dns", "blocked")}},
                }}},
        }}},
}

CALLS = [{"method": "tools/list"}, {"method": "tools/call", "params": {"name": "work", "arguments": {"steps": 2}}},
         {"method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}]


def messages(path: Path) -> list[tuple[str | None, bytes]]:
    return [(e.dir, e.raw) for e in read_capture(path).events if e.kind == Kind.MESSAGE]


@pytest.mark.parametrize("handshake", ["modern", "legacy"])
def test_an_http_capture_exports_to_valid_har_and_imports_back_to_the_same_messages(sdk_streamable, tmp_path,
                                                                                    handshake):
    recorded = record_url(tmp_path, "session", sdk_streamable.url(), "--handshake", handshake, send=CALLS)
    assert recorded.returncode == 0, recorded.stderr
    har_path = tmp_path / "session.har"
    done = run_inspector(["export", str(recorded.out), "--to", "har", "--out", str(har_path)])
    assert done.returncode == 0, done.stderr
    har = json.loads(har_path.read_text(encoding="utf-8"))
    jsonschema.validate(har, HAR_12, format_checker=jsonschema.FormatChecker())
    entries = har["log"]["entries"]
    posts = [e for e in entries if e["request"]["method"] == "POST"]
    assert all(json.loads(e["request"]["postData"]["text"])["jsonrpc"] == "2.0" for e in posts)
    sum_call = next(e for e in posts if '"add"' in e["request"]["postData"]["text"])
    assert '"5"' in sum_call["response"]["content"]["text"] or "5" in sum_call["response"]["content"]["text"]
    assert [e["startedDateTime"] for e in entries] == sorted(e["startedDateTime"] for e in entries)
    if handshake == "legacy":  # answers came as SSE streams: their bodies are SSE again
        assert any(e["response"]["content"]["mimeType"].startswith("text/event-stream")
                   and "data: {" in e["response"]["content"]["text"] for e in posts)

    back = tmp_path / "back.jsonl"
    done = run_inspector(["import", str(har_path), "--out", str(back)])
    assert done.returncode == 0, done.stderr
    assert messages(back) == messages(recorded.out)
    # pairing is derived again: the imported tools/call answer knows its request and latency
    answer = next(e for e in read_capture(back).events if e.kind == Kind.MESSAGE and b'"structuredContent"' in e.raw
                  and b'"result"' in e.raw)
    assert answer.data.get("request_method") == "tools/call" and answer.data.get("latency", -1) >= 0


def test_har_export_keeps_the_capture_redaction(sdk_streamable, tmp_path):
    recorded = record_url(tmp_path, "secret", sdk_streamable.url(), "-H", "Authorization: Bearer s3cr3t-t0ken",
                          send=CALLS[:1])
    assert recorded.returncode == 0, recorded.stderr
    done = run_inspector(["export", str(recorded.out), "--to", "har"])
    assert done.returncode == 0 and '"entries"' in done.stdout
    assert "s3cr3t-t0ken" not in done.stdout and "[redacted]" in done.stdout


def test_a_stdio_capture_gets_a_sentence_instead_of_a_har_file(tmp_path):
    sample = Path(__file__).resolve().parents[1] / "data" / "sample-v1.jsonl"
    done = run_inspector(["export", str(sample), "--to", "har", "--out", str(tmp_path / "x.har")])
    assert done.returncode == 2
    assert "stdio server" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "x.har").exists()
