"""A stdio MCP server for the load tests (standard library only). It reads what has arrived, waits 2 ms so that a
client's requests pile up, then answers them all, and at stdin's end writes to ``LOAD_SERVER_REPORT`` (JSON) the
most requests it ever held unanswered at once and how many tools/call it got.

Tools: ``echo`` (text), ``flaky`` (every third call answers isError: true), ``broken`` (a JSON-RPC error),
``drop`` (never answered). It refuses server/discover as a legacy server does."""

import json
import os
import select
import time

TOOLS = [{"name": name, "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}
         for name in ("echo", "flaky", "broken", "drop")]
calls = 0
most_pending = 0


def answer(msg):
    global calls
    method = msg.get("method")
    if method == "initialize":
        return {"result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                           "serverInfo": {"name": "load-server", "version": "1"}}}
    if method == "tools/list":
        return {"result": {"tools": TOOLS}}
    if method == "ping":
        return {"result": {}}
    if method != "tools/call":
        return {"error": {"code": -32601, "message": f"no method {method}"}}
    calls += 1
    name = msg.get("params", {}).get("name")
    if name == "drop":
        return None
    if name == "broken":
        return {"error": {"code": -32000, "message": "broken on purpose"}}
    text = {"type": "text", "text": str(msg.get("params", {}).get("arguments", {}).get("text", ""))}
    if name == "flaky" and calls % 3 == 0:
        return {"result": {"content": [text], "isError": True}}
    return {"result": {"content": [text]}}


def main():
    global most_pending
    buffered = b""
    ended = False
    while not ended:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            break
        time.sleep(0.002)
        while select.select([0], [], [], 0)[0]:  # what came meanwhile
            more = os.read(0, 1 << 16)
            if not more:
                ended = True
                break
            chunk += more
        buffered += chunk
        *lines, buffered = buffered.split(b"\n")
        requests = [m for m in (json.loads(line) for line in lines if line.strip()) if "id" in m and "method" in m]
        most_pending = max(most_pending, sum(1 for m in requests if m.get("method") == "tools/call"))
        out = []
        for msg in requests:
            reply = answer(msg)
            if reply is not None:
                out.append(json.dumps({"jsonrpc": "2.0", "id": msg["id"], **reply}).encode() + b"\n")
        if out:
            os.write(1, b"".join(out))
    report = os.environ.get("LOAD_SERVER_REPORT")
    if report:
        with open(report, "w") as handle:
            json.dump({"most_pending": most_pending, "calls": calls}, handle)


if __name__ == "__main__":
    main()
