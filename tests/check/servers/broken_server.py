"""A stdio MCP server (standard library only) that breaks specific rules of `mcp-inspector check` on purpose.

Legacy revisions only (server/discover is an unknown method). What it gets wrong, one rule each:

- ping answers ``{"pong": true}`` (ping);
- a number id above 1,000,000 comes back as a string (ids-echoed);
- an unknown method gets an empty result (unknown-method, unknown-method-code);
- tools/call with a name that is no string gets -32603 (malformed-params);
- an unknown notification gets a response with a null id (notification-no-response);
- a batch is ignored (batch, at 2025-03-26);
- resources/templates/list gives a nextCursor it then refuses (pagination);
- the tool ``rows`` has an inputSchema of type "array" (tool-schemas);
- resources/read and prompts/get fail (resources-readable, prompts-gettable);
- the read-only tool ``fails`` answers -32603 (tools-callable) and ``shape`` returns structuredContent that
  breaks its outputSchema (tool-output-conforms);
- initialize at 1999-01-01 is answered with 1999-01-01 (handshake-unsupported);
- invalid JSON ends the process (invalid-json, invalid-json-survives);
- it declares logging, and answers logging/setLevel with ``{"level": ...}`` (logging-set-level);
- it declares resources.subscribe, then answers resources/subscribe with -32601 and resources/unsubscribe with
  ``{"unsubscribed": true}`` (resources-subscribe, resources-unsubscribe).

``--die-on METHOD``: exit as soon as a message with that method arrives (a server that dies mid-check).
``--speaks VERSION``: answer every initialize with VERSION, whatever it asks for (a server that does not speak the
revision asked for).
``--array-ids-in-batches``: answer a batch, with each id wrapped in an array (``[5]`` for ``5``), which MCP forbids.
"""

import json
import sys

KNOWN = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
DIE_ON = sys.argv[sys.argv.index("--die-on") + 1] if "--die-on" in sys.argv else None
ARRAY_IDS_IN_BATCHES = "--array-ids-in-batches" in sys.argv
SPEAKS = sys.argv[sys.argv.index("--speaks") + 1] if "--speaks" in sys.argv else None

TOOLS = [
    {"name": "rows", "description": "An inputSchema of type array.", "inputSchema": {"type": "array"},
     "annotations": {"readOnlyHint": True}},
    {"name": "fails", "description": "Always a protocol error.", "inputSchema": {"type": "object"},
     "annotations": {"readOnlyHint": True}},
    {"name": "shape", "description": "structuredContent that breaks its outputSchema.",
     "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
     "outputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]},
     "annotations": {"readOnlyHint": True}},
]


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def result(msg_id, value):
    send({"jsonrpc": "2.0", "id": msg_id, "result": value})


def error(msg_id, code, message):
    send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})


def handle(msg):
    method = msg.get("method")
    msg_id = msg.get("id")
    if DIE_ON is not None and method == DIE_ON:
        sys.exit(3)
    if "id" not in msg:
        if method not in ("notifications/initialized", "notifications/cancelled"):
            send({"jsonrpc": "2.0", "id": None, "result": {}})
        return
    if isinstance(msg_id, int) and msg_id > 1_000_000:
        msg_id = str(msg_id)
    params = msg.get("params") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        version = asked if asked in KNOWN or asked == "1999-01-01" else KNOWN[0]
        version = SPEAKS or version
        result(msg_id, {"protocolVersion": version, "serverInfo": {"name": "broken", "version": "1"},
                        "capabilities": {"tools": {}, "resources": {"subscribe": True}, "prompts": {},
                                         "logging": {}}})
    elif method == "ping":
        result(msg_id, {"pong": True})
    elif method == "tools/list":
        result(msg_id, {"tools": TOOLS})
    elif method == "tools/call":
        name = params.get("name")
        if not isinstance(name, str) or name == "fails":
            error(msg_id, -32603, "internal error")
        elif name == "shape":
            result(msg_id, {"content": [{"type": "text", "text": "x"}], "structuredContent": {"count": "many"}})
        else:
            result(msg_id, {"content": [{"type": "text", "text": "ok"}]})
    elif method == "resources/list":
        result(msg_id, {"resources": [{"uri": "test://one", "name": "one"}]})
    elif method == "resources/read":
        error(msg_id, -32603, "cannot read anything")
    elif method == "resources/templates/list":
        if params.get("cursor") is None:
            result(msg_id, {"resourceTemplates": [{"uriTemplate": "test://{x}", "name": "x"}], "nextCursor": "p2"})
        else:
            error(msg_id, -32602, "unknown cursor")
    elif method == "prompts/list":
        result(msg_id, {"prompts": [{"name": "greet", "arguments": [{"name": "who", "required": True}]}]})
    elif method == "prompts/get":
        error(msg_id, -32603, "no prompts today")
    elif method == "logging/setLevel":
        result(msg_id, {"level": params.get("level")})
    elif method == "resources/subscribe":
        error(msg_id, -32601, "Method not found")
    elif method == "resources/unsubscribe":
        result(msg_id, {"unsubscribed": True})
    elif method == "server/discover":
        error(msg_id, -32601, "Method not found")
    else:
        result(msg_id, {})


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            sys.exit(2)  # a stray line kills it
        if isinstance(msg, dict):
            handle(msg)
        elif isinstance(msg, list) and ARRAY_IDS_IN_BATCHES:
            send([{"jsonrpc": "2.0", "id": [item.get("id")], "result": {}} for item in msg if isinstance(item, dict)])


if __name__ == "__main__":
    main()
