"""A modern-only (2026-07-28) stdio server that is slow to start, as the SDK's MCPServer is on a busy machine:
it answers server/discover only once it has also read the next request (by then the client's auto probe has
stopped waiting and sent initialize), and refuses initialize as the SDK does on a connection that already
speaks 2026-07-28 (error -32022). After that it answers tools/list with no tools."""

import json
import sys


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


discover = json.loads(sys.stdin.readline())
initialize = json.loads(sys.stdin.readline())
send({"jsonrpc": "2.0", "id": discover["id"], "result": {
    "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
    "cacheScope": "private", "ttlMs": 0,
    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "late-modern", "version": "1"}}}})
send({"jsonrpc": "2.0", "id": initialize["id"], "error": {
    "code": -32022,
    "message": "connection is serving the 2026-07-28 protocol; the initialize handshake is not accepted",
    "data": {"supported": ["2026-07-28"], "requested": initialize["params"]["protocolVersion"]}}})
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "tools/list":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"resultType": "complete", "tools": [],
                                                           "cacheScope": "private", "ttlMs": 0}})
    elif "id" in msg:
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "Method not found"}})
