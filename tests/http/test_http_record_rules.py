"""`record --url --rules` on the SDK's Streamable HTTP server (issue 40): a rewritten request reaches the server
changed, a rewritten answer reaches the session changed, and `export --to har` keeps the marks in HAR's custom
fields (the bodies stay what crossed HTTP)."""

from __future__ import annotations

import json

import jsonschema
import pytest
from http_support import record_url
from integration.integration_support import run_inspector
from test_http_export_har import HAR_12

from inspector.core.capture import read_capture
from inspector.core.wire.intercepted import mark_of

RULES = {"rules": [
    {"when": {"dir": "c2s", "method": "tools/call", "tool": "add"}, "do": "rewrite",
     "set": {"/params/arguments/a": 40}},
    {"when": {"dir": "s2c", "method": "tools/call", "tool": "add"}, "do": "rewrite",
     "set": {"/result/content/0/text": "forty-two"}},
]}


@pytest.mark.integration
def test_rules_act_on_an_http_session_and_the_har_export_keeps_their_marks(sdk_streamable, tmp_path):
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(RULES))
    recorded = record_url(tmp_path, "session", sdk_streamable.url(), "--rules", str(rules), "--handshake", "modern",
                          send=[{"method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}])
    assert recorded.returncode == 0, recorded.stderr
    events = read_capture(recorded.out).events
    marked = [(e.dir, mark_of(e.data)["role"], e.json()) for e in events if mark_of(e.data)]
    assert [(d, role) for d, role, _ in marked] == [("c2s", "original"), ("c2s", "changed"), ("s2c", "original"),
                                                    ("s2c", "changed")]
    assert marked[1][2]["params"]["arguments"] == {"a": 40, "b": 3}
    assert marked[2][2]["result"]["structuredContent"] == {"result": 43}  # the server added what it was sent
    assert marked[3][2]["result"]["content"][0]["text"] == "forty-two"

    done = run_inspector(["export", str(recorded.out), "--to", "har"])
    assert done.returncode == 0, done.stderr
    har = json.loads(done.stdout)
    jsonschema.validate(har, HAR_12, format_checker=jsonschema.FormatChecker())
    assert [(m["dir"], m["role"]) for m in har["log"]["_intercepted"]] == [(d, role) for d, role, _ in marked]
    assert har["log"]["_intercepted"][0]["says"] == ("original, never delivered: rule 1 (rewrite) changed it (the next "
                                                     "message went instead)")
    [call] = [e for e in har["log"]["entries"] if "_intercept" in e]
    assert [(m["dir"], m["role"], m["rule"]) for m in call["_intercept"]] == [("c2s", "changed", 1),
                                                                             ("s2c", "original", 2)]
    assert json.loads(call["request"]["postData"]["text"])["params"]["arguments"] == {"a": 40, "b": 3}
    assert "forty-two" not in call["response"]["content"]["text"]  # the body is what the server sent
