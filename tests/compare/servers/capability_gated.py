"""A stdio server that lists ``ask-user`` only to a client that declared elicitation, and ``list-roots`` only
to one that declared roots, as server-everything does (raw JSON lines, legacy handshake)."""

import json
import sys

declared: dict = {}
for line in sys.stdin:
    msg = json.loads(line)
    method, ident = msg.get("method"), msg.get("id")
    if method == "initialize":
        declared = msg["params"].get("capabilities") or {}
        result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "gated", "version": "1"}}
    elif method == "tools/list":
        tools = [{"name": "echo", "inputSchema": {"type": "object"}}]
        if "elicitation" in declared:
            tools.append({"name": "ask-user", "inputSchema": {"type": "object"}})
        if "roots" in declared:
            tools.append({"name": "list-roots", "inputSchema": {"type": "object"}})
        result = {"tools": tools}
    elif ident is None:
        continue
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}), flush=True)
