"""A legacy stdio server whose tools wait on the client.

``tools/call`` ``ask``: sends ``elicitation/create`` (id ``"e<n>"``) and answers the call with what the
client answered, only once it has; with ``{"withdraw": true}`` it cancels the elicitation at once and then
never answers the call; with ``{"ignore_answer": true}`` it never answers the call, answered or not.

``tools/call`` ``stall``: never answers, unless its arguments say ``{"answer_on_cancel": true}``: then it
answers when the client cancels the call (a server that finishes the work anyway, so the answer arrives
after the cancel).

``report``: the cancellations received, in order.
"""

import json
import sys


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


asked = {}  # elicitation id -> the tools/call id waiting for its answer
stalled = set()
cancellations = []
for line in sys.stdin:
    msg = json.loads(line)
    method = msg.get("method")
    params = msg.get("params") or {}
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "protocolVersion": params["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "waits-on-client", "version": "1.0"}}})
    elif method == "tools/call" and params.get("name") == "ask":
        question = f"e{len(asked) + 1}"
        asked[question] = msg["id"]
        send({"jsonrpc": "2.0", "id": question, "method": "elicitation/create", "params": {
            "message": "Your name?", "requestedSchema": {"type": "object", "properties": {
                "name": {"type": "string"}}}}})
        if (params.get("arguments") or {}).get("ignore_answer"):
            asked[question] = None
        if (params.get("arguments") or {}).get("withdraw"):
            del asked[question]
            send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": question}})
    elif method == "tools/call" and params.get("name") == "stall":
        if (params.get("arguments") or {}).get("answer_on_cancel"):
            stalled.add(json.dumps(msg["id"]))
    elif method == "notifications/cancelled":
        cancellations.append(params)
        if json.dumps(params.get("requestId")) in stalled:
            send({"jsonrpc": "2.0", "id": params["requestId"], "result": {
                "content": [{"type": "text", "text": "finished anyway"}]}})
    elif method == "report":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"cancellations": cancellations}})
    elif "id" in msg and "method" not in msg and asked.get(msg["id"]) is not None:
        send({"jsonrpc": "2.0", "id": asked.pop(msg["id"]), "result": {
            "content": [{"type": "text", "text": json.dumps(msg.get("result", msg.get("error")))}]}})
    elif "id" in msg and method is not None:
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "Method not found"}})
