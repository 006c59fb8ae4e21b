"""Copy as JSON-RPC, as an mcp-inspector command and as curl: lines a shell takes back unchanged."""

from __future__ import annotations

import json
import shlex

from inspector.core.interop.copy_as import as_command, as_curl, as_jsonrpc

CALL = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "get-sum", "arguments": {"a": 2, "b": 3.5, "flag": True, "note": "it's $HOME",
                                                    "items": [1, 2], "multi": "a\nb"},
                   "_meta": {"progressToken": "x"}}}


def test_a_tool_call_becomes_a_call_command_whose_words_come_back_unchanged():
    line = as_command(CALL, argv=["node", "/opt/my server/index.js", "stdio"])
    words = shlex.split(line)
    assert words[:3] == ["mcp-inspector", "call", "get-sum"]
    assert {"a=2", "b=3.5", "flag=true", "note=it's $HOME"} <= set(words)
    assert json.loads(words[words.index("--args") + 1]) == {"items": [1, 2], "multi": "a\nb"}
    assert words[-4:] == ["--", "node", "/opt/my server/index.js", "stdio"]
    assert "_meta" not in line


def test_other_methods_become_read_prompt_or_request_against_a_url():
    read = as_command({"method": "resources/read", "params": {"uri": "test://static/resource/1"}},
                      url="http://127.0.0.1:3001/mcp")
    assert shlex.split(read) == ["mcp-inspector", "read", "test://static/resource/1", "--url",
                                 "http://127.0.0.1:3001/mcp"]
    other = shlex.split(as_command({"method": "logging/setLevel", "params": {"level": "debug"}}, argv=["srv"]))
    assert other[:3] == ["mcp-inspector", "request", "logging/setLevel"]
    assert json.loads(other[3]) == {"level": "debug"}


def test_curl_keeps_the_session_headers_and_says_when_one_was_redacted():
    body = json.dumps(CALL).encode()
    line = as_curl(body, "http://127.0.0.1:3001/mcp", {"host": "127.0.0.1:3001", "content-type": "application/json",
                                                       "mcp-session-id": "abc", "authorization": "[redacted]"})
    words = shlex.split(line.split("  # ")[0])
    assert words[:6] == ["curl", "-sS", "-N", "-X", "POST", "http://127.0.0.1:3001/mcp"]
    assert "mcp-session-id: abc" in words and "host: 127.0.0.1:3001" not in words
    assert json.loads(words[words.index("--data-raw") + 1]) == CALL
    assert line.endswith("# replace [redacted] with the real value")


def test_as_jsonrpc_is_the_message_indented():
    assert json.loads(as_jsonrpc(CALL)) == CALL and "\n  " in as_jsonrpc(CALL)
