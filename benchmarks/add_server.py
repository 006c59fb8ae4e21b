"""A plain Python stdio MCP server for benchmarks/load.py --server add (standard library only), written as a server
author would write one without an SDK: each line read from stdin as text is parsed with ``json.loads``, each
answer printed with ``json.dumps`` and flushed. It answers initialize, tools/list (one tool, ``add``, of the
numbers ``a`` and ``b``), tools/call and ping, and refuses any other request (server/discover among them) as a
legacy server does. Slower per line than benchmarks/echo_server.py (text decoding, a print per answer): the
server of issue 39's measurement, where client and server compete for two cores.

At stdin's end it writes its own CPU time (user + system seconds) to the file named by
``ECHO_SERVER_CPU_FILE``, as echo_server.py does, so a benchmark can take the server's share out of a client's
process tree."""

import json
import os
import resource
import sys

TOOLS = [{"name": "add", "description": "Add two numbers.",
          "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                          "required": ["a", "b"]}}]


def answer(msg: dict) -> dict:
    method = msg["method"]
    params = msg.get("params") or {}
    if method == "initialize":
        return {"result": {"protocolVersion": params.get("protocolVersion", "2025-11-25"),
                           "capabilities": {"tools": {}}, "serverInfo": {"name": "add-server", "version": "1"}}}
    if method == "tools/list":
        return {"result": {"tools": TOOLS}}
    if method == "tools/call":
        arguments = params.get("arguments") or {}
        if params.get("name") != "add":
            return {"error": {"code": -32602, "message": f"no tool {params.get('name')}"}}
        try:
            total = arguments["a"] + arguments["b"]
        except (KeyError, TypeError):
            return {"result": {"content": [{"type": "text", "text": "a and b must be numbers"}], "isError": True}}
        return {"result": {"content": [{"type": "text", "text": str(total)}]}}
    if method == "ping":
        return {"result": {}}
    return {"error": {"code": -32601, "message": f"no method {method}"}}


def write_cpu() -> None:
    """This process's CPU seconds (user + system) to the file named by ``ECHO_SERVER_CPU_FILE``, if any."""
    where = os.environ.get("ECHO_SERVER_CPU_FILE")
    if where:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        with open(where, "w") as handle:
            handle.write(str(usage.ru_utime + usage.ru_stime))


def main() -> None:
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if not isinstance(msg, dict) or "id" not in msg or "method" not in msg:
            continue  # a notification (notifications/initialized) or a stray answer: nothing to say
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], **answer(msg)}), flush=True)
    write_cpu()


if __name__ == "__main__":
    main()
