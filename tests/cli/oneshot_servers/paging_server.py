"""A hand-written stdio MCP server (standard library only) for the one-shot command tests.

- ``tools/list`` pages: two tools a page, ``nextCursor`` ``page-2``, ``page-3``; the tool the tests call,
  ``last-page-tool``, is only on the third page.
- ``fail`` answers with a tool result that says ``isError: true``.
- ``explode`` answers ``tools/call`` with a JSON-RPC error (code -32000).
- ``prompts/list`` has one prompt ``greet`` with a required argument ``name``; ``prompts/get`` echoes it.
- It answers ``server/discover`` with method not found, as a legacy server does.
"""

import json
import sys

TOOLS = [
    {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
    {"name": "fail", "inputSchema": {"type": "object"}},
    {"name": "explode", "inputSchema": {"type": "object"}},
    {"name": "flags", "inputSchema": {"type": "object", "properties": {
        "on": {"type": "boolean"}, "n": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}},
        "opts": {"type": "object", "properties": {"depth": {"type": "integer"}}}}}},
    {"name": "last-page-tool", "inputSchema": {"type": "object", "properties": {"x": {"type": "number"}},
                                               "required": ["x"]}},
]
PAGES = {None: (0, "page-2"), "page-2": (2, "page-3"), "page-3": (4, None)}


def answer(msg_id, result=None, error=None):
    reply = {"jsonrpc": "2.0", "id": msg_id}
    if error is not None:
        reply["error"] = error
    else:
        reply["result"] = result
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()


def text(value):
    return {"content": [{"type": "text", "text": value}]}


for line in sys.stdin:
    message = json.loads(line)
    method, msg_id, params = message.get("method"), message.get("id"), message.get("params") or {}
    if msg_id is None:
        continue
    if method == "initialize":
        answer(msg_id, {"protocolVersion": params.get("protocolVersion", "2025-11-25"),
                        "capabilities": {"tools": {}, "prompts": {}}, "serverInfo": {"name": "paging", "version": "1"}})
    elif method == "tools/list":
        start, cursor = PAGES[params.get("cursor")]
        result = {"tools": TOOLS[start:start + 2]}
        if cursor:
            result["nextCursor"] = cursor
        answer(msg_id, result)
    elif method == "tools/call":
        name, arguments = params.get("name"), params.get("arguments")
        if name == "fail":
            answer(msg_id, {"content": [{"type": "text", "text": "it went wrong"}], "isError": True})
        elif name == "explode":
            answer(msg_id, error={"code": -32000, "message": "the tool blew up", "data": {"why": "on purpose"}})
        else:
            answer(msg_id, text(json.dumps({"tool": name, "arguments": arguments}, sort_keys=True)))
    elif method == "prompts/list":
        answer(msg_id, {"prompts": [{"name": "greet", "arguments": [{"name": "name", "required": True}]}]})
    elif method == "prompts/get":
        who = (params.get("arguments") or {}).get("name")
        answer(msg_id, {"messages": [{"role": "user", "content": {"type": "text", "text": f"Hello, {who}!"}}]})
    else:
        answer(msg_id, error={"code": -32601, "message": f"Method not found: {method}"})
