"""A stdio MCP server (stdlib only) that puts text looking like HTML everywhere it can: its name, version and
instructions, tool, resource and prompt names and descriptions, results, error messages, log notifications,
stderr, a line of plain text on stdout, and the requests it sends the client (elicitation, sampling).

Usage: ``html_server.py PAYLOAD``. Calling the tool ``ask`` makes it send ``elicitation/create`` and
``sampling/createMessage`` (answered whenever the client answers) before it replies.
"""

from __future__ import annotations

import json
import sys

PAYLOAD = sys.argv[1]
out = sys.stdout.buffer


def send(obj: object) -> None:
    out.write(json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n")
    out.flush()


def result(request: dict, value: object) -> None:
    send({"jsonrpc": "2.0", "id": request["id"], "result": value})


TOOL = {"name": f"tool{PAYLOAD}", "title": f"Title {PAYLOAD}", "description": f"Does {PAYLOAD}",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "description": PAYLOAD}}}}
ASK = {"name": "ask", "description": f"asks the client {PAYLOAD}", "inputSchema": {"type": "object"}}


def main() -> None:
    sys.stderr.write(f"starting {PAYLOAD}\n")
    sys.stderr.flush()
    waiting: dict[int, dict] = {}  # our request id -> the client's tools/call it is part of
    for line in sys.stdin.buffer:
        message = json.loads(line)
        method = message.get("method")
        if method is None:  # an answer to one of our requests
            call = waiting.pop(message.get("id"), None)
            if call is not None and not waiting:
                result(call, {"content": [{"type": "text", "text": f"you answered {PAYLOAD}"}]})
            continue
        if "id" not in message:
            continue
        if method == "initialize":
            out.write(f"banner {PAYLOAD}\n".encode())  # plain text on stdout: a framing error row
            send({"jsonrpc": PAYLOAD, "method": "notifications/message",  # a finding quotes the wrong version
                  "params": {"level": "info", "data": "bad version"}})
            result(message, {"protocolVersion": message["params"]["protocolVersion"],
                             "capabilities": {"tools": {}, "resources": {}, "prompts": {}, "logging": {}},
                             "serverInfo": {"name": f"srv{PAYLOAD}", "version": f"1{PAYLOAD}"},
                             "instructions": f"Use me {PAYLOAD}"})
        elif method == "tools/list":
            result(message, {"tools": [TOOL, ASK]})
        elif method == "resources/list":
            result(message, {"resources": [{"uri": f"file:///{PAYLOAD}", "name": f"res{PAYLOAD}",
                                            "description": PAYLOAD, "mimeType": "text/html"}]})
        elif method == "resources/read":
            result(message, {"contents": [{"uri": f"file:///{PAYLOAD}", "mimeType": "text/html", "text": PAYLOAD}]})
        elif method == "prompts/list":
            result(message, {"prompts": [{"name": f"prompt{PAYLOAD}", "description": PAYLOAD}]})
        elif method == "tools/call" and message["params"]["name"] == "ask":
            send({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": "info", "logger": PAYLOAD, "data": PAYLOAD}})
            waiting[9001] = waiting[9002] = message
            send({"jsonrpc": "2.0", "id": 9001, "method": "elicitation/create",
                  "params": {"message": f"{PAYLOAD} please confirm", "requestedSchema": {
                      "type": "object", "properties": {"ok": {"type": "boolean", "title": PAYLOAD,
                                                              "description": PAYLOAD}}}}})
            send({"jsonrpc": "2.0", "id": 9002, "method": "sampling/createMessage",
                  "params": {"messages": [{"role": "user", "content": {"type": "text", "text": PAYLOAD}}],
                             "systemPrompt": PAYLOAD, "maxTokens": 10}})
        elif method == "tools/call":
            result(message, {"isError": True, "content": [{"type": "text", "text": f"failed: {PAYLOAD}"}]})
        else:
            send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": f"no {PAYLOAD}",
                                                                   "data": PAYLOAD}})


if __name__ == "__main__":
    main()
