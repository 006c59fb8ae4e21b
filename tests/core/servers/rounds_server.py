"""A 2026-07-28 stdio server (stdlib only) with multi-round tools, strict about what a retry carries.

* ``three-rounds``: round 1 answers ``input_required`` with a question and ``requestState`` "s1"; round 2 must echo
  exactly "s1" and answers ``input_required`` with another question and *no* requestState; round 3 must carry no
  requestState at all (the spec: "If the InputRequiredResult does not contain a requestState field, the client MUST
  NOT include one in the retry") and both answers; then it completes. A broken retry gets a JSON-RPC error saying
  what was wrong.
* ``never-done``: asks again on every retry.
"""

import json
import sys

QUESTION = {"method": "elicitation/create", "params": {
    "mode": "form", "message": "Your name?",
    "requestedSchema": {"type": "object", "properties": {"name": {"type": "string", "default": "Ada"}}}}}


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def result(msg, value):
    send({"jsonrpc": "2.0", "id": msg["id"], "result": value})


def refuse(msg, text):
    send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32602, "message": text}})


def three_rounds(msg, params):
    responses = params.get("inputResponses")
    if responses is None:
        return result(msg, {"resultType": "input_required", "inputRequests": {"first": QUESTION},
                            "requestState": "s1"})
    if "first" in responses and "second" not in responses:
        if params.get("requestState") != "s1":
            return refuse(msg, f"round 2 must echo requestState s1, not {params.get('requestState')!r}")
        return result(msg, {"resultType": "input_required", "inputRequests": {"second": QUESTION}})
    if "requestState" in params:
        return refuse(msg, "round 3 carries a requestState though round 2 sent none")
    return result(msg, {"resultType": "complete", "content": [{"type": "text", "text": "three rounds done"}]})


for line in sys.stdin:
    msg = json.loads(line)
    method, params = msg.get("method"), msg.get("params") or {}
    if "id" not in msg or method is None:
        continue
    if method == "server/discover":
        result(msg, {"resultType": "complete", "supportedVersions": ["2026-07-28"], "ttlMs": 0,
                     "cacheScope": "private", "capabilities": {"tools": {}},
                     "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "rounds", "version": "1"}}})
    elif method == "tools/list":
        result(msg, {"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": [
            {"name": "three-rounds", "inputSchema": {"type": "object"}},
            {"name": "never-done", "inputSchema": {"type": "object"}}]})
    elif method == "tools/call" and params.get("name") == "three-rounds":
        three_rounds(msg, params)
    elif method == "tools/call" and params.get("name") == "never-done":
        result(msg, {"resultType": "input_required", "inputRequests": {"again": QUESTION}})
    else:
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": f"Method not found: {method}"}})
