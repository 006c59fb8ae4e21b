"""A fast stdio MCP server for benchmarks/load.py (standard library only): answers initialize, tools/list (one
tool, ``echo``), tools/call and ping at once, one line each, and refuses server/discover as a legacy server does.
At stdin's end it writes its own CPU time (user + system seconds) to the file named by ``ECHO_SERVER_CPU_FILE``,
so a benchmark can take the server's share out of a client's process tree."""

import json
import os
import resource
import sys

TOOLS = {"tools": [{"name": "echo", "description": "Echo the text.",
                    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}]}


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if not isinstance(msg, dict) or "id" not in msg or "method" not in msg:
            continue
        method = msg["method"]
        if method == "initialize":
            result = {"protocolVersion": msg.get("params", {}).get("protocolVersion", "2025-11-25"),
                      "capabilities": {"tools": {}}, "serverInfo": {"name": "echo-server", "version": "1"}}
        elif method == "tools/list":
            result = TOOLS
        elif method == "tools/call":
            text = msg.get("params", {}).get("arguments", {}).get("text", "")
            result = {"content": [{"type": "text", "text": text}]}
        elif method == "ping":
            result = {}
        else:
            out.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"],
                                  "error": {"code": -32601, "message": f"no method {method}"}}).encode() + b"\n")
            out.flush()
            continue
        out.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode() + b"\n")
        out.flush()
    where = os.environ.get("ECHO_SERVER_CPU_FILE")
    if where:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        with open(where, "w") as handle:
            handle.write(str(usage.ru_utime + usage.ru_stime))


if __name__ == "__main__":
    main()
