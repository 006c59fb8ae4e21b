"""A legacy stdio server that, after notifications/initialized, sends the client three requests of its own
(ping, roots/list, sampling/createMessage) and answers `report` with what the client answered."""

import json
import sys


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


answers = {}
for line in sys.stdin:
    msg = json.loads(line)
    method = msg.get("method")
    if method == "server/discover":
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "Method not found"}})
    elif method == "initialize":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "protocolVersion": msg["params"]["protocolVersion"], "capabilities": {},
            "serverInfo": {"name": "asks-back", "version": "1.0"}}})
    elif method == "notifications/initialized":
        send({"jsonrpc": "2.0", "id": "s1", "method": "ping"})
        send({"jsonrpc": "2.0", "id": "s2", "method": "roots/list"})
        send({"jsonrpc": "2.0", "id": "s3", "method": "sampling/createMessage",
              "params": {"messages": [], "maxTokens": 5}})
    elif method == "report":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": answers})
    elif "id" in msg and "method" not in msg:
        answers[msg["id"]] = msg
